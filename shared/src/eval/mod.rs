//! Omaha Hi/Lo 8-or-better hand evaluation (RULES.md §2): each hand uses exactly two hole
//! cards and exactly three board cards, for the high and for the low separately.
//!
//! [`reference::evaluate`] does the plain enumeration of the 60 two-plus-three combinations.

mod class;
pub mod reference;
mod value;

pub use value::{HandCategory, HighValue, LowValue};

use crate::Card;

/// A player's result at showdown: the high, and the low if the hand makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Showdown {
    pub high: HighValue,
    pub low: Option<LowValue>,
}

/// A hand with the five cards that make it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MadeHand<V> {
    pub value: V,
    /// Ordered for display: bigger groups first (trips before the pair of a full house), then
    /// higher ranks; straights top-down with the wheel's ace last; lows highest first.
    pub cards: [Card; 5],
}

/// The best high and the best low with the cards that make them, for labels and the UI.
///
/// Enumerates all 60 combinations. When several combinations tie, the first in
/// hole-then-board order is shown.
pub fn best_hands(
    hole: &[Card; 4],
    board: &[Card; 5],
) -> (MadeHand<HighValue>, Option<MadeHand<LowValue>>) {
    reference::best_hands(hole, board)
}
