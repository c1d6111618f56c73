//! Who has sat out too long: for the table's number of hands (docs/rules.md §7.7, counted by
//! the engine), or, where the operator set one, for longer than a limit in minutes.

use std::collections::HashMap;
use std::time::Duration;

use shared::table::{SeatStatus, Table};
use tokio::time::Instant;

#[derive(Default)]
pub struct SatOut {
    since: HashMap<u8, Instant>,
}

impl SatOut {
    /// Starts the minutes clock of seats that just sat out and stops it for seats back in.
    pub fn track(&mut self, table: &Table, now: Instant) {
        self.since.retain(|&seat, _| sitting_out(table, seat));
        for (seat, s) in table.seats() {
            if s.status == SeatStatus::SittingOut {
                self.since.entry(seat).or_insert(now);
            }
        }
    }

    pub fn forget(&mut self, seat: u8) {
        self.since.remove(&seat);
    }

    pub fn clear(&mut self) {
        self.since.clear();
    }

    /// The seats to stand up now. `minutes` 0 means no wall-clock limit; a seat in the
    /// running hand is never due.
    pub fn due(
        &self,
        table: &Table,
        minutes: u32,
        now: Instant,
        in_hand: impl Fn(u8) -> bool,
    ) -> Vec<u8> {
        let mut due = table.idle_seats();
        if minutes > 0 {
            let limit = Duration::from_secs(u64::from(minutes) * 60);
            let mut late: Vec<u8> = self
                .since
                .iter()
                .filter(|&(&seat, &since)| {
                    now.saturating_duration_since(since) >= limit
                        && !due.contains(&seat)
                        && !in_hand(seat)
                        && sitting_out(table, seat)
                })
                .map(|(&seat, _)| seat)
                .collect();
            late.sort_unstable();
            due.extend(late);
        }
        due
    }
}

fn sitting_out(table: &Table, seat: u8) -> bool {
    table
        .seat(seat)
        .is_some_and(|s| s.status == SeatStatus::SittingOut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::Stakes;
    use shared::table::{PlayerId, TableConfig};

    fn table() -> Table {
        let mut t = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).expect("table");
        for seat in 0..3u8 {
            t.sit(
                seat,
                PlayerId(u128::from(seat) + 1),
                format!("p{seat}"),
                500,
                true,
            )
            .expect("sit");
        }
        t
    }

    #[test]
    fn the_minutes_limit_counts_from_sitting_out() {
        let t0 = Instant::now();
        let mut t = table();
        let mut idle = SatOut::default();
        t.sit_out(1).expect("sit out");
        idle.track(&t, t0);
        let min = Duration::from_secs(60);
        assert!(idle.due(&t, 30, t0 + 29 * min, |_| false).is_empty());
        assert_eq!(idle.due(&t, 30, t0 + 30 * min, |_| false), vec![1]);
        // Without a minutes limit only the hands count.
        assert!(idle.due(&t, 0, t0 + 300 * min, |_| false).is_empty());
    }

    #[test]
    fn coming_back_stops_the_clock_and_a_seat_in_the_hand_is_never_due() {
        let t0 = Instant::now();
        let mut t = table();
        let mut idle = SatOut::default();
        t.sit_out(2).expect("sit out");
        idle.track(&t, t0);
        let late = t0 + Duration::from_secs(3600);
        assert!(idle.due(&t, 30, late, |seat| seat == 2).is_empty());
        t.sit_in(2, true).expect("sit in");
        idle.track(&t, late);
        assert!(idle.due(&t, 30, late, |_| false).is_empty());
        // Sitting out again starts a new count.
        t.sit_out(2).expect("sit out");
        idle.track(&t, late);
        assert!(
            idle.due(&t, 30, late + Duration::from_secs(60), |_| false)
                .is_empty()
        );
    }
}
