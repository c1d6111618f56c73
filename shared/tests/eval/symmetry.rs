//! Evaluation cannot depend on which suit is which or on the order cards are dealt in.

use proptest::prelude::*;
use shared::Card;
use shared::eval::{self, reference};

/// Nine distinct cards in random order.
fn nine_cards() -> impl Strategy<Value = Vec<Card>> {
    let all: Vec<Card> = (0..52).filter_map(Card::from_index).collect();
    proptest::sample::subsequence(all, 9).prop_shuffle()
}

fn split(cards: &[Card]) -> ([Card; 4], [Card; 5]) {
    (
        std::array::from_fn(|i| cards[i]),
        std::array::from_fn(|i| cards[4 + i]),
    )
}

fn permute_suits(card: Card, perm: &[u8]) -> Card {
    let suit = usize::from(card.index() & 3);
    Card::from_index(card.index() & !3 | perm[suit]).expect("same rank, another suit")
}

proptest! {
    #[test]
    fn evaluation_is_symmetric_under_suit_permutation_and_card_order(
        cards in nine_cards(),
        suits in Just(vec![0u8, 1, 2, 3]).prop_shuffle(),
        hole_order in Just(vec![0usize, 1, 2, 3]).prop_shuffle(),
        board_order in Just(vec![0usize, 1, 2, 3, 4]).prop_shuffle(),
    ) {
        let (hole, board) = split(&cards);
        let base = eval::evaluate(&hole, &board);

        let hole2 = std::array::from_fn(|i| permute_suits(hole[hole_order[i]], &suits));
        let board2 = std::array::from_fn(|i| permute_suits(board[board_order[i]], &suits));
        prop_assert_eq!(eval::evaluate(&hole2, &board2), base);
        prop_assert_eq!(reference::evaluate(&hole2, &board2), base);
        let (high, low) = eval::best_hands(&hole2, &board2);
        prop_assert_eq!(high.value, base.high);
        prop_assert_eq!(low.map(|l| l.value), base.low);
    }
}
