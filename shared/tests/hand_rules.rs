//! The hand engine against docs/rules.md, one test (or more) per rule, and the seeds' worked
//! examples.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

mod common;

use common::*;
use shared::hand::{ActionError, Post, RaiseRefusal, Street};
use shared::pot::Share;
use shared::rules::Rake;
use shared::{Event, Stakes};

#[test]
fn seed_002_fixed_limit_hand_pots_are_95_125_205_245() {
    // Players A..F in seats 0..5; D (3) deals, E (4) small blind, F (5) big blind; $10/$20.
    let (a, b, c, d, e, f) = (0, 1, 2, 3, 4, 5);
    let stacks: Vec<(u8, u64)> = (0..6).map(|s| (s, 1000)).collect();
    let (mut h, _) = start(standard(Stakes::fixed_limit(10), d, &stacks));
    act(&mut h, a, fold());
    act(&mut h, b, fold());
    act(&mut h, c, raise(20));
    act(&mut h, d, raise(30));
    act(&mut h, e, fold());
    act(&mut h, f, call());
    act(&mut h, c, call());
    assert_eq!(h.street(), Street::Flop);
    assert_eq!(h.pot_total(), 95);
    act(&mut h, f, check());
    act(&mut h, c, raise(10));
    act(&mut h, d, call());
    act(&mut h, f, call());
    assert_eq!(h.street(), Street::Turn);
    assert_eq!(h.pot_total(), 125);
    act(&mut h, f, check());
    act(&mut h, c, raise(20));
    act(&mut h, d, raise(40));
    act(&mut h, f, fold());
    act(&mut h, c, call());
    assert_eq!(h.street(), Street::River);
    assert_eq!(h.pot_total(), 205);
    act(&mut h, c, raise(20));
    act(&mut h, d, call());
    let result = h.result().expect("showdown");
    assert_eq!(result.pots.iter().map(|p| p.amount).sum::<u64>(), 245);
}

#[test]
fn seed_002_pot_limit_raise_is_70_then_big_blind_reraise_is_220() {
    // Button 0, blinds $10/$20 on seats 1 and 2, first raiser on seat 3.
    let stacks: Vec<(u8, u64)> = (0..4).map(|s| (s, 10_000)).collect();
    let (mut h, _) = start(standard(Stakes::pot_limit(10, 20), 0, &stacks));
    let legal = h.legal().unwrap();
    assert_eq!(legal.seat, 3);
    assert_eq!(legal.raise.unwrap().max_to, 70);
    act(&mut h, 3, raise(70));
    act(&mut h, 0, fold());
    act(&mut h, 1, fold());
    let legal = h.legal().unwrap();
    assert_eq!(legal.seat, 2);
    assert_eq!(legal.raise.unwrap().max_to, 220);
    assert_eq!(
        h.act(2, raise(221)),
        Err(ActionError::RaiseOutOfRange {
            to: 221,
            min: 120,
            max: 220
        })
    );
    act(&mut h, 2, raise(220));
}

#[test]
fn rule_4_small_blind_is_half_the_small_bet() {
    assert_eq!(Stakes::fixed_limit(4).small_blind, 2);
    assert_eq!(Stakes::fixed_limit(200).small_blind, 100);
    assert_eq!(Stakes::fixed_limit(5).small_blind, 2);
}

#[test]
fn rule_4_preflop_starts_left_of_big_blind_and_later_rounds_left_of_button() {
    let stacks: Vec<(u8, u64)> = [1, 3, 5, 7].iter().map(|&s| (s, 500)).collect();
    let (mut h, events) = start(standard(Stakes::no_limit(5, 10), 7, &stacks));
    // Button 7, small blind 1, big blind 3: seat 5 first.
    assert!(events.contains(&Event::BlindPosted {
        seat: 1,
        blind: shared::hand::BlindKind::Small,
        amount: 5,
        all_in: false
    }));
    assert_eq!(h.to_act(), Some(5));
    act(&mut h, 5, call());
    act(&mut h, 7, call());
    act(&mut h, 1, call());
    act(&mut h, 3, check());
    assert_eq!(h.street(), Street::Flop);
    assert_eq!(h.to_act(), Some(1));
}

#[test]
fn rule_4_heads_up_button_posts_small_blind_acts_first_preflop_last_after() {
    let (mut h, events) = start(standard(Stakes::no_limit(5, 10), 4, &[(2, 500), (4, 500)]));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::BlindPosted {
            seat: 4,
            amount: 5,
            ..
        }
    )));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::BlindPosted {
            seat: 2,
            amount: 10,
            ..
        }
    )));
    assert_eq!(h.to_act(), Some(4));
    act(&mut h, 4, call());
    act(&mut h, 2, check());
    assert_eq!(h.street(), Street::Flop);
    assert_eq!(h.to_act(), Some(2));
}

#[test]
fn rule_4_big_blind_has_the_option_when_nobody_raised() {
    let stacks: Vec<(u8, u64)> = (0..3).map(|s| (s, 500)).collect();
    let (mut h, _) = start(standard(Stakes::fixed_limit(10), 0, &stacks));
    act(&mut h, 0, call());
    act(&mut h, 1, call());
    let legal = h.legal().unwrap();
    assert_eq!(legal.seat, 2);
    assert!(legal.can_check);
    assert_eq!(legal.raise.unwrap().min_to, 20);
    act(&mut h, 2, raise(20));
    assert_eq!(h.to_act(), Some(0));
}

#[test]
fn rule_4_short_blind_posts_what_it_has_and_is_all_in() {
    let (mut h, events) = start(standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 100), (1, 3), (2, 7)],
    ));
    assert!(events.contains(&Event::BlindPosted {
        seat: 1,
        blind: shared::hand::BlindKind::Small,
        amount: 3,
        all_in: true
    }));
    assert!(events.contains(&Event::BlindPosted {
        seat: 2,
        blind: shared::hand::BlindKind::Big,
        amount: 7,
        all_in: true
    }));
    // The button must still call a full big blind; then nobody can act and the board runs out.
    assert_eq!(h.legal().unwrap().to_call, 10);
    act(&mut h, 0, call());
    assert!(h.is_over());
    assert_eq!(h.chips_in_play(), 110);
}

#[test]
fn rule_7_missed_blinds_post_big_live_and_small_dead() {
    let setup = shared::HandSetup {
        stakes: Stakes::no_limit(5, 10),
        button: 0,
        big_blind_seat: 2,
        entrants: vec![
            entrant(0, 500, Post::Nothing),
            entrant(1, 500, Post::SmallBlind),
            entrant(2, 500, Post::BigBlind),
            entrant(3, 500, Post::BigAndDeadSmall),
        ],
        run_twice: false,
    };
    let (mut h, _) = start(setup);
    assert_eq!(h.pot_total(), 5 + 10 + 10 + 5);
    // Seat 3's live big blind means it only has to check when everyone calls.
    assert_eq!(h.to_act(), Some(3));
    assert!(h.legal().unwrap().can_check);
    act(&mut h, 3, check());
    act(&mut h, 0, call());
    act(&mut h, 1, call());
    act(&mut h, 2, check());
    assert_eq!(h.pot_total(), 45);
}

#[test]
fn rule_5_fixed_limit_cap_is_four_bets_preflop() {
    let stacks: Vec<(u8, u64)> = (0..4).map(|s| (s, 1000)).collect();
    let (mut h, _) = start(standard(Stakes::fixed_limit(10), 0, &stacks));
    act(&mut h, 3, raise(20));
    act(&mut h, 0, raise(30));
    act(&mut h, 1, raise(40));
    let legal = h.legal().unwrap();
    assert_eq!(legal.raise, Err(RaiseRefusal::Capped));
    assert_eq!(
        h.act(2, raise(50)),
        Err(ActionError::CannotRaise {
            reason: RaiseRefusal::Capped
        })
    );
}

#[test]
fn rule_5_fixed_limit_cap_is_one_bet_three_raises_postflop_and_holds_heads_up() {
    let (mut h, _) = start(standard(
        Stakes::fixed_limit(10),
        0,
        &[(0, 1000), (1, 1000)],
    ));
    act(&mut h, 0, call());
    act(&mut h, 1, check());
    act(&mut h, 1, raise(10));
    act(&mut h, 0, raise(20));
    act(&mut h, 1, raise(30));
    act(&mut h, 0, raise(40));
    assert_eq!(h.legal().unwrap().raise, Err(RaiseRefusal::Capped));
}

#[test]
fn rule_5_uncapped_heads_up_lifts_the_cap_with_two_players() {
    let mut stakes = Stakes::fixed_limit(10);
    stakes.uncapped_heads_up = true;
    let (mut h, _) = start(standard(stakes, 0, &[(0, 1000), (1, 1000)]));
    for to in [20, 30, 40, 50, 60] {
        let seat = h.to_act().unwrap();
        act(&mut h, seat, raise(to));
    }
    assert!(h.legal().unwrap().raise.is_ok());
}

#[test]
fn rule_5_fixed_limit_bets_double_on_turn_and_river() {
    let (mut h, _) = start(standard(
        Stakes::fixed_limit(10),
        0,
        &[(0, 1000), (1, 1000)],
    ));
    act(&mut h, 0, call());
    act(&mut h, 1, check());
    act(&mut h, 1, check());
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 10);
    act(&mut h, 0, check());
    assert_eq!(h.street(), Street::Turn);
    assert_eq!(
        h.legal().unwrap().raise.unwrap(),
        shared::hand::RaiseBounds {
            min_to: 20,
            max_to: 20,
            pot_to: None,
            max_is_all_in: false
        }
    );
}

#[test]
fn rule_5_no_limit_min_bet_is_big_blind_and_min_raise_is_last_raise() {
    let stacks: Vec<(u8, u64)> = (0..3).map(|s| (s, 1000)).collect();
    let (mut h, _) = start(standard(Stakes::no_limit(5, 10), 0, &stacks));
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 20);
    act(&mut h, 0, raise(45));
    let bounds = h.legal().unwrap().raise.unwrap();
    assert_eq!((bounds.min_to, bounds.max_to), (80, 1000));
    act(&mut h, 1, call());
    act(&mut h, 2, call());
    let bounds = h.legal().unwrap().raise.unwrap();
    assert_eq!(bounds.min_to, 10);
    assert_eq!(
        h.act(1, raise(9)),
        Err(ActionError::RaiseOutOfRange {
            to: 9,
            min: 10,
            max: 955
        })
    );
}

#[test]
fn rule_5_short_all_in_raise_lets_only_players_who_have_not_acted_raise() {
    // Button 0, SB 1, BB 2, seat 3 short. Postflop order: 1, 2, 3, 0.
    let (mut h, _) = start(standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 1000), (2, 1000), (3, 160)],
    ));
    act(&mut h, 3, call());
    act(&mut h, 0, call());
    act(&mut h, 1, call());
    act(&mut h, 2, check());
    act(&mut h, 1, raise(100));
    act(&mut h, 2, call());
    act(&mut h, 3, raise(150)); // all-in, 50 more: less than a full raise of 100
    // Seat 0 has not acted: may raise, min to 250.
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 250);
    act(&mut h, 0, call());
    // Seats 1 and 2 acted at 100; 50 more does not reopen.
    assert_eq!(h.legal().unwrap().raise, Err(RaiseRefusal::NotReopened));
    assert_eq!(
        h.act(1, raise(250)),
        Err(ActionError::CannotRaise {
            reason: RaiseRefusal::NotReopened
        })
    );
    act(&mut h, 1, call());
    act(&mut h, 2, call());
    assert_eq!(h.street(), Street::Turn);
}

#[test]
fn rule_5_two_short_all_ins_that_add_up_to_a_full_raise_reopen() {
    // Postflop order 1, 2, 3, 4, 0 with seats 3 and 4 short.
    let (mut h, _) = start(standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 1000), (2, 1000), (3, 160), (4, 230)],
    ));
    for seat in [3, 4, 0, 1] {
        act(&mut h, seat, call());
    }
    act(&mut h, 2, check());
    act(&mut h, 1, raise(100));
    act(&mut h, 2, call());
    act(&mut h, 3, raise(150)); // +50: short
    act(&mut h, 4, raise(220)); // +70 more: short alone, but 120 over seat 1's and 2's 100
    act(&mut h, 0, call());
    assert!(h.legal().unwrap().raise.is_ok(), "{:?}", h.legal());
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 320);
}

#[test]
fn rule_5_fixed_limit_all_in_of_half_a_bet_reopens_less_does_not() {
    for (short_stack, reopens) in [(16, true), (14, false)] {
        // Heads-up plus one: button 0, sb 1, bb 2. Flop: seat 1 bets 10, seat 2 all-in.
        let (mut h, _) = start(standard(
            Stakes::fixed_limit(10),
            0,
            &[(0, 1000), (1, 1000), (2, 10 + short_stack)],
        ));
        act(&mut h, 0, call());
        act(&mut h, 1, call());
        act(&mut h, 2, check());
        act(&mut h, 1, raise(10));
        act(&mut h, 2, raise(short_stack));
        act(&mut h, 0, call());
        let legal = h.legal().unwrap();
        assert_eq!(legal.seat, 1);
        assert_eq!(
            legal.raise.is_ok(),
            reopens,
            "all-in to {short_stack}: {legal:?}"
        );
    }
}

#[test]
fn rule_5_table_stakes_cannot_bet_more_than_the_stack() {
    let (mut h, _) = start(standard(Stakes::no_limit(5, 10), 0, &[(0, 300), (1, 1000)]));
    let bounds = h.legal().unwrap().raise.unwrap();
    assert_eq!(bounds.max_to, 300);
    assert!(bounds.max_is_all_in);
    assert_eq!(
        h.act(0, raise(301)),
        Err(ActionError::RaiseOutOfRange {
            to: 301,
            min: 20,
            max: 300
        })
    );
}

#[test]
fn rule_3_5_uncalled_bet_goes_back_to_its_owner() {
    let (mut h, _) = start(standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 1000), (2, 1000)],
    ));
    act(&mut h, 0, raise(500));
    act(&mut h, 1, fold());
    let events = act(&mut h, 2, fold());
    assert!(events.contains(&Event::UncalledBetReturned {
        seat: 0,
        amount: 490
    }));
    assert_eq!(final_stack(&h, 0), 1015);
    // Everyone folded: nothing is shown.
    assert!(!events.iter().any(|e| matches!(e, Event::Shown { .. })));
}

#[test]
fn rule_3_5_uncalled_part_of_an_all_in_call_goes_back() {
    let (mut h, _) = start(standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 200)]));
    act(&mut h, 0, raise(1000));
    let events = act(&mut h, 1, call());
    assert!(events.contains(&Event::UncalledBetReturned {
        seat: 0,
        amount: 800
    }));
    assert!(h.is_over());
    assert_eq!(h.chips_in_play(), 1200);
}

#[test]
fn rule_3_1_side_pot_whose_players_have_no_low_is_scooped_by_its_best_high() {
    // Button 0, blinds 1 and 2; dealing order 1, 2, 0.
    // Seat 1 (short, 100) has the only low; seats 2 and 0 play a side pot with no low.
    let setup = standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 100), (2, 1000)],
    );
    let (mut h, _) = start_with(setup, &["Ah2h9s9d", "KsKhQsQh", "JcJdTcTd"], "Kd8c3hTs7c");
    act(&mut h, 0, raise(100));
    act(&mut h, 1, call()); // all-in
    act(&mut h, 2, call());
    act(&mut h, 2, raise(500));
    act(&mut h, 0, call());
    act(&mut h, 2, check());
    act(&mut h, 0, check());
    act(&mut h, 2, check());
    act(&mut h, 0, check());
    let r = h.result().unwrap();
    assert_eq!(r.pots.len(), 2);
    // Main pot: seat 2's trip kings take the high half, seat 1's 8-7-3-2-A the low half.
    let main = &r.pots[0];
    assert_eq!(main.amount, 300);
    assert_eq!(
        main.awards
            .iter()
            .map(|a| (a.seat, a.amount))
            .collect::<Vec<_>>(),
        vec![(2, 150), (1, 150)]
    );
    let side = &r.pots[1];
    assert_eq!(side.amount, 1000);
    assert_eq!(side.eligible, vec![2, 0]);
    // Only seats 2 and 0 play for it and neither has a low: the best high takes it all.
    assert_eq!(side.awards.len(), 1);
    assert_eq!(side.awards[0].seat, 2);
    assert_eq!(side.awards[0].share, Share::Whole);
    assert_eq!(h.chips_in_play(), 2100);
}

#[test]
fn rule_3_6_rake_is_a_capped_percentage_and_no_flop_no_drop() {
    let mut stakes = Stakes::no_limit(5, 10);
    stakes.rake = Some(Rake {
        basis_points: 500,
        cap: 30,
    });
    // No flop: no rake.
    let (mut h, _) = start(standard(stakes, 0, &[(0, 1000), (1, 1000)]));
    act(&mut h, 0, raise(100));
    act(&mut h, 1, fold());
    assert_eq!(h.result().unwrap().rake, 0);
    // A flop and a 200 pot: 5% = 10.
    let (mut h, _) = start(standard(stakes, 0, &[(0, 1000), (1, 1000)]));
    act(&mut h, 0, raise(100));
    act(&mut h, 1, call());
    for _ in 0..3 {
        act(&mut h, 1, check());
        act(&mut h, 0, check());
    }
    let r = h.result().unwrap();
    assert_eq!(r.rake, 10);
    assert_eq!(r.stacks.iter().map(|s| s.1).sum::<u64>() + r.rake, 2000);
    // A 2000 pot: 100, capped at 30.
    let (mut h, _) = start(standard(stakes, 0, &[(0, 1000), (1, 1000)]));
    act(&mut h, 0, raise(1000));
    act(&mut h, 1, call());
    assert_eq!(h.result().unwrap().rake, 30);
}

#[test]
fn rule_6_last_river_aggressor_shows_first_and_a_losing_hand_is_mucked() {
    // Heads-up: seat 1 (big blind) acts first after the flop; seat 0 bets the river.
    let setup = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 1000)]);
    // Dealing order from left of the button: seat 1 first.
    let (mut h, _) = start_with(setup, &["2c2dJhJs", "AhAdKcKs"], "Ac7d8s9cTd");
    act(&mut h, 0, call());
    act(&mut h, 1, check());
    for _ in 0..2 {
        act(&mut h, 1, check());
        act(&mut h, 0, check());
    }
    act(&mut h, 1, check());
    act(&mut h, 0, raise(50));
    let events = act(&mut h, 1, call());
    let reveals: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Shown { .. } | Event::Mucked { .. }))
        .collect();
    assert!(
        matches!(reveals[0], Event::Shown { seat: 0, .. }),
        "{reveals:?}"
    );
    // Seat 1's J-T-9-8-7 would need one hole card: it has only a pair of jacks and no low,
    // loses to trip aces, and is mucked.
    assert_eq!(reveals[1], &Event::Mucked { seat: 1 });
}

#[test]
fn rule_6_all_in_hands_are_turned_up_at_once_before_the_run_out() {
    let (mut h, _) = start(standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 300)]));
    act(&mut h, 0, raise(300));
    let events = act(&mut h, 1, call());
    let face_up = events
        .iter()
        .position(|e| matches!(e, Event::HandsFaceUp { .. }))
        .unwrap();
    let flop = events
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::BoardDealt {
                    street: Street::Flop,
                    ..
                }
            )
        })
        .unwrap();
    assert!(face_up < flop);
    assert!(!events.iter().any(|e| matches!(e, Event::Mucked { .. })));
    assert_eq!(h.board().len(), 5);
}

#[test]
fn illegal_actions_are_refused_and_change_nothing() {
    let (mut h, _) = start(standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 1000), (2, 1000)],
    ));
    let before = h.clone();
    assert_eq!(
        h.act(1, call()),
        Err(ActionError::NotYourTurn {
            expected: 0,
            got: 1
        })
    );
    assert_eq!(h.act(7, call()), Err(ActionError::NotInHand(7)));
    assert_eq!(
        h.act(0, check()),
        Err(ActionError::CannotCheck { to_call: 10 })
    );
    assert_eq!(
        h.act(0, raise(15)),
        Err(ActionError::RaiseOutOfRange {
            to: 15,
            min: 20,
            max: 1000
        })
    );
    assert_eq!(
        h.act(0, raise(u64::MAX)),
        Err(ActionError::RaiseOutOfRange {
            to: u64::MAX,
            min: 20,
            max: 1000
        })
    );
    assert_eq!(h, before);
    act(&mut h, 0, call());
    act(&mut h, 1, call());
    assert_eq!(h.act(2, call()), Err(ActionError::NothingToCall));
}

#[test]
fn a_finished_hand_refuses_actions() {
    let (mut h, _) = start(standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 1000)],
    ));
    act(&mut h, 0, fold());
    assert!(h.is_over());
    assert_eq!(h.act(1, check()), Err(ActionError::HandOver));
}

#[test]
fn setup_errors_are_typed() {
    use shared::hand::SetupError;
    let one = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000)]);
    assert_eq!(
        shared::Hand::start(one, shared::Deck::ordered()).err(),
        Some(SetupError::PlayerCount(1))
    );
    let mut dup = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 1000)]);
    dup.entrants[1].seat = 0;
    assert_eq!(
        shared::Hand::start(dup, shared::Deck::ordered()).err(),
        Some(SetupError::DuplicateSeat(0))
    );
    let broke = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 0)]);
    assert_eq!(
        shared::Hand::start(broke, shared::Deck::ordered()).err(),
        Some(SetupError::EmptyStack(1))
    );
}

#[test]
fn rule_3_7_a_walk_with_only_dead_money_pays_the_big_blind() {
    // The small blind's seat (1) is empty; seat 3 is back and posts a dead small blind only.
    let setup = shared::HandSetup {
        stakes: Stakes::no_limit(5, 10),
        button: 0,
        big_blind_seat: 2,
        entrants: vec![
            entrant(0, 1000, Post::Nothing),
            entrant(2, 1000, Post::BigBlind),
            entrant(3, 1000, Post::DeadSmallBlind),
        ],
        run_twice: false,
    };
    let (mut h, _) = start(setup);
    act(&mut h, 3, fold());
    act(&mut h, 0, fold());
    // The big blind's own blind comes back uncalled and the dead chips are its too.
    assert_eq!(final_stack(&h, 2), 1005);
    assert_eq!(final_stack(&h, 3), 995);
    assert_eq!(h.chips_in_play(), 3000);
}

#[test]
fn rule_5_9_heads_up_small_blind_has_no_decision_against_a_big_blind_all_in_for_no_more() {
    // Heads-up the button (seat 0) posts the small blind of 5; the big blind has 5 chips.
    let (h, events) = start(standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 5)]));
    assert!(h.is_over(), "the small blind was asked: {:?}", h.legal());
    assert!(
        !events.iter().any(|e| matches!(e, Event::Acted { .. })),
        "{events:?}"
    );
    assert_eq!(h.board().len(), 5);
    assert_eq!(h.chips_in_play(), 1005);
    // One chip more than the small blind and the small blind must decide again.
    let (h, _) = start(standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 6)]));
    let legal = h.legal().expect("a decision");
    assert_eq!((legal.seat, legal.to_call), (0, 5));
}

#[test]
fn rule_5_3_fixed_limit_next_raise_after_a_half_bet_all_in_is_that_all_in_plus_one_bet() {
    // Button 0, blinds 1 and 2; everyone calls preflop; on the flop seat 1 bets 10 and
    // seat 2 goes all-in to 16 (over half a bet more): a full raise.
    let (mut h, _) = start(standard(
        Stakes::fixed_limit(10),
        0,
        &[(0, 1000), (1, 1000), (2, 26), (3, 1000)],
    ));
    for seat in [3, 0, 1] {
        act(&mut h, seat, call());
    }
    act(&mut h, 2, check());
    act(&mut h, 1, raise(10));
    act(&mut h, 2, raise(16));
    let bounds = h.legal().unwrap().raise.unwrap();
    assert_eq!((h.to_act(), bounds.min_to), (Some(3), 26));
}

#[test]
fn rule_5_3_fixed_limit_stacked_short_all_ins_count_together_from_the_last_full_level() {
    // Flop order 1, 2, 3, 4, 5, 0. Seat 1 bets 10; seats 2 and 3 go all-in to 12 and 14.
    let (mut h, _) = start(standard(
        Stakes::fixed_limit(10),
        0,
        &[(0, 1000), (1, 1000), (2, 22), (3, 24), (4, 25), (5, 1000)],
    ));
    for seat in [3, 4, 5, 0, 1] {
        act(&mut h, seat, call());
    }
    act(&mut h, 2, check());
    act(&mut h, 1, raise(10));
    act(&mut h, 2, raise(12));
    act(&mut h, 3, raise(14));
    // 4 over the last full level of 10: less than half a bet, so a raise goes to 20.
    assert_eq!(h.legal().unwrap().raise.unwrap().max_to, 15); // seat 4's all-in
    let mut other = h.clone();
    act(&mut other, 4, call());
    assert_eq!(other.legal().unwrap().raise.unwrap().min_to, 20);
    // Seat 4's all-in to 15 brings the increase to half a bet: a full raise, next is 25.
    act(&mut h, 4, raise(15));
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 25);
    act(&mut h, 5, raise(25));
    // Seat 1 bet at 10 and now faces a full raise: it may raise again.
    act(&mut h, 0, call());
    assert_eq!(h.to_act(), Some(1));
    assert_eq!(h.legal().unwrap().raise.unwrap().min_to, 35);
}

#[test]
fn rule_6_3_called_all_in_on_the_river_turns_every_hand_face_up() {
    // Heads-up: seat 0 has 60; it shoves 50 on the river and seat 1 calls with a loser.
    let setup = standard(Stakes::no_limit(5, 10), 0, &[(0, 60), (1, 1000)]);
    let (mut h, _) = start_with(setup, &["2c2dJhJs", "AhAdKcKs"], "Ac7d8s9cTd");
    act(&mut h, 0, call());
    act(&mut h, 1, check());
    for _ in 0..2 {
        act(&mut h, 1, check());
        act(&mut h, 0, check());
    }
    act(&mut h, 1, check());
    act(&mut h, 0, raise(50));
    let events = act(&mut h, 1, call());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::HandsFaceUp { .. }))
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::Mucked { .. })),
        "{events:?}"
    );
    assert!(h.is_shown(0) && h.is_shown(1));
}

/// Heads-up, seat 0 on the button: checked down to the river, where seat 0 bets 50 and seat 1
/// calls; the events of the call (the showdown).
fn river_bet_called(h: &mut shared::Hand) -> Vec<Event> {
    act(h, 0, call());
    act(h, 1, check());
    for _ in 0..3 {
        act(h, 1, check());
        let bet = if h.street() == Street::River {
            raise(50)
        } else {
            check()
        };
        act(h, 0, bet);
    }
    act(h, 1, call())
}

#[test]
fn rule_6_2_without_an_all_in_a_losing_river_caller_still_mucks() {
    let setup = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 1000)]);
    let (mut h, _) = start_with(setup, &["2c2dJhJs", "AhAdKcKs"], "Ac7d8s9cTd");
    let events = river_bet_called(&mut h);
    assert!(events.contains(&Event::Mucked { seat: 1 }), "{events:?}");
}

#[test]
fn rule_6_5_with_auto_muck_off_a_losing_hand_is_shown_at_showdown() {
    let setup = standard(Stakes::no_limit(5, 10), 0, &[(0, 1000), (1, 1000)]);
    let (mut h, _) = start_with(setup, &["2c2dJhJs", "AhAdKcKs"], "Ac7d8s9cTd");
    h.set_show_losing(1, true);
    let events = river_bet_called(&mut h);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Shown { seat: 1, .. })),
        "{events:?}"
    );
    assert!(h.is_shown(1));
    // The winnings are the same: showing a loser changes who sees it, nothing else.
    assert_eq!(
        h.result().unwrap().stacks.iter().map(|s| s.1).sum::<u64>(),
        2000
    );
}

#[test]
fn rule_6_4_the_winner_of_an_uncalled_hand_may_show_after_it_and_nobody_else() {
    let (mut h, _) = start(standard(
        Stakes::no_limit(5, 10),
        0,
        &[(0, 1000), (1, 1000)],
    ));
    assert!(!h.show_uncalled(0), "not while the hand runs");
    act(&mut h, 0, raise(30));
    act(&mut h, 1, fold());
    assert!(!h.show_uncalled(1), "the folder may not show");
    assert!(!h.is_shown(0));
    assert!(h.show_uncalled(0));
    assert!(h.is_shown(0));
    assert!(!h.show_uncalled(0), "once");
}
