//! Equity at the table: the events the server adds to an all-in run-out.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

mod common;

use common::{act, call, check, raise, standard, start_with};
use shared::Card;
use shared::equity::{Method, Spot, equity, with_run_out_equity};
use shared::format::{self, HandEquity};
use shared::hand::Street;
use shared::{Event, Stakes};

fn stored(events: &[Event]) -> Vec<format::Event> {
    events.iter().map(format::Event::from).collect()
}

fn equities(events: &[format::Event]) -> Vec<(Street, Vec<HandEquity>)> {
    events
        .iter()
        .filter_map(|e| match e {
            format::Event::Equity { street, hands } => Some((*street, hands.clone())),
            _ => None,
        })
        .collect()
}

fn millionths(x: f64) -> u32 {
    (x * 1e6).round() as u32
}

#[test]
fn an_all_in_preflop_shows_equity_after_the_face_up_the_flop_and_the_turn() {
    // Heads-up, button 0 is the small blind; dealing order: seat 1 first.
    let setup = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 1000)]);
    let (mut h, start) = start_with(setup, &["KsKhQsJs", "Ac2c3c4d"], "2h7dTs9c5h");
    let mut before = stored(&start);
    before.extend(stored(&act(&mut h, 0, raise(1000))));
    let new = stored(&act(&mut h, 1, call()));
    let out = with_run_out_equity(&before, new.clone());

    // Each equity event follows the face-up or the street it is about.
    let after: Vec<String> = out
        .windows(2)
        .filter(|w| matches!(w[1], format::Event::Equity { .. }))
        .map(|w| {
            format!("{:?}", w[0])
                .split([' ', '{'])
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(after, ["HandsFaceUp", "BoardDealt", "BoardDealt"]);
    // Nothing else changed.
    let without: Vec<_> = out
        .iter()
        .filter(|e| !matches!(e, format::Event::Equity { .. }))
        .cloned()
        .collect();
    assert_eq!(without, new);

    let streets = equities(&out);
    assert_eq!(
        streets.iter().map(|s| s.0).collect::<Vec<_>>(),
        [Street::Preflop, Street::Flop, Street::Turn]
    );
    // Preflop: the published 0.556850 for Ac2c3c4d (seat 0).
    let seat = |hands: &[HandEquity], seat: u8| *hands.iter().find(|e| e.seat == seat).unwrap();
    assert_eq!(seat(&streets[0].1, 0).pot, 556_850);
    // The flop value is the calculator's with the flop out.
    let flop = equity(
        &Spot {
            hands: vec![
                Some(Card::parse_exact("Ac2c3c4d").unwrap()),
                Some(Card::parse_exact("KsKhQsJs").unwrap()),
            ],
            board: Card::parse_many("2h7dTs").unwrap(),
            dead: Vec::new(),
        },
        Method::Auto,
    )
    .unwrap();
    let at_flop = &streets[1].1;
    assert_eq!(seat(at_flop, 0).pot, millionths(flop.players[0].pot));
    assert_eq!(seat(at_flop, 1).scoop, millionths(flop.players[1].scoop));
    for (_, hands) in &streets {
        let total: u32 = hands.iter().map(|e| e.pot).sum();
        assert!(total.abs_diff(1_000_000) <= 1, "{hands:?}");
    }
}

#[test]
fn with_a_side_pot_each_pot_is_shared_among_its_own_hands() {
    // Seat 1 is all-in short: the main pot is three-way, the side pot is seats 0 and 2 only.
    // Dealing order 1, 2, 0: seat 1 Ah2h9s9d, seat 2 KsKhQsQh, seat 0 JcJdTcTd.
    let setup = standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 100), (2, 1000)],
    );
    let (mut h, start) = start_with(setup, &["Ah2h9s9d", "KsKhQsQh", "JcJdTcTd"], "Kd8c3hTs7c");
    let mut before = stored(&start);
    before.extend(stored(&act(&mut h, 0, raise(1000))));
    before.extend(stored(&act(&mut h, 1, call())));
    let new = stored(&act(&mut h, 2, call()));
    let preflop = &equities(&with_run_out_equity(&before, new))[0].1;

    let hand = |s: &str| Some(Card::parse_exact::<4>(s).unwrap());
    let main = equity(
        &Spot {
            hands: vec![hand("JcJdTcTd"), hand("Ah2h9s9d"), hand("KsKhQsQh")],
            board: Vec::new(),
            dead: Vec::new(),
        },
        Method::Auto,
    )
    .unwrap();
    let side = equity(
        &Spot {
            hands: vec![hand("JcJdTcTd"), hand("KsKhQsQh")],
            board: Vec::new(),
            dead: Card::parse_many("Ah2h9s9d").unwrap(),
        },
        Method::Auto,
    )
    .unwrap();
    // Main pot 300 (100 each), side pot 1800 (900 each from seats 0 and 2).
    let seat0 = (300.0 * main.players[0].pot + 1800.0 * side.players[0].pot) / 2100.0;
    let seat1 = 300.0 * main.players[1].pot / 2100.0;
    let seat2 = (300.0 * main.players[2].pot + 1800.0 * side.players[1].pot) / 2100.0;
    let got = |seat: u8| preflop.iter().find(|e| e.seat == seat).unwrap();
    assert_eq!(got(0).pot, millionths(seat0));
    assert_eq!(got(1).pot, millionths(seat1));
    assert_eq!(got(2).pot, millionths(seat2));
    // Scoop: the main pot.
    assert_eq!(got(1).scoop, millionths(main.players[1].scoop));
}

#[test]
fn a_hand_played_to_the_river_gets_no_equity() {
    let setup = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 1000)]);
    let (mut h, start) = start_with(setup, &["2c2dJhJs", "AhAdKcKs"], "Ac7d8s9cTd");
    let mut before = stored(&start);
    before.extend(stored(&act(&mut h, 0, call())));
    before.extend(stored(&act(&mut h, 1, check())));
    for _ in 0..3 {
        before.extend(stored(&act(&mut h, 1, check())));
        let new = stored(&act(&mut h, 0, check()));
        let out = with_run_out_equity(&before, new.clone());
        assert!(equities(&out).is_empty());
        before.extend(out);
    }
    assert!(h.is_over());
}

#[test]
fn an_all_in_on_the_river_has_nothing_left_to_run_out() {
    let setup = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 1000)]);
    let (mut h, start) = start_with(setup, &["2c2dJhJs", "AhAdKcKs"], "Ac7d8s9cTd");
    let mut before = stored(&start);
    before.extend(stored(&act(&mut h, 0, call())));
    before.extend(stored(&act(&mut h, 1, check())));
    for _ in 0..2 {
        before.extend(stored(&act(&mut h, 1, check())));
        before.extend(stored(&act(&mut h, 0, check())));
    }
    before.extend(stored(&act(&mut h, 1, raise(990))));
    let new = stored(&act(&mut h, 0, call()));
    assert!(
        new.iter()
            .any(|e| matches!(e, format::Event::HandsFaceUp { .. }))
    );
    assert!(equities(&with_run_out_equity(&before, new)).is_empty());
}
