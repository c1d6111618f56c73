//! What the evaluator hands back: comparable strengths and their English labels.

use serde::{Deserialize, Serialize};

use crate::Rank;

use super::class::{self, CATEGORY_START};

/// Strength of a high hand; greater is better, equal means a tie.
///
/// The number is the hand's class among the 7462 distinct 5-card hands (`0` = 7-5-4-3-2,
/// `7461` = royal flush), so values can index tables and compare in one instruction.
///
/// On the wire it is that class number; a number outside the range is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u16", into = "u16")]
pub struct HighValue(pub(super) u16);

/// Number of distinct high hands.
pub const HIGH_CLASSES: u16 = 7462;

impl TryFrom<u16> for HighValue {
    type Error = String;

    fn try_from(class: u16) -> Result<Self, String> {
        if class < HIGH_CLASSES {
            Ok(HighValue(class))
        } else {
            Err(format!(
                "{class} is not a hand class (0 to {})",
                HIGH_CLASSES - 1
            ))
        }
    }
}

impl From<HighValue> for u16 {
    fn from(v: HighValue) -> u16 {
        v.0
    }
}

/// The nine kinds of high hand, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HandCategory {
    HighCard,
    Pair,
    TwoPair,
    Trips,
    Straight,
    Flush,
    FullHouse,
    Quads,
    StraightFlush,
}

impl HandCategory {
    pub(super) const ALL: [HandCategory; 9] = [
        HandCategory::HighCard,
        HandCategory::Pair,
        HandCategory::TwoPair,
        HandCategory::Trips,
        HandCategory::Straight,
        HandCategory::Flush,
        HandCategory::FullHouse,
        HandCategory::Quads,
        HandCategory::StraightFlush,
    ];
}

impl HighValue {
    pub fn category(self) -> HandCategory {
        let i = CATEGORY_START.partition_point(|&start| start <= self.0);
        HandCategory::ALL[i.saturating_sub(1)]
    }

    /// The ranks [`HighValue::label`] names: the main one ("kings" in a full house of kings
    /// full of sevens, the top card of a straight) and the second one (the sevens; the lower
    /// pair of two pair; the next card otherwise). Lets a client word the label in another
    /// language.
    pub fn named_ranks(self) -> [Rank; 2] {
        let key = class::keys()
            .get(usize::from(self.0))
            .copied()
            .unwrap_or_default();
        [rank(class::key_rank(key, 0)), rank(class::key_rank(key, 1))]
    }

    /// English description: "Full house, kings full of sevens", "Straight, five high".
    pub fn label(self) -> String {
        let key = class::keys()
            .get(usize::from(self.0))
            .copied()
            .unwrap_or_default();
        let rank = |i| rank(class::key_rank(key, i));
        match class::key_category(key) {
            HandCategory::StraightFlush if rank(0) == Rank::ACE => "Royal flush".to_string(),
            HandCategory::StraightFlush => format!("Straight flush, {} high", rank(0).name()),
            HandCategory::Quads => format!("Four of a kind, {}", rank(0).plural()),
            HandCategory::FullHouse => format!(
                "Full house, {} full of {}",
                rank(0).plural(),
                rank(1).plural()
            ),
            HandCategory::Flush => format!("Flush, {} high", rank(0).name()),
            HandCategory::Straight => format!("Straight, {} high", rank(0).name()),
            HandCategory::Trips => format!("Three of a kind, {}", rank(0).plural()),
            HandCategory::TwoPair => {
                format!("Two pair, {} and {}", rank(0).plural(), rank(1).plural())
            }
            HandCategory::Pair => format!("Pair of {}", rank(0).plural()),
            HandCategory::HighCard => format!("High card, {}", rank(0).name()),
        }
    }

    /// The ranks that tell this hand from others of its category, most significant first:
    /// the quads', trips' or higher pair's rank before the rest, kickers last; a straight
    /// (flush or not) is only its top card, the five for the wheel. Hand-history writers
    /// word hands their own way from these.
    pub fn ranks(self) -> Vec<Rank> {
        let key = class::keys()
            .get(usize::from(self.0))
            .copied()
            .unwrap_or_default();
        let count = match class::key_category(key) {
            HandCategory::Straight | HandCategory::StraightFlush => 1,
            HandCategory::FullHouse | HandCategory::Quads => 2,
            HandCategory::TwoPair | HandCategory::Trips => 3,
            HandCategory::Pair => 4,
            HandCategory::HighCard | HandCategory::Flush => 5,
        };
        (0..count).map(|i| rank(class::key_rank(key, i))).collect()
    }
}

/// An 8-or-better low; greater is better (so `max()` picks the winner, as for [`HighValue`]).
///
/// Holds the complement of the low's 8-bit rank mask (bit 0 = ace, bit 7 = eight). Comparing
/// two 5-rank lows from the highest card down is comparing their masks as integers, smaller
/// winning, so the complement compares the right way round.
///
/// On the wire it is the plain mask of its five ranks; anything else is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct LowValue(u8);

impl TryFrom<u8> for LowValue {
    type Error = String;

    fn try_from(mask: u8) -> Result<Self, String> {
        if mask.count_ones() == 5 {
            Ok(LowValue(!mask))
        } else {
            Err(format!("{mask:#010b} is not a mask of five low ranks"))
        }
    }
}

impl From<LowValue> for u8 {
    fn from(v: LowValue) -> u8 {
        v.mask()
    }
}

impl LowValue {
    /// The low made of the five ranks in `mask` (bit 0 = ace .. bit 7 = eight), `None` for an
    /// empty mask, which the low tables use for "no low".
    pub(super) fn from_mask(mask: u8) -> Option<LowValue> {
        (mask != 0).then_some(LowValue(!mask))
    }

    pub(super) fn mask(self) -> u8 {
        !self.0
    }

    /// The five ranks, highest first (ace last).
    pub fn ranks(self) -> [Rank; 5] {
        let mask = self.mask();
        let mut ranks = [Rank::ACE; 5];
        let bits = (0..8u8).rev().filter(|&bit| mask & 1 << bit != 0);
        for (slot, bit) in ranks.iter_mut().zip(bits) {
            *slot = low_bit_rank(bit);
        }
        ranks
    }

    /// "8-6-4-2-A low".
    pub fn label(self) -> String {
        let ranks = self.ranks().map(|r| r.to_char().to_string());
        format!("{} low", ranks.join("-"))
    }
}

/// The rank of low-mask bit `bit` (0 = ace, 1 = deuce .. 7 = eight).
fn low_bit_rank(bit: u8) -> Rank {
    match bit {
        0 => Rank::ACE,
        b => rank(b - 1),
    }
}

/// The low-mask bit of a rank, `None` above eight.
pub(super) const fn low_bit(rank: Rank) -> Option<u8> {
    match rank.index() {
        12 => Some(1),
        r @ 0..=6 => Some(1 << (r + 1)),
        _ => None,
    }
}

/// Ranks stored by the evaluator itself are always below 13.
fn rank(index: u8) -> Rank {
    Rank::new(index).unwrap_or(Rank::TWO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_cross_the_wire_as_numbers_and_bad_numbers_are_refused() {
        let high = HighValue(7461);
        assert_eq!(serde_json::to_string(&high).unwrap(), "7461");
        assert_eq!(serde_json::from_str::<HighValue>("7461").unwrap(), high);
        assert!(serde_json::from_str::<HighValue>("7462").is_err());
        let wheel = LowValue::from_mask(0b0001_1111).unwrap();
        assert_eq!(serde_json::to_string(&wheel).unwrap(), "31");
        assert_eq!(serde_json::from_str::<LowValue>("31").unwrap(), wheel);
        assert!(serde_json::from_str::<LowValue>("15").is_err());
        assert_eq!(wheel.label(), "5-4-3-2-A low");
    }

    #[test]
    fn named_ranks_are_the_ranks_the_label_names() {
        for class in 0..HIGH_CLASSES {
            let value = HighValue(class);
            let [first, second] = value.named_ranks();
            let label = value.label();
            assert!(
                label.contains(first.name())
                    || label.contains(first.plural())
                    || label == "Royal flush",
                "{label} does not name {first:?}"
            );
            if matches!(
                value.category(),
                HandCategory::FullHouse | HandCategory::TwoPair
            ) {
                assert!(
                    label.ends_with(second.plural()),
                    "{label} does not end with {second:?}"
                );
            }
        }
    }

    #[test]
    fn every_value_has_a_label_naming_its_category() {
        let prefixes = [
            "High card, ",
            "Pair of ",
            "Two pair, ",
            "Three of a kind, ",
            "Straight, ",
            "Flush, ",
            "Full house, ",
            "Four of a kind, ",
            "Straight flush, ",
        ];
        for v in 0..class::CLASSES as u16 {
            let value = HighValue(v);
            let label = value.label();
            let category = value.category();
            let ok = label.starts_with(prefixes[category as usize])
                || (category == HandCategory::StraightFlush && label == "Royal flush");
            assert!(ok, "{v}: {category:?} labelled {label:?}");
        }
        assert_eq!(HighValue(class::CLASSES as u16 - 1).label(), "Royal flush");
        assert_eq!(HighValue(0).label(), "High card, seven");
    }

    #[test]
    fn ranks_name_the_hand_most_significant_first() {
        let value = |ranks: [u8; 5], flush: bool| {
            HighValue(class::value_of_key(class::key(ranks, flush).unwrap()))
        };
        let chars = |v: HighValue| v.ranks().iter().map(|r| r.to_char()).collect::<String>();
        // Ranks are indices: 0 = deuce .. 12 = ace.
        assert_eq!(chars(value([5, 5, 11, 11, 11], false)), "K7");
        assert_eq!(chars(value([0, 2, 2, 9, 9], false)), "J42");
        assert_eq!(chars(value([12, 0, 1, 2, 3], false)), "5");
        assert_eq!(chars(value([4, 5, 6, 7, 8], true)), "T");
        assert_eq!(chars(value([0, 3, 6, 9, 12], true)), "AJ852");
        assert_eq!(chars(value([1, 1, 1, 1, 7], false)), "39");
    }

    #[test]
    fn low_values_order_like_comparing_ranks_from_the_top() {
        // Ace-low face values, so the ace counts as one.
        let faces = |low: LowValue| {
            low.ranks()
                .map(|r| if r == Rank::ACE { 1 } else { r.index() + 2 })
        };
        let lows: Vec<LowValue> = (0..=255u8)
            .filter(|m| m.count_ones() == 5)
            .filter_map(LowValue::from_mask)
            .collect();
        assert_eq!(lows.len(), 56);
        for &a in &lows {
            assert!(faces(a).is_sorted_by(|x, y| x > y), "{:?}", a.ranks());
            for &b in &lows {
                // Lower face values from the top down make the better (greater) low.
                assert_eq!(
                    a.cmp(&b),
                    faces(b).cmp(&faces(a)),
                    "{} vs {}",
                    a.label(),
                    b.label()
                );
            }
        }
    }
}
