//! A simple, legal, varied way to play: used by house bots and by `scoop bots`.

use rand::Rng;
use shared::hand::{Action, Legal};

/// Picks a legal action: mostly checks and calls, some folds facing bets, some raises of
/// varied size (all-in now and then in pot and no limit).
pub fn choose<R: Rng + ?Sized>(legal: &Legal, rng: &mut R) -> Action {
    let roll = rng.random_range(0..100);
    if !legal.can_check && roll < 18 {
        return Action::Fold;
    }
    if roll >= 75
        && let Ok(bounds) = legal.raise
    {
        let to = if bounds.min_to == bounds.max_to || roll >= 97 {
            bounds.max_to
        } else {
            // Mostly small raises, like people make.
            let span = (bounds.max_to - bounds.min_to) / 4;
            bounds.min_to + rng.random_range(0..=span)
        };
        return Action::RaiseTo { to };
    }
    if legal.can_check {
        Action::Check
    } else {
        Action::Call
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use shared::hand::{Entrant, Hand, HandSetup, Post};
    use shared::{Deck, Stakes};

    #[test]
    fn bot_choices_are_always_legal_and_finish_hands() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for n in 0..300u64 {
            let stakes = match n % 3 {
                0 => Stakes::fixed_limit(20),
                1 => Stakes::pot_limit(10, 20),
                _ => Stakes::no_limit(10, 20),
            };
            let entrants = (0..6)
                .map(|seat| Entrant {
                    seat,
                    stack: 100 + 200 * u64::from(seat),
                    post: match seat {
                        1 => Post::SmallBlind,
                        2 => Post::BigBlind,
                        _ => Post::Nothing,
                    },
                })
                .collect();
            let setup = HandSetup {
                stakes,
                button: 0,
                big_blind_seat: 2,
                entrants,
                run_twice: false,
            };
            let (mut hand, _) = Hand::start(setup, Deck::shuffled(&mut rand::rng())).unwrap();
            let mut steps = 0;
            while let Some(legal) = hand.legal() {
                hand.act(legal.seat, choose(&legal, &mut rng)).unwrap();
                steps += 1;
                assert!(steps < 200);
            }
            assert!(hand.is_over());
        }
    }
}
