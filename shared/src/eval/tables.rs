//! Lookup tables behind the fast path, built once on first use (about 45 ms native).
//!
//! Omaha's "exactly two plus exactly three" rule is what makes the tables small: ignoring suits,
//! the best high with a given pair of hole ranks depends only on the board's rank multiset, and
//! the best low only on which low ranks the board and the hole hold.

use std::sync::OnceLock;

use crate::Rank;

use super::class::{self, all_multisets};
use super::value::low_bit;

/// Unordered pairs of ranks, pairs of equal ranks included: 13 * 14 / 2.
pub(super) const PAIRS: usize = 91;

/// Multisets of three ranks, C(15, 3).
const TRIPLES: usize = 455;

/// Multisets of five ranks, C(17, 5): the range of [`multiset_index`].
pub(super) const MULTISETS: usize = 6188;

pub(super) struct Tables {
    /// `board[TRIPLE[first three ranks]][RANK_PAIR[last two]]`: the board's rank multiset,
    /// which indexes `ranks`. Two lookups instead of sorting five ranks.
    pub board: Box<[[u16; PAIRS]]>,
    /// `ranks[board multiset][hole rank pair]`: the best hand made of that pair and three board
    /// cards, suits ignored (flushes are added separately). 1.1 MB.
    pub ranks: Box<[[u16; PAIRS]]>,
    /// `flush[rank mask]`: the value of five suited cards with these ranks (flush or straight
    /// flush); only masks with five bits are meaningful.
    pub flush: Box<[u16]>,
    /// `low[board low mask][hole low mask]`: the best low's rank mask, `0` when there is none.
    pub low: Box<[[u8; 256]]>,
}

#[inline]
pub(super) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables {
        board: board_table(),
        ranks: rank_table(),
        flush: flush_table(),
        low: low_table(),
    })
}

/// `RANK_PAIR[a * 16 + b]` numbers the unordered rank pair `{a, b}` in `0..PAIRS`. Sized so
/// that any `u8` index is in bounds.
pub(super) const RANK_PAIR: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut hi = 0;
    while hi < 13 {
        let mut lo = 0;
        while lo <= hi {
            let i = (hi * (hi + 1) / 2 + lo) as u8;
            t[hi * 16 + lo] = i;
            t[lo * 16 + hi] = i;
            lo += 1;
        }
        hi += 1;
    }
    t
};

/// `TRIPLE[a * 169 + b * 13 + c]` numbers the rank multiset `{a, b, c}` in `0..TRIPLES`.
pub(super) const TRIPLE: [u16; 2197] = {
    let mut t = [0u16; 2197];
    let mut i = 0;
    while i < 2197 {
        let (mut a, mut b, mut c) = (i / 169, i / 13 % 13, i % 13);
        if a > b {
            (a, b) = (b, a);
        }
        if b > c {
            (b, c) = (c, b);
        }
        if a > b {
            (a, b) = (b, a);
        }
        // Combinatorial number system, as in `multiset_index`.
        t[i] = (binomial(a, 1) + binomial(b + 1, 2) + binomial(c + 2, 3)) as u16;
        i += 1;
    }
    t
};

/// Per card, a 64-bit word with a 16-bit lane per suit: the card's rank bit in its suit's lane
/// (bits 0..13) and a one in that lane's count field (bits 13..16). Adding the words of a few
/// distinct cards gives each suit's rank mask and card count at once.
pub(super) const SUIT_LANE: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut card = 0;
    while card < 52 {
        let lane = 16 * (card & 3);
        t[card] = (1 << (card >> 2) | 1 << 13) << lane;
        card += 1;
    }
    t
};

/// A one in the lowest bit of every lane.
pub(super) const LANE_UNITS: u64 = 0x0001_0001_0001_0001;
/// Every lane's count field, shifted down to the lane's lowest bits.
pub(super) const LANE_COUNTS: u64 = 7 * LANE_UNITS;

/// Low-mask bit of each card index (`0` above eight). 256 entries so that indexing with a
/// `u8` needs no bounds check.
pub(super) const LOW_BIT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut card = 0;
    while card < 52 {
        if let Some(rank) = Rank::new((card >> 2) as u8)
            && let Some(bit) = low_bit(rank)
        {
            t[card] = bit;
        }
        card += 1;
    }
    t
};

/// Every rank window of a straight, best first; the last is the wheel (ace low).
pub(super) const STRAIGHT_WINDOWS: [u16; 10] = [
    0x1f00, 0x0f80, 0x07c0, 0x03e0, 0x01f0, 0x00f8, 0x007c, 0x003e, 0x001f, 0x100f,
];

const fn binomial(n: usize, k: usize) -> usize {
    let mut acc = 1;
    let mut i = 0;
    while i < k {
        // Exact at every step: acc = C(n, i) before, C(n, i + 1) after.
        acc = acc * (n - i) / (i + 1);
        i += 1;
    }
    acc
}

/// Index `0..MULTISETS` of a multiset of five ranks: adding `i` to the `i`th smallest rank
/// makes the ranks strictly increasing in `0..17`, and the combinatorial number system numbers
/// those 5-subsets densely.
fn multiset_index(ranks: [u8; 5]) -> usize {
    let mut sorted = ranks;
    sorted.sort_unstable();
    sorted
        .iter()
        .enumerate()
        .map(|(i, &r)| binomial(usize::from(r) + i, i + 1))
        .sum()
}

fn board_table() -> Box<[[u16; PAIRS]]> {
    let mut t = vec![[0u16; PAIRS]; TRIPLES].into_boxed_slice();
    // TRIPLE and RANK_PAIR ignore order, so ascending choices reach every entry.
    for a in 0..13u8 {
        for b in a..13 {
            for c in b..13 {
                let triple = &mut t[usize::from(
                    TRIPLE[usize::from(a) * 169 + usize::from(b) * 13 + usize::from(c)],
                )];
                for d in 0..13 {
                    for e in d..13 {
                        let multiset = multiset_index([a, b, c, d, e]) as u16;
                        triple[usize::from(RANK_PAIR[usize::from(d * 16 + e)])] = multiset;
                    }
                }
            }
        }
    }
    t
}

/// Three of the five board cards, every way.
const BOARD_TRIPLES: [[usize; 3]; 10] = [
    [0, 1, 2],
    [0, 1, 3],
    [0, 1, 4],
    [0, 2, 3],
    [0, 2, 4],
    [0, 3, 4],
    [1, 2, 3],
    [1, 2, 4],
    [1, 3, 4],
    [2, 3, 4],
];

fn rank_table() -> Box<[[u16; PAIRS]]> {
    let mut five = vec![0u16; MULTISETS];
    for m in all_multisets() {
        five[multiset_index(m)] = class::key(m, false).map_or(0, class::value_of_key);
    }
    let mut rows = vec![[0u16; PAIRS]; MULTISETS].into_boxed_slice();
    for board in all_multisets() {
        let row = &mut rows[multiset_index(board)];
        for hi in 0..13u8 {
            for lo in 0..=hi {
                // Impossible combinations (a sixth ace) score 0 and never win the max.
                row[usize::from(RANK_PAIR[usize::from(hi * 16 + lo)])] = BOARD_TRIPLES
                    .iter()
                    .map(|&[a, b, c]| five[multiset_index([board[a], board[b], board[c], lo, hi])])
                    .max()
                    .unwrap_or(0);
            }
        }
    }
    rows
}

fn flush_table() -> Box<[u16]> {
    (0..1u16 << 13)
        .map(|mask| {
            if mask.count_ones() != 5 {
                return 0;
            }
            let mut ranks = [0u8; 5];
            let bits = (0..13u8).filter(|&r| mask & 1 << r != 0);
            for (slot, r) in ranks.iter_mut().zip(bits) {
                *slot = r;
            }
            class::key(ranks, true).map_or(0, class::value_of_key)
        })
        .collect()
}

/// For each pair `P` of distinct hole low ranks, the best low using `P` takes the three lowest
/// board ranks not in `P` (lower is better whatever `P` is), and the best over all `P` is the
/// smallest mask: comparing 5-rank lows from the top card down is comparing masks as integers.
fn low_table() -> Box<[[u8; 256]]> {
    let mut table = vec![[0u8; 256]; 256].into_boxed_slice();
    for (board, row) in table.iter_mut().enumerate() {
        let board = board as u8;
        for (hole, best) in row.iter_mut().enumerate() {
            let hole = hole as u8;
            *best = (0..8)
                .flat_map(|i| (i + 1..8).map(move |j| 1u8 << i | 1 << j))
                .filter(|&pair| pair & hole == pair)
                .filter_map(|pair| lowest_three(board & !pair).map(|rest| pair | rest))
                .min()
                .unwrap_or(0);
        }
    }
    table
}

/// The three lowest bits of `mask`, if it has three.
fn lowest_three(mask: u8) -> Option<u8> {
    let mut rest = mask;
    let mut taken = 0;
    for _ in 0..3 {
        if rest == 0 {
            return None;
        }
        let bit = rest & rest.wrapping_neg();
        taken |= bit;
        rest &= !bit;
    }
    Some(taken)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::class::{key, value_of_key};

    #[test]
    fn rank_pair_numbers_the_91_rank_pairs_densely_and_symmetrically() {
        let mut seen = [false; PAIRS];
        for a in 0..13 {
            for b in 0..13 {
                assert_eq!(RANK_PAIR[a * 16 + b], RANK_PAIR[b * 16 + a]);
            }
            for b in 0..=a {
                seen[usize::from(RANK_PAIR[a * 16 + b])] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn multiset_index_numbers_all_multisets_densely() {
        let mut seen = vec![false; MULTISETS];
        for m in all_multisets() {
            let i = multiset_index(m);
            assert!(!seen[i], "{m:?} collides");
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn board_table_finds_the_multiset_of_every_sequence_of_five_ranks() {
        let t = tables();
        for n in 0..13usize.pow(5) {
            let r: [u8; 5] = std::array::from_fn(|i| (n / 13usize.pow(i as u32) % 13) as u8);
            let [a, b, c, d, e] = r.map(usize::from);
            let triple = usize::from(TRIPLE[a * 169 + b * 13 + c]);
            let multiset = t.board[triple][usize::from(RANK_PAIR[d * 16 + e])];
            assert_eq!(usize::from(multiset), multiset_index(r), "{r:?}");
        }
    }

    #[test]
    fn rank_rows_match_brute_force_for_every_board_multiset_and_hole_pair() {
        let t = tables();
        for board in all_multisets() {
            let row = &t.ranks[multiset_index(board)];
            for hi in 0..13u8 {
                for lo in 0..=hi {
                    let mut counts = [0u8; 13];
                    for r in board.iter().chain([&hi, &lo]) {
                        counts[usize::from(*r)] += 1;
                    }
                    if counts.iter().any(|&c| c > 4) {
                        continue; // not dealable
                    }
                    let mut best = None;
                    for a in 0..5 {
                        for b in a + 1..5 {
                            for c in b + 1..5 {
                                let hand = [board[a], board[b], board[c], hi, lo];
                                best = best.max(key(hand, false));
                            }
                        }
                    }
                    let want = best.map_or(0, value_of_key);
                    let pair = RANK_PAIR[usize::from(hi * 16 + lo)];
                    assert_eq!(row[usize::from(pair)], want, "{board:?} + {hi},{lo}");
                }
            }
        }
    }

    #[test]
    fn flush_table_matches_the_class_ranking_for_every_five_rank_set() {
        let t = tables();
        let mut flushes = 0;
        for mask in 0..1u16 << 13 {
            if mask.count_ones() == 5 {
                let ranks: Vec<u8> = (0..13).filter(|&r| mask & 1 << r != 0).collect();
                let want = key(ranks.try_into().unwrap(), true).map(value_of_key);
                assert_eq!(Some(t.flush[usize::from(mask)]), want);
                flushes += 1;
            }
        }
        assert_eq!(flushes, 1287);
        for w in STRAIGHT_WINDOWS {
            assert_eq!(w.count_ones(), 5);
        }
        let sf: Vec<u16> = STRAIGHT_WINDOWS
            .iter()
            .map(|&w| t.flush[usize::from(w)])
            .collect();
        assert!(sf.is_sorted_by(|a, b| a > b), "windows must go best first");
    }

    #[test]
    fn low_table_matches_brute_force_for_every_board_and_hole_low_mask() {
        let t = tables();
        let bits = |m: u8| (0..8).filter(move |b| m & 1 << b != 0).map(|b| 1u8 << b);
        for board in 0..=255u8 {
            for hole in 0..=255u8 {
                // Every choice of two distinct hole ranks and three distinct board ranks,
                // keeping those that make five distinct ranks.
                let mut best: Option<u8> = None;
                for p in bits(hole) {
                    for q in bits(hole).filter(|&q| q > p) {
                        for x in bits(board) {
                            for y in bits(board).filter(|&y| y > x) {
                                for z in bits(board).filter(|&z| z > y) {
                                    let m = p | q | x | y | z;
                                    if m.count_ones() == 5 {
                                        best = Some(best.map_or(m, |b| b.min(m)));
                                    }
                                }
                            }
                        }
                    }
                }
                let got = t.low[usize::from(board)][usize::from(hole)];
                assert_eq!(got, best.unwrap_or(0), "board {board:08b} hole {hole:08b}");
            }
        }
    }
}
