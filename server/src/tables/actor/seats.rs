//! Freeing seats and keeping them in line with the database. Money first: a seat empties in
//! memory only once its stack is committed to the player's balance, so no seat is ever
//! "empty here, taken in the database".

use shared::rules::Chips;
use shared::table::PlayerId;
use tokio::time::Instant;
use uuid::Uuid;

use super::TableActor;
use super::command::{account_of, player_id};
use crate::chips::{ChipsError, Outcome};

/// Why a seat is freed between hands.
#[derive(Clone, Copy)]
pub(super) enum Departure {
    /// The player's own leave: blinds owed are remembered (docs/rules.md §7.6).
    Leave,
    /// Stood up for sitting out too long, or the table closed: nothing is remembered.
    StandUp,
}

/// A seat freed by a leave during a hand, kept until its cash-out is committed.
pub(super) struct Gone {
    pub seat: u8,
    pub player: PlayerId,
    pub name: String,
    pub stack: Chips,
}

impl From<shared::table::Seat> for Gone {
    fn from(s: shared::table::Seat) -> Gone {
        Gone {
            seat: 0,
            player: s.player,
            name: s.name,
            stack: s.stack,
        }
    }
}

impl Gone {
    pub fn at(self, seat: u8) -> Gone {
        Gone { seat, ..self }
    }
}

impl TableActor {
    /// Brings one account's seat in memory in line with the database, between hands. Returns
    /// whether anything changed.
    pub(super) async fn reconcile(&mut self, account: Uuid) -> Result<bool, ChipsError> {
        let player = player_id(account);
        let here = self.table.seat_of(player);
        if here.is_some_and(|seat| self.in_running_hand(seat)) {
            return Ok(false); // settled at the end of the hand, which checks the stacks
        }
        let there = self.ledger.seat_of(&self.id, account).await?;
        self.unsure.remove(&account);
        let there = there.and_then(|s| {
            Some((
                u8::try_from(s.seat).ok()?,
                u64::try_from(s.stack).ok()?,
                s.username,
            ))
        });
        let changed = match (here, there) {
            (Some(seat), Some((db_seat, stack, _))) if seat == db_seat => {
                let differs = self.table.seat(seat).is_some_and(|s| s.stack != stack);
                if differs {
                    let _ = self.table.set_stack(seat, stack);
                }
                differs
            }
            (None, Some((seat, stack, name))) => {
                self.table.restore_seat(seat, player, name, stack).is_ok()
            }
            (Some(seat), None) => self.table.stand_up(seat).is_ok(),
            (Some(seat), Some((db_seat, ..))) => {
                tracing::error!(table = %self.id, %account, seat, db_seat, "a player's seat differs from the database's");
                false
            }
            (None, None) => false,
        };
        if changed {
            tracing::warn!(table = %self.id, %account, "seat brought in line with the database");
        }
        Ok(changed)
    }

    /// Memory and the database disagreed about a stack: read every seat back before dealing.
    pub(super) fn doubt_every_seat(&mut self) {
        let accounts: Vec<Uuid> = self
            .table
            .seats()
            .map(|(_, s)| account_of(s.player))
            .collect();
        self.unsure.extend(accounts);
    }

    /// Frees a seat that is not in a running hand: its stack goes to the balance first, and
    /// only once that is committed does the seat empty. On an error nothing has changed here.
    /// Returns false when the key had been used already (nothing done).
    pub(super) async fn leave_between_hands(
        &mut self,
        seat: u8,
        key: &str,
        how: Departure,
    ) -> Result<bool, ChipsError> {
        let Some(player) = self.table.seat(seat).map(|s| s.player) else {
            return Err(ChipsError::NotSeated);
        };
        match self
            .ledger
            .cash_out(account_of(player), &self.id, key)
            .await
        {
            // NotSeated: an earlier cash-out committed but its answer was lost.
            Ok(Outcome::Applied(_)) | Err(ChipsError::NotSeated) => {}
            Ok(Outcome::Replayed) => return Ok(false),
            Err(e) => {
                self.metrics.db_errors.inc();
                return Err(e);
            }
        }
        self.sat_out.forget(seat);
        self.pre_actions.remove(&seat);
        self.clocks.left(player, Instant::now());
        match how {
            Departure::Leave => {
                let _ = self.table.leave(seat);
            }
            Departure::StandUp => {
                let _ = self.table.stand_up(seat);
            }
        }
        self.publish_lobby();
        Ok(true)
    }

    /// Cashes out a player whose seat the table has already freed (they left during the hand
    /// that just ended). If the database refuses, the seat comes back, sat out with the same
    /// stack, so that memory and database agree and the player can leave again.
    pub(super) async fn cash_out_gone(&mut self, gone: Gone) {
        let key = format!("leave:{}:{}", self.id, Uuid::new_v4());
        match self
            .ledger
            .cash_out(account_of(gone.player), &self.id, &key)
            .await
        {
            Ok(_) | Err(ChipsError::NotSeated) => self.clocks.left(gone.player, Instant::now()),
            Err(e) => {
                tracing::error!(table = %self.id, seat = gone.seat, error = %e, "cash-out failed; the player keeps the seat");
                self.metrics.db_errors.inc();
                if let Err(e) =
                    self.table
                        .restore_seat(gone.seat, gone.player, gone.name, gone.stack)
                {
                    tracing::error!(table = %self.id, seat = gone.seat, error = %e, "could not put the seat back");
                }
            }
        }
        self.publish_lobby();
    }

    /// At closing: every stack back to its balance, retried for a while if the database
    /// refuses; what is still seated after that is cashed out by the next start.
    pub(super) async fn cash_out_everyone(&mut self) {
        let mut wait = std::time::Duration::from_millis(500);
        for attempt in 0..6 {
            let seats: Vec<u8> = self.table.seats().map(|(i, _)| i).collect();
            if seats.is_empty() {
                break;
            }
            if attempt > 0 {
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            for seat in seats {
                let key = format!("close:{}:{}", self.id, Uuid::new_v4());
                if let Err(e) = self
                    .leave_between_hands(seat, &key, Departure::StandUp)
                    .await
                {
                    tracing::error!(table = %self.id, seat, error = %e, "cash-out at closing failed");
                }
            }
        }
        if self.table.seats().next().is_some() {
            tracing::error!(table = %self.id, "seats left at a closed table; the next start cashes them out");
        }
        self.broadcast(&[]);
    }

    /// Stands up players sat out for the table's number of hands (docs/rules.md §7.7), or,
    /// where the operator set one, for longer than its limit in minutes.
    pub(super) async fn stand_up_idle(&mut self) {
        let due = self.sat_out.due(
            &self.table,
            self.def.sit_out_minutes,
            Instant::now(),
            |seat| self.in_running_hand(seat),
        );
        if due.is_empty() {
            return;
        }
        for seat in due {
            let key = format!("stand-up:{}:{}", self.id, Uuid::new_v4());
            match self
                .leave_between_hands(seat, &key, Departure::StandUp)
                .await
            {
                Ok(_) => {
                    tracing::info!(table = %self.id, seat, "stood up after sitting out too long")
                }
                Err(e) => {
                    tracing::warn!(table = %self.id, seat, error = %e, "could not stand up an idle player yet")
                }
            }
        }
        self.broadcast(&[]);
        self.publish_lobby();
    }
}
