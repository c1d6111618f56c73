//! The plain evaluator: every one of the 60 two-hole-plus-three-board combinations, each judged
//! on its own. Slow, obviously right, and the oracle the fast path is tested against.

use crate::Card;

use super::class::{self, Key};
use super::value::low_bit;
use super::{HighValue, LowValue, MadeHand, Showdown};

/// Brute force over all 60 (2 hole x 3 board) combinations with a plain 5-card evaluator.
pub fn evaluate(hole: &[Card; 4], board: &[Card; 5]) -> Showdown {
    let mut high = None;
    let mut low = None;
    for hand in combinations(hole, board) {
        high = high.max(high_key(&hand));
        // Masks compare like lows with smaller better, so keep the smallest.
        if let Some(mask) = low_mask(&hand) {
            low = Some(low.map_or(mask, |best: u8| best.min(mask)));
        }
    }
    Showdown {
        high: HighValue(high.map_or(0, class::value_of_key)),
        low: low.and_then(LowValue::from_mask),
    }
}

/// The high of exactly these five cards (no Omaha rule involved); the worst hand for an
/// impossible one (duplicates).
pub fn five_card_high(cards: &[Card; 5]) -> HighValue {
    HighValue(high_key(cards).map_or(0, class::value_of_key))
}

/// The 8-or-better low of exactly these five cards, if they make one.
pub fn five_card_low(cards: &[Card; 5]) -> Option<LowValue> {
    low_mask(cards).and_then(LowValue::from_mask)
}

pub(super) fn best_hands(
    hole: &[Card; 4],
    board: &[Card; 5],
) -> (MadeHand<HighValue>, Option<MadeHand<LowValue>>) {
    let mut high: Option<(Key, [Card; 5])> = None;
    let mut low: Option<(u8, [Card; 5])> = None;
    for hand in combinations(hole, board) {
        if let Some(key) = high_key(&hand)
            && high.is_none_or(|(best, _)| key > best)
        {
            high = Some((key, hand));
        }
        if let Some(mask) = low_mask(&hand)
            && low.is_none_or(|(best, _)| mask < best)
        {
            low = Some((mask, hand));
        }
    }
    // Only duplicate cards can leave no real hand; show the first combination then.
    let (key, hand) = high.unwrap_or((0, [hole[0], hole[1], board[0], board[1], board[2]]));
    let high = MadeHand {
        value: HighValue(class::value_of_key(key)),
        cards: high_display_order(hand, key),
    };
    let low = low.and_then(|(mask, hand)| {
        Some(MadeHand {
            value: LowValue::from_mask(mask)?,
            cards: low_display_order(hand),
        })
    });
    (high, low)
}

/// The hands of two hole cards and three board cards, hole cards first: 60 on a full board,
/// fewer on the flop (6) and turn (24).
pub(super) fn combinations<'a>(
    hole: &'a [Card; 4],
    board: &'a [Card],
) -> impl Iterator<Item = [Card; 5]> + 'a {
    let n = board.len();
    let pairs = (0..4).flat_map(move |i| (i + 1..4).map(move |j| [hole[i], hole[j]]));
    pairs.flat_map(move |[h1, h2]| {
        (0..n).flat_map(move |a| {
            (a + 1..n)
                .flat_map(move |b| (b + 1..n).map(move |c| [h1, h2, board[a], board[b], board[c]]))
        })
    })
}

fn high_key(hand: &[Card; 5]) -> Option<Key> {
    let flush = hand.iter().all(|c| c.suit() == hand[0].suit());
    class::key(hand.map(|c| c.rank().index()), flush)
}

/// The hand's low as a rank mask (bit 0 = ace .. bit 7 = eight), if it is one: five distinct
/// ranks of eight or lower. Straights and flushes do not matter.
fn low_mask(hand: &[Card; 5]) -> Option<u8> {
    let mut mask = 0u8;
    for card in hand {
        mask |= low_bit(card.rank())?;
    }
    (mask.count_ones() == 5).then_some(mask)
}

fn high_display_order(mut hand: [Card; 5], key: Key) -> [Card; 5] {
    let count = |card: &Card| hand.iter().filter(|c| c.rank() == card.rank()).count();
    let mut order: [(usize, Card); 5] = hand.map(|c| (count(&c), c));
    order.sort_unstable_by(|a, b| b.cmp(a));
    hand = order.map(|(_, c)| c);
    let is_wheel = class::key_rank(key, 0) == 3
        && matches!(
            class::key_category(key),
            super::HandCategory::Straight | super::HandCategory::StraightFlush
        );
    if is_wheel {
        hand.rotate_left(1); // the ace plays low
    }
    hand
}

fn low_display_order(mut hand: [Card; 5]) -> [Card; 5] {
    hand.sort_unstable_by_key(|c| std::cmp::Reverse(low_bit(c.rank())));
    hand
}
