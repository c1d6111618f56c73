//! Pots: forming the main and side pots from what each player put in, and splitting one pot
//! between high and low under the house rules (docs/rules.md §3).

use serde::{Deserialize, Serialize};

use crate::eval::{HighValue, LowValue};
use crate::rules::Chips;

/// One pot and the seats that can win it (players who put in at least its level and did
/// not fold).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pot {
    pub amount: Chips,
    pub eligible: Vec<u8>,
}

/// What one player put into the hand, in seat order from the first seat left of the button.
#[derive(Clone, Copy, Debug)]
pub struct Contribution {
    pub seat: u8,
    pub amount: Chips,
    pub folded: bool,
}

/// Layers the contributions into pots at each all-in level of a live player. Folded players'
/// chips stay in the layers they reached. Chips above the highest live level (which the
/// uncalled-bet return normally prevents) join the top pot rather than vanish; when no live
/// player put anything in (a walk whose only chips are a dead small blind, docs/rules.md §3.7), those
/// chips form one pot for every live player, so no chip is ever left without a winner.
pub fn build_pots(contributions: &[Contribution]) -> Vec<Pot> {
    let mut levels: Vec<Chips> = contributions
        .iter()
        .filter(|c| !c.folded && c.amount > 0)
        .map(|c| c.amount)
        .collect();
    levels.sort_unstable();
    levels.dedup();

    let mut pots: Vec<Pot> = Vec::with_capacity(levels.len());
    let mut floor = 0;
    for &level in &levels {
        let amount: Chips = contributions
            .iter()
            .map(|c| c.amount.min(level).saturating_sub(floor))
            .sum();
        let eligible: Vec<u8> = contributions
            .iter()
            .filter(|c| !c.folded && c.amount >= level)
            .map(|c| c.seat)
            .collect();
        // Two layers with the same eligible players are one pot as far as anyone can tell.
        match pots.last_mut() {
            Some(last) if last.eligible == eligible => last.amount += amount,
            _ => pots.push(Pot { amount, eligible }),
        }
        floor = level;
    }
    let above: Chips = contributions
        .iter()
        .map(|c| c.amount.saturating_sub(floor))
        .sum();
    if above > 0 {
        match pots.last_mut() {
            Some(last) => last.amount += above,
            None => pots.push(Pot {
                amount: above,
                eligible: contributions
                    .iter()
                    .filter(|c| !c.folded)
                    .map(|c| c.seat)
                    .collect(),
            }),
        }
    }
    pots
}

/// Which half of a pot an award comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Share {
    /// The whole pot: nobody else was eligible, or no eligible low, or the same players won
    /// both halves.
    Whole,
    High,
    Low,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Award {
    pub seat: u8,
    pub amount: Chips,
    pub share: Share,
}

/// A hand that can win a pot.
#[derive(Clone, Copy, Debug)]
pub struct Contender {
    pub seat: u8,
    pub high: HighValue,
    pub low: Option<LowValue>,
}

/// Splits one pot among its contenders, given in seat order starting from the first seat left
/// of the button (that order hands out the odd chips).
pub fn split_pot(amount: Chips, contenders: &[Contender]) -> Vec<Award> {
    let Some(best_high) = contenders.iter().map(|c| c.high).max() else {
        return Vec::new();
    };
    let high: Vec<u8> = contenders
        .iter()
        .filter(|c| c.high == best_high)
        .map(|c| c.seat)
        .collect();
    let low: Vec<u8> = match contenders.iter().filter_map(|c| c.low).max() {
        Some(best_low) => contenders
            .iter()
            .filter(|c| c.low == Some(best_low))
            .map(|c| c.seat)
            .collect(),
        None => Vec::new(),
    };
    if low.is_empty() || low == high {
        return share_out(amount, &high, Share::Whole);
    }
    // The odd chip of a split pot goes to the high half.
    let low_half = amount / 2;
    let mut awards = share_out(amount - low_half, &high, Share::High);
    awards.extend(share_out(low_half, &low, Share::Low));
    awards
}

/// Equal shares; leftover chips one at a time in the given seat order.
fn share_out(amount: Chips, seats: &[u8], share: Share) -> Vec<Award> {
    let n = seats.len() as Chips;
    if n == 0 {
        return Vec::new();
    }
    let each = amount / n;
    let extra = amount % n;
    seats
        .iter()
        .enumerate()
        .map(|(i, &seat)| Award {
            seat,
            amount: each + Chips::from((i as Chips) < extra),
            share,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Card;
    use crate::eval::evaluate;

    fn c(seat: u8, amount: Chips, folded: bool) -> Contribution {
        Contribution {
            seat,
            amount,
            folded,
        }
    }

    fn contender(seat: u8, hole: &str, board: &str) -> Contender {
        let hole = Card::parse_exact::<4>(hole).unwrap();
        let board = Card::parse_exact::<5>(board).unwrap();
        let s = evaluate(&hole, &board);
        Contender {
            seat,
            high: s.high,
            low: s.low,
        }
    }

    #[test]
    fn side_pots_layer_by_all_in_levels_and_keep_folded_chips() {
        let pots = build_pots(&[
            c(1, 50, false),
            c(2, 200, false),
            c(3, 200, false),
            c(4, 100, true),
        ]);
        assert_eq!(
            pots,
            vec![
                Pot {
                    amount: 200,
                    eligible: vec![1, 2, 3]
                },
                Pot {
                    amount: 350,
                    eligible: vec![2, 3]
                },
            ]
        );
    }

    #[test]
    fn rule_3_4_one_player_scoops_both_halves() {
        let board = "Kd8c3hTs7s";
        let a = contender(1, "AsKs2d4c", board); // pair of kings and 8-7-3-2-A
        let b = contender(2, "QdQh9c9d", board);
        let awards = split_pot(100, &[a, b]);
        assert_eq!(
            awards,
            vec![Award {
                seat: 1,
                amount: 100,
                share: Share::Whole
            }]
        );
    }

    #[test]
    fn rule_3_1_pot_without_a_low_goes_whole_to_the_high() {
        let board = "KdKc3hTs9s";
        let a = contender(1, "AsAh2d4c", board);
        let b = contender(2, "QdQh9c9d", board);
        assert_eq!(
            split_pot(101, &[a, b]),
            vec![Award {
                seat: 2,
                amount: 101,
                share: Share::Whole
            }]
        );
    }

    #[test]
    fn rule_3_3_odd_chip_of_a_split_goes_to_the_high_half() {
        let board = "Kd8c3hTs7s";
        let hi = contender(3, "KsKhQdQc", board);
        let lo = contender(5, "As2d4c9h", board);
        assert_eq!(
            split_pot(101, &[hi, lo]),
            vec![
                Award {
                    seat: 3,
                    amount: 51,
                    share: Share::High
                },
                Award {
                    seat: 5,
                    amount: 50,
                    share: Share::Low
                },
            ]
        );
    }

    #[test]
    fn rule_3_2_tied_half_leftovers_go_from_left_of_the_button() {
        // Seats 7 and 2 tie the low; 7 is first left of the button, so it gets the odd chip.
        let board = "Kd8c3hTs7s";
        let hi = contender(4, "KsKhQdQc", board);
        let lo_a = contender(7, "As2d9c9h", board);
        let lo_b = contender(2, "Ac2hJcJh", board);
        let awards = split_pot(103, &[lo_a, lo_b, hi]);
        assert_eq!(
            awards,
            vec![
                Award {
                    seat: 4,
                    amount: 52,
                    share: Share::High
                },
                Award {
                    seat: 7,
                    amount: 26,
                    share: Share::Low
                },
                Award {
                    seat: 2,
                    amount: 25,
                    share: Share::Low
                },
            ]
        );
    }

    #[test]
    fn rule_3_3_same_players_winning_both_halves_split_evenly() {
        // Identical hands in different suits: both tie high and low, 30 pays 15/15, 31 pays 16/15.
        let board = "2c3d8hTsKs";
        let a = contender(1, "Ac4c5dJd", board);
        let b = contender(2, "Ad4h5hJh", board);
        let awards = split_pot(30, &[a, b]);
        assert_eq!(
            awards.iter().map(|a| a.amount).collect::<Vec<_>>(),
            vec![15, 15]
        );
        assert!(awards.iter().all(|a| a.share == Share::Whole));
        let awards = split_pot(31, &[a, b]);
        assert_eq!(
            awards.iter().map(|a| a.amount).collect::<Vec<_>>(),
            vec![16, 15]
        );
    }

    #[test]
    fn quartering_gives_each_half_its_own_split() {
        // A scoops the high alone and ties the low with B: A gets 3/4, B 1/4.
        let board = "2c3d8hTsKs";
        let a = contender(1, "Ac4cKdKh", board);
        let b = contender(2, "Ad4h6c7c", board);
        let awards = split_pot(100, &[a, b]);
        let total_a: Chips = awards
            .iter()
            .filter(|w| w.seat == 1)
            .map(|w| w.amount)
            .sum();
        let total_b: Chips = awards
            .iter()
            .filter(|w| w.seat == 2)
            .map(|w| w.amount)
            .sum();
        assert_eq!((total_a, total_b), (75, 25));
    }
}
