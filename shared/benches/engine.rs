//! Engine benchmarks. `cargo bench -p shared --bench engine -- eval`
//!
//! Evaluator figures are per hand (or per showdown) over a pre-generated stream of different
//! deals, so they include cache misses on the tables, as a server evaluating many tables would
//! see, rather than one hand evaluated from a warm cache.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shared::Card;
use shared::eval::{self, BoardEval, reference};

/// `N` distinct random cards.
fn deal<const N: usize>(rng: &mut impl Rng) -> [Card; N] {
    let mut deck: [u8; 52] = std::array::from_fn(|i| i as u8);
    for i in 0..N {
        let j = rng.random_range(i..52);
        deck.swap(i, j);
    }
    std::array::from_fn(|i| Card::from_index(deck[i]).expect("index below 52"))
}

struct Deal {
    hole: [Card; 4],
    board: [Card; 5],
}

fn one_player_deals(n: usize) -> Vec<Deal> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    (0..n)
        .map(|_| {
            let c: [Card; 9] = deal(&mut rng);
            Deal {
                hole: [c[0], c[1], c[2], c[3]],
                board: [c[4], c[5], c[6], c[7], c[8]],
            }
        })
        .collect()
}

struct Table {
    board: [Card; 5],
    holes: [[Card; 4]; 6],
}

fn six_player_tables(n: usize) -> Vec<Table> {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    (0..n)
        .map(|_| {
            let c: [Card; 29] = deal(&mut rng);
            Table {
                board: [c[24], c[25], c[26], c[27], c[28]],
                holes: std::array::from_fn(|p| [0, 1, 2, 3].map(|i| c[p * 4 + i])),
            }
        })
        .collect()
}

/// Times `iters` calls of `f` on consecutive items of `items`, wrapping round, continuing where
/// the previous batch stopped so that every item is used before any is reused.
fn stream<T>(items: &[T], mut f: impl FnMut(&T)) -> impl FnMut(u64) -> Duration {
    let mut next = 0;
    move |iters| {
        let start = Instant::now();
        for _ in 0..iters {
            f(&items[next]);
            next += 1;
            if next == items.len() {
                next = 0;
            }
        }
        start.elapsed()
    }
}

fn eval_benches(c: &mut Criterion) {
    let deals = one_player_deals(1_000_000);
    let tables = six_player_tables(200_000);
    // Build the lazily initialised tables outside any measurement.
    black_box(eval::evaluate(&deals[0].hole, &deals[0].board));

    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(1));
    group.bench_function("high_low_one_player_random_stream", |b| {
        b.iter_custom(stream(&deals, |d| {
            black_box(eval::evaluate(&d.hole, &d.board));
        }))
    });
    group.bench_function("reference_one_player", |b| {
        b.iter_custom(stream(&deals, |d| {
            black_box(reference::evaluate(&d.hole, &d.board));
        }))
    });
    group.throughput(Throughput::Elements(6));
    group.bench_function("showdown_6_players_one_board", |b| {
        b.iter_custom(stream(&tables, |t| {
            let board = BoardEval::new(&t.board);
            for hole in &t.holes {
                black_box(board.player(hole));
            }
        }))
    });
    group.finish();
}

criterion_group!(benches, eval_benches);
criterion_main!(benches);
