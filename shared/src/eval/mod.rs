//! Omaha Hi/Lo 8-or-better hand evaluation (docs/rules.md §2): each hand uses exactly two hole
//! cards and exactly three board cards, for the high and for the low separately.
//!
//! The fast path ([`evaluate`], [`BoardEval`]) never enumerates the 60 two-plus-three
//! combinations. Suits matter only for flushes, and at most one suit can have the three board
//! cards a flush needs, so the high is the best of
//! - a rank-only table lookup per pair of hole ranks (6 lookups in one row chosen by the board's
//!   rank multiset),
//! - a flush, when the player holds two cards of the board's flush suit: their two best ranks
//!   with the suit's three best board ranks, which no other choice beats,
//! - a straight flush, tried window by window.
//!
//! The low is one lookup keyed by the low ranks of the board and of the hole.
//! [`reference::evaluate`] does the plain enumeration and is the oracle the tests hold the fast
//! path to.

mod class;
pub mod reference;
mod strength;
mod tables;
mod value;

pub use strength::{LowSoFar, Strength, strength};
pub use value::{HandCategory, HighValue, LowValue};

/// Builds the evaluator's lookup tables now (35-55 ms, about 1.2 MB) instead of during the
/// first showdown. Servers call it at start-up; it is a no-op after the first call.
pub fn warm_up() {
    let _ = tables::tables();
}

use crate::{Card, Suit};

use tables::{
    LANE_COUNTS, LANE_UNITS, LOW_BIT, PAIRS, RANK_PAIR, STRAIGHT_WINDOWS, SUIT_LANE, TRIPLE,
    Tables, tables,
};

/// A player's result at showdown: the high, and the low if the hand makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Showdown {
    pub high: HighValue,
    pub low: Option<LowValue>,
}

/// Evaluates one player's high and low: exactly two of `hole` with exactly three of `board`.
///
/// Cards must be nine distinct cards; with duplicates the result is meaningless (but this does
/// not panic).
#[inline]
pub fn evaluate(hole: &[Card; 4], board: &[Card; 5]) -> Showdown {
    BoardEval::new(board).player(hole)
}

/// The board's share of the work, done once per showdown and reused for every player.
#[derive(Clone, Copy)]
pub struct BoardEval {
    tables: &'static Tables,
    /// Best high per hole rank pair for this board's ranks.
    ranks: &'static [u16; PAIRS],
    /// Best low mask per hole low mask for this board's low ranks.
    low: &'static [u8; 256],
    /// Selects the count field of the flush suit's lane in a sum of [`SUIT_LANE`]s; `0` when
    /// no suit has three board cards.
    flush_count: u64,
    /// What that field holds for two cards of the suit (`1` when there is no flush suit, so
    /// that no hole reaches it).
    two_suited: u64,
    /// Bit offset of the flush suit's lane.
    flush_shift: u32,
    /// Board ranks of the flush suit.
    flush_ranks: u16,
}

impl BoardEval {
    #[inline]
    pub fn new(board: &[Card; 5]) -> Self {
        let tables = tables();
        let cards = board.map(Card::index);
        let [a, b, c, d, e] = cards.map(|c| usize::from(c >> 2));
        let triple = usize::from(TRIPLE[a * 169 + b * 13 + c]);
        let multiset = tables.board[triple][usize::from(RANK_PAIR[d * 16 + e])];
        let lanes = board_lanes(board);
        let low = cards.iter().fold(0, |m, &c| m | LOW_BIT[usize::from(c)]);
        let flush_shift = flush_lane(lanes);
        let has_flush = flush_shift < 64;
        BoardEval {
            tables,
            ranks: &tables.ranks[usize::from(multiset)],
            low: &tables.low[usize::from(low)],
            flush_count: if has_flush { 7 << 13 << flush_shift } else { 0 },
            two_suited: if has_flush { 2 << 13 << flush_shift } else { 1 },
            flush_shift,
            flush_ranks: lanes.checked_shr(flush_shift).unwrap_or(0) as u16 & 0x1fff,
        }
    }

    /// One player's showdown on this board.
    #[inline]
    pub fn player(&self, hole: &[Card; 4]) -> Showdown {
        // The ranks x and y of two hole cards index RANK_PAIR at x * 16 + y, a u8.
        let x16 = hole.map(|card| (card.index() & !3) << 2);
        let y = hole.map(|card| card.index() >> 2);
        let pair =
            |i: usize, j: usize| self.ranks[usize::from(RANK_PAIR[usize::from(x16[i] | y[j])])];
        let mut high = max(
            max(pair(0, 1), pair(0, 2)),
            max(max(pair(0, 3), pair(1, 2)), max(pair(1, 3), pair(2, 3))),
        );

        let lanes: u64 = hole.iter().map(|c| SUIT_LANE[usize::from(c.index())]).sum();
        if (lanes & self.flush_count) >= self.two_suited {
            high = max(high, self.flush_high(lanes));
        }

        let hole_low = hole
            .iter()
            .fold(0, |m, card| m | LOW_BIT[usize::from(card.index())]);
        Showdown {
            high: HighValue(high),
            low: LowValue::from_mask(self.low[usize::from(hole_low)]),
        }
    }

    /// A prepared hole's high and [`low_key`] on this board: the numbers equity compares.
    #[inline]
    pub(crate) fn scores(&self, hole: &Hole) -> (u16, u8) {
        let mut high = hole.rank_high(self.ranks);
        if (hole.lanes & self.flush_count) >= self.two_suited {
            high = max(high, self.flush_high(hole.lanes));
        }
        (high, low_key(self.low[usize::from(hole.low)]))
    }

    /// Best flush or straight flush for a hole (as summed [`SUIT_LANE`]s) with at least two
    /// cards of the flush suit.
    #[cold]
    fn flush_high(&self, hole_lanes: u64) -> u16 {
        let suited = (hole_lanes >> self.flush_shift) as u16 & 0x1fff;
        flush_high(self.tables, suited, self.flush_ranks)
    }
}

/// Best flush or straight flush made of two of the hole's `suited` ranks and three of the
/// board's `board` ranks, all of one suit (at least two and three of them).
fn flush_high(tables: &Tables, suited: u16, board: u16) -> u16 {
    let flush = &tables.flush;
    for window in STRAIGHT_WINDOWS {
        // Exactly two hole cards must fill the window, so the board must hold exactly three
        // of its ranks (hole and board cannot share a suited rank).
        let missing = window & !board;
        let fewer = missing & missing.wrapping_sub(1);
        let exactly_two = fewer != 0 && fewer & (fewer - 1) == 0;
        if exactly_two && suited & missing == missing {
            return flush[usize::from(window)];
        }
    }
    // No other choice beats the two best hole ranks with the three best board ranks.
    flush[usize::from(top_ranks(suited, 2) | top_ranks(board, 3))]
}

/// A hole reduced once to what the tables are indexed by, for the equity enumerations that
/// evaluate one hole against a great many boards.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hole {
    /// [`RANK_PAIR`] index of each of the six pairs of hole cards.
    pairs: [u8; 6],
    /// The hole's [`SUIT_LANE`]s, summed.
    lanes: u64,
    low: u8,
}

impl Hole {
    pub(crate) fn new(hole: &[Card; 4]) -> Hole {
        let r = hole.map(|card| card.index() >> 2);
        let pair = |i: usize, j: usize| RANK_PAIR[usize::from(r[i] << 4 | r[j])];
        Hole {
            pairs: [
                pair(0, 1),
                pair(0, 2),
                pair(0, 3),
                pair(1, 2),
                pair(1, 3),
                pair(2, 3),
            ],
            lanes: hole.iter().map(|c| SUIT_LANE[usize::from(c.index())]).sum(),
            low: hole
                .iter()
                .fold(0, |m, card| m | LOW_BIT[usize::from(card.index())]),
        }
    }

    /// The best high with these board ranks, flushes left out.
    #[inline]
    pub(crate) fn rank_high(&self, row: &[u16; PAIRS]) -> u16 {
        let p = self.pairs.map(|i| row[usize::from(i)]);
        max(max(max(p[0], p[1]), max(p[2], p[3])), max(p[4], p[5]))
    }

    /// The best low's rank mask (`0`: none) against a board's low row.
    #[inline]
    pub(crate) fn low_mask(&self, row: &[u8; 256]) -> u8 {
        row[usize::from(self.low)]
    }

    /// The hole's ranks in `suit` (bit per rank).
    #[inline]
    pub(crate) fn suited(&self, suit: Suit) -> u16 {
        (self.lanes >> (16 * suit as u32)) as u16 & 0x1fff
    }
}

/// The board's [`SUIT_LANE`]s, summed.
#[inline]
fn board_lanes(board: &[Card; 5]) -> u64 {
    board
        .iter()
        .map(|c| SUIT_LANE[usize::from(c.index())])
        .sum()
}

/// Bit offset of the lane of the suit with three or more board cards; 64 when there is none.
#[inline]
fn flush_lane(board_lanes: u64) -> u32 {
    // A lane's count field (3 bits, at most 5) plus 5 carries into bit 3 exactly when it is 3
    // or more; at most one suit can have that many board cards.
    let counts = board_lanes >> 13 & LANE_COUNTS;
    let three_suited = (counts + 5 * LANE_UNITS) & (8 * LANE_UNITS);
    three_suited.trailing_zeros() & !15
}

/// The suit of which the board holds three or more cards, if any: the only suit a flush can
/// be made in.
#[inline]
pub(crate) fn flush_suit(board: &[Card; 5]) -> Option<Suit> {
    Suit::ALL
        .get(flush_lane(board_lanes(board)) as usize / 16)
        .copied()
}

/// How many values [`rank_class`] takes.
pub(crate) const RANK_CLASSES: usize = tables::MULTISETS;

/// The multiset of a board's ranks (`0..13`, any order), numbered in `0..RANK_CLASSES`. Boards
/// of one class score every hole alike unless a flush is possible.
#[inline]
pub(crate) fn rank_class(ranks: [u8; 5]) -> usize {
    let [a, b, c, d, e] = ranks.map(usize::from);
    let triple = usize::from(TRIPLE[a * 169 + b * 13 + c]);
    usize::from(tables().board[triple][usize::from(RANK_PAIR[d * 16 + e])])
}

/// The tables' rows for a board known by its ranks only (`0..13`, any order): the best high
/// per hole rank pair, flushes left out, and the best low per hole low mask.
#[inline]
pub(crate) fn rank_rows(ranks: [u8; 5]) -> (&'static [u16; PAIRS], &'static [u8; 256]) {
    let tables = tables();
    let low = ranks
        .iter()
        .fold(0, |m, &r| m | LOW_BIT[usize::from(r) * 4]);
    (
        &tables.ranks[rank_class(ranks)],
        &tables.low[usize::from(low)],
    )
}

/// The best flush or straight flush of a hole holding `suited` ranks of a suit in which the
/// board holds `board` ranks; `0` (below every hand) when either has too few.
#[inline]
pub(crate) fn suited_high(suited: u16, board: u16) -> u16 {
    if suited.count_ones() < 2 || board.count_ones() < 3 {
        return 0;
    }
    flush_high(tables(), suited, board)
}

/// Comparable low: higher is better, `0` for no low (a five-bit low mask complemented keeps
/// three bits, so it is never `0`).
#[inline]
pub(crate) fn low_key(mask: u8) -> u8 {
    if mask == 0 { 0 } else { !mask }
}

/// Which pair of hole cards makes the best hand is random, so a branch on it would be
/// mispredicted a lot; this keeps the compiler from turning a max into one.
#[inline(always)]
fn max(a: u16, b: u16) -> u16 {
    std::hint::select_unpredictable(a > b, a, b)
}

/// The `n` highest bits of `mask`.
fn top_ranks(mut mask: u16, n: u32) -> u16 {
    while mask.count_ones() > n {
        mask &= mask - 1;
    }
    mask
}

impl std::fmt::Debug for BoardEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoardEval")
            .field("flush_suit", &Suit::ALL.get(self.flush_shift as usize / 16))
            .field("flush_ranks", &format_args!("{:#015b}", self.flush_ranks))
            .finish_non_exhaustive()
    }
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
/// Enumerates all 60 combinations, so it is slow next to [`evaluate`]; its values equal
/// [`evaluate`]'s. When several combinations tie, the first in hole-then-board order is shown.
pub fn best_hands(
    hole: &[Card; 4],
    board: &[Card; 5],
) -> (MadeHand<HighValue>, Option<MadeHand<LowValue>>) {
    reference::best_hands(hole, board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rank;

    /// Every way the board can hold three to five cards of a suit and the hole two to four:
    /// the shortcut (best two hole ranks with best three board ranks, windows for straight
    /// flushes) against trying every two-plus-three choice.
    #[test]
    fn flush_path_matches_brute_force_for_every_suited_board_and_hole() {
        let flush = &tables().flush;
        let ranks_of = |mask: u16| (0..13u8).filter(move |r| mask & 1 << r != 0);
        let suited = |r: u8, suit| Card::new(Rank::new(r).unwrap(), suit);
        for board_mask in (0..1u16 << 13).filter(|m| (3..=5).contains(&m.count_ones())) {
            // Fill the board up with clubs, which cannot make a second flush suit.
            let mut board: Vec<Card> = ranks_of(board_mask)
                .map(|r| suited(r, Suit::Hearts))
                .collect();
            board.extend((0..5 - board.len() as u8).map(|r| suited(r, Suit::Clubs)));
            let board_eval = BoardEval::new(&board.try_into().unwrap());
            assert_eq!(board_eval.flush_shift, 16 * Suit::Hearts as u32);
            assert_eq!(board_eval.flush_ranks, board_mask);

            let free = 0x1fff & !board_mask;
            for hole_mask in
                (0..1u16 << 13).filter(|m| m & free == *m && (2..=4).contains(&m.count_ones()))
            {
                let mut best = 0;
                for p in ranks_of(hole_mask) {
                    for q in ranks_of(hole_mask).filter(|&q| q > p) {
                        for x in ranks_of(board_mask) {
                            for y in ranks_of(board_mask).filter(|&y| y > x) {
                                for z in ranks_of(board_mask).filter(|&z| z > y) {
                                    let hand = [p, q, x, y, z].iter().fold(0u16, |m, r| m | 1 << r);
                                    best = best.max(flush[usize::from(hand)]);
                                }
                            }
                        }
                    }
                }
                let got = board_eval.flush_high(u64::from(hole_mask) << board_eval.flush_shift);
                assert_eq!(got, best, "board {board_mask:013b} hole {hole_mask:013b}");
            }
        }
    }
}
