//! Applying whole hands through the engine.
//!
//! `cargo bench -p shared --bench hand`

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use shared::hand::{Action, Entrant, HandSetup, Post};
use shared::{Deck, Hand, Stakes};

fn six_max(stakes: Stakes) -> HandSetup {
    HandSetup {
        stakes,
        button: 5,
        big_blind_seat: 1,
        entrants: (0..6)
            .map(|seat| Entrant {
                seat,
                stack: 2_000,
                post: match seat {
                    0 => Post::SmallBlind,
                    1 => Post::BigBlind,
                    _ => Post::Nothing,
                },
            })
            .collect(),
        run_twice: false,
    }
}

/// A typical 6-max pot-limit hand: a raise and two callers preflop, a bet and a call on the
/// flop, checks on the turn, a river bet called, showdown.
fn typical_hand(decks: &[Deck], i: usize) -> u64 {
    let (mut h, _) = Hand::start(
        six_max(Stakes::pot_limit(10, 20)),
        decks[i % decks.len()].clone(),
    )
    .expect("valid setup");
    let script: [(u8, Action); 16] = [
        (2, Action::Fold),
        (3, Action::RaiseTo { to: 70 }),
        (4, Action::Fold),
        (5, Action::Call),
        (0, Action::Fold),
        (1, Action::Call),
        (1, Action::Check),
        (3, Action::RaiseTo { to: 150 }),
        (5, Action::Call),
        (1, Action::Fold),
        (3, Action::Check),
        (5, Action::Check),
        (3, Action::RaiseTo { to: 300 }),
        (5, Action::Call),
        (0, Action::Fold),
        (0, Action::Fold),
    ];
    for (seat, action) in script {
        if h.is_over() {
            break;
        }
        let _ = h.act(seat, action);
    }
    h.result().map_or(0, |r| r.rake + r.stacks.len() as u64)
}

fn bench_hands(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let decks: Vec<Deck> = (0..1024).map(|_| Deck::shuffled(&mut rng)).collect();
    // The script must really reach a showdown, or the bench measures something else.
    let (mut check, _) = Hand::start(six_max(Stakes::pot_limit(10, 20)), decks[0].clone()).unwrap();
    assert!(!check.is_over());
    let _ = check.act(2, Action::Fold);
    assert!(typical_hand(&decks, 0) > 0);

    let mut i = 0;
    c.bench_function("hand/typical_6max_pot_limit_to_showdown", |b| {
        b.iter(|| {
            i += 1;
            black_box(typical_hand(&decks, i))
        })
    });
    c.bench_function("hand/shuffle_deck", |b| {
        b.iter(|| black_box(Deck::shuffled(&mut rng)))
    });
}

criterion_group!(benches, bench_hands);
criterion_main!(benches);
