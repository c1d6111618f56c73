//! A player's hand as it stands before the river: the best high and low with exactly two hole
//! cards and exactly three of the board cards out so far, and whether a low can still come.
//! For the hand-strength line a player sees under their cards, street by street.

use crate::Card;

use super::reference::{combinations, five_card_high, five_card_low};
use super::value::low_bit;
use super::{HighValue, LowValue};

/// Where the player's low stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowSoFar {
    Made(LowValue),
    /// No low now, but the cards still to come can make one.
    NotYet,
    /// No board to come can give this hand a low.
    Impossible,
}

/// The best high now and where the low stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    pub high: HighValue,
    pub low: LowSoFar,
}

/// The best hands on a board of three to five cards; `None` before the flop (no five-card
/// hand exists yet) or for a board of another size. Cards must be distinct.
pub fn strength(hole: &[Card; 4], board: &[Card]) -> Option<Strength> {
    if !(3..=5).contains(&board.len()) {
        return None;
    }
    let mut high: Option<HighValue> = None;
    let mut low: Option<LowValue> = None;
    for hand in combinations(hole, board) {
        high = high.max(Some(five_card_high(&hand)));
        low = low.max(five_card_low(&hand));
    }
    let high = high?;
    let low = match low {
        Some(made) => LowSoFar::Made(made),
        None if low_possible(hole, board) => LowSoFar::NotYet,
        None => LowSoFar::Impossible,
    };
    Some(Strength { high, low })
}

/// Whether some cards still to come give this hand a low: two distinct low hole ranks and
/// three more distinct low ranks on the board, counting every card still to come as one.
fn low_possible(hole: &[Card; 4], board: &[Card]) -> bool {
    let to_come = 5 - board.len() as u32;
    let board_low = board
        .iter()
        .filter_map(|c| low_bit(c.rank()))
        .fold(0u8, |m, b| m | b);
    let hole_low: Vec<u8> = hole.iter().filter_map(|c| low_bit(c.rank())).collect();
    hole_low.iter().enumerate().any(|(i, &a)| {
        hole_low[i + 1..]
            .iter()
            .any(|&b| a != b && (board_low & !(a | b)).count_ones() + to_come >= 3)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

    use super::*;
    use crate::eval::HandCategory;

    fn cards(text: &str) -> Vec<Card> {
        Card::parse_many(text).unwrap()
    }

    fn hole(text: &str) -> [Card; 4] {
        Card::parse_exact::<4>(text).unwrap()
    }

    #[test]
    fn nothing_before_the_flop() {
        assert_eq!(strength(&hole("AhKd2c3s"), &[]), None);
    }

    #[test]
    fn on_the_flop_the_hand_uses_two_hole_cards_and_the_three_board_cards() {
        // Four hearts in the hand and one on the board: no flush, only exactly two hole cards.
        let s = strength(&hole("AhKhQhJh"), &cards("Th2c3d")).unwrap();
        assert_eq!(s.high.category(), HandCategory::HighCard);
        // A-2-3 with the board and two low hole cards make the wheel as a low.
        let s = strength(&hole("Ah4d9c9s"), &cards("2c3d5h")).unwrap();
        assert_eq!(s.high.category(), HandCategory::Straight);
        let LowSoFar::Made(low) = s.low else {
            panic!("a 5-4-3-2-A low")
        };
        assert_eq!(low.label(), "5-4-3-2-A low");
    }

    #[test]
    fn on_the_river_it_agrees_with_the_showdown_evaluator() {
        let h = hole("Ac2c3c4d");
        let board: [Card; 5] = cards("5c7dKs8h9h").try_into().unwrap();
        let s = strength(&h, &board).unwrap();
        let (high, low) = super::super::best_hands(&h, &board);
        assert_eq!(s.high, high.value);
        assert_eq!(s.low, LowSoFar::Made(low.unwrap().value));
    }

    #[test]
    fn a_low_is_not_yet_there_while_the_board_can_still_bring_one() {
        let s = strength(&hole("Ac2dKsKh"), &cards("7hQcJd")).unwrap();
        assert_eq!(s.low, LowSoFar::NotYet);
        let s = strength(&hole("Ac2dKsKh"), &cards("7hQcJd3s")).unwrap();
        assert_eq!(s.low, LowSoFar::NotYet);
    }

    #[test]
    fn no_low_possible_without_two_low_hole_cards_or_with_a_high_board() {
        // One low hole rank (the two aces are one rank).
        let s = strength(&hole("AcAdKsQh"), &cards("2h3c4d")).unwrap();
        assert_eq!(s.low, LowSoFar::Impossible);
        // Three high cards on the flop and one more: only one card to come.
        let s = strength(&hole("Ac2dKsKh"), &cards("TcJdQh9s")).unwrap();
        assert_eq!(s.low, LowSoFar::Impossible);
        // The board's low ranks duplicate the hole's: A-2 with a board of A, 2 and a king
        // needs three more low ranks, and two cards come.
        let s = strength(&hole("Ac2dKsKh"), &cards("Ah2sKc")).unwrap();
        assert_eq!(s.low, LowSoFar::Impossible);
    }
}
