//! The fast evaluator against the brute-force reference.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shared::Card;
use shared::eval::{self, BoardEval, reference};

use crate::{deal, deal_hand};

/// How many random deals to compare: `SCOOP_EVAL_DEALS`, else a million in an optimised
/// build and 200,000 in the (opt-level 1) dev profile, where the reference is slow.
fn deal_count() -> usize {
    let default = if cfg!(debug_assertions) {
        200_000
    } else {
        1_000_000
    };
    std::env::var("SCOOP_EVAL_DEALS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

#[test]
fn fast_evaluate_equals_reference_on_random_deals() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5c00b);
    for _ in 0..deal_count() {
        let (hole, board) = deal_hand(&mut rng);
        assert_eq!(
            eval::evaluate(&hole, &board),
            reference::evaluate(&hole, &board),
            "{} on {}",
            shared::card::format_cards(&hole),
            shared::card::format_cards(&board),
        );
    }
}

/// Dealing from one or two suits makes flushes and straight flushes common, which a full deck
/// rarely exercises (and it covers boards with four and five suited cards).
#[test]
fn fast_evaluate_equals_reference_when_dealt_from_one_or_two_suits() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let one_suit: Vec<Card> = (0..52)
        .filter(|i| i % 4 == 2)
        .filter_map(Card::from_index)
        .collect();
    let two_suits: Vec<Card> = (0..52)
        .filter(|i| i % 4 >= 2)
        .filter_map(Card::from_index)
        .collect();
    for _ in 0..deal_count() / 10 {
        for deck in [&one_suit, &two_suits] {
            let picks: [Card; 9] = deal_from(deck, &mut rng);
            let hole = [picks[0], picks[1], picks[2], picks[3]];
            let board = [picks[4], picks[5], picks[6], picks[7], picks[8]];
            assert_eq!(
                eval::evaluate(&hole, &board),
                reference::evaluate(&hole, &board),
                "{} on {}",
                shared::card::format_cards(&hole),
                shared::card::format_cards(&board),
            );
        }
    }
}

#[test]
fn board_eval_gives_every_player_at_a_full_table_what_evaluate_gives() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for _ in 0..deal_count() / 50 {
        // Ten players and a board from one deck, as at a real table.
        let cards: [Card; 45] = deal(&mut rng);
        let board = [cards[40], cards[41], cards[42], cards[43], cards[44]];
        let board_eval = BoardEval::new(&board);
        for seat in 0..10 {
            let hole = [0, 1, 2, 3].map(|i| cards[seat * 4 + i]);
            let got = board_eval.player(&hole);
            assert_eq!(got, eval::evaluate(&hole, &board));
            assert_eq!(got, reference::evaluate(&hole, &board));
        }
    }
}

#[test]
fn best_hands_match_evaluate_and_their_cards_re_evaluate_to_the_same_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(20);
    for _ in 0..deal_count() / 20 {
        let (hole, board) = deal_hand(&mut rng);
        let (high, low) = eval::best_hands(&hole, &board);
        let showdown = eval::evaluate(&hole, &board);
        assert_eq!(high.value, showdown.high);
        assert_eq!(low.map(|l| l.value), showdown.low);
        assert_eq!(reference::five_card_high(&high.cards), high.value);
        assert_two_plus_three(&high.cards, &hole, &board);
        if let Some(low) = low {
            assert_eq!(reference::five_card_low(&low.cards), Some(low.value));
            assert_two_plus_three(&low.cards, &hole, &board);
        }
    }
}

fn assert_two_plus_three(made: &[Card; 5], hole: &[Card; 4], board: &[Card; 5]) {
    let from_hole = made.iter().filter(|c| hole.contains(c)).count();
    let from_board = made.iter().filter(|c| board.contains(c)).count();
    assert_eq!((from_hole, from_board), (2, 3), "{made:?}");
}

/// `N` distinct cards drawn from `deck`.
fn deal_from<const N: usize>(deck: &[Card], rng: &mut impl Rng) -> [Card; N] {
    let mut deck = deck.to_vec();
    for i in 0..N {
        let j = rng.random_range(i..deck.len());
        deck.swap(i, j);
    }
    std::array::from_fn(|i| deck[i])
}

/// Cards come from the engine, which deals distinct cards, but a bad caller must get a
/// meaningless answer rather than a crash (an overflow would panic in debug builds).
#[test]
fn duplicate_cards_give_some_answer_without_panicking() {
    let mut rng = ChaCha8Rng::seed_from_u64(30);
    let card = |rng: &mut ChaCha8Rng| Card::from_index(rng.random_range(0..52)).expect("below 52");
    let mut deals = vec![(
        [Card::from_index(51).expect("As"); 4],
        [Card::from_index(51).expect("As"); 5],
    )];
    for _ in 0..10_000 {
        // Draw from a few cards so that most deals repeat some.
        let few: [Card; 3] = [card(&mut rng), card(&mut rng), card(&mut rng)];
        let hole = std::array::from_fn(|_| few[rng.random_range(0..3)]);
        let board = std::array::from_fn(|_| few[rng.random_range(0..3)]);
        deals.push((hole, board));
    }
    for (hole, board) in deals {
        eval::evaluate(&hole, &board);
        BoardEval::new(&board).player(&hole);
        reference::evaluate(&hole, &board);
        let (high, _) = eval::best_hands(&hole, &board);
        high.value.label();
    }
}
