//! One task per table: the only code that changes the table. Commands come in through a
//! bounded channel and are handled one at a time; the task orders every change and delegates
//! to parts that own their state:
//!
//! - `requests`: a player's requests, checked in memory, committed, then applied;
//! - `progress`: dealing, the end of a hand (settle → cash-out → broadcast), what follows;
//! - `seats`: freeing seats (money first), reconciling a seat with the database, idle stand-up;
//! - `clock`: the decision clock and time banks (pure);
//! - `fanout`: one serialisation per audience, slow watchers skipped (no sockets needed);
//! - `hand_log`: the hand record and the settlement that waits out a database outage;
//! - `chat`, `lobby`, `idle`: chat limits, the lobby row, sat-out limits (pure);
//! - `bots`: the practice tables' house bots;
//! - `host`: a player's table: host controls, seat approval, removals, its invite, idle close;
//! - `ledger`: every chip movement as one trait (Postgres in the room, memory in unit tests).

mod bots;
mod chat;
mod clock;
pub mod command;
pub mod error;
mod fanout;
mod hand_log;
pub mod host;
mod idle;
pub mod ledger;
mod lobby;
mod progress;
pub mod relay;
mod requests;
mod seats;
#[cfg(test)]
mod tests;
mod waitlist;

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use shared::format;
use shared::hand::Action;
use shared::protocol::{LobbyTable, PreAction};
use shared::table::{PlayerId, SeatStatus, Table};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;
use uuid::Uuid;

use crate::metrics::Metrics;
use crate::tables::def::TableDef;
use chat::Chat;
use clock::{Clocks, Expiry};
pub use command::{Account, Command, ConnId, Outbound, Outgoing, Request};
use command::{account_of, player_id};
pub use error::RequestError;
use fanout::{Frame, Watchers};
pub use fanout::{Leaving, encode};
use hand_log::RunningHand;
use host::{HomeGame, HomeParts};
use idle::SatOut;
use ledger::Ledger;
use lobby::Lobby;
use waitlist::Waitlist;

pub struct TableActor {
    id: String,
    def: TableDef,
    table: Table,
    ledger: Arc<dyn Ledger>,
    rx: mpsc::Receiver<Command>,
    watchers: Watchers,
    seq: u64,
    hand_number: u64,
    hand: Option<RunningHand>,
    /// The events of the last hand settled, which snapshots carry until the next one deals.
    last_hand: Vec<format::Event>,
    clocks: Clocks,
    pre_actions: HashMap<u8, PreAction>,
    next_hand_at: Instant,
    draining: Vec<oneshot::Sender<()>>,
    stop_dealing: bool,
    closing: bool,
    sat_out: SatOut,
    /// Accounts whose last chip movement may or may not have committed (the database did not
    /// answer): their seat is read back from the database before the next hand is dealt.
    unsure: HashSet<Uuid>,
    bots: HashMap<PlayerId, Account>,
    bot_acts_at: Option<Instant>,
    chat: Chat,
    lobby: Lobby,
    metrics: Arc<Metrics>,
    /// A table a player opened.
    home: Option<HomeGame>,
    /// Told when the task ends, so the registry forgets the table.
    ended: mpsc::UnboundedSender<()>,
    /// Cluster mode: where the watchers go when the table moves to another node.
    moved: Option<mpsc::UnboundedSender<Moved>>,
    waitlist: Waitlist,
    /// Another process owns the table now (its lease was taken, or a write was fenced): the
    /// task stops without writing anything more; the new owner voids the hand in play.
    lost: bool,
    /// Cluster mode: stop once no hand runs, for another node to deal here.
    handing_over: bool,
}

pub struct ActorParts {
    /// Time banks partly used, as restored with their seats.
    pub banks: Vec<(PlayerId, Duration)>,
    pub id: String,
    pub def: TableDef,
    pub table: Table,
    pub ledger: Arc<dyn Ledger>,
    pub rx: mpsc::Receiver<Command>,
    pub hand_number: u64,
    pub lobby: broadcast::Sender<LobbyTable>,
    pub lobby_info: Arc<Mutex<LobbyTable>>,
    pub bots: Vec<Account>,
    pub metrics: Arc<Metrics>,
    pub home: Option<HomeParts>,
    pub ended: mpsc::UnboundedSender<()>,
    pub moved: Option<mpsc::UnboundedSender<Moved>>,
}

/// A table that moved to another node, with its watchers here (connection, account, queue):
/// the registry has them watch it where it is dealt now (`cluster::gateway`).
pub struct Moved {
    pub table: String,
    pub watchers: Vec<fanout::Leaving>,
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

impl TableActor {
    pub fn new(parts: ActorParts) -> TableActor {
        TableActor {
            clocks: Clocks::new(parts.def.clock(), parts.def.time_bank(), parts.banks),
            waitlist: Waitlist::new(Duration::from_secs(u64::from(parts.def.seat_offer_secs))),
            id: parts.id,
            def: parts.def,
            table: parts.table,
            ledger: parts.ledger,
            rx: parts.rx,
            watchers: Watchers::default(),
            seq: 0,
            hand_number: parts.hand_number,
            hand: None,
            last_hand: Vec::new(),
            pre_actions: HashMap::new(),
            next_hand_at: Instant::now(),
            draining: Vec::new(),
            stop_dealing: false,
            closing: false,
            sat_out: SatOut::default(),
            unsure: HashSet::new(),
            bots: parts
                .bots
                .into_iter()
                .map(|a| (player_id(a.id), a))
                .collect(),
            bot_acts_at: None,
            chat: Chat::default(),
            lobby: Lobby::new(
                parts.lobby,
                parts.lobby_info,
                parts.home.as_ref().is_none_or(|h| !h.home.private),
            ),
            metrics: parts.metrics,
            home: parts.home.map(HomeGame::new),
            ended: parts.ended,
            moved: parts.moved,
            lost: false,
            handing_over: false,
        }
    }

    pub async fn run(mut self) {
        // Seats restored after a restart start sat out; start their idle clocks.
        self.sat_out.track(&self.table, Instant::now());
        self.sync_access();
        self.publish_lobby();
        // Whether anyone can still send commands: once nobody can, the table closes (its hand
        // finishes on the clock, then everyone is cashed out) rather than stop mid-hand.
        let mut reachable = true;
        loop {
            let wake = self.next_wake();
            let cmd = tokio::select! {
                cmd = self.rx.recv(), if reachable => match cmd {
                    Some(cmd) => Some(cmd),
                    None => {
                        reachable = false;
                        Some(Command::Close)
                    }
                },
                _ = tokio::time::sleep_until(wake) => None,
            };
            // A bug that panics must not leave the table dead with its hand running: the
            // panic is caught here, where no half-done step can be seen, and the table is
            // rebuilt from the database (`recover`).
            let step = AssertUnwindSafe(async {
                match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => self.on_timer().await,
                }
            })
            .catch_unwind()
            .await;
            if let Err(panic) = step {
                let mut why = panic_message(panic.as_ref());
                // Recovery itself runs guarded too: a table must not die while recovering.
                while let Err(again) = AssertUnwindSafe(self.recover(why.clone()))
                    .catch_unwind()
                    .await
                {
                    why = panic_message(again.as_ref());
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
            if self.lost || self.ledger.fenced() {
                self.metrics.tables_lost.inc();
                tracing::warn!(table = %self.id, hand = ?self.hand.as_ref().map(|h| h.id), "table taken over by another process; stopping here");
                self.hand_over();
                break;
            }
            if self.handing_over && self.hand.is_none() && !self.closing {
                // Seats and chips stay as committed: the next owner restores them.
                self.ledger.release_lease().await;
                tracing::info!(table = %self.id, "table handed over between hands");
                self.hand_over();
                break;
            }
            if self.hand.is_none() {
                for done in self.draining.drain(..) {
                    let _ = done.send(());
                }
                if self.closing {
                    self.cash_out_everyone().await;
                    self.tell_closed();
                    break;
                }
            }
        }
        // Closed before the registry hears, so that it sees this table's queue closed.
        self.rx.close();
        let _ = self.ended.send(());
        tracing::info!(table = %self.id, "table stopped");
    }

    /// The table has a new owner: its watchers are told, and the hand in play is left as it
    /// is (the new owner voids it and every chip bet in it goes back).
    fn hand_over(&mut self) {
        for done in self.draining.drain(..) {
            let _ = done.send(());
        }
        match &self.moved {
            // In a cluster the sockets follow the table to its next node without a word.
            Some(moved) => {
                let _ = moved.send(Moved {
                    table: self.id.clone(),
                    watchers: self.watchers.take_all(),
                });
            }
            None => {
                let notice = encode(&shared::protocol::ServerMessage::Error {
                    code: RequestError::TableMoved.code(),
                    message: RequestError::TableMoved.to_string(),
                    table: Some(self.id.clone()),
                });
                self.watchers.send_all(&notice);
            }
        }
    }

    fn next_wake(&self) -> Instant {
        let now = Instant::now();
        let mut wake = now + Duration::from_secs(1);
        if let Some(deadline) = self.clocks.deadline() {
            wake = wake.min(deadline);
        }
        if let Some(at) = self.bot_acts_at {
            wake = wake.min(at);
        }
        if let Some(at) = self.waitlist.deadline() {
            wake = wake.min(at);
        }
        if self.hand.is_none() && !self.stop_dealing && !self.is_paused() {
            wake = wake.min(self.next_hand_at.max(now));
        }
        wake
    }

    async fn on_timer(&mut self) {
        let now = Instant::now();
        self.clock_expired(now).await;
        if self.bot_acts_at.is_some_and(|at| at <= now) {
            self.bot_acts_at = None;
            self.bot_act().await;
        }
        if self.hand.is_none() {
            self.remove_due().await;
            self.stand_up_idle().await;
            self.close_if_idle(now).await;
            if !self.stop_dealing && !self.is_paused() && self.next_hand_at <= now {
                self.try_start_hand().await;
            }
        }
        self.sync_access();
        self.update_waitlist();
    }

    async fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Watch {
                conn,
                account,
                invite,
                out,
                remote,
            } => {
                let account = account.map(|a| a.id);
                if self.refuse_outsider(account, invite.as_deref(), &out) {
                    return;
                }
                self.watchers.add(conn, account, invite, out, remote);
                // The lobby's spectator count first, so it is current once the watcher hears.
                self.publish_lobby();
                self.send_snapshot(conn);
                if account.is_some_and(|a| self.home.as_ref().is_some_and(|g| g.is_host(a))) {
                    self.send_host_panel();
                }
            }
            Command::Unwatch { conn } => {
                self.watchers.remove(conn);
                self.publish_lobby();
            }
            Command::Resync { conn } => self.send_snapshot(conn),
            Command::Player {
                account,
                invite,
                out,
                request,
            } => {
                if self.refuse_outsider(Some(account.id), invite.as_deref(), &out) {
                    return;
                }
                let answer = match request {
                    Request::JoinWaitlist => self.join_waitlist(&account, &out),
                    Request::LeaveWaitlist => self.leave_waitlist(&account),
                    request => match self.gate_seat(&account, request, &out) {
                        Ok(request) => self.player_request(&account, request).await,
                        Err(refused) => Err(refused),
                    },
                };
                if let Err(error) = answer {
                    let _ = out.try_send(Outgoing::refused(self.id.clone(), error));
                }
                // Seats taken or freed show in the lobby (sent only when something changed).
                self.publish_lobby();
            }
            Command::Host {
                account,
                out,
                action,
            } => {
                if let Err(error) = self.host_request(&account, action).await {
                    let _ = out.try_send(Outgoing::refused(self.id.clone(), error));
                }
            }
            Command::Drain { done } => {
                self.stop_dealing = true;
                self.draining.push(done);
            }
            Command::Close => {
                self.stop_dealing = true;
                self.closing = true;
            }
            Command::InjectPanic => panic!("a panic injected into table {}", self.id),
            Command::Lost => self.lost = true,
            Command::HandOver => {
                self.stop_dealing = true;
                self.handing_over = true;
            }
        }
        self.sat_out.track(&self.table, Instant::now());
        self.sync_access();
        self.update_waitlist();
    }

    /// A private table checks its door again when a command arrives (an invite rotated while
    /// it was on its way lets nobody in); an outsider is told what a missing table says.
    fn refuse_outsider(&self, account: Option<Uuid>, invite: Option<&str>, out: &Outbound) -> bool {
        let refused = self
            .home
            .as_ref()
            .is_some_and(|g| !g.admits(account, invite));
        if refused {
            let _ = out.try_send(Outgoing::refused(
                self.id.clone(),
                RequestError::NoTable(self.id.clone()),
            ));
        }
        refused
    }

    /// After a panic: the hand in play is voided (every stack back to what it was before it,
    /// docs/rules.md §9), the table is rebuilt from what the database holds with its players
    /// sat out, and every watcher gets a fresh snapshot. While the database cannot be reached
    /// the table waits for it.
    async fn recover(&mut self, why: String) {
        self.metrics.table_restarts.inc();
        tracing::error!(table = %self.id, panic = %why, "table panicked; voiding its hand and reloading it");
        let running = self.hand.take();
        self.clocks.stop();
        self.bot_acts_at = None;
        self.pre_actions.clear();
        let bots: Vec<Account> = self.bots.values().cloned().collect();
        let mut delay = Duration::from_millis(100);
        loop {
            let reloaded = async {
                if let Some(r) = &running {
                    self.ledger
                        .void_hand(r.id)
                        .await
                        .map_err(|e| e.to_string())?;
                }
                self.ledger
                    .reload(&self.def, &bots)
                    .await
                    .map_err(|e| e.to_string())
            }
            .await;
            match reloaded {
                Ok(restored) => {
                    self.table = restored.table;
                    self.hand_number = restored.hand_number;
                    self.clocks.reset(restored.banks);
                    break;
                }
                Err(_) if self.ledger.fenced() => return,
                Err(e) => {
                    tracing::warn!(table = %self.id, error = %e, "could not reload the table yet");
                    self.metrics.db_errors.inc();
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        }
        let now = Instant::now();
        self.sat_out.clear();
        self.sat_out.track(&self.table, now);
        self.unsure.clear();
        self.next_hand_at = now + Duration::from_millis(self.def.between_hands_ms);
        self.watchers.mark_all_stale();
        self.broadcast(&[]);
        self.publish_lobby();
    }

    fn seat_of(&self, account: Uuid) -> Option<u8> {
        self.table.seat_of(player_id(account))
    }

    /// Sends this change to every watcher (see `fanout`).
    fn broadcast(&mut self, events: &[format::Event]) {
        let home = self.home.as_ref().map(|g| g.home.view());
        let frame = Frame {
            table_id: &self.id,
            name: &self.def.name,
            seq: self.seq + 1,
            table: &self.table,
            hand_number: self.hand_number,
            clock: self.clocks.view(Instant::now()),
            home: home.as_ref(),
            log: self
                .hand
                .as_ref()
                .map_or(&self.last_hand, |h| &h.record.events),
            waiting: self.waitlist.len().try_into().unwrap_or(u32::MAX),
        };
        let Some(built) = self.watchers.broadcast(&frame, events) else {
            return;
        };
        self.seq += 1;
        self.metrics.broadcasts.inc();
        self.metrics.frames_serialised.add(built as u64);
    }

    fn send_snapshot(&mut self, conn: ConnId) {
        let home = self.home.as_ref().map(|g| g.home.view());
        let frame = Frame {
            table_id: &self.id,
            name: &self.def.name,
            seq: self.seq,
            table: &self.table,
            hand_number: self.hand_number,
            clock: self.clocks.view(Instant::now()),
            home: home.as_ref(),
            log: self
                .hand
                .as_ref()
                .map_or(&self.last_hand, |h| &h.record.events),
            waiting: self.waitlist.len().try_into().unwrap_or(u32::MAX),
        };
        self.watchers.snapshot(conn, &frame);
    }

    fn publish_lobby(&self) {
        let spectators = self.watchers.spectators(&self.table);
        let mut row = self.lobby.row(
            &self.id,
            &self.def.name,
            &self.table,
            spectators,
            Instant::now(),
        );
        row.host = self.home.as_ref().map(|g| g.home.host_name.clone());
        row.waiting = self.waitlist.len().try_into().unwrap_or(u32::MAX);
        row.practice = self.def.practice;
        self.lobby.publish(row);
    }

    /// Starts the decision clock when the turn moved to someone new.
    fn restart_clock(&mut self) {
        let to_act = self.table.hand().and_then(|h| h.to_act()).map(|seat| {
            (
                seat,
                self.table.seat(seat).map_or(PlayerId(0), |s| s.player),
            )
        });
        self.clocks.turn(to_act, Instant::now());
    }

    /// The player acted: what they used of their time bank is gone.
    fn charge_clock(&mut self, seat: u8) {
        if let Some((player, left)) = self.clocks.acted(seat, Instant::now()) {
            self.save_bank(player, left);
        }
    }

    /// Writes what is left of a bank with the seat, without holding the table up: it only
    /// goes down, so a late write cannot give time back.
    fn save_bank(&self, player: PlayerId, left: Duration) {
        let (ledger, table) = (self.ledger.clone(), self.id.clone());
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        tokio::spawn(async move {
            if let Err(e) = ledger.save_time_bank(&table, account_of(player), ms).await {
                tracing::warn!(%table, error = %e, "could not save a time bank");
            }
        });
    }

    async fn clock_expired(&mut self, now: Instant) {
        match self.clocks.expire(now) {
            Expiry::NotYet => {}
            Expiry::BankStarted => self.broadcast(&[]),
            Expiry::TimedOut { seat, player } => {
                self.save_bank(player, Duration::ZERO);
                match self.table.time_out(seat) {
                    Ok(events) => {
                        tracing::info!(table = %self.id, seat, "clock ran out");
                        self.changed(events).await;
                    }
                    Err(e) => {
                        tracing::warn!(table = %self.id, error = %e, "clock expiry on a stale turn")
                    }
                }
            }
        }
    }

    fn take_pre_action(&mut self) -> Option<(u8, Action)> {
        let legal = self.table.hand().and_then(|h| h.legal())?;
        let pre = self.pre_actions.get(&legal.seat).copied()?;
        // One pre-selection covers one decision.
        self.pre_actions.remove(&legal.seat);
        Some((legal.seat, pre.resolve(&legal)))
    }

    fn in_running_hand(&self, seat: u8) -> bool {
        self.table.hand_running()
            && self
                .table
                .hand()
                .is_some_and(|h| h.seats().any(|s| s == seat))
    }

    fn is_sitting_out(&self, seat: u8) -> bool {
        self.table
            .seat(seat)
            .is_some_and(|s| s.status == SeatStatus::SittingOut)
    }
}
