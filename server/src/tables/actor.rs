//! One task per table: the only code that changes the table. Commands come in through a
//! bounded channel; every change goes out to each watcher through the per-viewer projection.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;

use rand::Rng;
use serde_json::json;
use sha2::{Digest, Sha256};
use shared::card::Deck;
use shared::hand::{Action, Event};
use shared::history::{HandRecord, HistorySeat};
use shared::protocol::{
    Clock, ErrorCode, LobbyTable, MAX_CHAT_CHARS, PreAction, RequestId, ServerMessage,
};
use shared::rules::Chips;
use shared::table::{Leave, PlayerId, SeatStatus, Table, TableError};
use shared::view::{Viewer, project, table_view};
use sqlx::PgPool;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;
use uuid::Uuid;

use crate::bots::strategy;
use crate::chips::{self, ChipsError, FinalStack, Outcome};
use crate::ratelimit::RateLimiter;
use crate::tables::def::TableDef;
use crate::tables::house_bots;

/// Messages to one connection, already serialized (a spectator message is built once and
/// shared by every spectator).
pub type Outbound = mpsc::Sender<Arc<str>>;

pub type ConnId = u64;

/// A logged-in account behind a connection.
#[derive(Clone, Debug)]
pub struct Account {
    pub id: Uuid,
    pub name: String,
}

pub enum Command {
    Watch {
        conn: ConnId,
        account: Option<Account>,
        out: Outbound,
    },
    Unwatch {
        conn: ConnId,
    },
    Resync {
        conn: ConnId,
    },
    Player {
        account: Account,
        out: Outbound,
        request: Request,
    },
    /// Stop dealing; answer once no hand is running.
    Drain {
        done: oneshot::Sender<()>,
    },
    /// The operator closed the table: finish the hand, cash everyone out, stop.
    Close,
    /// Panic, to test that the table survives it (`Tables::inject_panic`).
    InjectPanic,
}

/// What a seated (or sitting-down) player asks for.
pub enum Request {
    Sit {
        seat: u8,
        buy_in: Chips,
        post_now: bool,
        request_id: Option<RequestId>,
    },
    Act {
        hand: u64,
        action: Action,
    },
    PreSelect(Option<PreAction>),
    SitOut,
    SitIn {
        post_now: bool,
    },
    TopUp {
        amount: Chips,
        request_id: Option<RequestId>,
    },
    Leave {
        request_id: Option<RequestId>,
    },
    Chat {
        text: String,
    },
}

struct Watcher {
    account: Option<Uuid>,
    out: Outbound,
    /// A message was dropped because the connection fell behind: send a snapshot next.
    stale: bool,
}

/// A player who leaves and sits down again within this time is still in the same sitting:
/// their time bank is not refilled.
const SITTING: Duration = Duration::from_secs(60 * 60);

/// How long one settlement attempt may take before the table stops waiting for its answer and
/// tries again.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a seat is freed between hands.
#[derive(Clone, Copy)]
enum Departure {
    /// The player's own leave: blinds owed are remembered (docs/rules.md §7.6).
    Leave,
    /// Stood up for sitting out too long, or the table closed: nothing is remembered.
    StandUp,
}

/// What every message about one change shares.
struct Frame<'a> {
    table_id: &'a str,
    seq: u64,
    table: &'a Table,
    hand_number: u64,
    clock: Option<Clock>,
}

impl Frame<'_> {
    fn viewer(&self, account: Option<Uuid>) -> Viewer {
        match account.and_then(|a| self.table.seat_of(player_id(a))) {
            Some(seat) => Viewer::Seat(seat),
            None => Viewer::Spectator,
        }
    }

    fn events(&self, events: &[Event], viewer: Viewer) -> Arc<str> {
        let msg = ServerMessage::Events {
            table: self.table_id.to_string(),
            seq: self.seq,
            events: events.iter().map(|e| project(e, viewer)).collect(),
            view: Box::new(table_view(self.table, viewer, self.hand_number)),
            clock: self.clock,
        };
        serde_json::to_string(&msg).unwrap_or_default().into()
    }

    fn snapshot(&self, viewer: Viewer) -> Arc<str> {
        let msg = ServerMessage::Snapshot {
            table: self.table_id.to_string(),
            seq: self.seq,
            view: Box::new(table_view(self.table, viewer, self.hand_number)),
            clock: self.clock,
        };
        serde_json::to_string(&msg).unwrap_or_default().into()
    }
}

/// A seat freed by a leave, kept until its cash-out is committed.
struct Gone {
    seat: u8,
    player: PlayerId,
    name: String,
    stack: Chips,
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
    fn at(self, seat: u8) -> Gone {
        Gone { seat, ..self }
    }
}

struct RunningHand {
    id: Uuid,
    started: Instant,
    record: HandRecord,
    accounts: Vec<(u8, Uuid)>,
}

struct ClockState {
    seat: u8,
    player: PlayerId,
    deadline: Instant,
    /// When the decision clock started, to charge the time bank for what was used of it.
    bank_started: Option<Instant>,
}

pub struct TableActor {
    id: String,
    def: TableDef,
    table: Table,
    pool: PgPool,
    rx: mpsc::Receiver<Command>,
    watchers: HashMap<ConnId, Watcher>,
    seq: u64,
    hand_number: u64,
    hand: Option<RunningHand>,
    clock: Option<ClockState>,
    /// What is left of each seated player's time bank (absent: the full bank).
    banks: HashMap<PlayerId, Duration>,
    /// Banks of players who left, kept for the rest of their sitting (`SITTING`), so leaving
    /// and sitting down again does not refill one.
    left_banks: HashMap<PlayerId, (Duration, Instant)>,
    pre_actions: HashMap<u8, PreAction>,
    next_hand_at: Instant,
    draining: Vec<oneshot::Sender<()>>,
    stop_dealing: bool,
    closing: bool,
    sat_out_since: HashMap<u8, Instant>,
    /// Accounts whose last chip movement may or may not have committed (the database did not
    /// answer): their seat is read back from Postgres before the next hand is dealt.
    unsure: HashSet<Uuid>,
    bots: HashMap<PlayerId, Account>,
    bot_acts_at: Option<Instant>,
    chat_limiter: RateLimiter<Uuid>,
    lobby: broadcast::Sender<LobbyTable>,
    lobby_info: Arc<std::sync::Mutex<LobbyTable>>,
    recent_hands: VecDeque<(Instant, Chips)>,
    metrics: Arc<crate::metrics::Metrics>,
}

pub struct ActorParts {
    /// Time banks partly used, as restored with their seats.
    pub banks: Vec<(PlayerId, Duration)>,
    pub id: String,
    pub def: TableDef,
    pub table: Table,
    pub pool: PgPool,
    pub rx: mpsc::Receiver<Command>,
    pub hand_number: u64,
    pub lobby: broadcast::Sender<LobbyTable>,
    pub lobby_info: Arc<std::sync::Mutex<LobbyTable>>,
    pub bots: Vec<Account>,
    pub metrics: Arc<crate::metrics::Metrics>,
}

fn player_id(account: Uuid) -> PlayerId {
    PlayerId(account.as_u128())
}

fn account_of(player: PlayerId) -> Uuid {
    Uuid::from_u128(player.0)
}

fn already_done(table: &str) -> Arc<str> {
    error(
        ErrorCode::AlreadyDone,
        "that request was already carried out",
        table,
    )
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

fn error(code: ErrorCode, message: impl Into<String>, table: &str) -> Arc<str> {
    let msg = ServerMessage::Error {
        code,
        message: message.into(),
        table: Some(table.to_string()),
    };
    serde_json::to_string(&msg).unwrap_or_default().into()
}

impl TableActor {
    pub fn new(parts: ActorParts) -> TableActor {
        let now = Instant::now();
        TableActor {
            id: parts.id,
            def: parts.def,
            table: parts.table,
            pool: parts.pool,
            rx: parts.rx,
            watchers: HashMap::new(),
            seq: 0,
            hand_number: parts.hand_number,
            hand: None,
            clock: None,
            banks: parts.banks.into_iter().collect(),
            left_banks: HashMap::new(),
            pre_actions: HashMap::new(),
            next_hand_at: now,
            draining: Vec::new(),
            stop_dealing: false,
            closing: false,
            sat_out_since: HashMap::new(),
            unsure: HashSet::new(),
            bots: parts
                .bots
                .into_iter()
                .map(|a| (player_id(a.id), a))
                .collect(),
            bot_acts_at: None,
            chat_limiter: RateLimiter::new(20, 5),
            lobby: parts.lobby,
            lobby_info: parts.lobby_info,
            recent_hands: VecDeque::new(),
            metrics: parts.metrics,
        }
    }

    pub async fn run(mut self) {
        // Seats restored after a restart start sat out; start their idle clocks.
        let now = Instant::now();
        for (seat, s) in self.table.seats() {
            if s.status == SeatStatus::SittingOut {
                self.sat_out_since.insert(seat, now);
            }
        }
        self.publish_lobby();
        loop {
            let wake = self.next_wake();
            let cmd = tokio::select! {
                cmd = self.rx.recv() => match cmd {
                    Some(cmd) => Some(cmd),
                    None => break,
                },
                _ = tokio::time::sleep_until(wake) => None,
            };
            // A bug that panics must not leave the table dead with its hand running: the
            // panic is caught here, where no half-done step can be seen, and the table is
            // rebuilt from Postgres (`recover`).
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
            if self.hand.is_none() {
                for done in self.draining.drain(..) {
                    let _ = done.send(());
                }
                if self.closing {
                    self.cash_out_everyone().await;
                    break;
                }
            }
        }
        tracing::info!(table = %self.id, "table stopped");
    }

    fn next_wake(&self) -> Instant {
        let mut wake = Instant::now() + Duration::from_secs(1);
        if let Some(c) = &self.clock {
            wake = wake.min(c.deadline);
        }
        if let Some(at) = self.bot_acts_at {
            wake = wake.min(at);
        }
        if self.hand.is_none() && !self.stop_dealing {
            wake = wake.min(self.next_hand_at.max(Instant::now()));
        }
        wake
    }

    async fn on_timer(&mut self) {
        let now = Instant::now();
        if let Some(c) = &self.clock
            && c.deadline <= now
        {
            self.clock_expired().await;
        }
        if self.bot_acts_at.is_some_and(|at| at <= now) {
            self.bot_acts_at = None;
            self.bot_act().await;
        }
        if self.hand.is_none() {
            self.stand_up_idle().await;
            if !self.stop_dealing && self.next_hand_at <= now {
                self.try_start_hand().await;
            }
        }
    }

    async fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Watch { conn, account, out } => {
                self.watchers.insert(
                    conn,
                    Watcher {
                        account: account.map(|a| a.id),
                        out,
                        stale: false,
                    },
                );
                // The lobby's spectator count first, so it is current once the watcher hears.
                self.publish_lobby();
                self.send_snapshot(conn);
            }
            Command::Unwatch { conn } => {
                self.watchers.remove(&conn);
                self.publish_lobby();
            }
            Command::Resync { conn } => self.send_snapshot(conn),
            Command::Player {
                account,
                out,
                request,
            } => {
                if let Err(msg) = self.player_request(&account, request).await {
                    let _ = out.try_send(msg);
                }
                // Seats taken or freed show in the lobby (sent only when something changed).
                self.publish_lobby();
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
        }
        self.track_sat_out();
    }

    /// After a panic: the hand in play is voided (every stack back to what it was before it,
    /// docs/rules.md §9), the table is rebuilt from what Postgres holds with its players sat
    /// out, and every watcher gets a fresh snapshot. While the database cannot be reached the
    /// table waits for it.
    async fn recover(&mut self, why: String) {
        self.metrics.table_restarts.inc();
        tracing::error!(table = %self.id, panic = %why, "table panicked; voiding its hand and reloading it");
        let running = self.hand.take();
        self.clock = None;
        self.bot_acts_at = None;
        self.pre_actions.clear();
        let bots: Vec<Account> = self.bots.values().cloned().collect();
        let mut delay = Duration::from_millis(100);
        loop {
            let reloaded = async {
                if let Some(r) = &running {
                    chips::void_hand(&self.pool, r.id)
                        .await
                        .map_err(|e| e.to_string())?;
                }
                super::load_table(&self.pool, &self.def, &bots)
                    .await
                    .map_err(|e| e.to_string())
            }
            .await;
            match reloaded {
                Ok(restored) => {
                    self.table = restored.table;
                    self.hand_number = restored.hand_number;
                    self.banks = restored.banks.into_iter().collect();
                    break;
                }
                Err(e) => {
                    tracing::warn!(table = %self.id, error = %e, "could not reload the table yet");
                    self.metrics.db_errors.inc();
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        }
        let now = Instant::now();
        self.sat_out_since.clear();
        self.track_sat_out();
        self.unsure.clear();
        self.next_hand_at = now + Duration::from_millis(self.def.between_hands_ms);
        for w in self.watchers.values_mut() {
            w.stale = true;
        }
        self.broadcast(&[]);
        self.publish_lobby();
    }

    fn seat_of(&self, account: Uuid) -> Option<u8> {
        self.table.seat_of(player_id(account))
    }

    fn table_error(&self, e: TableError) -> Arc<str> {
        error(ErrorCode::Seat, e.to_string(), &self.id)
    }

    fn chips_error(&self, e: ChipsError) -> Arc<str> {
        match e {
            ChipsError::InsufficientBalance { .. } => {
                error(ErrorCode::InsufficientBalance, e.to_string(), &self.id)
            }
            ChipsError::SeatTaken | ChipsError::AlreadySeated | ChipsError::NotSeated => {
                error(ErrorCode::Seat, e.to_string(), &self.id)
            }
            ChipsError::InvalidAmount => error(ErrorCode::BadMessage, e.to_string(), &self.id),
            other if other.is_transient() => {
                self.metrics.db_errors.inc();
                error(
                    ErrorCode::DatabaseUnavailable,
                    "the database did not answer; try again in a moment",
                    &self.id,
                )
            }
            other => {
                tracing::error!(table = %self.id, error = %other, "chip movement failed");
                self.metrics.db_errors.inc();
                error(
                    ErrorCode::Internal,
                    "internal error; nothing was changed",
                    &self.id,
                )
            }
        }
    }

    async fn player_request(
        &mut self,
        account: &Account,
        request: Request,
    ) -> Result<(), Arc<str>> {
        let seat = self.seat_of(account.id);
        let not_seated = || {
            error(
                ErrorCode::Seat,
                "you are not seated at this table",
                &self.id,
            )
        };
        match request {
            Request::Sit {
                seat: wanted,
                buy_in,
                post_now,
                request_id,
            } => {
                if self.closing {
                    return Err(error(ErrorCode::Seat, "this table is closing", &self.id));
                }
                self.table
                    .can_sit(wanted, player_id(account.id), buy_in)
                    .map_err(|e| self.table_error(e))?;
                let key = self.ledger_key("sit", account, request_id.as_ref());
                let bought = chips::buy_in(&self.pool, account.id, &self.id, wanted, buy_in, &key)
                    .await
                    .map_err(|e| self.uncertain(account.id, e))?;
                if bought == Outcome::Replayed {
                    // Applied before: if its answer was lost, the seat is in Postgres and not
                    // here yet; take it from there.
                    return self.replayed(account.id).await;
                }
                self.table
                    .sit(
                        wanted,
                        player_id(account.id),
                        account.name.clone(),
                        buy_in,
                        post_now,
                    )
                    .map_err(|e| self.table_error(e))?;
                // The bank is the sitting's, not the seat's: a player back within the sitting
                // finds what they left.
                let player = player_id(account.id);
                self.left_banks
                    .retain(|_, (_, left)| left.elapsed() < SITTING);
                match self.left_banks.remove(&player) {
                    Some((bank, _)) => {
                        self.banks.insert(player, bank);
                        self.save_bank(player, bank);
                    }
                    None => {
                        self.banks.remove(&player);
                    }
                }
                self.changed(Vec::new()).await;
            }
            Request::Act { hand, action } => {
                let received = Instant::now();
                let seat = seat.ok_or_else(not_seated)?;
                if hand != self.hand_number || self.hand.is_none() {
                    return Err(error(
                        ErrorCode::StaleHand,
                        format!("hand {hand} is not the hand in play"),
                        &self.id,
                    ));
                }
                let events = self
                    .table
                    .act(seat, action)
                    .map_err(|e| error(ErrorCode::IllegalAction, e.to_string(), &self.id))?;
                self.charge_clock(seat);
                self.changed(events).await;
                self.metrics.action_to_broadcast.observe(received.elapsed());
            }
            Request::PreSelect(pre) => {
                let seat = seat.ok_or_else(not_seated)?;
                match pre {
                    Some(p) => self.pre_actions.insert(seat, p),
                    None => self.pre_actions.remove(&seat),
                };
                if self.table.hand().and_then(|h| h.to_act()) == Some(seat) {
                    self.changed(Vec::new()).await;
                }
            }
            Request::SitOut => {
                let seat = seat.ok_or_else(not_seated)?;
                self.table.sit_out(seat).map_err(|e| self.table_error(e))?;
                self.changed(Vec::new()).await;
            }
            Request::SitIn { post_now } => {
                let seat = seat.ok_or_else(not_seated)?;
                self.table
                    .sit_in(seat, post_now)
                    .map_err(|e| self.table_error(e))?;
                self.sat_out_since.remove(&seat);
                self.changed(Vec::new()).await;
            }
            Request::TopUp { amount, request_id } => {
                let seat = seat.ok_or_else(not_seated)?;
                self.table
                    .can_top_up(seat, amount)
                    .map_err(|e| self.table_error(e))?;
                let key = self.ledger_key("top-up", account, request_id.as_ref());
                let topped = chips::top_up(&self.pool, account.id, &self.id, amount, &key)
                    .await
                    .map_err(|e| self.uncertain(account.id, e))?;
                if topped == Outcome::Replayed {
                    // The same click again (a retry or a second socket): already on the table,
                    // or in Postgres only if the first answer was lost.
                    return self.replayed(account.id).await;
                }
                self.table
                    .top_up(seat, amount)
                    .map_err(|e| self.table_error(e))?;
                self.changed(Vec::new()).await;
            }
            Request::Leave { request_id } => {
                let seat = seat.ok_or_else(not_seated)?;
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
                        return Err(already_done(&self.id));
                    }
                    self.changed(Vec::new()).await;
                    return Ok(());
                }
                let before = self.table.seat(seat).cloned();
                let (leave, events) = self.table.leave(seat).map_err(|e| self.table_error(e))?;
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
            Request::Chat { text } => {
                let name = seat
                    .and_then(|s| self.table.seat(s))
                    .map(|s| s.name.clone())
                    .ok_or_else(|| {
                        error(ErrorCode::ChatRejected, "only players can chat", &self.id)
                    })?;
                let text: String = text.chars().filter(|c| !c.is_control()).collect();
                let text = text.trim();
                if text.is_empty() || text.chars().count() > MAX_CHAT_CHARS {
                    return Err(error(
                        ErrorCode::ChatRejected,
                        format!("a chat line has 1 to {MAX_CHAT_CHARS} characters"),
                        &self.id,
                    ));
                }
                if !self.chat_limiter.allow(&account.id) {
                    return Err(error(
                        ErrorCode::RateLimited,
                        "you are chatting too fast",
                        &self.id,
                    ));
                }
                self.seq += 1;
                let msg = ServerMessage::Chat {
                    table: self.id.clone(),
                    seq: self.seq,
                    from: name,
                    text: text.to_string(),
                };
                let text: Arc<str> = serde_json::to_string(&msg).unwrap_or_default().into();
                for w in self.watchers.values_mut() {
                    if w.out.try_send(text.clone()).is_err() {
                        w.stale = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// A chip movement failed. If the database may have committed it anyway (the answer was
    /// lost), the account's seat is read back before the next hand.
    fn uncertain(&mut self, account: Uuid, e: ChipsError) -> Arc<str> {
        if e.is_transient() {
            self.unsure.insert(account);
        }
        self.chips_error(e)
    }

    /// A request the ledger had already applied: make the table agree with Postgres, and say
    /// so if that changed nothing.
    async fn replayed(&mut self, account: Uuid) -> Result<(), Arc<str>> {
        match self.reconcile(account).await {
            Ok(true) => {
                self.changed(Vec::new()).await;
                Ok(())
            }
            Ok(false) => Err(already_done(&self.id)),
            Err(e) => Err(self.uncertain(account, e)),
        }
    }

    /// Brings one account's seat in memory in line with Postgres, between hands. Returns
    /// whether anything changed.
    async fn reconcile(&mut self, account: Uuid) -> Result<bool, ChipsError> {
        let player = player_id(account);
        let here = self.table.seat_of(player);
        if here.is_some_and(|seat| self.in_running_hand(seat)) {
            return Ok(false); // settled at the end of the hand, which checks the stacks
        }
        let there = chips::seat_of(&self.pool, &self.id, account).await?;
        self.unsure.remove(&account);
        let there = there.and_then(|(seat, stack, name)| {
            Some((u8::try_from(seat).ok()?, u64::try_from(stack).ok()?, name))
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

    /// The ledger's idempotency key for a request: from the client's request id when it sent
    /// one (so the same click sent again moves chips once), else unique to this call.
    fn ledger_key(&self, kind: &str, account: &Account, request: Option<&RequestId>) -> String {
        match request {
            Some(id) => format!("{kind}:{}:{}:{}", self.id, account.id, id.as_str()),
            None => format!("{kind}:{}:{}", self.id, Uuid::new_v4()),
        }
    }

    /// After any change: persist a finished hand, tell every watcher, run the clock,
    /// pre-selected actions and bots.
    async fn changed(&mut self, events: Vec<Event>) {
        self.changed_leaving(events, None).await;
    }

    /// `changed`, for a leave that freed a seat during a hand: the stack goes back to the
    /// balance after any settlement the leave caused (which needs the seat's row) and before
    /// the broadcast that shows the seat empty, so a client that sees itself gone finds its
    /// chips in its balance.
    async fn changed_leaving(&mut self, mut events: Vec<Event>, mut leaver: Option<Gone>) {
        loop {
            if let Some(h) = &mut self.hand {
                h.record.events.extend(events.iter().cloned());
            }
            if self.hand.is_some() && !self.table.hand_running() {
                let starting = self.table.hand().map(|h| h.starting_stacks());
                let settled = self.finish_hand().await;
                if let Some(mut gone) = leaver.take() {
                    if !settled
                        && let Some(&(_, stack)) = starting
                            .iter()
                            .flatten()
                            .find(|(seat, _)| *seat == gone.seat)
                    {
                        // The hand was taken back: so was what the leaver won or lost in it.
                        gone.stack = stack;
                    }
                    self.cash_out_gone(gone).await;
                }
                if settled {
                    self.broadcast(&events);
                } else {
                    // The result never reached the database and was taken back: what is
                    // shown is the table as it is now, without it.
                    self.mark_all_stale();
                    self.broadcast(&[]);
                }
                self.after_hand().await;
                return;
            }
            if let Some(gone) = leaver.take() {
                self.cash_out_gone(gone).await;
            }
            // The clock first, so the message carries the clock of the player now to act.
            self.restart_clock();
            self.broadcast(&events);
            // A pre-selected action for the player now to act is applied at once.
            match self.take_pre_action() {
                Some((seat, action)) => match self.table.act(seat, action) {
                    Ok(more) => {
                        self.charge_clock(seat);
                        events = more;
                    }
                    Err(_) => return,
                },
                None => {
                    self.schedule_bot();
                    return;
                }
            }
        }
    }

    /// What is left of a seated player's time bank.
    fn bank_of(&self, player: PlayerId) -> Duration {
        self.banks
            .get(&player)
            .copied()
            .unwrap_or_else(|| self.def.time_bank())
    }

    /// Writes what is left of a bank with the seat, without holding the table up: it only
    /// goes down, so a late write cannot give time back.
    fn save_bank(&self, player: PlayerId, left: Duration) {
        let (pool, table) = (self.pool.clone(), self.id.clone());
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        tokio::spawn(async move {
            if let Err(e) = chips::save_time_bank(&pool, &table, account_of(player), ms).await {
                tracing::warn!(%table, error = %e, "could not save a time bank");
            }
        });
    }

    /// A seat was freed: its bank is kept for the rest of the player's sitting, not the seat's.
    fn bank_leaves(&mut self, player: PlayerId) {
        if let Some(bank) = self.banks.remove(&player) {
            self.left_banks.insert(player, (bank, Instant::now()));
        }
    }

    fn doubt_every_seat(&mut self) {
        let accounts: Vec<Uuid> = self
            .table
            .seats()
            .map(|(_, s)| account_of(s.player))
            .collect();
        self.unsure.extend(accounts);
    }

    /// Starts the clock of the minutes limit for seats that just sat out, and stops it for
    /// seats back in.
    fn track_sat_out(&mut self) {
        let now = Instant::now();
        let table = &self.table;
        self.sat_out_since.retain(|&seat, _| {
            table
                .seat(seat)
                .is_some_and(|s| s.status == SeatStatus::SittingOut)
        });
        for (seat, s) in table.seats() {
            if s.status == SeatStatus::SittingOut {
                self.sat_out_since.entry(seat).or_insert(now);
            }
        }
    }

    fn mark_all_stale(&mut self) {
        for w in self.watchers.values_mut() {
            w.stale = true;
        }
    }

    fn take_pre_action(&mut self) -> Option<(u8, Action)> {
        let legal = self.table.hand().and_then(|h| h.legal())?;
        let pre = self.pre_actions.get(&legal.seat).copied()?;
        let action = pre.resolve(&legal);
        // One pre-selection covers one decision.
        self.pre_actions.remove(&legal.seat);
        Some((legal.seat, action))
    }

    /// Sends this change to every watcher, each through the per-viewer projection. Each
    /// audience's message is serialised once (the spectators share one, each seat has its
    /// own). A watcher whose queue was full is behind: it gets the current snapshot (also
    /// built once per audience) when its queue has room again, and costs nothing until then,
    /// so a crowd of watchers that never read cannot slow the table.
    fn broadcast(&mut self, events: &[Event]) {
        self.seq += 1;
        let clock = self.clock_view();
        let frame = Frame {
            table_id: &self.id,
            seq: self.seq,
            table: &self.table,
            hand_number: self.hand_number,
            clock,
        };
        let mut built: HashMap<(Viewer, bool), Arc<str>> = HashMap::new();
        for w in self.watchers.values_mut() {
            if w.stale && w.out.capacity() == 0 {
                continue;
            }
            let viewer = frame.viewer(w.account);
            let text = built
                .entry((viewer, w.stale))
                .or_insert_with(|| {
                    if w.stale {
                        frame.snapshot(viewer)
                    } else {
                        frame.events(events, viewer)
                    }
                })
                .clone();
            w.stale = w.out.try_send(text).is_err();
        }
        self.metrics.broadcasts.inc();
        self.metrics.frames_serialised.add(built.len() as u64);
    }

    fn send_snapshot(&mut self, conn: ConnId) {
        let frame = Frame {
            table_id: &self.id,
            seq: self.seq,
            table: &self.table,
            hand_number: self.hand_number,
            clock: self.clock_view(),
        };
        let Some(w) = self.watchers.get_mut(&conn) else {
            return;
        };
        let text = frame.snapshot(frame.viewer(w.account));
        w.stale = w.out.try_send(text).is_err();
    }

    fn clock_view(&self) -> Option<Clock> {
        let c = self.clock.as_ref()?;
        let now = Instant::now();
        let bank = self.bank_of(c.player);
        let in_bank = c.bank_started.is_some();
        Some(Clock {
            seat: c.seat,
            remaining_ms: c.deadline.saturating_duration_since(now).as_millis() as u64,
            time_bank_ms: if in_bank { 0 } else { bank.as_millis() as u64 },
            in_time_bank: in_bank,
        })
    }

    /// Starts the decision clock when the turn moved to someone new.
    fn restart_clock(&mut self) {
        let to_act = self.table.hand().and_then(|h| h.to_act());
        match (to_act, &self.clock) {
            (None, _) => self.clock = None,
            (Some(seat), Some(c)) if c.seat == seat => {}
            (Some(seat), _) => {
                let player = self
                    .table
                    .seat(seat)
                    .map(|s| s.player)
                    .unwrap_or(PlayerId(0));
                self.clock = Some(ClockState {
                    seat,
                    player,
                    deadline: Instant::now() + self.def.clock(),
                    bank_started: None,
                });
            }
        }
    }

    /// The player acted: what they used of their time bank is gone.
    fn charge_clock(&mut self, seat: u8) {
        if let Some(c) = self.clock.take()
            && c.seat == seat
            && let Some(started) = c.bank_started
        {
            let used = started.elapsed();
            let left = self.bank_of(c.player).saturating_sub(used);
            self.banks.insert(c.player, left);
            self.save_bank(c.player, left);
        }
    }

    async fn clock_expired(&mut self) {
        let Some(c) = self.clock.take() else {
            return;
        };
        let bank = self.bank_of(c.player);
        if c.bank_started.is_none() && !bank.is_zero() {
            // The decision clock ran out: the time bank takes over.
            self.clock = Some(ClockState {
                deadline: Instant::now() + bank,
                bank_started: Some(Instant::now()),
                ..c
            });
            self.broadcast(&[]);
            return;
        }
        self.banks.insert(c.player, Duration::ZERO);
        self.save_bank(c.player, Duration::ZERO);
        match self.table.time_out(c.seat) {
            Ok(events) => {
                tracing::info!(table = %self.id, seat = c.seat, "clock ran out");
                self.changed(events).await;
            }
            Err(e) => tracing::warn!(table = %self.id, error = %e, "clock expiry on a stale turn"),
        }
    }

    fn schedule_bot(&mut self) {
        let bot_to_act = self
            .table
            .hand()
            .and_then(|h| h.to_act())
            .and_then(|seat| self.table.seat(seat))
            .is_some_and(|s| self.bots.contains_key(&s.player));
        self.bot_acts_at = bot_to_act.then(|| {
            let think = rand::rng().random_range(house_bots::THINK_MS);
            Instant::now() + Duration::from_millis(think)
        });
    }

    async fn bot_act(&mut self) {
        let Some(legal) = self.table.hand().and_then(|h| h.legal()) else {
            return;
        };
        let is_bot = self
            .table
            .seat(legal.seat)
            .is_some_and(|s| self.bots.contains_key(&s.player));
        if !is_bot {
            return;
        }
        let action = strategy::choose(&legal, &mut rand::rng());
        if let Ok(events) = self.table.act(legal.seat, action) {
            self.charge_clock(legal.seat);
            self.changed(events).await;
        }
    }

    async fn try_start_hand(&mut self) {
        // No hand is dealt while memory may disagree with Postgres about a seat.
        for account in self.unsure.iter().copied().collect::<Vec<_>>() {
            if let Err(e) = self.reconcile(account).await {
                tracing::warn!(table = %self.id, error = %e, "cannot check a seat with the database yet");
                self.next_hand_at = Instant::now() + Duration::from_secs(1);
                return;
            }
        }
        self.seat_bots().await;
        let deck = Deck::shuffled(&mut rand::rng());
        let order = deck.order().to_vec();
        let events = match self.table.start_hand(deck) {
            Ok(events) => events,
            Err(_) => {
                // Not enough players: look again shortly.
                self.next_hand_at = Instant::now() + Duration::from_millis(500);
                return;
            }
        };
        let Some(hand) = self.table.hand() else {
            return;
        };
        self.hand_number += 1;
        let id = Uuid::new_v4();
        let mut hasher = Sha256::new();
        hasher.update(order.iter().map(|c| c.index()).collect::<Vec<u8>>());
        let deck_hash = hasher.finalize().to_vec();
        let seats: Vec<HistorySeat> = hand
            .starting_stacks()
            .iter()
            .map(|&(seat, stack)| HistorySeat {
                seat,
                name: self
                    .table
                    .seat(seat)
                    .map(|s| s.name.clone())
                    .unwrap_or_default(),
                starting_stack: stack,
            })
            .collect();
        let accounts: Vec<(u8, Uuid)> = seats
            .iter()
            .filter_map(|s| Some((s.seat, account_of(self.table.seat(s.seat)?.player))))
            .collect();
        let starting = json!(hand.starting_stacks());
        let record = HandRecord {
            format: HandRecord::FORMAT,
            id: id.to_string(),
            table_id: self.id.clone(),
            table_name: self.def.name.clone(),
            number: self.hand_number,
            started_at: now_rfc3339(),
            stakes: *hand.stakes(),
            seat_count: self.table.config().seats,
            button: hand.button(),
            seats,
            events: Vec::new(),
            deck: order,
        };
        // The hand is on record (deck hash, starting stacks) before anyone sees a card.
        let writing = Instant::now();
        let written = chips::start_hand(
            &self.pool,
            id,
            &self.id,
            &deck_hash,
            &starting,
            self.hand_number,
            &accounts,
        )
        .await;
        self.metrics.hand_start_write.observe(writing.elapsed());
        if let Err(e) = written {
            tracing::error!(table = %self.id, error = %e, "could not record the hand start; voiding it");
            self.metrics.db_errors.inc();
            let _ = self.table.void_hand();
            self.hand_number -= 1;
            self.next_hand_at = Instant::now() + Duration::from_secs(5);
            return;
        }
        self.metrics.hands_started.inc();
        self.hand = Some(RunningHand {
            id,
            started: Instant::now(),
            record,
            accounts,
        });
        self.changed(events).await;
    }

    /// Writes the finished hand: stacks, rake and history in one transaction. Returns whether
    /// it was settled (false: it was voided and taken back).
    async fn finish_hand(&mut self) -> bool {
        let Some(running) = self.hand.take() else {
            return false;
        };
        self.clock = None;
        self.bot_acts_at = None;
        self.pre_actions.clear();
        let Some(result) = self.table.hand().and_then(|h| h.result()).cloned() else {
            return false;
        };
        let stacks: Vec<FinalStack> = result
            .stacks
            .iter()
            .filter_map(|&(seat, stack)| {
                let account = running.accounts.iter().find(|a| a.0 == seat)?.1;
                Some(FinalStack {
                    seat,
                    account,
                    stack,
                })
            })
            .collect();
        let history = serde_json::to_value(&running.record).unwrap_or_default();
        let mut delay = Duration::from_millis(100);
        let mut waiting = false;
        let settled = loop {
            let writing = Instant::now();
            // A database that stops answering without closing the connection must not hold
            // the table for as long as TCP takes to give up.
            let settled = tokio::time::timeout(
                SETTLE_TIMEOUT,
                chips::settle_hand(
                    &self.pool,
                    running.id,
                    &self.id,
                    &stacks,
                    result.rake,
                    &history,
                ),
            )
            .await
            .unwrap_or(Err(ChipsError::Database(sqlx::Error::PoolTimedOut)));
            self.metrics.hand_settle_write.observe(writing.elapsed());
            match settled {
                Ok(Outcome::Applied(())) => break true,
                Ok(Outcome::Replayed) => {
                    // Settled by an earlier try whose answer was lost, or voided by another
                    // process meanwhile: only the first may be shown.
                    match chips::hand_status(&self.pool, running.id).await {
                        Ok(Some(status)) if status == "complete" => break true,
                        Ok(_) => {
                            tracing::error!(table = %self.id, "the hand was voided elsewhere; taking it back");
                            let _ = self.table.undo_finished_hand();
                            self.doubt_every_seat();
                            break false;
                        }
                        Err(e) => {
                            tracing::warn!(table = %self.id, error = %e, "cannot read the hand's status yet");
                            tokio::time::sleep(delay).await;
                            delay = (delay * 2).min(Duration::from_secs(5));
                        }
                    }
                }
                // Every failure but a refusal to balance may pass later; settling again is
                // safe, the database applies a hand once.
                Err(e) if !matches!(e, ChipsError::Unbalanced(_)) => {
                    // Nothing about the result is shown before it is saved: the table holds
                    // the hand, says why, and settles it when the database is back. (A process
                    // that dies meanwhile voids it at its next start.)
                    self.metrics.db_errors.inc();
                    if !waiting {
                        waiting = true;
                        self.metrics.settle_waits.inc();
                        tracing::warn!(table = %self.id, error = %e, "cannot settle a hand yet; waiting for the database");
                        let notice = error(
                            ErrorCode::DatabaseUnavailable,
                            "waiting for the database; the hand will be settled when it is back",
                            &self.id,
                        );
                        for w in self.watchers.values_mut() {
                            if w.out.try_send(notice.clone()).is_err() {
                                w.stale = true;
                            }
                        }
                    }
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
                Err(e) => {
                    // Refused for good (it would not balance): the database keeps the stacks
                    // from before the hand, so the table takes the hand back too.
                    tracing::error!(table = %self.id, error = %e, "could not settle a hand; voiding it");
                    self.metrics.db_errors.inc();
                    let _ = chips::void_hand(&self.pool, running.id).await;
                    let _ = self.table.undo_finished_hand();
                    // Memory and Postgres disagreed about a stack: read every seat back.
                    self.doubt_every_seat();
                    break false;
                }
            }
        };
        if waiting {
            tracing::info!(table = %self.id, "the database is back; hand settled");
        }
        let pot: Chips = result.pots.iter().map(|p| p.amount).sum();
        let now = Instant::now();
        self.metrics.hand_duration.observe(now - running.started);
        self.recent_hands.push_back((now, pot));
        while self.recent_hands.len() > 200 {
            self.recent_hands.pop_front();
        }
        self.metrics.hands_finished.inc();
        self.next_hand_at = now + Duration::from_millis(self.def.between_hands_ms);
        settled
    }

    /// Deferred leaves and stand-ups once a hand is over.
    async fn after_hand(&mut self) {
        for (seat, s) in self.table.take_leavers() {
            self.cash_out_gone(Gone::from(s).at(seat)).await;
        }
        self.stand_up_idle().await;
        self.track_sat_out();
        self.broadcast(&[]);
        self.publish_lobby();
    }

    fn in_running_hand(&self, seat: u8) -> bool {
        self.table.hand_running()
            && self
                .table
                .hand()
                .is_some_and(|h| h.seats().any(|s| s == seat))
    }

    /// Stands up players sat out for the table's number of hands (docs/rules.md §7.7), or,
    /// where the operator set one, for longer than its limit in minutes.
    async fn stand_up_idle(&mut self) {
        let mut idle = self.table.idle_seats();
        if self.def.sit_out_minutes > 0 {
            let minutes = Duration::from_secs(u64::from(self.def.sit_out_minutes) * 60);
            for (&seat, since) in &self.sat_out_since {
                if since.elapsed() >= minutes
                    && !idle.contains(&seat)
                    && !self.in_running_hand(seat)
                    && self
                        .table
                        .seat(seat)
                        .is_some_and(|s| s.status == SeatStatus::SittingOut)
                {
                    idle.push(seat);
                }
            }
        }
        if idle.is_empty() {
            return;
        }
        for seat in idle {
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

    /// Frees a seat that is not in a running hand: its stack goes to the balance first, and
    /// only once that is committed does the seat empty. On an error nothing has changed here.
    /// Returns false when the key had been used already (nothing done).
    async fn leave_between_hands(
        &mut self,
        seat: u8,
        key: &str,
        how: Departure,
    ) -> Result<bool, ChipsError> {
        let Some(player) = self.table.seat(seat).map(|s| s.player) else {
            return Err(ChipsError::NotSeated);
        };
        match chips::cash_out(&self.pool, account_of(player), &self.id, key).await {
            // NotSeated: an earlier cash-out committed but its answer was lost.
            Ok(Outcome::Applied(_)) | Err(ChipsError::NotSeated) => {}
            Ok(Outcome::Replayed) => return Ok(false),
            Err(e) => {
                self.metrics.db_errors.inc();
                return Err(e);
            }
        }
        self.sat_out_since.remove(&seat);
        self.pre_actions.remove(&seat);
        self.bank_leaves(player);
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
    async fn cash_out_gone(&mut self, gone: Gone) {
        let key = format!("leave:{}:{}", self.id, Uuid::new_v4());
        match chips::cash_out(&self.pool, account_of(gone.player), &self.id, &key).await {
            Ok(_) | Err(ChipsError::NotSeated) => self.bank_leaves(gone.player),
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

    async fn cash_out_everyone(&mut self) {
        let seats: Vec<u8> = self.table.seats().map(|(i, _)| i).collect();
        for seat in seats {
            let key = format!("close:{}:{}", self.id, Uuid::new_v4());
            if let Err(e) = self
                .leave_between_hands(seat, &key, Departure::StandUp)
                .await
            {
                tracing::error!(table = %self.id, seat, error = %e, "cash-out at closing failed; the seat stays in the database until the next start");
            }
        }
        self.broadcast(&[]);
    }

    /// Keeps the practice table's house bots seated and stocked with chips.
    async fn seat_bots(&mut self) {
        if self.bots.is_empty() || self.stop_dealing {
            return;
        }
        let bots: Vec<Account> = self.bots.values().cloned().collect();
        let config = self.table.config().clone();
        for bot in bots {
            match self.seat_of(bot.id) {
                Some(seat) => {
                    let stack = self.table.seat(seat).map_or(0, |s| s.stack);
                    if stack < config.min_buy_in {
                        let amount = config.max_buy_in / 2 - stack.min(config.max_buy_in / 2);
                        if amount > 0 {
                            let _ = house_bots::ensure_balance(&self.pool, bot.id, amount).await;
                            let key = format!("bot-top-up:{}", Uuid::new_v4());
                            if chips::top_up(&self.pool, bot.id, &self.id, amount, &key)
                                .await
                                .is_ok()
                            {
                                let _ = self.table.top_up(seat, amount);
                            }
                        }
                    }
                    if self
                        .table
                        .seat(seat)
                        .is_some_and(|s| s.status == SeatStatus::SittingOut)
                    {
                        let _ = self.table.sit_in(seat, true);
                    }
                }
                None => {
                    let Some(free) = (0..config.seats)
                        .rev()
                        .find(|&s| self.table.seat(s).is_none())
                    else {
                        continue;
                    };
                    // Leave room for people: bots take at most their configured number.
                    let buy_in = config.max_buy_in / 2;
                    let _ = house_bots::ensure_balance(&self.pool, bot.id, buy_in).await;
                    let key = format!("bot-sit:{}", Uuid::new_v4());
                    if chips::buy_in(&self.pool, bot.id, &self.id, free, buy_in, &key)
                        .await
                        .is_ok()
                    {
                        let _ =
                            self.table
                                .sit(free, player_id(bot.id), bot.name.clone(), buy_in, true);
                    }
                }
            }
        }
    }

    fn publish_lobby(&self) {
        let seated: Vec<Uuid> = self
            .table
            .seats()
            .map(|(_, s)| account_of(s.player))
            .collect();
        let spectators = self
            .watchers
            .values()
            .filter(|w| w.account.is_none_or(|a| !seated.contains(&a)))
            .count() as u32;
        let hour_ago = Instant::now().checked_sub(Duration::from_secs(3600));
        let last_hour = self
            .recent_hands
            .iter()
            .filter(|(at, _)| hour_ago.is_none_or(|h| *at >= h))
            .count() as u32;
        let average_pot = if self.recent_hands.is_empty() {
            0
        } else {
            self.recent_hands.iter().map(|h| h.1).sum::<Chips>() / self.recent_hands.len() as Chips
        };
        let info = LobbyTable {
            id: self.id.clone(),
            name: self.def.name.clone(),
            stakes: self.table.config().stakes,
            seats_taken: self.table.seats().count() as u8,
            seat_count: self.table.config().seats,
            average_pot,
            hands_per_hour: last_hour,
            spectators,
        };
        let changed = match self.lobby_info.lock() {
            Ok(mut current) => {
                let changed = *current != info;
                *current = info.clone();
                changed
            }
            Err(_) => true,
        };
        if changed {
            let _ = self.lobby.send(info);
        }
    }
}

fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
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
    use shared::protocol::ServerMessage;
    use shared::rules::{Stakes, Structure};

    fn actor() -> TableActor {
        let def = TableDef::new("t", "t", Structure::NoLimit, 5, 10);
        let mut table =
            Table::new(shared::table::TableConfig::new(Stakes::no_limit(5, 10), 6)).expect("table");
        for seat in [0u8, 1] {
            table
                .sit(
                    seat,
                    PlayerId(u128::from(seat) + 1),
                    format!("p{seat}"),
                    500,
                    true,
                )
                .expect("sit");
        }
        let (_, rx) = mpsc::channel(8);
        let (lobby, _) = broadcast::channel(8);
        let info = LobbyTable {
            id: "t".into(),
            name: "t".into(),
            stakes: Stakes::no_limit(5, 10),
            seats_taken: 0,
            seat_count: 6,
            average_pot: 0,
            hands_per_hour: 0,
            spectators: 0,
        };
        TableActor::new(ActorParts {
            banks: Vec::new(),
            id: "t".into(),
            def,
            table,
            // Never connected: broadcasting needs no database.
            pool: PgPool::connect_lazy("postgres://nobody@127.0.0.1:1/none").expect("lazy pool"),
            rx,
            hand_number: 0,
            lobby,
            lobby_info: Arc::new(std::sync::Mutex::new(info)),
            bots: Vec::new(),
            metrics: Arc::new(crate::metrics::Metrics::default()),
        })
    }

    fn watch(
        actor: &mut TableActor,
        conn: ConnId,
        account: Option<u128>,
        queue: usize,
    ) -> mpsc::Receiver<Arc<str>> {
        let (out, rx) = mpsc::channel(queue);
        actor.watchers.insert(
            conn,
            Watcher {
                account: account.map(Uuid::from_u128),
                out,
                stale: false,
            },
        );
        rx
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }

    #[tokio::test]
    async fn stalled_watchers_cost_no_serialisation_and_get_the_current_snapshot_once_they_read() {
        let mut a = actor();
        let mut seat0 = watch(&mut a, 1, Some(1), 1024);
        let mut seat1 = watch(&mut a, 2, Some(2), 1024);
        let mut reader = watch(&mut a, 3, None, 1024);
        // A crowd of spectators that never read: a queue of one, filled at once.
        let mut crowd: Vec<mpsc::Receiver<Arc<str>>> = (100..1100)
            .map(|conn| watch(&mut a, conn, None, 1))
            .collect();
        for _ in 0..20 {
            a.broadcast(&[]);
        }
        // Each change is serialised once per audience: seat 0, seat 1, the spectators (and
        // the stalled crowd's snapshot once, when it first fell behind).
        let frames = a.metrics.frames_serialised.get();
        assert!(frames <= 20 * 3 + 1, "{frames} frames for 20 changes");
        assert!(a.watchers.values().filter(|w| w.stale).count() >= 1000);
        for rx in [&mut seat0, &mut seat1, &mut reader] {
            let mut got = 0;
            while rx.try_recv().is_ok() {
                got += 1;
            }
            assert_eq!(got, 20, "readers miss nothing");
        }
        // One of the crowd reads what it had: the next change brings it the current table.
        let first = crowd[0].try_recv().expect("its one queued message");
        assert!(first.contains("\"seq\":1"), "{first}");
        a.broadcast(&[]);
        let next = crowd[0].try_recv().expect("a snapshot");
        let msg: ServerMessage = serde_json::from_str(&next).expect("a server message");
        assert!(
            matches!(msg, ServerMessage::Snapshot { seq: 21, .. }),
            "the current snapshot, not the backlog: {next}"
        );
        assert!(!a.watchers[&100].stale);
        // The rest of the crowd is still behind and still costs nothing.
        assert_eq!(a.metrics.frames_serialised.get(), frames + 4);
    }
}
