//! The decision clock and the time banks (docs/rules.md §8.1). Pure: every call is given the
//! time, so the rules are tested without waiting.

use std::collections::HashMap;
use std::time::Duration;

use shared::protocol::Clock;
use shared::table::PlayerId;
use tokio::time::Instant;

/// A player who leaves and sits down again within this time is still in the same sitting:
/// their time bank is not refilled.
pub const SITTING: Duration = Duration::from_secs(60 * 60);

#[derive(Clone, Copy, Debug)]
struct Turn {
    seat: u8,
    player: PlayerId,
    deadline: Instant,
    /// When the time bank started running, once the decision clock is used up.
    bank_started: Option<Instant>,
}

/// What the clock did when its deadline passed.
#[derive(Debug, PartialEq, Eq)]
pub enum Expiry {
    /// The deadline is still ahead (or no one is on the clock).
    NotYet,
    /// The decision clock ran out and the player's time bank took over.
    BankStarted,
    /// Out of time: the seat is timed out and its bank is empty (save it).
    TimedOut { seat: u8, player: PlayerId },
}

pub struct Clocks {
    decision: Duration,
    full_bank: Duration,
    turn: Option<Turn>,
    /// What is left of each seated player's bank (absent: the full bank).
    banks: HashMap<PlayerId, Duration>,
    /// Banks of players who left, kept for the rest of their sitting.
    left: HashMap<PlayerId, (Duration, Instant)>,
}

impl Clocks {
    pub fn new(decision: Duration, full_bank: Duration, banks: Vec<(PlayerId, Duration)>) -> Self {
        Clocks {
            decision,
            full_bank,
            turn: None,
            banks: banks.into_iter().collect(),
            left: HashMap::new(),
        }
    }

    /// After a reload from the database: the banks stored with the seats, nobody on the clock.
    pub fn reset(&mut self, banks: Vec<(PlayerId, Duration)>) {
        self.turn = None;
        self.banks = banks.into_iter().collect();
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.turn.map(|t| t.deadline)
    }

    pub fn bank_of(&self, player: PlayerId) -> Duration {
        self.banks.get(&player).copied().unwrap_or(self.full_bank)
    }

    /// The hand is over or taken back: nobody is on the clock.
    pub fn stop(&mut self) {
        self.turn = None;
    }

    /// The player to act now (if any): a new player gets a fresh decision clock; the same
    /// player keeps the clock they had.
    pub fn turn(&mut self, to_act: Option<(u8, PlayerId)>, now: Instant) {
        match (to_act, &self.turn) {
            (None, _) => self.turn = None,
            (Some((seat, _)), Some(t)) if t.seat == seat => {}
            (Some((seat, player)), _) => {
                self.turn = Some(Turn {
                    seat,
                    player,
                    deadline: now + self.decision,
                    bank_started: None,
                });
            }
        }
    }

    /// The player at `seat` acted. Returns the bank to save when some of it was used.
    pub fn acted(&mut self, seat: u8, now: Instant) -> Option<(PlayerId, Duration)> {
        let turn = self.turn.take()?;
        if turn.seat != seat {
            return None;
        }
        let started = turn.bank_started?;
        let left = self
            .bank_of(turn.player)
            .saturating_sub(now.saturating_duration_since(started));
        self.banks.insert(turn.player, left);
        Some((turn.player, left))
    }

    /// The deadline came: the time bank takes over, or the player is out of time.
    pub fn expire(&mut self, now: Instant) -> Expiry {
        let Some(turn) = self.turn else {
            return Expiry::NotYet;
        };
        if turn.deadline > now {
            return Expiry::NotYet;
        }
        let bank = self.bank_of(turn.player);
        if turn.bank_started.is_none() && !bank.is_zero() {
            self.turn = Some(Turn {
                deadline: now + bank,
                bank_started: Some(now),
                ..turn
            });
            return Expiry::BankStarted;
        }
        self.turn = None;
        self.banks.insert(turn.player, Duration::ZERO);
        Expiry::TimedOut {
            seat: turn.seat,
            player: turn.player,
        }
    }

    /// The clock as watchers see it.
    pub fn view(&self, now: Instant) -> Option<Clock> {
        let turn = self.turn?;
        let in_bank = turn.bank_started.is_some();
        Some(Clock {
            seat: turn.seat,
            remaining_ms: millis(turn.deadline.saturating_duration_since(now)),
            time_bank_ms: if in_bank {
                0
            } else {
                millis(self.bank_of(turn.player))
            },
            in_time_bank: in_bank,
        })
    }

    /// A player sat down. Within their sitting they find the bank they left with; returns it
    /// so it can be stored with the new seat.
    pub fn sat_down(&mut self, player: PlayerId, now: Instant) -> Option<Duration> {
        self.left
            .retain(|_, (_, at)| now.saturating_duration_since(*at) < SITTING);
        match self.left.remove(&player) {
            Some((bank, _)) => {
                self.banks.insert(player, bank);
                Some(bank)
            }
            None => {
                self.banks.remove(&player);
                None
            }
        }
    }

    /// A player's seat was freed: the bank is kept for the rest of their sitting, not the seat's.
    pub fn left(&mut self, player: PlayerId, now: Instant) {
        if let Some(bank) = self.banks.remove(&player) {
            self.left.insert(player, (bank, now));
        }
        self.left
            .retain(|_, (_, at)| now.saturating_duration_since(*at) < SITTING);
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: PlayerId = PlayerId(7);

    fn clocks() -> Clocks {
        Clocks::new(Duration::from_secs(15), Duration::from_secs(30), Vec::new())
    }

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn acting_within_the_decision_clock_costs_no_bank() {
        let t0 = Instant::now();
        let mut c = clocks();
        c.turn(Some((2, P)), t0);
        assert_eq!(c.deadline(), Some(t0 + secs(15)));
        assert_eq!(c.acted(2, t0 + secs(14)), None);
        assert_eq!(c.bank_of(P), secs(30));
    }

    #[test]
    fn the_bank_takes_over_and_is_charged_only_for_what_was_used() {
        let t0 = Instant::now();
        let mut c = clocks();
        c.turn(Some((2, P)), t0);
        assert_eq!(c.expire(t0 + secs(10)), Expiry::NotYet);
        assert_eq!(c.expire(t0 + secs(15)), Expiry::BankStarted);
        assert_eq!(c.deadline(), Some(t0 + secs(45)));
        let view = c.view(t0 + secs(20)).expect("on the clock");
        assert!(view.in_time_bank);
        assert_eq!(view.remaining_ms, 25_000);
        assert_eq!(c.acted(2, t0 + secs(27)), Some((P, secs(18))));
        assert_eq!(c.bank_of(P), secs(18));
    }

    #[test]
    fn running_out_of_bank_times_the_seat_out_and_empties_the_bank() {
        let t0 = Instant::now();
        let mut c = clocks();
        c.turn(Some((4, P)), t0);
        c.expire(t0 + secs(15));
        assert_eq!(
            c.expire(t0 + secs(45)),
            Expiry::TimedOut { seat: 4, player: P }
        );
        assert_eq!(c.bank_of(P), Duration::ZERO);
        assert_eq!(c.deadline(), None);
        // With no bank left, the next decision clock ends the turn at once.
        c.turn(Some((4, P)), t0 + secs(50));
        assert_eq!(
            c.expire(t0 + secs(65)),
            Expiry::TimedOut { seat: 4, player: P }
        );
    }

    #[test]
    fn the_same_player_to_act_keeps_their_running_clock() {
        let t0 = Instant::now();
        let mut c = clocks();
        c.turn(Some((1, P)), t0);
        c.turn(Some((1, P)), t0 + secs(5));
        assert_eq!(c.deadline(), Some(t0 + secs(15)));
        c.turn(None, t0 + secs(6));
        assert_eq!(c.deadline(), None);
    }

    #[test]
    fn leaving_and_sitting_again_within_the_sitting_does_not_refill_the_bank() {
        let t0 = Instant::now();
        let mut c = Clocks::new(secs(15), secs(30), vec![(P, secs(3))]);
        c.left(P, t0);
        assert_eq!(c.sat_down(P, t0 + secs(600)), Some(secs(3)));
        assert_eq!(c.bank_of(P), secs(3));
    }

    #[test]
    fn a_new_sitting_brings_a_full_bank_and_old_banks_are_pruned() {
        let t0 = Instant::now();
        let mut c = Clocks::new(
            secs(15),
            secs(30),
            vec![(P, secs(3)), (PlayerId(8), secs(1))],
        );
        c.left(P, t0);
        c.left(PlayerId(8), t0);
        assert_eq!(c.left.len(), 2);
        assert_eq!(c.sat_down(P, t0 + SITTING), None);
        assert_eq!(c.bank_of(P), secs(30));
        assert!(c.left.is_empty(), "expired sittings are forgotten");
    }
}
