//! The WebSocket gateway: one task per connection, translating protocol messages into table
//! commands. It never builds game state itself: what it forwards was projected by the table.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use axum::Extension;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::header::{ORIGIN, RETRY_AFTER};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use shared::protocol::{ClientMessage, ErrorCode, LobbyTable, ServerMessage};
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::app::AppState;
use crate::client_ip::ClientIp;
use crate::listen::Held;
use crate::ratelimit::RateLimiter;
use crate::session;
use crate::session::keeper::Kept;
use crate::tables::actor::{Account, Command, ConnId, Outgoing, Request, encode};

/// Largest message a client may send (RULES: capped; axum's default is 64 MiB).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;
/// Messages queued for a slow client before it is marked stale and resynced.
const OUTBOUND_QUEUE: usize = 64;
/// Socket buffers: tungstenite's defaults (128 KiB each way) cost 1.5 GB at 6,000 sockets.
/// What a client sends is a few hundred bytes (a larger frame, up to `MAX_MESSAGE_BYTES`,
/// reserves its own length), and what is queued for it goes out in writes of this size; the
/// read buffer is kept for the socket's life, so it is a large part of what an idle socket
/// costs (each KiB of it about 1 KB an idle socket: 2 KiB took one to 9.2 KB).
const READ_BUFFER: usize = 512;
const WRITE_BUFFER: usize = 4 * 1024;
/// Tables one connection may watch at once.
const MAX_WATCHED: usize = 16;

/// How often the server pings each socket, and how long a silent peer is kept.
const PING_EVERY: Duration = Duration::from_secs(20);
const PEER_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a socket the server closes waits for the peer's answering close.
const CLOSE_WAIT: Duration = Duration::from_secs(2);
/// Messages over the rate within one minute after which a socket is closed.
const MAX_STRIKES: u32 = 60;
/// RFC 6455 close code for a peer that broke the rules.
const POLICY_VIOLATION: u16 = 1008;

/// Refused messages over the last minute.
#[derive(Default)]
struct Abuse {
    strikes: u32,
    since: Option<Instant>,
}

impl Abuse {
    /// One more message over the rate; true when the socket should be closed.
    fn strike(&mut self, now: Instant) -> bool {
        match self.since {
            Some(start) if now.duration_since(start) < Duration::from_secs(60) => {}
            _ => {
                self.since = Some(now);
                self.strikes = 0;
            }
        }
        self.strikes += 1;
        self.strikes > MAX_STRIKES
    }
}

pub async fn handler(
    ws: WebSocketUpgrade,
    State(state): State<AppState>,
    ClientIp(client_ip): ClientIp,
    held: Option<Extension<Held>>,
    headers: HeaderMap,
) -> Response {
    // Browsers always send Origin on a WebSocket handshake; a foreign one is another site
    // trying to use the visitor's cookie.
    if let Some(origin) = headers.get(ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| state.config.allowed_origins.iter().any(|a| a == o));
        if !allowed {
            return (StatusCode::FORBIDDEN, "origin not allowed").into_response();
        }
    }
    let Some(slot) = state.websockets.admit(client_ip) else {
        state.metrics.connections_refused.inc();
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many connections from your address",
        )
            .into_response();
    };
    let mut account = None;
    if let Some(token) = session::token_from(&headers) {
        match session::lookup(&state.pool, &token, state.config.session_lifetime()).await {
            Ok(Some((id, name))) => account = Some((Account { id, name }, token)),
            Ok(None) => {}
            Err(e) => {
                // Opened as a visitor's, the socket would show a logged-in player "log in to
                // play" until they reloaded; refused, the page reconnects with its backoff
                // and finds the session once the database answers.
                tracing::warn!(error = %e, "session lookup failed at upgrade");
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(RETRY_AFTER, "1")],
                    "waiting for the database",
                )
                    .into_response();
            }
        }
    }
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .on_upgrade(move |socket| async move {
            // The socket keeps its places under the caps for as long as it lives.
            let _places = (slot, held);
            connection(socket, state, account).await;
        })
}

fn error(code: ErrorCode, message: impl Into<String>) -> Utf8Bytes {
    encode(&ServerMessage::Error {
        code,
        message: message.into(),
        table: None,
    })
}

/// The answer for a table that does not exist, or that this connection may not reach: the
/// same words, so that a private table cannot be told from no table.
fn no_such_table(table: &str) -> Utf8Bytes {
    error(ErrorCode::NoSuchTable, format!("no table `{table}`"))
}

struct Connection {
    id: ConnId,
    state: AppState,
    account: Option<Account>,
    out: mpsc::Sender<Outgoing>,
    watching: HashSet<String>,
    /// The invite each private table was watched with (its link's token).
    invites: HashMap<String, String>,
    lobby: Option<broadcast::Receiver<LobbyTable>>,
}

async fn connection(socket: WebSocket, state: AppState, login: Option<(Account, String)>) {
    state.metrics.sockets.inc();
    let (mut sink, mut stream) = socket.split();
    let (out, mut out_rx) = mpsc::channel::<Outgoing>(OUTBOUND_QUEUE);
    let writer = tokio::spawn(async move {
        // What is queued goes out in one write and one flush: a flush (a send(2)) per message
        // per socket was a third of the server's CPU under load.
        // Grown to the largest batch seen, not the queue's length: most sockets never hold
        // more than a few messages at once, and this buffer lives as long as the socket.
        let mut queued = Vec::new();
        while out_rx.recv_many(&mut queued, OUTBOUND_QUEUE).await > 0 {
            for item in queued.drain(..) {
                match frame(item) {
                    Ok(message) => {
                        if sink.feed(message).await.is_err() {
                            return;
                        }
                    }
                    Err(close) => {
                        let _ = sink.send(close).await;
                        return;
                    }
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
        let _ = sink.close().await;
    });
    let (account, token) = match login {
        Some((a, t)) => (Some(a), Some(t)),
        None => (None, None),
    };
    let mut conn = Connection {
        id: crate::tables::actor::command::new_conn_id(),
        state: state.clone(),
        account,
        out,
        watching: HashSet::new(),
        invites: HashMap::new(),
        lobby: None,
    };
    let per_second = state.config.ws_messages_per_second;
    let limiter = RateLimiter::new(per_second.saturating_mul(60), per_second.saturating_mul(2));
    let mut abuse = Abuse::default();
    let mut logouts = state.logouts.subscribe();
    // A visitor's socket has no session: its `ended` never fires.
    let mut kept = token.as_deref().map(|t| state.sessions.keep(conn.id, t));
    let mut heartbeat = tokio::time::interval(PING_EVERY);
    heartbeat.tick().await;
    let mut last_heard = Instant::now();
    loop {
        tokio::select! {
            msg = stream.next() => {
                last_heard = Instant::now();
                // Every frame counts against the rate, pings and binary ones included; a
                // socket that keeps going over it is closed.
                let allowed = limiter.allow(&());
                if !allowed && abuse.strike(Instant::now()) {
                    state.metrics.sockets_closed_for_abuse.inc();
                    // Queued behind what is already waiting, even when the queue is full
                    // (an abusive socket fills it with refusals): the close code is the one
                    // message the peer must get. A peer that does not read gets a second.
                    let close = Outgoing::Close {
                        code: POLICY_VIOLATION,
                        reason: "too many messages",
                    };
                    let _ = tokio::time::timeout(Duration::from_secs(1), conn.out.send(close)).await;
                    // The closing handshake: what the peer still sends is read and dropped
                    // until it answers the close, for a socket dropped with unread data is
                    // reset, and a reset can discard the close frame before the peer reads it.
                    let _ = tokio::time::timeout(CLOSE_WAIT, async {
                        while let Some(Ok(_)) = stream.next().await {}
                    })
                    .await;
                    break;
                }
                match msg {
                    Some(Ok(Message::Text(text))) => {
                        if !allowed {
                            conn.send(error(ErrorCode::RateLimited, "too many messages: slow down"));
                            continue;
                        }
                        // Boxed: a request's future (the database calls of a sit or a
                        // top-up) would otherwise be part of every socket's task for its
                        // whole life, idle or not.
                        Box::pin(conn.handle(text.as_str())).await;
                    }
                    Some(Ok(Message::Binary(_))) => {
                        if allowed {
                            conn.send(error(ErrorCode::BadMessage, "messages are JSON text"));
                        }
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(e)) => {
                        // Oversized or broken frames end the connection.
                        tracing::debug!(error = %e, "websocket read failed");
                        conn.send(error(ErrorCode::TooLarge, format!("connection closed: {e}")));
                        break;
                    }
                }
            },
            _ = heartbeat.tick() => {
                // A peer that stopped answering (a laptop closed, a network gone) is let go
                // rather than held with its seat's frames queued.
                if last_heard.elapsed() > PEER_TIMEOUT {
                    break;
                }
                let _ = conn.out.try_send(Outgoing::Ping);
            }
            update = next_lobby(&mut conn.lobby) => match update {
                Some(table) => conn.send(encode(&ServerMessage::LobbyUpdate { table })),
                None => conn.lobby = None,
            },
            gone = logouts.recv() => {
                if let (Ok(id), Some(a)) = (gone, &conn.account)
                    && id == a.id
                {
                    conn.send(encode(&ServerMessage::SessionEnded));
                    break;
                }
            }
            _ = session_ended(&mut kept) => {
                conn.send(encode(&ServerMessage::SessionEnded));
                break;
            }
        }
    }
    for table in conn.watching.drain() {
        if let Some(tx) = state.tables.sender(&table).await {
            let _ = tx.send(Command::Unwatch { conn: conn.id }).await;
        }
    }
    drop(conn);
    let _ = writer.await;
    state.metrics.sockets.sub(1);
}

/// Returns when the socket's session has ended; never for a visitor's socket.
async fn session_ended(kept: &mut Option<Kept>) {
    let ended = match kept {
        Some(k) => (&mut k.ended).await.is_ok(),
        None => false,
    };
    if !ended {
        // A receiver is not polled again once it has answered; without a sender, nothing
        // can end this session any more.
        *kept = None;
        std::future::pending::<()>().await;
    }
}

/// The WebSocket message for a queued item; `Err` holds a close frame, the socket's last.
fn frame(item: Outgoing) -> Result<Message, Message> {
    // Errors are typed up to here: this is where they become protocol messages.
    Ok(match item {
        Outgoing::Frame(text) => Message::Text(text),
        Outgoing::Refused(refusal) => Message::Text(encode(&ServerMessage::Error {
            code: refusal.error.code(),
            message: refusal.error.to_string(),
            table: Some(refusal.table),
        })),
        Outgoing::Ping => Message::Ping(Vec::new().into()),
        Outgoing::Close { code, reason } => {
            return Err(Message::Close(Some(CloseFrame {
                code,
                reason: reason.into(),
            })));
        }
    })
}

async fn next_lobby(rx: &mut Option<broadcast::Receiver<LobbyTable>>) -> Option<LobbyTable> {
    let Some(rx) = rx else {
        return std::future::pending().await;
    };
    loop {
        match rx.recv().await {
            Ok(t) => return Some(t),
            // Missed some updates: the next ones carry the current state anyway.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return None,
        }
    }
}

impl Connection {
    fn send(&self, text: Utf8Bytes) {
        let _ = self.out.try_send(Outgoing::Frame(text));
    }

    async fn handle(&mut self, text: &str) {
        let msg = match serde_json::from_str::<ClientMessage>(text) {
            Ok(m) => m,
            Err(e) => {
                self.send(error(
                    ErrorCode::BadMessage,
                    format!("could not read that message: {e}"),
                ));
                return;
            }
        };
        let (table, request) = match msg {
            ClientMessage::Ping => return self.send(encode(&ServerMessage::Pong)),
            ClientMessage::SubscribeLobby => {
                let tables = self.state.tables.lobby().await;
                self.lobby = Some(self.state.tables.lobby.subscribe());
                return self.send(encode(&ServerMessage::Lobby { tables }));
            }
            ClientMessage::UnsubscribeLobby => {
                self.lobby = None;
                return;
            }
            ClientMessage::Watch { table, invite } => {
                if let Some(invite) = invite
                    && (self.invites.contains_key(&table) || self.invites.len() < MAX_WATCHED)
                {
                    self.invites.insert(table.clone(), invite);
                }
                return self.watch(&table).await;
            }
            ClientMessage::Unwatch { table } => {
                self.invites.remove(&table);
                if self.watching.remove(&table)
                    && let Some(tx) = self.state.tables.sender(&table).await
                {
                    let _ = tx.send(Command::Unwatch { conn: self.id }).await;
                }
                return;
            }
            ClientMessage::Resync { table } => {
                if let Some(tx) = self.sender(&table).await {
                    if !self.watching.contains(&table) {
                        return self.watch(&table).await;
                    }
                    self.command(&tx, Command::Resync { conn: self.id });
                } else {
                    self.send(no_such_table(&table));
                }
                return;
            }
            ClientMessage::Sit {
                table,
                seat,
                buy_in,
                post_now,
                request_id,
            } => (
                table,
                Request::Sit {
                    seat,
                    buy_in,
                    post_now,
                    request_id,
                },
            ),
            ClientMessage::Act {
                table,
                hand,
                action,
            } => (table, Request::Act { hand, action }),
            ClientMessage::PreSelect { table, pre } => (table, Request::PreSelect(pre)),
            ClientMessage::SitOut { table } => (table, Request::SitOut),
            ClientMessage::Straddle { table, on } => (table, Request::Straddle { on }),
            ClientMessage::SitIn { table, post_now } => (table, Request::SitIn { post_now }),
            ClientMessage::TopUp {
                table,
                amount,
                request_id,
            } => (table, Request::TopUp { amount, request_id }),
            ClientMessage::Leave { table, request_id } => (table, Request::Leave { request_id }),
            ClientMessage::Chat { table, text } => (table, Request::Chat { text }),
            ClientMessage::SitOutAtBigBlind { table, on } => {
                (table, Request::SitOutAtBigBlind { on })
            }
            ClientMessage::ShowLosing { table, on } => (table, Request::ShowLosing { on }),
            ClientMessage::ShowCards { table } => (table, Request::ShowCards),
            ClientMessage::AutoTopUp { table, to } => (table, Request::AutoTopUp { to }),
            ClientMessage::JoinWaitlist { table } => (table, Request::JoinWaitlist),
            ClientMessage::LeaveWaitlist { table } => (table, Request::LeaveWaitlist),
            ClientMessage::Host { table, action } => {
                let Some(account) = self.account.clone() else {
                    return self.send(error(ErrorCode::NotLoggedIn, "log in to host a table"));
                };
                let Some(tx) = self.sender(&table).await else {
                    return self.send(no_such_table(&table));
                };
                return self.command(
                    &tx,
                    Command::Host {
                        account,
                        out: self.out.clone(),
                        action,
                    },
                );
            }
        };
        let Some(account) = self.account.clone() else {
            return self.send(error(ErrorCode::NotLoggedIn, "log in to play"));
        };
        let Some(tx) = self.sender(&table).await else {
            return self.send(no_such_table(&table));
        };
        if !self.watching.contains(&table) {
            self.watch(&table).await;
        }
        let invite = self.invites.get(&table).cloned();
        self.command(
            &tx,
            Command::Player {
                account,
                invite,
                out: self.out.clone(),
                request,
            },
        );
    }

    /// The table's queue if this connection may reach it (see `Tables::sender_for`).
    async fn sender(&self, table: &str) -> Option<mpsc::Sender<Command>> {
        let account = self.account.as_ref().map(|a| a.id);
        let invite = self.invites.get(table).map(String::as_str);
        self.state.tables.sender_for(table, account, invite).await
    }

    async fn watch(&mut self, table: &str) {
        let Some(tx) = self.sender(table).await else {
            return self.send(no_such_table(table));
        };
        if !self.watching.contains(table) && self.watching.len() >= MAX_WATCHED {
            return self.send(error(
                ErrorCode::BadMessage,
                format!("watch at most {MAX_WATCHED} tables at once"),
            ));
        }
        self.watching.insert(table.to_string());
        self.command(
            &tx,
            Command::Watch {
                conn: self.id,
                account: self.account.clone(),
                invite: self.invites.get(table).cloned(),
                out: self.out.clone(),
                remote: None,
            },
        );
    }

    /// Hands a command to the table without waiting: a full queue is answered at once.
    fn command(&self, tx: &mpsc::Sender<Command>, cmd: Command) {
        if tx.try_send(cmd).is_err() {
            self.send(error(ErrorCode::Internal, "the table is busy; try again"));
        }
    }
}
