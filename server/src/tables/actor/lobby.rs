//! The table's row in the lobby: seats taken, spectators, hands per hour, average pot.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shared::protocol::LobbyTable;
use shared::rules::Chips;
use shared::table::Table;
use tokio::sync::broadcast;
use tokio::time::Instant;

/// Hands remembered for the average pot.
const REMEMBERED: usize = 200;
const HOUR: Duration = Duration::from_secs(3600);

/// Recent hands, for the lobby's statistics.
#[derive(Default)]
pub struct HandStats {
    recent: VecDeque<(Instant, Chips)>,
}

impl HandStats {
    pub fn finished(&mut self, at: Instant, pot: Chips) {
        self.recent.push_back((at, pot));
        while self.recent.len() > REMEMBERED {
            self.recent.pop_front();
        }
    }

    pub fn last_hour(&self, now: Instant) -> u32 {
        let n = self
            .recent
            .iter()
            .filter(|(at, _)| now.saturating_duration_since(*at) < HOUR)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    pub fn average_pot(&self) -> Chips {
        let n = self.recent.len() as Chips;
        if n == 0 {
            return 0;
        }
        self.recent.iter().map(|h| h.1).sum::<Chips>() / n
    }
}

/// Where the row goes: a shared copy for lobby requests, and a broadcast of changes (not for
/// a private table, which no lobby lists).
pub struct Lobby {
    pub stats: HandStats,
    tx: broadcast::Sender<LobbyTable>,
    current: Arc<Mutex<LobbyTable>>,
    listed: bool,
}

impl Lobby {
    pub fn new(
        tx: broadcast::Sender<LobbyTable>,
        current: Arc<Mutex<LobbyTable>>,
        listed: bool,
    ) -> Self {
        Lobby {
            stats: HandStats::default(),
            tx,
            current,
            listed,
        }
    }

    pub fn row(
        &self,
        id: &str,
        name: &str,
        table: &Table,
        spectators: u32,
        now: Instant,
    ) -> LobbyTable {
        LobbyTable {
            id: id.to_string(),
            name: name.to_string(),
            stakes: table.config().stakes,
            seats_taken: u8::try_from(table.seats().count()).unwrap_or(u8::MAX),
            seat_count: table.config().seats,
            average_pot: self.stats.average_pot(),
            hands_per_hour: self.stats.last_hour(now),
            spectators,
            host: None,
            run_twice: table.config().run_twice,
            straddle: table.config().straddle,
            // Filled in by the table task, which knows these.
            waiting: 0,
            practice: false,
        }
    }

    /// Stores the row and tells lobby watchers, only when it changed.
    pub fn publish(&self, row: LobbyTable) {
        let changed = match self.current.lock() {
            Ok(mut current) => {
                let changed = *current != row;
                *current = row.clone();
                changed
            }
            Err(_) => true,
        };
        if changed && self.listed {
            let _ = self.tx.send(row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::Stakes;
    use shared::table::{PlayerId, TableConfig};

    #[test]
    fn hands_per_hour_counts_the_last_hour_only() {
        let t0 = Instant::now();
        let mut s = HandStats::default();
        for i in 0..10u64 {
            s.finished(t0 + Duration::from_secs(i * 600), 100);
        }
        assert_eq!(s.last_hour(t0 + Duration::from_secs(5400)), 6);
    }

    #[test]
    fn the_average_pot_is_over_the_last_two_hundred_hands() {
        let t0 = Instant::now();
        let mut s = HandStats::default();
        assert_eq!(s.average_pot(), 0);
        s.finished(t0, 1_000_000);
        for _ in 0..REMEMBERED {
            s.finished(t0, 30);
        }
        assert_eq!(s.average_pot(), 30, "the big pot has been forgotten");
    }

    #[test]
    fn a_row_is_broadcast_only_when_it_changed() {
        let (tx, mut rx) = broadcast::channel(8);
        let mut table = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).expect("table");
        let lobby = Lobby::new(
            tx,
            Arc::new(Mutex::new(LobbyTable {
                id: String::new(),
                name: String::new(),
                stakes: Stakes::no_limit(5, 10),
                seats_taken: 0,
                seat_count: 6,
                average_pot: 0,
                hands_per_hour: 0,
                spectators: 0,
                host: None,
                run_twice: false,
                straddle: false,
                waiting: 0,
                practice: false,
            })),
            true,
        );
        let now = Instant::now();
        lobby.publish(lobby.row("t", "Table", &table, 3, now));
        lobby.publish(lobby.row("t", "Table", &table, 3, now));
        assert_eq!(rx.try_recv().expect("the first row").spectators, 3);
        assert!(rx.try_recv().is_err(), "the same row is not sent twice");
        table
            .sit(0, PlayerId(1), "ann".into(), 500, true)
            .expect("sit");
        lobby.publish(lobby.row("t", "Table", &table, 3, now));
        assert_eq!(rx.try_recv().expect("a seat taken").seats_taken, 1);
    }
}
