//! A player's table: the host's controls, seat approval, removals, the invite that lets people
//! in, and closing the table once nobody has sat at it for a while. The host decides who sits
//! and when hands are dealt; nothing here sees a card, changes a hand in play or moves chips
//! other than a removed player's stack back to their balance.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use shared::protocol::{ErrorCode, HostAction, RequestId, SeatRequest, ServerMessage};
use shared::rules::Chips;
use tokio::time::Instant;
use uuid::Uuid;

use super::TableActor;
use super::command::{Account, Outbound, Outgoing, Request, account_of, player_id};
use super::error::RequestError;
use super::fanout::encode;
use super::seats::Departure;
use crate::tables::home::{Access, Home, new_invite};

/// What a table needs to be a player's table.
pub struct HomeParts {
    pub home: Home,
    pub access: Arc<Access>,
    /// Nobody seated for this long closes the table.
    pub idle_close: Duration,
}

/// A seat asked for at a table with seat approval, waiting for the host.
struct Pending {
    account: Account,
    buy_in: Chips,
    post_now: bool,
    request_id: Option<RequestId>,
    out: Outbound,
}

pub(super) struct HomeGame {
    pub home: Home,
    access: Arc<Access>,
    pending: BTreeMap<u8, Pending>,
    /// Removed by the host: they may not sit here again while the table is open.
    pub(super) removed: HashSet<Uuid>,
    /// Removed during a hand they are in: stood up once it is over.
    to_remove: HashSet<Uuid>,
    empty_since: Instant,
    idle_close: Duration,
}

impl HomeGame {
    pub fn new(parts: HomeParts) -> HomeGame {
        HomeGame {
            home: parts.home,
            access: parts.access,
            pending: BTreeMap::new(),
            removed: HashSet::new(),
            to_remove: HashSet::new(),
            empty_since: Instant::now(),
            idle_close: parts.idle_close,
        }
    }

    pub fn is_host(&self, account: Uuid) -> bool {
        self.home.host == account
    }

    /// Checked again by the table itself: an invite rotated while a request was on its way
    /// lets nobody in.
    pub fn admits(&self, account: Option<Uuid>, invite: Option<&str>) -> bool {
        self.access.admits(account, invite)
    }
}

impl TableActor {
    /// A sit request at a player's table: refused for a removed player; held for the host
    /// when seats need approval (nothing moves until the host says yes). Anything else goes
    /// through as it came.
    pub(super) fn gate_seat(
        &mut self,
        account: &Account,
        request: Request,
        out: &Outbound,
    ) -> Result<Request, RequestError> {
        let Request::Sit {
            seat,
            buy_in,
            post_now,
            request_id,
        } = request
        else {
            return Ok(request);
        };
        let sit = Request::Sit {
            seat,
            buy_in,
            post_now,
            request_id: request_id.clone(),
        };
        let Some(game) = &self.home else {
            return Ok(sit);
        };
        if game.is_host(account.id) {
            return Ok(sit);
        }
        if game.removed.contains(&account.id) {
            return Err(RequestError::Removed);
        }
        // A seat held for the waiting list's first is not asked for by anyone else.
        self.check_not_held(seat, account.id)?;
        if !game.home.seat_approval || self.seat_of(account.id).is_some() {
            return Ok(sit);
        }
        if self.closing {
            return Err(RequestError::Closing);
        }
        self.table.can_sit(seat, player_id(account.id), buy_in)?;
        let Some(game) = &mut self.home else {
            return Ok(sit);
        };
        if game
            .pending
            .get(&seat)
            .is_some_and(|p| p.account.id != account.id)
        {
            return Err(RequestError::SeatAsked);
        }
        // One request per player: asking for another seat replaces the first.
        game.pending.retain(|_, p| p.account.id != account.id);
        game.pending.insert(
            seat,
            Pending {
                account: account.clone(),
                buy_in,
                post_now,
                request_id,
                out: out.clone(),
            },
        );
        self.send_host_panel();
        Err(RequestError::AwaitingApproval)
    }

    pub(super) async fn host_request(
        &mut self,
        account: &Account,
        action: HostAction,
    ) -> Result<(), RequestError> {
        let Some(game) = &self.home else {
            return Err(RequestError::NoHost);
        };
        if !game.is_host(account.id) {
            return Err(RequestError::NotHost);
        }
        let mut home = game.home.clone();
        match action {
            HostAction::Pause | HostAction::Resume => {
                home.paused = action == HostAction::Pause;
                self.save_home(home).await?;
                if !self.is_paused() {
                    self.next_hand_at = Instant::now();
                }
            }
            HostAction::SetSpectators { allowed } => {
                home.spectators = allowed;
                self.save_home(home).await?;
                // Everyone without a seat now sees more, or less, of the game.
                self.watchers.mark_all_stale();
            }
            HostAction::SetSeatApproval { on } => {
                home.seat_approval = on;
                self.save_home(home).await?;
            }
            HostAction::RotateInvite => {
                if !home.private {
                    return Err(RequestError::NoInvite);
                }
                home.invite = Some(new_invite());
                self.save_home(home).await?;
                self.drop_outsiders();
            }
            HostAction::HandOver { seat } => {
                let to = self
                    .table
                    .seat(seat)
                    .map(|s| account_of(s.player))
                    .filter(|a| !self.bots.contains_key(&player_id(*a)))
                    .filter(|a| *a != account.id)
                    .ok_or(RequestError::NoPlayer(seat))?;
                let name = self
                    .table
                    .seat(seat)
                    .map(|s| s.name.clone())
                    .unwrap_or_default();
                home.host = to;
                home.host_name = name;
                self.save_home(home).await?;
                tracing::info!(table = %self.id, seat, "host handed over");
            }
            HostAction::Approve { seat } | HostAction::Refuse { seat } => {
                self.forget_departed_requests();
                let pending = self
                    .home
                    .as_mut()
                    .and_then(|g| g.pending.remove(&seat))
                    .ok_or(RequestError::NoRequest(seat))?;
                self.send_host_panel();
                let approved = matches!(action, HostAction::Approve { .. });
                let answer = if approved {
                    self.player_request(
                        &pending.account,
                        Request::Sit {
                            seat,
                            buy_in: pending.buy_in,
                            post_now: pending.post_now,
                            request_id: pending.request_id,
                        },
                    )
                    .await
                } else {
                    Err(RequestError::SeatRefused)
                };
                if let Err(error) = answer {
                    let _ = pending
                        .out
                        .try_send(Outgoing::refused(self.id.clone(), error));
                }
                self.publish_lobby();
                return Ok(());
            }
            HostAction::Remove { seat } => {
                let target = self
                    .table
                    .seat(seat)
                    .map(|s| account_of(s.player))
                    .filter(|a| *a != account.id)
                    .ok_or(RequestError::NoPlayer(seat))?;
                if let Some(game) = &mut self.home {
                    game.removed.insert(target);
                    game.to_remove.insert(target);
                }
                if self.hand.is_none() {
                    self.remove_due().await;
                }
                return Ok(());
            }
            HostAction::Close => {
                self.close_for_good().await?;
                return Ok(());
            }
        }
        self.broadcast(&[]);
        self.send_host_panel();
        self.publish_lobby();
        Ok(())
    }

    /// Writes the host's change, then applies it: a database that does not answer changes
    /// nothing.
    async fn save_home(&mut self, home: Home) -> Result<(), RequestError> {
        if let Err(e) = self.ledger.save_home(&self.id, &home).await {
            tracing::warn!(table = %self.id, error = %e, "could not save the host's change");
            self.metrics.db_errors.inc();
            return Err(RequestError::DatabaseUnavailable);
        }
        if let Some(game) = &mut self.home {
            game.home = home;
        }
        self.sync_access();
        Ok(())
    }

    /// Whether the host paused the game.
    pub(super) fn is_paused(&self) -> bool {
        self.home.as_ref().is_some_and(|g| g.home.paused)
    }

    /// Lets the table's host and seated players past the invite check.
    pub(super) fn sync_access(&self) {
        if let Some(game) = &self.home {
            let seated = self.table.seats().map(|(_, s)| account_of(s.player));
            game.access.update(&game.home, seated);
        }
    }

    /// After the invite changed: watchers who came by the old link and have no seat (and do
    /// not host) are let go, told the same as for a table that does not exist.
    fn drop_outsiders(&mut self) {
        let Some(game) = &self.home else {
            return;
        };
        let host = game.home.host;
        let table = &self.table;
        let keep = |account: Option<Uuid>| {
            account.is_some_and(|a| a == host || table.seat_of(player_id(a)).is_some())
        };
        let notice = encode(&ServerMessage::Error {
            code: ErrorCode::NoSuchTable,
            message: format!("no table `{}`", self.id),
            table: Some(self.id.clone()),
        });
        self.watchers.drop_unless(keep, &notice);
        // Whoever asked for a seat came by the old link (they have none, and do not host).
        if let Some(game) = &mut self.home {
            for (_, p) in std::mem::take(&mut game.pending) {
                let _ = p.out.try_send(Outgoing::refused(
                    self.id.clone(),
                    RequestError::SeatRefused,
                ));
            }
        }
        self.publish_lobby();
    }

    /// The host's panel: the invite (private tables) and the seats asked for, to every socket
    /// of the host's.
    pub(super) fn send_host_panel(&mut self) {
        self.forget_departed_requests();
        let Some(game) = &self.home else {
            return;
        };
        let panel = encode(&ServerMessage::HostPanel {
            table: self.id.clone(),
            invite: game.home.invite.clone(),
            pending: game
                .pending
                .iter()
                .map(|(&seat, p)| SeatRequest {
                    seat,
                    name: p.account.name.clone(),
                    buy_in: p.buy_in,
                })
                .collect(),
        });
        let host = game.home.host;
        self.watchers.send_to(host, &panel);
    }

    /// A request whose socket has closed is nobody's to answer: it is dropped rather than
    /// seat someone who has gone.
    fn forget_departed_requests(&mut self) {
        if let Some(game) = &mut self.home {
            game.pending.retain(|_, p| !p.out.is_closed());
        }
    }

    /// Stands up the players the host removed, once they are out of any hand.
    pub(super) async fn remove_due(&mut self) {
        let Some(game) = &self.home else {
            return;
        };
        let due: Vec<(u8, Uuid)> = game
            .to_remove
            .iter()
            .filter_map(|a| Some((self.seat_of(*a)?, *a)))
            .filter(|(seat, _)| !self.in_running_hand(*seat))
            .collect();
        let gone: Vec<Uuid> = game
            .to_remove
            .iter()
            .filter(|a| self.seat_of(**a).is_none())
            .copied()
            .collect();
        if let Some(game) = &mut self.home {
            for a in gone {
                game.to_remove.remove(&a);
            }
        }
        if due.is_empty() {
            return;
        }
        for (seat, account) in due {
            let key = format!("removed:{}:{}", self.id, Uuid::new_v4());
            match self
                .leave_between_hands(seat, &key, Departure::StandUp)
                .await
            {
                Ok(_) => {
                    if let Some(game) = &mut self.home {
                        game.to_remove.remove(&account);
                    }
                    let notice = encode(&ServerMessage::Error {
                        code: ErrorCode::SeatRefused,
                        message: RequestError::Removed.to_string(),
                        table: Some(self.id.clone()),
                    });
                    self.watchers.send_to(account, &notice);
                    tracing::info!(table = %self.id, seat, "removed by the host");
                }
                Err(e) => {
                    tracing::warn!(table = %self.id, seat, error = %e, "could not remove a player yet")
                }
            }
        }
        self.sync_access();
        self.broadcast(&[]);
        self.publish_lobby();
    }

    /// A player's table nobody has sat at for its idle limit closes itself. A seat the
    /// database may hold without the table knowing (an answer lost) is read back first.
    pub(super) async fn close_if_idle(&mut self, now: Instant) {
        if self.home.is_none() {
            return;
        }
        for account in self.unsure.iter().copied().collect::<Vec<_>>() {
            if self.reconcile(account).await.is_err() {
                return;
            }
        }
        let empty = self.table.seats().next().is_none();
        let Some(game) = &mut self.home else {
            return;
        };
        if !empty || self.closing {
            game.empty_since = now;
            return;
        }
        if now.saturating_duration_since(game.empty_since) < game.idle_close {
            return;
        }
        tracing::info!(table = %self.id, "player table idle; closing it");
        if let Err(e) = self.close_for_good().await {
            tracing::warn!(table = %self.id, error = %e, "could not close an idle table yet");
            if let Some(game) = &mut self.home {
                game.empty_since = now;
            }
        }
    }

    /// Marks the table closed in the database, then finishes the hand in play and cashes
    /// everyone out (the task ends after that); the registry forgets it.
    async fn close_for_good(&mut self) -> Result<(), RequestError> {
        if let Err(e) = self.ledger.close_table(&self.id).await {
            tracing::warn!(table = %self.id, error = %e, "could not close the table");
            self.metrics.db_errors.inc();
            return Err(RequestError::DatabaseUnavailable);
        }
        self.stop_dealing = true;
        self.closing = true;
        if let Some(game) = &mut self.home {
            for (_, p) in std::mem::take(&mut game.pending) {
                let _ = p
                    .out
                    .try_send(Outgoing::refused(self.id.clone(), RequestError::Closing));
            }
        }
        self.broadcast(&[]);
        // The registry (which re-reads the database) keeps the table reachable while its hand
        // finishes; it forgets it once this task ends.
        Ok(())
    }

    /// The table is closed and everyone cashed out: its watchers are told.
    pub(super) fn tell_closed(&mut self) {
        let notice = encode(&ServerMessage::Error {
            code: ErrorCode::NoSuchTable,
            message: "this table has closed".into(),
            table: Some(self.id.clone()),
        });
        self.watchers.send_all(&notice);
    }
}
