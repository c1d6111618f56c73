//! A hand on record: what is written before the first card (deck hash, starting stacks, who
//! plays), the history kept while it runs, and the settlement that waits out a database
//! outage instead of showing a result that was never saved.

use std::time::Duration;

use sha2::{Digest, Sha256};
use shared::card::Card;
use shared::hand::HandResult;
use shared::history::{HandRecord, HistorySeat};
use shared::table::Table;
use tokio::time::Instant;
use uuid::Uuid;

use super::command::account_of;
use super::ledger::{Ledger, Settlement};
use crate::chips::{ChipsError, FinalStack, Outcome};
use crate::metrics::Metrics;

/// How long one settlement attempt may take before the table stops waiting for its answer and
/// tries again.
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(10);

pub struct RunningHand {
    pub id: Uuid,
    pub started: Instant,
    pub record: HandRecord,
    /// The account in each seat dealt in.
    pub accounts: Vec<(u8, Uuid)>,
}

impl RunningHand {
    /// The record of the hand just dealt on `table` (number `number`, from `deck`).
    pub fn new(
        table_id: &str,
        table_name: &str,
        number: u64,
        table: &Table,
        deck: Vec<Card>,
    ) -> Option<RunningHand> {
        let hand = table.hand()?;
        let seats: Vec<HistorySeat> = hand
            .starting_stacks()
            .iter()
            .map(|&(seat, stack)| HistorySeat {
                seat,
                name: table.seat(seat).map(|s| s.name.clone()).unwrap_or_default(),
                starting_stack: stack,
            })
            .collect();
        let accounts = seats
            .iter()
            .filter_map(|s| Some((s.seat, account_of(table.seat(s.seat)?.player))))
            .collect();
        let id = Uuid::new_v4();
        Some(RunningHand {
            id,
            started: Instant::now(),
            accounts,
            record: HandRecord {
                format: HandRecord::FORMAT,
                id: id.to_string(),
                table_id: table_id.to_string(),
                table_name: table_name.to_string(),
                number,
                started_at: now_rfc3339(),
                stakes: *hand.stakes(),
                seat_count: table.config().seats,
                button: hand.button(),
                seats,
                events: Vec::new(),
                deck,
            },
        })
    }

    /// The deck's fingerprint, stored before the deal so the deal can be checked afterwards.
    pub fn deck_hash(&self) -> Vec<u8> {
        let mut hasher = Sha256::new();
        hasher.update(
            self.record
                .deck
                .iter()
                .map(|c| c.index())
                .collect::<Vec<u8>>(),
        );
        hasher.finalize().to_vec()
    }

    /// Each player's stack at the end, by account.
    pub fn final_stacks(&self, result: &HandResult) -> Vec<FinalStack> {
        result
            .stacks
            .iter()
            .filter_map(|&(seat, stack)| {
                let account = self.accounts.iter().find(|a| a.0 == seat)?.1;
                Some(FinalStack {
                    seat,
                    account,
                    stack,
                })
            })
            .collect()
    }
}

/// How a settlement ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Settled {
    /// Committed: the result may be shown.
    Committed,
    /// Refused for good, or voided elsewhere: the table must take the hand back.
    TakenBack,
    /// Refused by the fence: another process owns the table and will void the hand.
    Lost,
}

/// Settles a finished hand, trying again for as long as the database cannot be reached (it
/// applies a hand once, so trying again is safe). `waiting` is called once, when the first try
/// fails, so the table can say why it pauses.
pub async fn settle(
    ledger: &dyn Ledger,
    metrics: &Metrics,
    table_id: &str,
    running: &RunningHand,
    result: &HandResult,
    mut waiting: impl FnMut(),
) -> Settled {
    let stacks = running.final_stacks(result);
    // Written out once, as the text that is stored: a `Value` tree of the record was built,
    // cloned into the writer's queue and dropped again, a twentieth of the server's CPU.
    let history = serde_json::value::to_raw_value(&running.record)
        .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned());
    let mut delay = Duration::from_millis(100);
    let mut waited = false;
    let settled = loop {
        let writing = Instant::now();
        // A database that stops answering without closing the connection must not hold the
        // table for as long as TCP takes to give up.
        let attempt = tokio::time::timeout(
            SETTLE_TIMEOUT,
            ledger.settle_hand(Settlement {
                hand: running.id,
                table_id,
                stacks: &stacks,
                rake: result.rake,
                history: &history,
            }),
        )
        .await
        .unwrap_or(Err(ChipsError::Database(sqlx::Error::PoolTimedOut)));
        metrics.hand_settle_write.observe(writing.elapsed());
        match attempt {
            Ok(Outcome::Applied(())) => break Settled::Committed,
            Ok(Outcome::Replayed) => {
                // Settled by an earlier try whose answer was lost, or voided by another process
                // meanwhile: only the first may be shown.
                match ledger.hand_status(running.id).await {
                    Ok(Some(status)) if status == "complete" => break Settled::Committed,
                    Ok(_) => {
                        tracing::error!(table = %table_id, "the hand was voided elsewhere; taking it back");
                        break Settled::TakenBack;
                    }
                    Err(e) => {
                        tracing::warn!(table = %table_id, error = %e, "cannot read the hand's status yet");
                    }
                }
            }
            Err(ChipsError::Fenced { .. }) => break Settled::Lost,
            Err(ChipsError::Unbalanced(_)) => {
                // Refused for good: the database keeps the stacks from before the hand.
                tracing::error!(table = %table_id, "a hand does not balance; voiding it");
                metrics.db_errors.inc();
                let _ = ledger.void_hand(running.id).await;
                break Settled::TakenBack;
            }
            Err(e) => {
                // Every other failure may pass later. Nothing about the result is shown before
                // it is saved: the table holds the hand, says why, and settles it when the
                // database is back (a process that dies meanwhile voids it at its next start).
                metrics.db_errors.inc();
                if !waited {
                    waited = true;
                    metrics.settle_waits.inc();
                    tracing::warn!(table = %table_id, error = %e, "cannot settle a hand yet; waiting for the database");
                    waiting();
                }
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(5));
    };
    if waited && settled == Settled::Committed {
        tracing::info!(table = %table_id, "the database is back; hand settled");
    }
    settled
}

/// The current time as RFC 3339 in UTC, for hand records.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let (h, m, s) = (secs % 86_400 / 3600, secs % 3600 / 60, secs % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_083_199), "2026-11-30T23:59:59Z");
        let now = now_rfc3339();
        assert!(now.len() == 20 && now.ends_with('Z'), "{now}");
    }
}
