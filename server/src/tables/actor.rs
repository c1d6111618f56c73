//! One task per table: the only code that changes the table. Commands come in through a
//! bounded channel; every change goes out to each watcher through the per-viewer projection.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use serde_json::json;
use sha2::{Digest, Sha256};
use shared::card::Deck;
use shared::hand::{Action, Event};
use shared::history::{HandRecord, HistorySeat};
use shared::protocol::{Clock, ErrorCode, LobbyTable, MAX_CHAT_CHARS, PreAction, ServerMessage};
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
}

/// What a seated (or sitting-down) player asks for.
pub enum Request {
    Sit {
        seat: u8,
        buy_in: Chips,
        post_now: bool,
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
    },
    Leave,
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
    banks: HashMap<PlayerId, Duration>,
    pre_actions: HashMap<u8, PreAction>,
    next_hand_at: Instant,
    draining: Vec<oneshot::Sender<()>>,
    stop_dealing: bool,
    closing: bool,
    sat_out_since: HashMap<u8, Instant>,
    bots: HashMap<PlayerId, Account>,
    bot_acts_at: Option<Instant>,
    chat_limiter: RateLimiter<Uuid>,
    lobby: broadcast::Sender<LobbyTable>,
    lobby_info: Arc<std::sync::Mutex<LobbyTable>>,
    recent_hands: VecDeque<(Instant, Chips)>,
    metrics: Arc<crate::metrics::Metrics>,
}

pub struct ActorParts {
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
            banks: HashMap::new(),
            pre_actions: HashMap::new(),
            next_hand_at: now,
            draining: Vec::new(),
            stop_dealing: false,
            closing: false,
            sat_out_since: HashMap::new(),
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
            tokio::select! {
                cmd = self.rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                _ = tokio::time::sleep_until(wake) => self.on_timer().await,
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
        }
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
            } => {
                if self.closing {
                    return Err(error(ErrorCode::Seat, "this table is closing", &self.id));
                }
                self.check_sit(account, wanted, buy_in)?;
                let key = format!("sit:{}:{}", self.id, Uuid::new_v4());
                chips::buy_in(&self.pool, account.id, &self.id, wanted, buy_in, &key)
                    .await
                    .map_err(|e| self.chips_error(e))?;
                self.table
                    .sit(
                        wanted,
                        player_id(account.id),
                        account.name.clone(),
                        buy_in,
                        post_now,
                    )
                    .map_err(|e| self.table_error(e))?;
                self.banks
                    .insert(player_id(account.id), self.def.time_bank());
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
            Request::TopUp { amount } => {
                let seat = seat.ok_or_else(not_seated)?;
                let in_hand = self.table.hand_running()
                    && self
                        .table
                        .hand()
                        .is_some_and(|h| h.seats().any(|s| s == seat));
                if in_hand {
                    return Err(self.table_error(TableError::HandInProgress));
                }
                let stack = self.table.seat(seat).map_or(0, |s| s.stack);
                let max = self.table.config().max_buy_in;
                if amount == 0 || stack.saturating_add(amount) > max {
                    return Err(self.table_error(TableError::TopUpTooLarge { max }));
                }
                let key = format!("top-up:{}:{}", self.id, Uuid::new_v4());
                chips::top_up(&self.pool, account.id, &self.id, amount, &key)
                    .await
                    .map_err(|e| self.chips_error(e))?;
                self.table
                    .top_up(seat, amount)
                    .map_err(|e| self.table_error(e))?;
                self.changed(Vec::new()).await;
            }
            Request::Leave => {
                let seat = seat.ok_or_else(not_seated)?;
                let (leave, events) = self.table.leave(seat).map_err(|e| self.table_error(e))?;
                self.pre_actions.remove(&seat);
                self.sat_out_since.remove(&seat);
                // Leaving on one's turn folds, which may end the hand: it must settle before
                // the cash-out, which takes the seat's stack as the database holds it (else the
                // seat row is gone, the settlement does not balance, and the hand is voided).
                let freed = (leave != Leave::AfterHand).then_some(account.id);
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

    fn check_sit(&self, account: &Account, seat: u8, buy_in: Chips) -> Result<(), Arc<str>> {
        let config = self.table.config();
        if seat >= config.seats {
            return Err(self.table_error(TableError::NoSuchSeat(seat)));
        }
        if self.table.seat(seat).is_some() {
            return Err(self.table_error(TableError::SeatTaken(seat)));
        }
        if self.seat_of(account.id).is_some() {
            return Err(self.table_error(TableError::AlreadySeated));
        }
        if !(config.min_buy_in..=config.max_buy_in).contains(&buy_in) {
            return Err(self.table_error(TableError::BuyInOutOfRange {
                amount: buy_in,
                min: config.min_buy_in,
                max: config.max_buy_in,
            }));
        }
        Ok(())
    }

    /// After any change: persist a finished hand, tell every watcher, run the clock,
    /// pre-selected actions and bots.
    async fn changed(&mut self, events: Vec<Event>) {
        self.changed_leaving(events, None).await;
    }

    /// `changed`, for a leave that freed the seat of `leaver`: its stack goes back to the
    /// balance after any settlement the leave caused (which needs the seat's row) and before
    /// the broadcast that shows the seat empty, so a client that sees itself gone finds its
    /// chips in its balance.
    async fn changed_leaving(&mut self, mut events: Vec<Event>, mut leaver: Option<Uuid>) {
        loop {
            if let Some(h) = &mut self.hand {
                h.record.events.extend(events.iter().cloned());
            }
            if self.hand.is_some() && !self.table.hand_running() {
                self.finish_hand().await;
                if let Some(account) = leaver.take() {
                    self.cash_out(account).await;
                }
                self.broadcast(&events);
                self.after_hand().await;
                return;
            }
            if let Some(account) = leaver.take() {
                self.cash_out(account).await;
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

    fn take_pre_action(&mut self) -> Option<(u8, Action)> {
        let legal = self.table.hand().and_then(|h| h.legal())?;
        let pre = self.pre_actions.get(&legal.seat).copied()?;
        let action = match pre {
            PreAction::CheckFold if legal.can_check => Action::Check,
            PreAction::CheckFold => Action::Fold,
            PreAction::CallAny if legal.can_check => Action::Check,
            PreAction::CallAny => Action::Call,
            PreAction::FoldToAnyBet if legal.can_check => Action::Check,
            PreAction::FoldToAnyBet => Action::Fold,
        };
        // One pre-selection covers one decision.
        self.pre_actions.remove(&legal.seat);
        Some((legal.seat, action))
    }

    /// Sends this change to every watcher, each through the per-viewer projection.
    fn broadcast(&mut self, events: &[Event]) {
        self.seq += 1;
        let clock = self.clock_view();
        let mut spectator: Option<Arc<str>> = None;
        let mut slow = Vec::new();
        for (&conn, w) in &self.watchers {
            let viewer = match w.account.and_then(|a| self.table.seat_of(player_id(a))) {
                Some(seat) => Viewer::Seat(seat),
                None => Viewer::Spectator,
            };
            let text = if viewer == Viewer::Spectator && !w.stale {
                spectator
                    .get_or_insert_with(|| self.events_message(events, viewer, clock))
                    .clone()
            } else if w.stale {
                self.snapshot_message(viewer, clock)
            } else {
                self.events_message(events, viewer, clock)
            };
            if w.out.try_send(text).is_err() {
                slow.push(conn);
            }
        }
        for conn in self.watchers.keys().copied().collect::<Vec<_>>() {
            if let Some(w) = self.watchers.get_mut(&conn) {
                w.stale = slow.contains(&conn);
            }
        }
        self.metrics.broadcasts.inc();
    }

    fn events_message(&self, events: &[Event], viewer: Viewer, clock: Option<Clock>) -> Arc<str> {
        let msg = ServerMessage::Events {
            table: self.id.clone(),
            seq: self.seq,
            events: events.iter().map(|e| project(e, viewer)).collect(),
            view: Box::new(table_view(&self.table, viewer, self.hand_number)),
            clock,
        };
        serde_json::to_string(&msg).unwrap_or_default().into()
    }

    fn snapshot_message(&self, viewer: Viewer, clock: Option<Clock>) -> Arc<str> {
        let msg = ServerMessage::Snapshot {
            table: self.id.clone(),
            seq: self.seq,
            view: Box::new(table_view(&self.table, viewer, self.hand_number)),
            clock,
        };
        serde_json::to_string(&msg).unwrap_or_default().into()
    }

    fn send_snapshot(&mut self, conn: ConnId) {
        let clock = self.clock_view();
        let Some(w) = self.watchers.get(&conn) else {
            return;
        };
        let viewer = match w.account.and_then(|a| self.table.seat_of(player_id(a))) {
            Some(seat) => Viewer::Seat(seat),
            None => Viewer::Spectator,
        };
        let text = self.snapshot_message(viewer, clock);
        let stale = w.out.try_send(text).is_err();
        if let Some(w) = self.watchers.get_mut(&conn) {
            w.stale = stale;
        }
    }

    fn clock_view(&self) -> Option<Clock> {
        let c = self.clock.as_ref()?;
        let now = Instant::now();
        let bank = self.banks.get(&c.player).copied().unwrap_or_default();
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
            if let Some(bank) = self.banks.get_mut(&c.player) {
                *bank = bank.saturating_sub(used);
            }
        }
    }

    async fn clock_expired(&mut self) {
        let Some(c) = self.clock.take() else {
            return;
        };
        let bank = self.banks.get(&c.player).copied().unwrap_or_default();
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

    /// Writes the finished hand: stacks, rake and history in one transaction.
    async fn finish_hand(&mut self) {
        let Some(running) = self.hand.take() else {
            return;
        };
        self.clock = None;
        self.bot_acts_at = None;
        self.pre_actions.clear();
        let Some(result) = self.table.hand().and_then(|h| h.result()).cloned() else {
            return;
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
        let mut attempt = 0;
        loop {
            let writing = Instant::now();
            let settled = chips::settle_hand(
                &self.pool,
                running.id,
                &self.id,
                &stacks,
                result.rake,
                &history,
            )
            .await;
            self.metrics.hand_settle_write.observe(writing.elapsed());
            match settled {
                Ok(Outcome::Applied(())) | Ok(Outcome::Replayed) => break,
                Err(e) if attempt < 3 => {
                    attempt += 1;
                    tracing::warn!(table = %self.id, error = %e, attempt, "settling a hand failed; retrying");
                    self.metrics.db_errors.inc();
                    tokio::time::sleep(Duration::from_millis(200 * attempt)).await;
                }
                Err(e) => {
                    // The database keeps the stacks from before the hand: make the table agree.
                    tracing::error!(table = %self.id, error = %e, "could not settle a hand; voiding it");
                    self.metrics.db_errors.inc();
                    let _ = chips::void_hand(&self.pool, running.id).await;
                    for (seat, stack) in self
                        .table
                        .hand()
                        .map(|h| h.starting_stacks())
                        .unwrap_or_default()
                    {
                        self.table.set_stack(seat, stack);
                    }
                    break;
                }
            }
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
    }

    /// Deferred leaves and stand-ups once a hand is over.
    async fn after_hand(&mut self) {
        for (_, seat) in self.table.take_leavers() {
            self.cash_out_seat(account_of(seat.player)).await;
        }
        let now = Instant::now();
        for (seat, s) in self.table.seats() {
            if s.status == SeatStatus::SittingOut {
                self.sat_out_since.entry(seat).or_insert(now);
            } else {
                self.sat_out_since.remove(&seat);
            }
        }
        self.broadcast(&[]);
        self.publish_lobby();
    }

    async fn stand_up_idle(&mut self) {
        let limit = Duration::from_secs(u64::from(self.def.sit_out_minutes) * 60);
        let idle: Vec<u8> = self
            .sat_out_since
            .iter()
            .filter(|(_, since)| since.elapsed() >= limit)
            .map(|(&seat, _)| seat)
            .collect();
        if idle.is_empty() {
            return;
        }
        for seat in idle {
            self.sat_out_since.remove(&seat);
            let Some(player) = self.table.seat(seat).map(|s| s.player) else {
                continue;
            };
            if let Ok((Leave::Now(_), _)) = self.table.leave(seat) {
                tracing::info!(table = %self.id, seat, "stood up after sitting out too long");
                self.cash_out_seat(account_of(player)).await;
            }
        }
        self.broadcast(&[]);
        self.publish_lobby();
    }

    async fn cash_out(&mut self, account: Uuid) {
        self.cash_out_seat(account).await;
        self.publish_lobby();
    }

    async fn cash_out_seat(&mut self, account: Uuid) {
        let key = format!("leave:{}:{}", self.id, Uuid::new_v4());
        if let Err(e) = chips::cash_out(&self.pool, account, &self.id, &key).await {
            tracing::error!(table = %self.id, %account, error = %e, "cash-out failed; the seat stays in the database");
            self.metrics.db_errors.inc();
        }
    }

    async fn cash_out_everyone(&mut self) {
        let seats: Vec<(u8, PlayerId)> = self.table.seats().map(|(i, s)| (i, s.player)).collect();
        for (seat, player) in seats {
            if let Ok((Leave::Now(_), _)) = self.table.leave(seat) {
                self.cash_out_seat(account_of(player)).await;
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
    #[test]
    fn timestamps_are_rfc3339_utc() {
        let t = super::now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }
}
