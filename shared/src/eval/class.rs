//! The one ranking of 5-card poker hands that every other part of the evaluator derives from.
//!
//! A hand's [`Key`] packs its category above the ranks that break ties, most significant
//! first, so keys compare exactly like the hands do. There are 7462 distinct keys (hand
//! classes); a [`HighValue`](super::HighValue) is a key's position in their sorted list, which
//! keeps values dense enough to index tables and makes the rank table, the flush table and the
//! reference evaluator agree by construction.

use std::sync::OnceLock;

use super::HandCategory;

/// Category in bits 20.., then up to five rank nibbles from bit 16 down.
pub(super) type Key = u32;

/// Number of 5-card hand classes, i.e. of distinct [`HighValue`](super::HighValue)s.
pub(super) const CLASSES: usize = 7462;

/// First value of each category, in [`HandCategory`] order. Pinned by a test against the
/// sorted key list.
pub(super) const CATEGORY_START: [u16; 9] = [0, 1277, 4137, 4995, 5853, 5863, 7140, 7296, 7452];

/// The key of five cards with these ranks (`0` = deuce .. `12` = ace), or `None` when no deck
/// holds such a hand (five of a rank, or a "flush" with a repeated rank).
pub(super) fn key(ranks: [u8; 5], flush: bool) -> Option<Key> {
    let mut sorted = ranks;
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    // (count, rank) for each distinct rank; sorting these descending puts the rank that
    // matters most first: quads before their kicker, trips before the pair, higher pair first.
    let mut groups = [(0u8, 0u8); 5];
    let mut n = 0;
    for r in sorted {
        if n > 0 && groups[n - 1].1 == r {
            groups[n - 1].0 += 1;
        } else {
            groups[n] = (1, r);
            n += 1;
        }
    }
    let groups = &mut groups[..n];
    groups.sort_unstable_by(|a, b| b.cmp(a));
    if groups[0].0 > 4 || (flush && n < 5) {
        return None;
    }
    let straight_high = match sorted {
        _ if n < 5 => None,
        [12, 3, 2, 1, 0] => Some(3), // the wheel: the ace plays low
        [high, .., low] if high - low == 4 => Some(high),
        _ => None,
    };
    let category = match (straight_high, flush, groups[0].0, groups.get(1)) {
        (Some(_), true, ..) => HandCategory::StraightFlush,
        (_, _, 4, _) => HandCategory::Quads,
        (_, _, 3, Some((2, _))) => HandCategory::FullHouse,
        (None, true, ..) => HandCategory::Flush,
        (Some(_), false, ..) => HandCategory::Straight,
        (_, _, 3, _) => HandCategory::Trips,
        (_, _, 2, Some((2, _))) => HandCategory::TwoPair,
        (_, _, 2, _) => HandCategory::Pair,
        _ => HandCategory::HighCard,
    };
    // A straight (flush or not) is decided by its top card alone, the five for the wheel.
    let straight = [(1, straight_high.unwrap_or(0))];
    let tiebreak = match straight_high {
        Some(_) => &straight[..],
        None => &groups[..],
    };
    // Within a category the number of tie-break ranks is fixed, so left-aligning them keeps
    // the order.
    let ranks = tiebreak
        .iter()
        .enumerate()
        .fold(0, |k, (i, &(_, r))| k | Key::from(r) << (16 - 4 * i));
    Some((category as Key) << 20 | ranks)
}

/// The category stored in a key.
pub(super) fn key_category(key: Key) -> HandCategory {
    HandCategory::ALL[((key >> 20) as usize).min(8)]
}

/// The `i`th tie-break rank of a key (`0` = most significant).
pub(super) fn key_rank(key: Key, i: usize) -> u8 {
    (key >> (16 - 4 * i) & 0xf) as u8
}

/// Every hand class's key, ascending: a value is an index into this list.
pub(super) fn keys() -> &'static [Key] {
    static KEYS: OnceLock<Box<[Key]>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = Vec::with_capacity(CLASSES);
        for ranks in all_multisets() {
            keys.extend(key(ranks, false));
            keys.extend(key(ranks, true));
        }
        keys.sort_unstable();
        keys.dedup();
        debug_assert_eq!(keys.len(), CLASSES);
        keys.into_boxed_slice()
    })
}

/// The dense value of a key; `0` (the worst hand) for a key that is not a class, which
/// [`key`] never produces.
pub(super) fn value_of_key(key: Key) -> u16 {
    keys().binary_search(&key).map_or(0, |i| i as u16)
}

/// Every multiset of five ranks, each as an ascending array.
pub(super) fn all_multisets() -> impl Iterator<Item = [u8; 5]> {
    (0..13u8).flat_map(|a| {
        (a..13).flat_map(move |b| {
            (b..13)
                .flat_map(move |c| (c..13).flat_map(move |d| (d..13).map(move |e| [a, b, c, d, e])))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_7462_classes_with_the_documented_category_starts() {
        let keys = keys();
        assert_eq!(keys.len(), CLASSES);
        for (i, &start) in CATEGORY_START.iter().enumerate() {
            let first = keys[usize::from(start)];
            assert_eq!(key_category(first), HandCategory::ALL[i]);
            if start > 0 {
                assert_eq!(
                    key_category(keys[usize::from(start) - 1]),
                    HandCategory::ALL[i - 1]
                );
            }
        }
    }

    #[test]
    fn all_2598960_five_card_hands_have_the_textbook_category_counts() {
        // Textbook frequencies, high card first; straight flushes include the 4 royals.
        const EXPECTED: [u32; 9] = [
            1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40,
        ];
        let mut counts = [0u32; 9];
        for cards in combinations::<5>(52) {
            let ranks = cards.map(|c| c / 4);
            let flush = cards.iter().all(|&c| c % 4 == cards[0] % 4);
            let k = key(ranks, flush).expect("a real hand has a key");
            counts[key_category(k) as usize] += 1;
        }
        assert_eq!(counts, EXPECTED);
    }

    #[test]
    fn keys_order_hands_like_poker() {
        let k = |r: [u8; 5], f| key(r, f).unwrap();
        // Wheel is the lowest straight, six-high next.
        assert!(k([12, 0, 1, 2, 3], false) < k([0, 1, 2, 3, 4], false));
        // A-K-Q-J-9 is not a straight; K-A-2-3-4 does not wrap.
        assert_eq!(
            key_category(k([12, 11, 10, 9, 7], false)),
            HandCategory::HighCard
        );
        assert_eq!(
            key_category(k([11, 12, 0, 1, 2], false)),
            HandCategory::HighCard
        );
        // Full house compares trips first: 333-22 beats 222-AA.
        assert!(k([1, 1, 1, 0, 0], false) > k([0, 0, 0, 12, 12], false));
        // Two pair: higher top pair wins before the kicker.
        assert!(k([9, 9, 0, 0, 1], false) > k([8, 8, 7, 7, 12], false));
        // Kickers decide pairs.
        assert!(k([5, 5, 12, 3, 2], false) > k([5, 5, 11, 10, 9], false));
        // Flush beats straight; steel wheel beats quad aces.
        assert!(k([0, 2, 4, 6, 8], true) > k([8, 9, 10, 11, 12], false));
        assert!(k([12, 0, 1, 2, 3], true) > k([12, 12, 12, 12, 11], false));
    }

    #[test]
    fn impossible_hands_have_no_key() {
        assert_eq!(key([4; 5], false), None);
        assert_eq!(key([4, 4, 5, 6, 7], true), None);
    }

    /// All ascending `K`-subsets of `0..n`.
    fn combinations<const K: usize>(n: u8) -> impl Iterator<Item = [u8; K]> {
        let mut next = Some(std::array::from_fn::<u8, K, _>(|i| i as u8));
        std::iter::from_fn(move || {
            let current = next?;
            let mut c = current;
            next = (0..K).rev().find(|&i| c[i] < n - (K - i) as u8).map(|i| {
                c[i] += 1;
                for j in i + 1..K {
                    c[j] = c[j - 1] + 1;
                }
                c
            });
            Some(current)
        })
    }
}
