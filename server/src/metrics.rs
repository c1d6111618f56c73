//! Counters and histograms for `/metrics` (Prometheus text format), kept with atomics so the
//! hot paths pay one relaxed add.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Default)]
pub struct Counter(AtomicU64);

impl Counter {
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    pub fn sub(&self, n: u64) {
        self.0.fetch_sub(n, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

#[derive(Default)]
pub struct Metrics {
    pub hands_started: Counter,
    pub hands_finished: Counter,
    pub broadcasts: Counter,
    pub db_errors: Counter,
    /// Gauges, kept as counters that go up and down.
    pub sockets: Counter,
    pub tables: Counter,
}

impl Metrics {
    /// Prometheus exposition of everything here plus the gauges computed by the caller.
    pub fn render(&self, seated: u64, spectators: u64) -> String {
        let mut out = String::new();
        let mut metric = |name: &str, kind: &str, help: &str, value: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        metric("scoop_tables", "gauge", "Tables open.", self.tables.get());
        metric(
            "scoop_seated_players",
            "gauge",
            "Players seated at tables.",
            seated,
        );
        metric(
            "scoop_spectators",
            "gauge",
            "Connections watching a table without a seat.",
            spectators,
        );
        metric(
            "scoop_sockets",
            "gauge",
            "Open WebSocket connections.",
            self.sockets.get(),
        );
        metric(
            "scoop_hands_dealt_total",
            "counter",
            "Hands dealt.",
            self.hands_started.get(),
        );
        metric(
            "scoop_hands_finished_total",
            "counter",
            "Hands settled.",
            self.hands_finished.get(),
        );
        metric(
            "scoop_broadcasts_total",
            "counter",
            "Table updates sent to watchers.",
            self.broadcasts.get(),
        );
        metric(
            "scoop_database_errors_total",
            "counter",
            "Failed database operations.",
            self.db_errors.get(),
        );
        out
    }
}
