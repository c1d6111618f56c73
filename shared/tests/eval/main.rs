//! The evaluator through its public API: the rules it must follow (docs/rules.md §2), the seeds'
//! worked examples, labels, agreement with the brute-force reference, and symmetries.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

mod labels;
mod oracle;
mod rules;
mod seeds;
mod symmetry;

use rand::Rng;
use shared::Card;
use shared::eval::{self, Showdown};

/// Cards written as text, e.g. `cards("Ah Kd 2c 3s")`.
fn cards<const N: usize>(text: &str) -> [Card; N] {
    match Card::parse_exact(text) {
        Ok(cards) => cards,
        Err(e) => panic!("bad test cards {text:?}: {e}"),
    }
}

fn show(hole: &str, board: &str) -> Showdown {
    eval::evaluate(&cards(hole), &cards(board))
}

fn low_label(hole: &str, board: &str) -> Option<String> {
    show(hole, board).low.map(|l| l.label())
}

/// `N` distinct random cards (a partial Fisher-Yates shuffle).
fn deal<const N: usize>(rng: &mut impl Rng) -> [Card; N] {
    let mut deck: [u8; 52] = std::array::from_fn(|i| i as u8);
    for i in 0..N {
        let j = rng.random_range(i..52);
        deck.swap(i, j);
    }
    std::array::from_fn(|i| Card::from_index(deck[i]).expect("index below 52"))
}

/// A random player hand and board, no card twice.
fn deal_hand(rng: &mut impl Rng) -> ([Card; 4], [Card; 5]) {
    let c: [Card; 9] = deal(rng);
    ([c[0], c[1], c[2], c[3]], [c[4], c[5], c[6], c[7], c[8]])
}
