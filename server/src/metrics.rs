//! Counters and histograms for `/metrics` (Prometheus text format), kept with atomics so the
//! hot paths pay one relaxed add.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

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

/// A Prometheus histogram with fixed buckets (upper bounds in seconds).
pub struct Histogram {
    bounds: &'static [f64],
    buckets: Vec<AtomicU64>,
    sum_micros: AtomicU64,
    count: AtomicU64,
}

impl Histogram {
    pub fn new(bounds: &'static [f64]) -> Histogram {
        Histogram {
            bounds,
            buckets: bounds.iter().map(|_| AtomicU64::new(0)).collect(),
            sum_micros: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    pub fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        // Buckets are cumulative in the exposition; store each observation once, in the
        // first bucket that holds it, and add up when rendering.
        if let Some(i) = self.bounds.iter().position(|&b| secs <= b) {
            self.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
        self.sum_micros
            .fetch_add(d.as_micros() as u64, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (bound, bucket) in self.bounds.iter().zip(&self.buckets) {
            cumulative += bucket.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {cumulative}");
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {count}");
    }
}

const LATENCY_BOUNDS: &[f64] = &[0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0];
const HAND_BOUNDS: &[f64] = &[5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0];

pub struct Metrics {
    pub hands_started: Counter,
    pub hands_finished: Counter,
    pub broadcasts: Counter,
    /// Table messages serialised for broadcasts: one per audience per change, however many
    /// watchers share it.
    pub frames_serialised: Counter,
    pub db_errors: Counter,
    /// Table tasks that panicked and were restarted from the database.
    pub table_restarts: Counter,
    /// Tables stopped here because another process took their lease (`crate::lease`).
    pub tables_lost: Counter,
    /// Settlements that waited for the database to come back.
    pub settle_waits: Counter,
    /// WebSockets closed for sending too many messages.
    pub sockets_closed_for_abuse: Counter,
    /// Connections closed at accept for being over the process's or an address's cap, and
    /// WebSockets refused for being over an address's cap.
    pub connections_refused: Counter,
    /// Gauges, kept as counters that go up and down.
    pub sockets: Counter,
    pub tables: Counter,
    /// From a player's action reaching the table to its broadcast being queued to every
    /// watcher (hand settlement included when the action ends the hand).
    pub action_to_broadcast: Histogram,
    pub hand_duration: Histogram,
    /// The transactions on a table's critical path: recording a hand before the deal, and
    /// settling it before its result is broadcast.
    pub hand_start_write: Histogram,
    pub hand_settle_write: Histogram,
    /// Group commit (`hand_writer`): transactions, and the hand writes they carried.
    pub hand_write_batches: Counter,
    pub hand_writes: Counter,
    /// Cluster mode: the messages this node's NATS client sent and received (the client's
    /// own byte counts add the socket's writes to the payloads, so they are not exported).
    pub nats: std::sync::OnceLock<std::sync::Arc<async_nats::Statistics>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            hands_started: Counter::default(),
            hands_finished: Counter::default(),
            broadcasts: Counter::default(),
            frames_serialised: Counter::default(),
            db_errors: Counter::default(),
            table_restarts: Counter::default(),
            tables_lost: Counter::default(),
            settle_waits: Counter::default(),
            sockets_closed_for_abuse: Counter::default(),
            connections_refused: Counter::default(),
            sockets: Counter::default(),
            tables: Counter::default(),
            action_to_broadcast: Histogram::new(LATENCY_BOUNDS),
            hand_duration: Histogram::new(HAND_BOUNDS),
            hand_start_write: Histogram::new(LATENCY_BOUNDS),
            hand_settle_write: Histogram::new(LATENCY_BOUNDS),
            hand_write_batches: Counter::default(),
            hand_writes: Counter::default(),
            nats: std::sync::OnceLock::new(),
        }
    }
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
            "scoop_sockets_closed_for_abuse_total",
            "counter",
            "WebSockets closed for going on sending over their message rate.",
            self.sockets_closed_for_abuse.get(),
        );
        metric(
            "scoop_connections_refused_total",
            "counter",
            "Connections and WebSockets refused for being over a cap.",
            self.connections_refused.get(),
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
            "scoop_frames_serialised_total",
            "counter",
            "Table messages serialised for broadcasts (at most one per audience per change; audiences told the same share one).",
            self.frames_serialised.get(),
        );
        metric(
            "scoop_hand_write_batches_total",
            "counter",
            "Transactions of the hand writer (group commit of hand starts, settlements and top-ups).",
            self.hand_write_batches.get(),
        );
        metric(
            "scoop_hand_writes_total",
            "counter",
            "Hand starts, settlements and top-ups written by the hand writer.",
            self.hand_writes.get(),
        );
        metric(
            "scoop_database_errors_total",
            "counter",
            "Failed database operations.",
            self.db_errors.get(),
        );
        metric(
            "scoop_table_restarts_total",
            "counter",
            "Tables restarted from the database after their task panicked.",
            self.table_restarts.get(),
        );
        metric(
            "scoop_tables_lost_total",
            "counter",
            "Tables stopped because another process took their lease (seen at renewal or by a refused write).",
            self.tables_lost.get(),
        );
        metric(
            "scoop_settlements_held_total",
            "counter",
            "Finished hands whose result waited for the database before it was shown.",
            self.settle_waits.get(),
        );
        if let Some(nats) = self.nats.get() {
            for (name, help, value) in [
                (
                    "scoop_nats_messages_out_total",
                    "Messages this node published on NATS.",
                    nats.out_messages.load(Ordering::Relaxed),
                ),
                (
                    "scoop_nats_messages_in_total",
                    "Messages this node received from NATS.",
                    nats.in_messages.load(Ordering::Relaxed),
                ),
                (
                    "scoop_nats_connects_total",
                    "Connections to NATS made, the first and every reconnection.",
                    nats.connects.load(Ordering::Relaxed),
                ),
            ] {
                metric(name, "counter", help, value);
            }
        }
        self.action_to_broadcast.render(
            &mut out,
            "scoop_action_to_broadcast_seconds",
            "Time from a player's action reaching its table to the broadcast.",
        );
        self.hand_duration.render(
            &mut out,
            "scoop_hand_duration_seconds",
            "Time from deal to settlement.",
        );
        self.hand_start_write.render(
            &mut out,
            "scoop_hand_start_write_seconds",
            "Time to record a hand and its deck before dealing it.",
        );
        self.hand_settle_write.render(
            &mut out,
            "scoop_hand_settle_write_seconds",
            "Time of the transaction that settles a finished hand.",
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_render_cumulative_prometheus_buckets() {
        let m = Metrics::default();
        m.action_to_broadcast.observe(Duration::from_micros(1_500));
        m.action_to_broadcast.observe(Duration::from_millis(30));
        m.hands_started.add(3);
        let text = m.render(4, 2);
        assert!(text.contains("scoop_hands_dealt_total 3"), "{text}");
        assert!(text.contains("scoop_seated_players 4"), "{text}");
        assert!(
            text.contains("scoop_action_to_broadcast_seconds_bucket{le=\"0.001\"} 0"),
            "{text}"
        );
        assert!(
            text.contains("scoop_action_to_broadcast_seconds_bucket{le=\"0.002\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("scoop_action_to_broadcast_seconds_bucket{le=\"0.05\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("scoop_action_to_broadcast_seconds_count 2"),
            "{text}"
        );
    }
}
