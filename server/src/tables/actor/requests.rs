//! A player's requests. Whatever moves chips is checked in memory, committed to the ledger,
//! then applied in memory by a step that cannot fail; a refusal changes nothing.

use axum::extract::ws::Utf8Bytes;

use shared::protocol::{RequestId, ServerMessage};
use shared::table::Leave;
use tokio::time::Instant;
use uuid::Uuid;

use super::TableActor;
use super::command::{Account, Request, player_id};
use super::error::RequestError;
use super::fanout::encode;
use super::seats::{Departure, Gone};
use crate::chips::{ChipsError, Outcome};

impl TableActor {
    pub(super) async fn player_request(
        &mut self,
        account: &Account,
        request: Request,
    ) -> Result<(), RequestError> {
        let seat = self.seat_of(account.id);
        match request {
            Request::Sit {
                seat: wanted,
                buy_in,
                post_now,
                request_id,
            } => {
                if self.closing {
                    return Err(RequestError::Closing);
                }
                let player = player_id(account.id);
                self.check_not_held(wanted, account.id)?;
                if request_id.is_some() && seat == Some(wanted) {
                    // The click that seated them, sent again (a retry, a second socket).
                    return Err(RequestError::AlreadyDone);
                }
                self.table.can_sit(wanted, player, buy_in)?;
                let key = self.ledger_key("sit", account, request_id.as_ref());
                let bought = self
                    .ledger
                    .buy_in(account.id, &self.id, wanted, buy_in, &key)
                    .await
                    .map_err(|e| self.uncertain(account.id, e))?;
                if bought == Outcome::Replayed {
                    // Applied before: if its answer was lost, the seat is in the database and
                    // not here yet; take it from there.
                    return self.replayed(account.id).await;
                }
                self.table
                    .sit(wanted, player, account.name.clone(), buy_in, post_now)?;
                // The bank is the sitting's, not the seat's: a player back within the sitting
                // finds what they left.
                if let Some(bank) = self.clocks.sat_down(player, Instant::now()) {
                    self.save_bank(player, bank);
                }
                self.changed(Vec::new()).await;
            }
            Request::Act { hand, action } => {
                let received = Instant::now();
                let seat = seat.ok_or(RequestError::NotSeated)?;
                if hand != self.hand_number || self.hand.is_none() {
                    return Err(RequestError::StaleHand(hand));
                }
                let events = self.table.act(seat, action)?;
                self.charge_clock(seat);
                self.changed(events).await;
                self.metrics.action_to_broadcast.observe(received.elapsed());
            }
            Request::PreSelect(pre) => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                match pre {
                    Some(p) => self.pre_actions.insert(seat, p),
                    None => self.pre_actions.remove(&seat),
                };
                if self.table.hand().and_then(|h| h.to_act()) == Some(seat) {
                    self.changed(Vec::new()).await;
                }
            }
            Request::SitOut => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.sit_out(seat)?;
                self.changed(Vec::new()).await;
            }
            Request::Straddle { on } => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.set_straddle(seat, on)?;
                self.changed(Vec::new()).await;
            }
            Request::SitIn { post_now } => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.sit_in(seat, post_now)?;
                self.sat_out.forget(seat);
                self.changed(Vec::new()).await;
            }
            Request::TopUp { amount, request_id } => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.can_top_up(seat, amount)?;
                let key = self.ledger_key("top-up", account, request_id.as_ref());
                let topped = self
                    .ledger
                    .top_up(account.id, &self.id, amount, &key)
                    .await
                    .map_err(|e| self.uncertain(account.id, e))?;
                if topped == Outcome::Replayed {
                    // The same click again (a retry or a second socket): already on the table,
                    // or in the database only if the first answer was lost.
                    return self.replayed(account.id).await;
                }
                self.table.top_up(seat, amount)?;
                self.changed(Vec::new()).await;
            }
            Request::Leave { request_id } => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                if !self.in_running_hand(seat) {
                    // Money first: the stack is on the balance before the seat is freed, and a
                    // database that does not answer changes nothing.
                    let key = self.ledger_key("leave", account, request_id.as_ref());
                    let left = self
                        .leave_between_hands(seat, &key, Departure::Leave)
                        .await
                        .map_err(|e| self.uncertain(account.id, e))?;
                    if !left {
                        // This request id already took the player away once; they have sat
                        // down again since, and this seat stays.
                        return Err(RequestError::AlreadyDone);
                    }
                    self.changed(Vec::new()).await;
                    return Ok(());
                }
                let before = self.table.seat(seat).cloned();
                let (leave, events) = self.table.leave(seat)?;
                self.pre_actions.remove(&seat);
                // Leaving on one's turn folds, which may end the hand: it must settle before
                // the cash-out, which takes the seat's stack as the database holds it (else the
                // seat row is gone, the settlement does not balance, and the hand is voided).
                let freed = match (leave, before) {
                    (Leave::Now(stack), Some(s)) => Some(Gone {
                        stack,
                        ..Gone::from(s).at(seat)
                    }),
                    _ => None,
                };
                self.changed_leaving(events, freed).await;
            }
            Request::SitOutAtBigBlind { on } => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.set_sit_out_at_big_blind(seat, on)?;
                self.changed(Vec::new()).await;
            }
            Request::ShowLosing { on } => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.set_show_losing(seat, on)?;
                self.changed(Vec::new()).await;
            }
            Request::ShowCards => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.show_cards(seat)?;
                self.changed(Vec::new()).await;
            }
            Request::AutoTopUp { to } => {
                let seat = seat.ok_or(RequestError::NotSeated)?;
                self.table.set_auto_top_up(seat, to)?;
                // Between hands it applies at once, as the top-up it stands for would.
                if !self.in_running_hand(seat) {
                    self.auto_top_up(seat).await;
                }
                self.changed(Vec::new()).await;
            }
            Request::JoinWaitlist | Request::LeaveWaitlist => {
                // Handled by `Command::Player` with the connection to tell (`waitlist`).
                return Err(RequestError::Internal);
            }
            Request::Chat { text } => {
                let name = seat
                    .and_then(|s| self.table.seat(s))
                    .map(|s| s.name.clone());
                let text = self.chat.line(account.id, name.as_deref(), &text)?;
                self.seq += 1;
                let line: Utf8Bytes = encode(&ServerMessage::Chat {
                    table: self.id.clone(),
                    seq: self.seq,
                    from: name.unwrap_or_default(),
                    text,
                    at: Some(super::chat::now_ms()),
                });
                let spectators = self.home.as_ref().is_none_or(|g| g.home.spectators);
                let table = &self.table;
                self.watchers.chat(line, |account| {
                    spectators || account.is_some_and(|a| table.seat_of(player_id(a)).is_some())
                });
            }
        }
        Ok(())
    }

    /// Tops `seat` back up to its automatic top-up stack (docs/rules.md §7.15), through the
    /// ledger like a top-up the player asked for. A busted player's is a rebuy, after which
    /// they play on. A balance too small for it moves nothing: the player is told and the
    /// automatic top-up is turned off, rather than refused again every hand.
    pub(super) async fn auto_top_up(&mut self, seat: u8) {
        // Nothing at a table about to cash everyone out.
        if self.closing || self.stop_dealing {
            return;
        }
        let Some(amount) = self.table.auto_top_up_due(seat) else {
            return;
        };
        let Some((player, broke)) = self.table.seat(seat).map(|s| (s.player, s.sat_out_broke))
        else {
            return;
        };
        let account = super::command::account_of(player);
        if self.unsure.contains(&account) {
            // The last chip movement may have committed: the seat is read back first.
            return;
        }
        // One key per seat, hand and amount: a retry after a lost answer is recognised rather
        // than paid twice.
        let key = format!(
            "auto-top-up:{}:{}:{}:{}",
            self.id, account, self.hand_number, amount
        );
        match self.ledger.top_up(account, &self.id, amount, &key).await {
            Ok(Outcome::Replayed) => {
                let _ = self.reconcile(account).await;
            }
            Ok(_) => {
                if self.table.top_up(seat, amount).is_ok() && broke {
                    let _ = self.table.sit_in(seat, false);
                    self.sat_out.forget(seat);
                }
            }
            Err(e) => {
                let refusal = self.uncertain(account, e);
                if !matches!(refusal, RequestError::DatabaseUnavailable) {
                    let _ = self.table.set_auto_top_up(seat, None);
                }
                let notice = encode(&ServerMessage::Error {
                    code: refusal.code(),
                    message: format!("automatic top-up: {refusal}"),
                    table: Some(self.id.clone()),
                });
                self.watchers.send_to(account, &notice);
            }
        }
    }

    /// The player's view of a failed chip movement. If the database may have committed it
    /// anyway (the answer was lost), the account's seat is read back before the next hand.
    pub(super) fn uncertain(&mut self, account: Uuid, e: ChipsError) -> RequestError {
        if e.is_transient() {
            self.unsure.insert(account);
            self.metrics.db_errors.inc();
        }
        let refusal = RequestError::from_chips(&e);
        if matches!(refusal, RequestError::Internal) {
            tracing::error!(table = %self.id, error = %e, "chip movement failed");
            self.metrics.db_errors.inc();
        }
        refusal
    }

    /// A request the ledger had already applied: make the table agree with the database, and
    /// say so if that changed nothing.
    async fn replayed(&mut self, account: Uuid) -> Result<(), RequestError> {
        match self.reconcile(account).await {
            Ok(true) => {
                self.changed(Vec::new()).await;
                Ok(())
            }
            Ok(false) => Err(RequestError::AlreadyDone),
            Err(e) => Err(self.uncertain(account, e)),
        }
    }

    /// The ledger's idempotency key for a request: from the client's request id when it sent
    /// one (so the same click sent again moves chips once), else unique to this call.
    fn ledger_key(&self, kind: &str, account: &Account, request: Option<&RequestId>) -> String {
        match request {
            Some(id) => format!("{kind}:{}:{}:{}", self.id, account.id, id.as_str()),
            None => format!("{kind}:{}:{}", self.id, Uuid::new_v4()),
        }
    }
}
