//! The home-game options against docs/rules.md: run it twice (§3.8) and the straddle (§4.8),
//! with rigged decks.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

mod common;

use common::*;
use shared::hand::{BlindKind, Post, RaiseRefusal, SetupError, Street};
use shared::pot::Share;
use shared::table::{PlayerId, Table, TableConfig, TableError};
use shared::{Deck, Event, Hand, HandSetup, Stakes};

/// (seat, amount, share, second run) of every award, in the order paid.
fn awards(events: &[Event]) -> Vec<(u8, u64, Share, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded {
                seat,
                amount,
                share,
                second_run,
                ..
            } => Some((*seat, *amount, *share, *second_run)),
            _ => None,
        })
        .collect()
}

fn second_runs(events: &[Event]) -> Vec<(Street, usize)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::SecondRunDealt { street, cards } => Some((*street, cards.len())),
            _ => None,
        })
        .collect()
}

/// Heads-up, seat 1 on the button; seat 0 (the big blind) is dealt first.
fn heads_up(stack: u64) -> HandSetup {
    standard(Stakes::no_limit(5, 10), 1, &[(0, stack), (1, stack)])
}

// Seat 0 makes kings full on the first board, where no low is possible, and queens and jacks
// on the second; seat 1 has only the second board's low.
const HOLES: [&str; 2] = ["KcQcJhTh", "As3s9c9d"];
const SCOOP_BOARD: &str = "KhKd7cJcQd";
const SPLIT_BOARD: &str = "2c4h6sJdQh";

#[test]
fn rule_3_8_run_twice_halves_the_pot_and_splits_each_half_high_low_on_its_board() {
    let (mut h, _) = start_twice(heads_up(500), &HOLES, SCOOP_BOARD, SPLIT_BOARD);
    act(&mut h, 1, raise(500));
    let events = act(&mut h, 0, call());
    assert_eq!(
        second_runs(&events),
        vec![(Street::Flop, 3), (Street::Turn, 1), (Street::River, 1)]
    );
    assert_eq!(
        h.second_board().unwrap(),
        shared::Card::parse_many(SPLIT_BOARD).unwrap()
    );
    assert_eq!(
        awards(&events),
        vec![
            (0, 500, Share::Whole, false),
            (0, 250, Share::High, true),
            (1, 250, Share::Low, true),
        ]
    );
    assert_eq!((final_stack(&h, 0), final_stack(&h, 1)), (750, 250));
    let second = h.result().unwrap().pots[0].second_run.clone();
    assert_eq!(second.len(), 2);
}

#[test]
fn rule_3_8_the_odd_chip_of_halving_goes_to_the_first_board() {
    // Three players; the small blind folds its 5 chips in, so the pot is odd: 1005.
    let stakes = Stakes::no_limit(5, 10);
    let setup = standard(stakes, 2, &[(0, 500), (1, 500), (2, 500)]);
    // Dealing order: seat 0 (small blind), seat 1 (big blind), seat 2 (button).
    let holes = ["8d8c5h5d", HOLES[0], HOLES[1]];
    let (mut h, _) = start_twice(setup, &holes, SPLIT_BOARD, SCOOP_BOARD);
    act(&mut h, 2, raise(500));
    act(&mut h, 0, fold());
    let events = act(&mut h, 1, call());
    // First board's half is 503: high 252 (the split's odd chip to the high), low 251;
    // the second board's 502 goes whole to seat 1.
    assert_eq!(
        awards(&events),
        vec![
            (1, 252, Share::High, false),
            (2, 251, Share::Low, false),
            (1, 502, Share::Whole, true),
        ]
    );
    assert_eq!(h.chips_in_play(), 1500);
}

#[test]
fn rule_3_8_an_all_in_on_the_flop_runs_the_turn_and_river_twice_on_the_same_flop() {
    let (mut h, _) = start_twice(heads_up(500), &HOLES, "2c4h6sJdQh", "KhKd");
    act(&mut h, 1, call());
    act(&mut h, 0, check());
    assert_eq!(h.street(), Street::Flop);
    act(&mut h, 0, raise(490));
    let events = act(&mut h, 1, call());
    assert_eq!(
        second_runs(&events),
        vec![(Street::Turn, 1), (Street::River, 1)]
    );
    let second = h.second_board().unwrap();
    assert_eq!(&second[..3], &h.board()[..3]);
    assert_eq!(&second[3..], &shared::Card::parse_many("KhKd").unwrap()[..]);
    assert_eq!(h.chips_in_play(), 1000);
}

#[test]
fn rule_3_8_ten_players_all_in_before_the_flop_run_once_for_want_of_cards() {
    let stacks: Vec<(u8, u64)> = (0..10).map(|s| (s, 100)).collect();
    let mut setup = standard(Stakes::no_limit(5, 10), 9, &stacks);
    setup.run_twice = true;
    let (mut h, _) = start(setup);
    let mut events = Vec::new();
    while let Some(l) = h.legal() {
        let action = match l.raise {
            Ok(r) => raise(r.max_to),
            Err(_) => call(),
        };
        events.extend(act(&mut h, l.seat, action));
    }
    assert!(h.is_over());
    assert!(second_runs(&events).is_empty());
    assert!(h.second_board().is_none());
    assert_eq!(h.chips_in_play(), 1000);
}

#[test]
fn rule_3_8_a_hand_that_ends_without_an_all_in_runs_once() {
    let (mut h, _) = start_twice(heads_up(500), &HOLES, SCOOP_BOARD, SPLIT_BOARD);
    act(&mut h, 1, call());
    act(&mut h, 0, check());
    for _ in 0..3 {
        act(&mut h, 0, check());
        act(&mut h, 1, check());
    }
    assert!(h.is_over());
    assert!(h.second_board().is_none());
    assert_eq!(final_stack(&h, 0), 510);
}

/// Four players, button 0: seat 1 small blind, 2 big blind, 3 straddles.
fn straddled(stakes: Stakes) -> Hand {
    let mut setup = standard(stakes, 0, &[(0, 1000), (1, 1000), (2, 1000), (3, 1000)]);
    setup.entrants[3].post = Post::Straddle;
    let (h, events) = start(setup);
    assert!(events.contains(&Event::BlindPosted {
        seat: 3,
        blind: BlindKind::Straddle,
        amount: 2 * stakes.big_blind,
        all_in: false,
    }));
    h
}

#[test]
fn rule_4_8_the_straddle_is_two_big_blinds_and_its_poster_acts_last_preflop() {
    let mut h = straddled(Stakes::no_limit(5, 10));
    let legal = h.legal().unwrap();
    assert_eq!(legal.seat, 0);
    assert_eq!(legal.to_call, 20);
    act(&mut h, 0, call());
    act(&mut h, 1, call());
    act(&mut h, 2, call());
    // Everyone called: the straddler has the option.
    let legal = h.legal().unwrap();
    assert_eq!(legal.seat, 3);
    assert!(legal.can_check);
    act(&mut h, 3, check());
    assert_eq!(h.street(), Street::Flop);
    assert_eq!(h.pot_total(), 80);
}

#[test]
fn rule_4_8_a_raise_over_the_straddle_is_to_at_least_twice_the_straddle() {
    let h = straddled(Stakes::no_limit(5, 10));
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 40);
    // Pot limit: call 20 into 35, then raise the 55 pot: to 75.
    let h = straddled(Stakes::pot_limit(5, 10));
    let bounds = h.legal().unwrap().raise.unwrap();
    assert_eq!((bounds.min_to, bounds.max_to), (40, 75));
}

#[test]
fn rule_4_8_in_fixed_limit_the_straddle_is_the_second_bet_of_the_cap() {
    let mut h = straddled(Stakes::fixed_limit(10));
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 30);
    act(&mut h, 0, raise(30));
    act(&mut h, 1, raise(40));
    assert_eq!(h.legal().unwrap().raise, Err(RaiseRefusal::Capped));
}

#[test]
fn rule_4_8_a_straddle_anywhere_else_or_short_or_heads_up_is_refused() {
    let stakes = Stakes::no_limit(5, 10);
    let four = [(0, 1000), (1, 1000), (2, 1000), (3, 1000)];
    let mut wrong_seat = standard(stakes, 0, &four);
    wrong_seat.entrants[0].post = Post::Straddle;
    let mut short = standard(stakes, 0, &[(0, 1000), (1, 1000), (2, 1000), (3, 20)]);
    short.entrants[3].post = Post::Straddle;
    let mut heads_up = standard(stakes, 0, &[(0, 1000), (1, 1000)]);
    heads_up.entrants[0].post = Post::Straddle;
    for (setup, seat) in [(wrong_seat, 0), (short, 3), (heads_up, 0)] {
        assert_eq!(
            Hand::start(setup, Deck::ordered()).err(),
            Some(SetupError::Straddle(seat))
        );
    }
}

fn table_with(straddle: bool, players: u8) -> Table {
    let mut config = TableConfig::new(Stakes::no_limit(5, 10), 6);
    config.straddle = straddle;
    let mut t = Table::new(config).unwrap();
    for seat in 0..players {
        t.sit(
            seat,
            PlayerId(u128::from(seat) + 1),
            format!("p{seat}"),
            500,
            true,
        )
        .unwrap();
    }
    t
}

fn straddler(events: &[shared::hand::Event]) -> Option<u8> {
    events.iter().find_map(|e| match e {
        shared::hand::Event::BlindPosted {
            seat,
            blind: BlindKind::Straddle,
            ..
        } => Some(*seat),
        _ => None,
    })
}

#[test]
fn rule_4_8_the_table_straddles_for_the_player_left_of_the_big_blind_who_asked() {
    // The first hand: button 0, blinds 1 and 2, so seat 3 is first left of the big blind.
    let mut t = table_with(true, 4);
    t.set_straddle(3, true).unwrap();
    t.set_straddle(0, true).unwrap();
    let events = t.start_hand(Deck::ordered()).unwrap();
    assert_eq!(straddler(&events), Some(3));
    assert_eq!(t.hand().unwrap().to_act(), Some(0));

    // Nobody asked: no straddle.
    let mut t = table_with(true, 4);
    assert_eq!(straddler(&t.start_hand(Deck::ordered()).unwrap()), None);
}

#[test]
fn rule_4_8_no_straddle_heads_up_or_at_a_table_without_them() {
    let mut t = table_with(true, 2);
    t.set_straddle(0, true).unwrap();
    t.set_straddle(1, true).unwrap();
    assert_eq!(straddler(&t.start_hand(Deck::ordered()).unwrap()), None);

    let mut t = table_with(false, 4);
    assert_eq!(t.set_straddle(3, true), Err(TableError::NoStraddle));
    assert_eq!(t.seat(3).map(|s| s.straddle), Some(false));
}

#[test]
fn rule_3_8_a_table_that_runs_twice_deals_a_second_board_after_an_all_in() {
    let mut config = TableConfig::new(Stakes::no_limit(5, 10), 6);
    config.run_twice = true;
    let mut t = Table::new(config).unwrap();
    t.sit(0, PlayerId(1), "ann".into(), 500, true).unwrap();
    t.sit(1, PlayerId(2), "bob".into(), 500, true).unwrap();
    t.start_hand(Deck::ordered()).unwrap();
    let mut events = Vec::new();
    while let Some(l) = t.hand().and_then(|h| h.legal()) {
        let action = match l.raise {
            Ok(r) => raise(r.max_to),
            Err(_) => call(),
        };
        events.extend(t.act(l.seat, action).unwrap());
    }
    assert_eq!(second_runs(&events).len(), 3);
    assert_eq!(t.chips_on_table(), 1000);
}
