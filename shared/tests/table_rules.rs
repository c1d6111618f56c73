//! The table across hands: dead button, heads-up, joining, missed blinds, sitting out,
//! buy-ins, the clock and voided hands (docs/rules.md §4, §7, §8, §9).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

use shared::Card;
use shared::hand::{Action, BlindKind, Event, deck_for};
use shared::table::{Deal, Leave, PlayerId, Positions, SeatStatus, Table, TableConfig, TableError};
use shared::{Chips, Deck, Stakes};

fn table(seats: u8) -> Table {
    Table::new(TableConfig::new(Stakes::no_limit(5, 10), seats)).unwrap()
}

fn sit(t: &mut Table, seat: u8, post_now: bool) {
    t.sit(
        seat,
        PlayerId(u128::from(seat) + 100),
        format!("p{seat}"),
        500,
        post_now,
    )
    .unwrap();
}

/// Deals a hand and plays it out by checking or folding; returns its events.
fn play_hand(t: &mut Table) -> Vec<Event> {
    let mut events = t.start_hand(Deck::ordered()).unwrap();
    while let Some(legal) = t.hand().and_then(|h| h.legal()) {
        let action = if legal.can_check {
            Action::Check
        } else {
            Action::Fold
        };
        events.extend(t.act(legal.seat, action).unwrap());
    }
    events
}

fn blinds(events: &[Event]) -> Vec<(u8, BlindKind)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::BlindPosted { seat, blind, .. } => Some((*seat, *blind)),
            _ => None,
        })
        .collect()
}

fn dealt(events: &[Event]) -> Vec<u8> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::HoleCards { seat, .. } => Some(*seat),
            _ => None,
        })
        .collect()
}

fn pos(button: u8, small_blind: u8, big_blind: u8) -> Option<Positions> {
    Some(Positions {
        button,
        small_blind,
        big_blind,
    })
}

#[test]
fn rule_4_dead_button_big_blind_moves_one_occupied_seat_every_hand() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t);
    assert_eq!(t.positions(), pos(0, 2, 4));
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(2, 4, 6));
    assert_eq!(blinds(&e), vec![(4, BlindKind::Small), (6, BlindKind::Big)]);
    play_hand(&mut t);
    assert_eq!(t.positions(), pos(4, 6, 0));
}

#[test]
fn rule_4_dead_small_blind_and_dead_button_when_players_leave() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2 and 4
    assert!(matches!(t.leave(4).unwrap().0, Leave::Now(_)));
    let e = play_hand(&mut t);
    // The big blind moves on to 6; the small blind falls on the empty seat 4: nobody posts it.
    assert_eq!(t.positions(), pos(2, 4, 6));
    assert_eq!(blinds(&e), vec![(6, BlindKind::Big)]);
    let e = play_hand(&mut t);
    // The button falls on the empty seat 4: a dead button.
    assert_eq!(t.positions(), pos(4, 6, 0));
    assert_eq!(blinds(&e), vec![(6, BlindKind::Small), (0, BlindKind::Big)]);
}

#[test]
fn rule_4_heads_up_button_posts_small_blind_and_nobody_posts_big_twice() {
    let mut t = table(6);
    for s in [1, 3] {
        sit(&mut t, s, false);
    }
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(1, 1, 3));
    assert_eq!(blinds(&e), vec![(3, BlindKind::Big), (1, BlindKind::Small)]);
    play_hand(&mut t);
    assert_eq!(t.positions(), pos(3, 3, 1));
}

#[test]
fn rule_4_going_heads_up_keeps_the_big_blind_moving() {
    let mut t = table(6);
    for s in [0, 2, 4] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    t.leave(0).unwrap();
    let e = play_hand(&mut t);
    // Big blind moves from 4 to 2; seat 4, which just paid it, has the button and small blind.
    assert_eq!(t.positions(), pos(4, 4, 2));
    // Listed in dealing order, from the first seat left of the button.
    assert_eq!(blinds(&e), vec![(2, BlindKind::Big), (4, BlindKind::Small)]);
}

#[test]
fn rule_4_leaving_heads_up_the_big_blind_keeps_moving() {
    let mut t = table(6);
    for s in [0, 3] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button/sb 0, bb 3
    sit(&mut t, 5, true);
    let e = play_hand(&mut t);
    // Big blind moves on from 3 to 5 (the newcomer posts it), small blind on 3, button before it.
    assert_eq!(blinds(&e), vec![(3, BlindKind::Small), (5, BlindKind::Big)]);
    assert_eq!(t.positions().map(|p| p.big_blind), Some(5));
    assert_eq!(dealt(&e).len(), 3);
}

#[test]
fn rule_7_new_player_waits_for_the_big_blind_unless_posting() {
    let mut t = table(9);
    for s in [0, 2, 4] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    sit(&mut t, 8, false);
    let e = play_hand(&mut t); // button 2, blinds 4, 0 — big blind skips 8? No: 8 is next after 4.
    // Seat 8 is the next seat after the big blind: the big blind reaches it at once.
    assert_eq!(t.positions(), pos(2, 4, 8));
    assert!(dealt(&e).contains(&8));
    assert_eq!(t.seat(8).unwrap().status, SeatStatus::Playing);
}

#[test]
fn rule_7_waiting_player_is_dealt_in_only_when_the_big_blind_arrives() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    sit(&mut t, 1, false); // between the button and the blinds, waiting
    let e = play_hand(&mut t); // button 2, blinds 4, 6
    assert!(!dealt(&e).contains(&1));
    let e = play_hand(&mut t); // button 4, blinds 6, 0
    assert!(!dealt(&e).contains(&1));
    let e = play_hand(&mut t); // big blind reaches 1
    assert_eq!(t.positions(), pos(6, 0, 1));
    assert!(dealt(&e).contains(&1));
    assert!(blinds(&e).contains(&(1, BlindKind::Big)));
}

#[test]
fn rule_7_new_player_may_post_a_live_big_blind_at_once() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    play_hand(&mut t); // button 2, blinds 4, 6
    // Next hand: button 4, blinds 6 and 0; seat 3 is past the big blind and is not next
    // hand's big blind (seat 2 is).
    sit(&mut t, 3, true);
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(4, 6, 0));
    assert!(blinds(&e).contains(&(3, BlindKind::Big)));
    assert!(dealt(&e).contains(&3));
}

#[test]
fn rule_7_new_player_between_button_and_blinds_waits_even_if_posting() {
    let mut t = table(9);
    for s in [0, 3, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 3, 6
    sit(&mut t, 4, true); // next hand: button 3, small blind 6 — 4 sits between them
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(3, 6, 0));
    assert!(!dealt(&e).contains(&4));
}

#[test]
fn rule_7_missed_blinds_are_posted_big_live_small_dead_on_return() {
    let mut t = table(9);
    for s in [0, 2, 4, 6, 7] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    t.sit_out(6).unwrap();
    play_hand(&mut t); // big blind passes 6 on its way to 7
    assert_eq!(t.positions(), pos(2, 4, 7));
    assert!(t.seat(6).unwrap().missed_big);
    // Everyone at the table sees what the seat owes.
    let view = shared::view::table_view(&t, shared::view::Viewer::Spectator, 2);
    let seat = view.seats[6].as_ref().unwrap();
    assert!(seat.missed_big && !seat.missed_small, "{seat:?}");
    t.sit_in(6, true).unwrap();
    // Next hand has button 4 and big blind 0: seat 6 sits between them and waits.
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(4, 7, 0));
    assert!(!dealt(&e).contains(&6));
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(7, 0, 2));
    let posted = blinds(&e);
    assert!(posted.contains(&(6, BlindKind::Big)), "{posted:?}");
    assert!(posted.contains(&(6, BlindKind::DeadSmall)), "{posted:?}");
    assert!(!t.seat(6).unwrap().missed_big);
    let view = shared::view::table_view(&t, shared::view::Viewer::Spectator, 4);
    assert!(!view.seats[6].as_ref().unwrap().missed_big);
}

#[test]
fn rule_7_returning_player_may_wait_for_the_big_blind_instead_of_paying() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t);
    t.sit_out(6).unwrap();
    play_hand(&mut t);
    t.sit_in(6, false).unwrap();
    let e = play_hand(&mut t);
    assert!(!dealt(&e).contains(&6));
    let mut hands = 0;
    loop {
        let e = play_hand(&mut t);
        hands += 1;
        if dealt(&e).contains(&6) {
            assert_eq!(t.positions().map(|p| p.big_blind), Some(6));
            assert!(!blinds(&e).contains(&(6, BlindKind::DeadSmall)));
            break;
        }
        assert!(hands < 5);
    }
}

#[test]
fn rule_7_players_sat_out_too_long_are_stood_up_with_their_stack() {
    let mut config = TableConfig::new(Stakes::no_limit(5, 10), 6);
    config.max_hands_sat_out = 2;
    let mut t = Table::new(config).unwrap();
    for s in [0, 1, 2] {
        sit(&mut t, s, false);
    }
    t.sit_out(2).unwrap();
    play_hand(&mut t);
    assert!(t.stand_up_idle().is_empty());
    play_hand(&mut t);
    let gone = t.stand_up_idle();
    assert_eq!(gone.len(), 1);
    assert_eq!((gone[0].0, gone[0].1.stack), (2, 500));
    assert!(t.seat(2).is_none());
}

#[test]
fn rule_7_buy_in_is_between_10_and_100_small_bets_by_default() {
    let mut t = Table::new(TableConfig::new(Stakes::fixed_limit(10), 6)).unwrap();
    assert_eq!(
        t.sit(0, PlayerId(1), "a".into(), 99, false),
        Err(TableError::BuyInOutOfRange {
            amount: 99,
            min: 100,
            max: 1000
        })
    );
    assert_eq!(
        t.sit(0, PlayerId(1), "a".into(), 1001, false),
        Err(TableError::BuyInOutOfRange {
            amount: 1001,
            min: 100,
            max: 1000
        })
    );
    t.sit(0, PlayerId(1), "a".into(), 100, false).unwrap();
    assert_eq!(
        t.sit(0, PlayerId(2), "b".into(), 100, false),
        Err(TableError::SeatTaken(0))
    );
    assert_eq!(
        t.sit(1, PlayerId(1), "a".into(), 100, false),
        Err(TableError::AlreadySeated)
    );
    assert_eq!(
        t.sit(6, PlayerId(3), "c".into(), 100, false),
        Err(TableError::NoSuchSeat(6))
    );
}

#[test]
fn rule_7_top_up_only_between_hands_and_up_to_the_maximum() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    sit(&mut t, 1, false);
    t.start_hand(Deck::ordered()).unwrap();
    assert_eq!(t.top_up(0, 10), Err(TableError::HandInProgress));
    while let Some(l) = t.hand().and_then(|h| h.legal()) {
        t.act(l.seat, Action::Fold).unwrap();
    }
    let stack = t.seat(0).unwrap().stack;
    assert_eq!(
        t.top_up(0, 1000 - stack + 1),
        Err(TableError::TopUpTooLarge { max: 1000 })
    );
    t.top_up(0, 1000 - stack).unwrap();
    assert_eq!(t.seat(0).unwrap().stack, 1000);
}

/// Both players push every chip in before the flop on a board with no low, where one hand
/// makes aces full; returns the seat left with nothing.
fn bust_one_of_two(t: &mut Table) -> u8 {
    let holes = [
        Card::parse_exact::<4>("AsAhKsKh").unwrap(),
        Card::parse_exact::<4>("7c7d2c2d").unwrap(),
    ];
    let board = Card::parse_many("AdKd9sJcQh").unwrap();
    t.start_hand(deck_for(&holes, &board, &[]).unwrap())
        .unwrap();
    while let Some(l) = t.hand().and_then(|h| h.legal()) {
        let action = match l.raise {
            Ok(b) => Action::RaiseTo { to: b.max_to },
            Err(_) => Action::Call,
        };
        t.act(l.seat, action).unwrap();
    }
    (0..2)
        .find(|&s| t.seat(s).unwrap().stack == 0)
        .expect("one hand scoops")
}

#[test]
fn rule_7_a_broke_player_rebuys_a_whole_buy_in_before_sitting_in() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    sit(&mut t, 1, false);
    let broke = bust_one_of_two(&mut t);
    assert_eq!(t.seat(broke).unwrap().status, SeatStatus::SittingOut);
    assert_eq!(t.sit_in(broke, true), Err(TableError::NoChips));
    assert_eq!(t.seat(broke).unwrap().status, SeatStatus::SittingOut);
    // §7.9: 100 is this table's minimum buy-in.
    assert_eq!(
        t.top_up(broke, 99),
        Err(TableError::BuyInOutOfRange {
            amount: 99,
            min: 100,
            max: 1000
        })
    );
    assert_eq!(t.seat(broke).unwrap().stack, 0);
    assert_eq!(
        t.top_up(broke, 1001),
        Err(TableError::TopUpTooLarge { max: 1000 })
    );
    t.top_up(broke, 100).unwrap();
    t.sit_in(broke, true).unwrap();
    assert_ne!(t.seat(broke).unwrap().status, SeatStatus::SittingOut);
}

#[test]
fn rule_7_a_short_stack_may_top_up_by_less_than_a_buy_in() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    sit(&mut t, 1, false);
    play_hand(&mut t);
    let short = (0..2).find(|&s| t.seat(s).unwrap().stack < 500).unwrap();
    t.top_up(short, 1).unwrap();
}

#[test]
fn rule_7_an_all_in_player_may_take_back_a_sit_out_during_the_hand() {
    let mut t = table(6);
    t.sit(0, PlayerId(100), "short".into(), 100, true).unwrap();
    for seat in [1, 2] {
        t.sit(
            seat,
            PlayerId(100 + u128::from(seat)),
            format!("p{seat}"),
            1000,
            true,
        )
        .unwrap();
    }
    t.start_hand(Deck::ordered()).unwrap();
    while let Some(l) = t.hand().and_then(|h| h.legal()) {
        if t.seat(0).unwrap().stack == 0 {
            break;
        }
        let action = if l.seat == 0 {
            Action::RaiseTo {
                to: l.raise.unwrap().max_to,
            }
        } else {
            Action::Call
        };
        t.act(l.seat, action).unwrap();
    }
    assert!(t.hand_running());
    assert_eq!(t.seat(0).unwrap().stack, 0);
    t.sit_out(0).unwrap();
    assert!(t.seat(0).unwrap().sit_out_next);
    t.sit_in(0, false).unwrap();
    assert!(!t.seat(0).unwrap().sit_out_next);
}

#[test]
fn rule_8_clock_expiry_checks_or_folds_and_sits_the_player_out() {
    let mut t = table(6);
    for s in [0, 1, 2] {
        sit(&mut t, s, false);
    }
    t.start_hand(Deck::ordered()).unwrap();
    let seat = t.hand().unwrap().to_act().unwrap();
    let events = t.time_out(seat).unwrap();
    assert!(matches!(
        events[0],
        Event::Acted {
            action: shared::hand::Acted::Fold,
            ..
        }
    ));
    while let Some(l) = t.hand().and_then(|h| h.legal()) {
        t.act(
            l.seat,
            if l.can_check {
                Action::Check
            } else {
                Action::Call
            },
        )
        .unwrap();
    }
    assert_eq!(t.seat(seat).unwrap().status, SeatStatus::SittingOut);
}

#[test]
fn leaving_mid_hand_folds_at_the_players_turn_and_frees_the_seat_after() {
    let mut t = table(6);
    for s in [0, 1, 2] {
        sit(&mut t, s, false);
    }
    t.start_hand(Deck::ordered()).unwrap();
    let total = t.chips_on_table();
    let to_act = t.hand().unwrap().to_act().unwrap();
    let (leave, events) = t.leave(to_act).unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Acted { seat, .. } if *seat == to_act))
    );
    assert_eq!(leave, Leave::AfterHand);
    while let Some(l) = t.hand().and_then(|h| h.legal()) {
        t.act(
            l.seat,
            if l.can_check {
                Action::Check
            } else {
                Action::Call
            },
        )
        .unwrap();
    }
    let gone = t.take_leavers();
    assert_eq!(gone.len(), 1);
    let returned: Chips = gone[0].1.stack;
    assert_eq!(t.chips_on_table() + returned, total);
}

#[test]
fn rule_9_voiding_a_hand_restores_every_starting_stack() {
    let mut t = table(6);
    for s in [0, 1, 2] {
        sit(&mut t, s, false);
    }
    t.start_hand(Deck::ordered()).unwrap();
    let seat = t.hand().unwrap().to_act().unwrap();
    t.act(seat, Action::RaiseTo { to: 300 }).unwrap();
    t.void_hand().unwrap();
    for s in [0, 1, 2] {
        assert_eq!(t.seat(s).unwrap().stack, 500);
        assert_eq!(t.seat(s).unwrap().status, SeatStatus::SittingOut);
    }
    assert!(t.hand().is_none());
}

#[test]
fn a_table_needs_two_ready_players() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    assert_eq!(
        t.start_hand(Deck::ordered()).err(),
        Some(TableError::NotEnoughPlayers)
    );
    sit(&mut t, 1, false);
    t.sit_out(1).unwrap();
    assert_eq!(
        t.start_hand(Deck::ordered()).err(),
        Some(TableError::NotEnoughPlayers)
    );
}

fn sit_as(t: &mut Table, seat: u8, player: u128, post_now: bool) {
    t.sit(seat, PlayerId(player), format!("p{player}"), 500, post_now)
        .unwrap();
}

#[test]
fn rule_7_11_two_players_waiting_for_the_big_blind_at_an_emptied_table_are_dealt_in() {
    let mut t = table(6);
    for s in [0, 1] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t);
    t.leave(0).unwrap();
    t.leave(1).unwrap();
    sit(&mut t, 3, false);
    sit(&mut t, 5, false);
    let e = play_hand(&mut t);
    assert_eq!(t.deal(), Some(Deal::Restart));
    assert_eq!(dealt(&e).len(), 2);
    // The big blind still moved on one ready seat from the last one (seat 1): to seat 3.
    assert_eq!(t.positions(), pos(5, 5, 3));
}

#[test]
fn rule_7_12_a_heads_up_newcomer_posting_in_the_seat_just_vacated_does_not_freeze_the_table() {
    let mut t = table(6);
    for s in [0, 1] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button/small blind 0, big blind 1
    play_hand(&mut t); // button/small blind 1, big blind 0
    t.leave(0).unwrap();
    sit_as(&mut t, 0, 900, true);
    let e = play_hand(&mut t);
    assert_eq!(dealt(&e).len(), 2);
    // The big blind moves on from seat 0 to seat 1; the newcomer has the button.
    assert_eq!(t.positions(), pos(0, 0, 1));
    assert_eq!(t.deal(), Some(Deal::Restart));
    play_hand(&mut t);
    assert_eq!(t.deal(), Some(Deal::Positional));
    assert_eq!(t.positions(), pos(1, 1, 0));
}

#[test]
fn rule_7_6_missed_blinds_follow_the_player_to_another_seat() {
    let mut t = table(10);
    for s in [0, 2, 4, 6, 8] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    t.sit_out(6).unwrap();
    play_hand(&mut t); // the big blind passes seat 6 on its way to 8
    assert_eq!(t.positions(), pos(2, 4, 8));
    assert!(t.seat(6).unwrap().missed_big);
    let player = t.seat(6).unwrap().player;
    t.leave(6).unwrap();
    assert_eq!(t.owed_by(player), Some((true, false)));
    // Straight back in seat 3, posting at once: the big blind live plus the small dead.
    t.sit(3, player, "p6".into(), 500, true).unwrap();
    assert!(t.seat(3).unwrap().missed_big);
    assert_eq!(t.owed_by(player), None);
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(4, 8, 0));
    let posted = blinds(&e);
    assert!(posted.contains(&(3, BlindKind::Big)), "{posted:?}");
    assert!(posted.contains(&(3, BlindKind::DeadSmall)), "{posted:?}");
    assert!(!t.seat(3).unwrap().missed_big);
}

#[test]
fn rule_7_6_a_debt_is_forgotten_after_as_many_hands_as_a_sat_out_player_may_stay() {
    let mut config = TableConfig::new(Stakes::no_limit(5, 10), 9);
    config.max_hands_sat_out = 2;
    let mut t = Table::new(config).unwrap();
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t);
    t.sit_out(6).unwrap();
    play_hand(&mut t);
    let player = t.seat(6).unwrap().player;
    t.leave(6).unwrap();
    play_hand(&mut t);
    assert!(t.owed_by(player).is_some());
    play_hand(&mut t);
    assert_eq!(t.owed_by(player), None);
    t.sit(7, player, "p6".into(), 500, true).unwrap();
    assert!(!t.seat(7).unwrap().missed_big);
}

#[test]
fn rule_7_3_a_newcomer_in_the_small_blinds_seat_waits_for_the_button_to_pass() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    play_hand(&mut t); // button 2, blinds 4, 6
    // Next: button 4, small blind 6, big blind 0. Seat 6 leaves and a newcomer takes it.
    t.leave(6).unwrap();
    sit_as(&mut t, 6, 900, true);
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(4, 6, 0));
    assert!(!dealt(&e).contains(&6));
    assert_eq!(blinds(&e), vec![(0, BlindKind::Big)]);
}

#[test]
fn rule_7_3_when_the_big_blind_moves_past_an_empty_button_newcomers_still_wait() {
    let mut t = table(9);
    for s in [0, 2, 4] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    // The button and the small blind leave; newcomers sit at 1, 2 and 3, posting at once.
    t.leave(0).unwrap();
    t.leave(2).unwrap();
    for (seat, player) in [(1, 901), (2, 902), (3, 903)] {
        sit_as(&mut t, seat, player, true);
    }
    let e = play_hand(&mut t);
    // The big blind moves one ready seat, from 4 round past the empty button to seat 1,
    // whose newcomer posts it. Seat 2 is next hand's big blind and seat 3 is on the button
    // before the small blind: both wait. Heads-up, seat 4 has the button and the small blind.
    assert_eq!(t.positions(), pos(4, 4, 1));
    let mut seats = dealt(&e);
    seats.sort();
    assert_eq!(seats, vec![1, 4]);
    let e = play_hand(&mut t);
    assert_eq!(t.positions().map(|p| p.big_blind), Some(2));
    assert!(blinds(&e).contains(&(2, BlindKind::Big)));
    assert!(!dealt(&e).contains(&3));
}

#[test]
fn rule_7_4_a_newcomer_right_after_the_big_blind_is_dealt_in_next_hand_as_the_big_blind() {
    let mut t = table(9);
    for s in [0, 2, 4] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 2, 4
    // Next: button 2, blinds 4 and 0. Seat 1 is next hand's big blind.
    sit_as(&mut t, 1, 900, true);
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(2, 4, 0));
    assert!(!dealt(&e).contains(&1));
    let e = play_hand(&mut t);
    assert_eq!(t.positions(), pos(4, 0, 1));
    assert!(dealt(&e).contains(&1));
    assert_eq!(blinds(&e), vec![(0, BlindKind::Small), (1, BlindKind::Big)]);
}

#[test]
fn rule_7_5_sitting_out_through_a_heads_up_hand_misses_the_small_blind() {
    let mut t = table(6);
    for s in [0, 1, 2] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t); // button 0, blinds 1, 2: seat 2 pays the big blind
    t.sit_out(2).unwrap();
    play_hand(&mut t); // heads-up 0 and 1; the small blind fell on seat 2
    assert_eq!(t.positions().map(|p| p.big_blind), Some(0));
    let s = t.seat(2).unwrap();
    assert!(s.missed_small && !s.missed_big, "{s:?}");
    // Back at once, posting: seat 2 is next hand's big blind, so it waits one hand (§7.4)
    // rather than come in free with the button, and is then dealt in as the big blind.
    t.sit_in(2, true).unwrap();
    let e = play_hand(&mut t);
    assert!(!dealt(&e).contains(&2), "{:?}", dealt(&e));
    let e = play_hand(&mut t);
    assert_eq!(t.positions().map(|p| p.big_blind), Some(2));
    assert!(blinds(&e).contains(&(2, BlindKind::Big)));
}

#[test]
fn rule_7_7_a_player_stood_up_for_sitting_out_is_not_remembered_as_owing() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t);
    t.sit_out(6).unwrap();
    play_hand(&mut t);
    let s = t.stand_up(6).unwrap();
    assert!(s.missed_big);
    assert_eq!(t.owed_by(s.player), None);
    // Back as a new player: nothing owed.
    t.sit(6, s.player, "p6".into(), 500, false).unwrap();
    assert!(!t.seat(6).unwrap().missed_big);
}

#[test]
fn pre_selected_actions_check_when_free_and_otherwise_call_or_fold() {
    use shared::hand::{Legal, RaiseRefusal};
    use shared::protocol::PreAction;
    let free = Legal {
        seat: 0,
        to_call: 0,
        can_check: true,
        raise: Err(RaiseRefusal::Capped),
    };
    let bet = Legal {
        to_call: 10,
        can_check: false,
        ..free
    };
    for pre in [
        PreAction::CheckFold,
        PreAction::CallAny,
        PreAction::FoldToAnyBet,
    ] {
        assert_eq!(pre.resolve(&free), Action::Check, "{pre:?}");
    }
    assert_eq!(PreAction::CheckFold.resolve(&bet), Action::Fold);
    assert_eq!(PreAction::CallAny.resolve(&bet), Action::Call);
    assert_eq!(PreAction::FoldToAnyBet.resolve(&bet), Action::Fold);
}

#[test]
fn sit_and_top_up_checks_are_the_ones_the_server_asks_before_moving_chips() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    assert_eq!(
        t.can_sit(0, PlayerId(9), 500),
        Err(TableError::SeatTaken(0))
    );
    assert_eq!(
        t.can_sit(1, PlayerId(100), 500),
        Err(TableError::AlreadySeated)
    );
    assert_eq!(
        t.can_sit(6, PlayerId(9), 500),
        Err(TableError::NoSuchSeat(6))
    );
    assert!(t.can_sit(1, PlayerId(9), 500).is_ok());
    assert_eq!(
        t.can_top_up(0, 0),
        Err(TableError::TopUpTooLarge { max: 1000 })
    );
    assert_eq!(t.can_top_up(1, 10), Err(TableError::SeatEmpty(1)));
    assert!(t.can_top_up(0, 500).is_ok());
    assert_eq!(
        t.can_top_up(0, 501),
        Err(TableError::TopUpTooLarge { max: 1000 })
    );
}

#[test]
fn rule_7_13_a_player_sits_out_when_their_big_blind_comes_and_misses_it() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t);
    assert_eq!(t.positions(), pos(0, 2, 4));
    // Seat 6 would be the next big blind: asked to sit out then, it plays until it comes.
    t.set_sit_out_at_big_blind(6, true).unwrap();
    let e = play_hand(&mut t);
    assert_eq!(
        t.positions(),
        pos(2, 4, 0),
        "the big blind moved past seat 6"
    );
    assert!(!dealt(&e).contains(&6));
    let s = t.seat(6).unwrap();
    assert_eq!(s.status, SeatStatus::SittingOut);
    assert!(s.missed_big, "{s:?}");
    assert!(!s.sit_out_at_big_blind, "the request is spent");
}

#[test]
fn rule_7_13_the_request_waits_for_the_big_blind_and_can_be_taken_back() {
    let mut t = table(9);
    for s in [0, 2, 4, 6] {
        sit(&mut t, s, false);
    }
    play_hand(&mut t);
    // Seat 2 is the small blind now and the big blind is three hands away.
    t.set_sit_out_at_big_blind(2, true).unwrap();
    let e = play_hand(&mut t);
    assert!(dealt(&e).contains(&2), "still playing before the big blind");
    t.set_sit_out_at_big_blind(2, false).unwrap();
    play_hand(&mut t);
    let e = play_hand(&mut t);
    assert!(dealt(&e).contains(&2));
    assert_eq!(t.seat(2).unwrap().status, SeatStatus::Playing);
}

#[test]
fn rule_7_15_an_automatic_top_up_is_due_between_hands_below_its_stack() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    sit(&mut t, 1, false);
    assert_eq!(
        t.set_auto_top_up(0, Some(5)),
        Err(TableError::AutoTopUpOutOfRange {
            min: 100,
            max: 1000
        })
    );
    t.set_auto_top_up(0, Some(800)).unwrap();
    assert_eq!(t.auto_top_up_due(0), Some(300));
    assert_eq!(t.auto_top_up_due(1), None, "not asked");
    t.start_hand(Deck::ordered()).unwrap();
    assert_eq!(t.auto_top_up_due(0), None, "not during a hand");
}

#[test]
fn rule_6_4_the_uncalled_winner_shows_through_the_table_and_everyone_sees_it() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    sit(&mut t, 3, false);
    t.start_hand(Deck::ordered()).unwrap();
    let first = t.hand().unwrap().to_act().unwrap();
    let other = if first == 0 { 3 } else { 0 };
    assert_eq!(t.show_cards(first), Err(TableError::HandInProgress));
    t.act(first, Action::Fold).unwrap();
    assert_eq!(t.show_cards(first), Err(TableError::NothingToShow));
    t.show_cards(other).unwrap();
    let view = shared::view::table_view(&t, shared::view::Viewer::Spectator, 1);
    assert!(view.seats[other as usize].as_ref().unwrap().cards.is_some());
    assert!(view.seats[first as usize].as_ref().unwrap().cards.is_none());
}

#[test]
fn rule_10_a_newcomer_to_a_seat_never_sees_nor_shows_the_cards_dealt_there() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    sit(&mut t, 3, false);
    t.start_hand(Deck::ordered()).unwrap();
    let first = t.hand().unwrap().to_act().unwrap();
    let winner = if first == 0 { 3 } else { 0 };
    t.act(first, Action::Fold).unwrap();
    // The uncalled winner leaves between hands, a newcomer takes the seat at once.
    assert!(matches!(t.leave(winner), Ok((Leave::Now(_), _))));
    t.sit(winner, PlayerId(999), "new".into(), 500, false)
        .unwrap();
    assert!(!t.dealt_in(winner));
    let view = shared::view::table_view(&t, shared::view::Viewer::Seat(winner), 1);
    assert_eq!(view.seats[winner as usize].as_ref().unwrap().cards, None);
    assert!(!view.can_show);
    assert_eq!(t.show_cards(winner), Err(TableError::NothingToShow));
}

#[test]
fn rule_7_13_sitting_out_for_another_reason_cancels_the_request() {
    let mut t = table(6);
    sit(&mut t, 0, false);
    sit(&mut t, 1, false);
    t.set_sit_out_at_big_blind(1, true).unwrap();
    t.sit_out(1).unwrap();
    t.sit_in(1, false).unwrap();
    assert!(!t.seat(1).unwrap().sit_out_at_big_blind);
}
