//! Equity: the three speed targets (the first also with its caches cold, as in a busy
//! server), and the board-by-board loop the exact enumeration replaces, measured in the same
//! run for the ratio.
//!
//! `cargo bench -p shared --bench equity`

#![allow(clippy::unwrap_used, clippy::expect_used)] // benches: a failed unwrap is a failed run

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use shared::Card;
use shared::equity::{Method, Spot, equity};
use shared::eval::BoardEval;

fn spot(hands: &[&str], board: &str) -> Spot {
    Spot {
        hands: hands
            .iter()
            .map(|h| Some(Card::parse_exact(h).unwrap()))
            .collect(),
        board: Card::parse_many(board).unwrap(),
        dead: Vec::new(),
    }
}

const SIX: [&str; 6] = [
    "Ac2c3c4d", "KsKhQsJs", "9h8h7d6d", "AdAhTc5s", "QdJdTh9c", "4h5h6s7s",
];

fn equity_targets(c: &mut Criterion) {
    let heads_up = spot(&["Ac2c3c4d", "KsKhQsJs"], "");
    c.bench_function("exact heads-up preflop (1,086,008 boards)", |b| {
        b.iter(|| equity(black_box(&heads_up), Method::Auto).unwrap())
    });

    // As in a busy server, where a run-out's equity finds its tables evicted by everything
    // else the server did since the last one.
    let mut other_work = vec![0u8; 16 << 20];
    c.bench_function("exact heads-up preflop, caches cold", |b| {
        b.iter_batched(
            || {
                for (i, byte) in other_work.iter_mut().enumerate().step_by(64) {
                    *byte = byte.wrapping_add(i as u8);
                }
            },
            |()| equity(black_box(&heads_up), Method::Auto).unwrap(),
            criterion::BatchSize::PerIteration,
        )
    });

    let flop = spot(&SIX, "2h8sKc");
    c.bench_function("exact six hands on the flop", |b| {
        b.iter(|| equity(black_box(&flop), Method::Auto).unwrap())
    });

    let six = spot(&SIX, "");
    let mc = Method::MonteCarlo {
        trials: 100_000,
        seed: 1,
    };
    c.bench_function("monte carlo six hands preflop, 100,000 trials", |b| {
        b.iter(|| equity(black_box(&six), mc).unwrap())
    });
}

/// What exact heads-up preflop costs evaluated board by board with the fast evaluator: the
/// baseline the rank-class enumeration is measured against.
fn board_by_board(c: &mut Criterion) {
    let hands = [
        Card::parse_exact::<4>("Ac2c3c4d").unwrap(),
        Card::parse_exact::<4>("KsKhQsJs").unwrap(),
    ];
    let deck: Vec<Card> = (0..52)
        .filter_map(Card::from_index)
        .filter(|c| !hands.iter().flatten().any(|h| h == c))
        .collect();
    let mut group = c.benchmark_group("baseline");
    group.sample_size(10);
    group.bench_function("heads-up preflop board by board", |b| {
        b.iter(|| {
            let mut wins = 0u32;
            let n = deck.len();
            for a in 0..n {
                for b in a + 1..n {
                    for c in b + 1..n {
                        for d in c + 1..n {
                            for e in d + 1..n {
                                let board =
                                    BoardEval::new(&[deck[a], deck[b], deck[c], deck[d], deck[e]]);
                                let x = board.player(&hands[0]);
                                let y = board.player(&hands[1]);
                                wins += u32::from(x.high > y.high) + u32::from(x.low > y.low);
                            }
                        }
                    }
                }
            }
            black_box(wins)
        })
    });
    group.finish();
}

criterion_group!(benches, equity_targets, board_by_board);
criterion_main!(benches);
