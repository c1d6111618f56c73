//! Plays a PHH hand through the engine (`scoop replay`).

use crate::card::Card;
use crate::hand::{Action, Entrant, Hand, HandSetup, Post, deck_for};
use crate::rules::Chips;
use thiserror::Error;

use super::read::{Move, PhhHand};

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ReplayError {
    #[error("cannot set up the hand: {0}")]
    Setup(String),
    #[error("illegal action `{action}`: {reason}")]
    Illegal { action: String, reason: String },
    #[error("the history ends before the hand is over")]
    Unfinished,
    #[error("action `{0}` comes after the hand is over")]
    AfterEnd(String),
}

/// Replays `hand` and returns the final stacks in player order.
pub fn replay(hand: &PhhHand) -> Result<Vec<Chips>, ReplayError> {
    let n = hand.starting_stacks.len();
    let button = (n - 1) as u8;
    let entrants: Vec<Entrant> = hand
        .starting_stacks
        .iter()
        .enumerate()
        .map(|(i, &stack)| Entrant {
            seat: i as u8,
            stack,
            post: if i == hand.big_blind_player {
                Post::BigBlind
            } else if Some(i) == hand.straddle_player {
                Post::Straddle
            } else if Some(i) == hand.small_blind_player {
                Post::SmallBlind
            } else {
                Post::Nothing
            },
        })
        .collect();
    let setup = HandSetup {
        stakes: hand.stakes,
        button,
        big_blind_seat: hand.big_blind_player as u8,
        entrants,
        run_twice: !hand.second_run.is_empty(),
    };
    let deck = deck_for(&fill_unknown(hand), &hand.board, &hand.second_run)
        .map_err(|e| ReplayError::Setup(e.to_string()))?;
    let (mut engine, _) =
        Hand::start(setup, deck).map_err(|e| ReplayError::Setup(e.to_string()))?;

    for step in &hand.actions {
        if engine.is_over() {
            // pokerkit records a check from the last player able to act when everyone else is
            // all-in; Scoop does not ask for that empty decision and runs the board out.
            if step.action == Move::CheckOrCall {
                continue;
            }
            return Err(ReplayError::AfterEnd(step.text.clone()));
        }
        let action = match step.action {
            Move::Fold => Action::Fold,
            Move::CheckOrCall => match engine.legal() {
                Some(l) if l.can_check => Action::Check,
                _ => Action::Call,
            },
            Move::BetOrRaiseTo(to) => Action::RaiseTo { to },
        };
        engine
            .act(step.player as u8, action)
            .map_err(|e| ReplayError::Illegal {
                action: step.text.clone(),
                reason: e.to_string(),
            })?;
    }
    let result = engine.result().ok_or(ReplayError::Unfinished)?;
    let mut stacks = vec![0; n];
    for &(seat, stack) in &result.stacks {
        stacks[seat as usize] = stack;
    }
    Ok(stacks)
}

/// Hidden hole cards become cards nobody else holds, so a hand that never reached a
/// showdown still replays.
fn fill_unknown(hand: &PhhHand) -> Vec<[Card; 4]> {
    let mut used = 0u64;
    for c in hand
        .hole_cards
        .iter()
        .flatten()
        .flatten()
        .chain(&hand.board)
        .chain(&hand.second_run)
    {
        used |= 1 << c.index();
    }
    let mut spare = (0..52u8)
        .filter(|i| used & (1 << i) == 0)
        .filter_map(Card::from_index);
    hand.hole_cards
        .iter()
        .map(|h| match h {
            Some(cards) => *cards,
            None => {
                let mut cards = [Card::from_index(0).unwrap_or_else(|| unreachable!()); 4];
                for c in cards.iter_mut() {
                    // 10 players × 4 cards + 5 board leave spares for everyone.
                    *c = spare.next().unwrap_or(*c);
                }
                cards
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::read::parse_file;
    use super::*;

    fn fixture(name: &str) -> PhhHand {
        let path = format!(
            "{}/../tools/pokerkit_diff/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let mut hands = parse_file(&text, name).unwrap();
        hands.remove(0).1.unwrap()
    }

    #[test]
    fn fixtures_replay_to_their_house_rule_finishing_stacks() {
        let dir = format!(
            "{}/../tools/pokerkit_diff/fixtures",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut count = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let hand = fixture(&name);
            let expected = hand.finishing_stacks.clone().unwrap();
            assert_eq!(replay(&hand), Ok(expected), "{name}");
            count += 1;
        }
        assert!(count >= 4);
    }

    #[test]
    fn an_illegal_action_is_reported_with_the_reason() {
        let text = r#"
variant = 'NO/8'
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
min_bet = 10
starting_stacks = [100, 100, 100]
actions = ['d dh p1 AhKd2c3s', 'd dh p2 AsKs2d3d', 'd dh p3 QhQdJcJs', 'p1 cc']
"#;
        let hand = parse_file(text, "t").unwrap().remove(0).1.unwrap();
        assert_eq!(
            replay(&hand),
            Err(ReplayError::Illegal {
                action: "p1 cc".into(),
                reason: "it is seat 2's turn, not seat 0's".into()
            })
        );
    }

    #[test]
    fn a_truncated_history_is_unfinished() {
        let text = r#"
variant = 'FO/8'
antes = [0, 0]
blinds_or_straddles = [5, 10]
small_bet = 10
big_bet = 20
starting_stacks = [100, 100]
actions = ['p2 cc']
"#;
        let hand = parse_file(text, "t").unwrap().remove(0).1.unwrap();
        assert_eq!(replay(&hand), Err(ReplayError::Unfinished));
    }

    #[test]
    fn malformed_files_are_errors_not_panics() {
        for text in [
            "variant = 'NLHE'\nblinds_or_straddles=[1,2]\nstarting_stacks=[1,2]\nactions=[]",
            "variant = 'NO/8'\nblinds_or_straddles=[1,2]\nstarting_stacks=[100]\nactions=[]",
            "variant = 'NO/8'\nblinds_or_straddles=[1,2,3]\nstarting_stacks=[9,9,9]\nactions=[]",
            "variant = 'NO/8'\nblinds_or_straddles=[1,2]\nstarting_stacks=[9,9]\nactions=['p3 f']",
            "variant = 'NO/8'\nblinds_or_straddles=[1,2]\nstarting_stacks=[9,9]\nactions=['d dh p1 AhAh2c3c']",
            "variant = 'NO/8'\nblinds_or_straddles=[1,2]\nstarting_stacks=[9,9]\nactions=['p1 cbr 1.5']",
            "variant = 'NO/8'\nblinds_or_straddles=[0.5,1]\nstarting_stacks=[9,9]\nactions=[]",
        ] {
            let parsed = parse_file(text, "t").unwrap();
            assert!(parsed[0].1.is_err(), "{text}");
        }
        assert!(parse_file("this is not toml = = =", "t").is_err());
    }
}
