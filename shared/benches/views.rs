//! What a broadcast costs in views at a six-handed table: each seat's change measured by
//! building its whole view and comparing it with the last one, against worked out from the
//! public view's change (`seat_patch`) and applied to the last one, as the fan-out does.
//!
//! `cargo bench -p shared --bench views`

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed unwrap is a failed bench

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use shared::hand::Action;
use shared::patch::ViewPatch;
use shared::protocol::TableView;
use shared::table::{PlayerId, Table, TableConfig};
use shared::view::{Viewer, public_view, seat_patch, view_for};
use shared::{Deck, Stakes};

/// A six-handed table's states along one hand, every player calling or checking.
fn states() -> Vec<Table> {
    let mut t = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).unwrap();
    for seat in 0..6u8 {
        let id = PlayerId(u128::from(seat) + 1);
        t.sit(seat, id, format!("player {seat}"), 1_000, true)
            .unwrap();
    }
    let mut states = vec![t.clone()];
    t.start_hand(Deck::shuffled(&mut ChaCha20Rng::seed_from_u64(7)))
        .unwrap();
    states.push(t.clone());
    while let Some(legal) = t.hand().and_then(|h| h.legal()) {
        let action = if legal.can_check {
            Action::Check
        } else {
            Action::Call
        };
        t.act(legal.seat, action).unwrap();
        states.push(t.clone());
    }
    states
}

fn seats(public: &TableView, t: &Table) -> Vec<TableView> {
    (0..6)
        .map(|s| view_for(public, t, Viewer::Seat(s)))
        .collect()
}

fn views(c: &mut Criterion) {
    let states = states();
    let publics: Vec<TableView> = states.iter().map(|t| public_view(t, 1)).collect();
    let seat_views: Vec<Vec<TableView>> = states
        .iter()
        .zip(&publics)
        .map(|(t, p)| seats(p, t))
        .collect();
    let steps = states.len() - 1;
    let mut group = c.benchmark_group(format!("six seats' changes along a hand ({steps} changes)"));
    group.bench_function("whole views built and compared", |b| {
        b.iter(|| {
            for i in 1..=steps {
                let public = public_view(&states[i], 1);
                for (seat, old) in seat_views[i - 1].iter().enumerate() {
                    let new = view_for(&public, &states[i], Viewer::Seat(seat as u8));
                    black_box(ViewPatch::between(old, &new));
                    black_box(new);
                }
            }
        })
    });
    group.bench_function("from the public change, applied to the last view", |b| {
        // The fan-out owns the last views and applies the changes in place: the copies
        // they are taken from here are made outside what is measured.
        b.iter_batched(
            || seat_views.clone(),
            |mut held| {
                for i in 1..=steps {
                    let public = public_view(&states[i], 1);
                    let change = ViewPatch::between(&publics[i - 1], &public);
                    let last = std::mem::take(&mut held[i - 1]);
                    for (seat, mut view) in last.into_iter().enumerate() {
                        let patch = seat_patch(&change, &public, &view, &states[i], seat as u8);
                        patch.clone().apply(&mut view).unwrap();
                        black_box((patch, view));
                    }
                }
                held
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, views);
criterion_main!(benches);
