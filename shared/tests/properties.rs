//! Property tests over random hands: 2-10 players, all three structures, short stacks, random
//! legal (and illegal) actions.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

mod common;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shared::hand::{Action, RaiseBounds};
use shared::{Chips, Deck, Hand, Stakes, Structure};

#[derive(Debug, Clone)]
struct Scenario {
    structure: Structure,
    big_blind: Chips,
    small_blind: Chips,
    stacks: Vec<Chips>,
    button: usize,
    seed: u64,
    rake: bool,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        prop_oneof![
            Just(Structure::FixedLimit),
            Just(Structure::PotLimit),
            Just(Structure::NoLimit)
        ],
        1u64..=40,
        prop::collection::vec(prop_oneof![1u64..=20, 20u64..=400, 400u64..=5000], 2..=10),
        any::<prop::sample::Index>(),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(
            |(structure, big_blind, stacks, button, seed, rake)| Scenario {
                structure,
                big_blind,
                small_blind: big_blind / 2,
                button: button.index(stacks.len()),
                stacks,
                seed,
                rake,
            },
        )
}

fn stakes(s: &Scenario) -> Stakes {
    let mut stakes = match s.structure {
        Structure::FixedLimit => Stakes::fixed_limit(s.big_blind),
        Structure::PotLimit => Stakes::pot_limit(s.small_blind, s.big_blind),
        Structure::NoLimit => Stakes::no_limit(s.small_blind, s.big_blind),
    };
    if s.rake {
        stakes.rake = Some(shared::rules::Rake {
            basis_points: 500,
            cap: 3 * s.big_blind,
        });
    }
    stakes
}

fn pick(rng: &mut ChaCha8Rng, hand: &Hand) -> Option<(u8, Action)> {
    let legal = hand.legal()?;
    let roll = rng.random_range(0..100);
    let action = match (roll, legal.raise) {
        (0..15, _) if !legal.can_check => Action::Fold,
        (0..35, Ok(RaiseBounds { min_to, max_to, .. })) => Action::RaiseTo {
            to: if rng.random_bool(0.3) {
                max_to
            } else {
                rng.random_range(min_to..=max_to)
            },
        },
        _ if legal.can_check => Action::Check,
        _ => Action::Call,
    };
    Some((legal.seat, action))
}

/// An action that must be refused: out of turn, a check facing a bet, a raise out of range.
fn illegal(rng: &mut ChaCha8Rng, hand: &Hand) -> Option<(u8, Action)> {
    let legal = hand.legal()?;
    let other = hand.seats().find(|&s| s != legal.seat)?;
    Some(match rng.random_range(0..4) {
        0 => (other, Action::Call),
        1 if !legal.can_check => (legal.seat, Action::Check),
        2 => match legal.raise {
            Ok(b) => (
                legal.seat,
                Action::RaiseTo {
                    to: b.max_to + 1 + rng.random_range(0..100),
                },
            ),
            Err(_) => (
                legal.seat,
                Action::RaiseTo {
                    to: hand.stack(legal.seat)? * 2 + 1,
                },
            ),
        },
        _ => (legal.seat, Action::RaiseTo { to: 0 }),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn chips_are_conserved_no_stack_goes_negative_and_illegal_actions_change_nothing(s in scenario()) {
        let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
        let seats: Vec<(u8, Chips)> = s.stacks.iter().enumerate().map(|(i, &c)| (i as u8, c)).collect();
        let setup = common::standard(stakes(&s), s.button as u8, &seats);
        let total: Chips = s.stacks.iter().sum();
        let (mut hand, _) = Hand::start(setup, Deck::shuffled(&mut rng)).unwrap();
        prop_assert_eq!(hand.chips_in_play(), total);
        let mut steps = 0;
        while !hand.is_over() {
            if let Some((seat, action)) = illegal(&mut rng, &hand) {
                let before = hand.clone();
                prop_assert!(hand.act(seat, action).is_err());
                prop_assert_eq!(&hand, &before);
            }
            let (seat, action) = pick(&mut rng, &hand).expect("a hand that is not over has someone to act");
            hand.act(seat, action).map_err(|e| TestCaseError::fail(format!("{action:?}: {e}")))?;
            // Arithmetic on chips is checked: any underflow (a negative stack) panics here.
            prop_assert_eq!(hand.chips_in_play(), total);
            steps += 1;
            prop_assert!(steps < 200, "hand did not finish");
        }
        let result = hand.result().unwrap();
        let pot: Chips = result.pots.iter().map(|p| p.amount).sum();
        let paid: Chips = result.pots.iter().flat_map(|p| &p.awards).map(|a| a.amount).sum();
        prop_assert_eq!(paid + result.rake, pot);
        prop_assert_eq!(result.stacks.iter().map(|s| s.1).sum::<Chips>() + result.rake, total);
        for p in &result.pots {
            prop_assert!(p.awards.iter().all(|a| p.eligible.contains(&a.seat)));
        }
        if !result.saw_flop {
            prop_assert_eq!(result.rake, 0);
        }
    }
}
