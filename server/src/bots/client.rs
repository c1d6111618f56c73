//! `scoop bots`: WebSocket clients that register, buy in and play like people do, for load
//! tests. Each measures the time from sending an action to receiving its broadcast.

use std::ops::RangeInclusive;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::Rng;
use serde::Serialize;
use serde_json::json;
use shared::protocol::{ClientMessage, TableView};
use thiserror::Error;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::bots::frame::{EventKind, Frame, Happened, Kind};
use crate::bots::strategy;

#[derive(Debug, Error)]
pub enum BotError {
    #[error("http: {0}")]
    Http(#[from] reqwest::Error),
    #[error("websocket: {0}")]
    Ws(#[from] Box<tokio_tungstenite::tungstenite::Error>),
    #[error("registration refused: {0}")]
    Register(String),
    #[error("no table to join: {0}")]
    NoTable(String),
    #[error("the server closed the connection")]
    Closed,
}

impl BotError {
    /// A handshake that may work if tried again, as a page's socket tries it: refused with 503
    /// (the server waits for its database), or cut before the server's answer (a stampede of
    /// connections on a saturated machine). Any other answer (a cap, a foreign origin) is final.
    fn is_retryable_handshake(&self) -> bool {
        use tokio_tungstenite::tungstenite::Error;
        use tokio_tungstenite::tungstenite::error::ProtocolError;
        let BotError::Ws(e) = self else {
            return false;
        };
        match &**e {
            Error::Http(r) => r.status() == 503,
            Error::Protocol(ProtocolError::HandshakeIncomplete) | Error::Io(_) => true,
            _ => false,
        }
    }
}

impl From<tokio_tungstenite::tungstenite::Error> for BotError {
    fn from(e: tokio_tungstenite::tungstenite::Error) -> Self {
        BotError::Ws(Box::new(e))
    }
}

/// Registrations in flight at once.
const REGISTER_CONCURRENCY: usize = 16;
/// Socket buffers sized to the protocol. tungstenite zeroes up to this much before every read
/// (at its default of 128 KiB, a fifth of the bots' CPU went to memset), and most server
/// messages are well under a KiB (a hand's 155 average 550 bytes); a longer one reserves its
/// own length and is read in several steps.
const READ_BUFFER: usize = 2 * 1024;
const WRITE_BUFFER: usize = 8 * 1024;

fn socket_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Base URL, e.g. http://127.0.0.1:8080
    pub url: String,
    /// Table ids; empty = every table in the lobby.
    pub tables: Vec<String>,
    pub per_table: usize,
    pub duration: Duration,
    /// Thinking time before each action (people take seconds; zero saturates the machine).
    pub think: RangeInclusive<Duration>,
    /// Played but not measured, at the start: every table deals its first hand at once.
    pub warmup: Duration,
    /// Sockets that watch the first table and never read.
    pub spectators: usize,
    /// Sockets that connect and then only answer the server's pings (a page open on the
    /// lobby): what an idle connection costs the server.
    pub idle: usize,
    /// Other base URLs (a cluster's other nodes): a bot whose connection is lost connects
    /// again to the next of `url` and these and plays on. Empty: a lost connection stops it.
    pub reconnect_to: Vec<String>,
}

#[derive(Default)]
struct Stats {
    latencies_us: Vec<u64>,
    hands: u64,
    actions: u64,
    errors: u64,
    /// Connections lost, and connected again (`reconnect_to`).
    lost: u64,
    reconnected: u64,
    handshakes_retried: u64,
    /// Text frames and their bytes received by all bots in the window.
    frames: u64,
    bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct Report {
    /// Registering every bot (argon2 on the server), before the measured period.
    pub registration_seconds: f64,
    pub tables: usize,
    pub connections: usize,
    /// Stalled spectators on the first table (opened, never read).
    pub spectators: usize,
    /// Idle sockets held open.
    pub idle: usize,
    /// Played first and not measured.
    pub warmup_seconds: f64,
    /// The measured window.
    pub seconds: f64,
    pub think_ms: [u64; 2],
    pub hands: u64,
    pub hands_per_second: f64,
    pub actions: u64,
    pub action_to_broadcast_p50_ms: f64,
    pub action_to_broadcast_p99_ms: f64,
    pub action_to_broadcast_max_ms: f64,
    pub errors: u64,
    /// Bots' connections lost while playing, and connected again (to another node).
    pub connections_lost: u64,
    pub reconnected: u64,
    /// Handshakes refused with 503 or cut before the answer, and tried again.
    pub handshakes_retried: u64,
    /// What the server sent the players, all bots together, in the window.
    pub frames_received: u64,
    pub bytes_received: u64,
    /// Bytes received by the table's players per hand dealt.
    pub bytes_per_hand: u64,
}

pub async fn run(opts: Options) -> Result<Report, BotError> {
    let http = reqwest::Client::new();
    let tables: Vec<String> = if opts.tables.is_empty() {
        let lobby: serde_json::Value = http
            .get(format!("{}/api/tables", opts.url))
            .send()
            .await?
            .json()
            .await?;
        lobby["tables"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["id"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        opts.tables.clone()
    };
    if tables.is_empty() {
        return Err(BotError::NoTable("the lobby is empty".into()));
    }
    // Accounts first, a few at a time (each costs the server an argon2 hash), so that the
    // measured period is play only.
    let registering = Instant::now();
    let wanted: Vec<(String, usize)> = tables
        .iter()
        .flat_map(|t| (0..opts.per_table).map(move |i| (t.clone(), i)))
        .collect();
    let registered: Vec<(String, usize, Result<String, BotError>)> =
        futures_util::stream::iter(wanted)
            .map(|(table, i)| {
                let http = http.clone();
                let url = opts.url.clone();
                async move { (table, i, register(&http, &url).await) }
            })
            .buffer_unordered(REGISTER_CONCURRENCY)
            .collect()
            .await;
    let registration_seconds = registering.elapsed().as_secs_f64();

    // Held open, never read, until the report is written.
    let crowd = stalled_spectators(&opts, &tables[0]).await;
    let stalled = crowd.len();
    let idlers = idle_sockets(&opts).await;
    let idle = idlers.len();

    let stats = Arc::new(Mutex::new(Stats::default()));
    let start = Instant::now();
    let measured_from = start + opts.warmup;
    let deadline = measured_from + opts.duration;
    let mut tasks = Vec::new();
    for (table, i, cookie) in registered {
        let cookie = match cookie {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(%table, error = %e, "could not register a bot");
                if let Ok(mut s) = stats.lock() {
                    s.errors += 1;
                }
                continue;
            }
        };
        let (opts, stats) = (opts.clone(), stats.clone());
        // The first bot of each table counts its hands, so each hand counts once.
        let counts_hands = i == 0;
        tasks.push(tokio::spawn(async move {
            if let Err(e) = bot(
                &opts,
                &table,
                &cookie,
                counts_hands,
                measured_from..deadline,
                &stats,
            )
            .await
            {
                tracing::warn!(%table, error = %e, "bot stopped");
                if let Ok(mut s) = stats.lock() {
                    s.errors += 1;
                }
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    drop(crowd);
    for idler in idlers {
        idler.abort();
    }
    // Hands and latencies are counted inside the measured window only.
    let seconds = opts.duration.as_secs_f64();
    let mut s = match stats.lock() {
        Ok(mut s) => std::mem::take(&mut *s),
        Err(_) => Stats::default(),
    };
    s.latencies_us.sort_unstable();
    let pct = |p: f64| -> f64 {
        if s.latencies_us.is_empty() {
            return 0.0;
        }
        let i = ((s.latencies_us.len() as f64 - 1.0) * p).round() as usize;
        s.latencies_us[i] as f64 / 1000.0
    };
    Ok(Report {
        registration_seconds,
        tables: tables.len(),
        connections: tables.len() * opts.per_table,
        spectators: stalled,
        idle,
        warmup_seconds: opts.warmup.as_secs_f64(),
        seconds,
        think_ms: [
            opts.think.start().as_millis() as u64,
            opts.think.end().as_millis() as u64,
        ],
        hands: s.hands,
        hands_per_second: s.hands as f64 / seconds,
        actions: s.actions,
        action_to_broadcast_p50_ms: pct(0.50),
        action_to_broadcast_p99_ms: pct(0.99),
        action_to_broadcast_max_ms: pct(1.0),
        errors: s.errors,
        connections_lost: s.lost,
        reconnected: s.reconnected,
        handshakes_retried: s.handshakes_retried,
        frames_received: s.frames,
        bytes_received: s.bytes,
        bytes_per_hand: s.bytes / s.hands.max(1),
    })
}

/// Opens `opts.spectators` anonymous sockets that watch `table` and then are never read: the
/// server's writes to them back up, which must not slow the table's players. Their receive
/// buffers are small (a phone on a poor link), so they fall behind within seconds rather than
/// after the megabytes loopback would otherwise absorb.
async fn stalled_spectators(
    opts: &Options,
    table: &str,
) -> Vec<tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>>
{
    let ws_url = format!("{}/ws", opts.url.replacen("http", "ws", 1));
    let watch = serde_json::to_string(&ClientMessage::Watch {
        table: table.to_string(),
        invite: None,
    })
    .unwrap_or_default();
    futures_util::stream::iter(0..opts.spectators)
        .map(|_| {
            let (ws_url, origin, watch) = (ws_url.clone(), opts.url.clone(), watch.clone());
            async move {
                let mut request = ws_url.into_client_request().ok()?;
                let origin = HeaderValue::from_str(&origin).ok()?;
                request.headers_mut().insert("origin", origin);
                let host = request.uri().authority()?.as_str().to_string();
                let addr = tokio::net::lookup_host(host).await.ok()?.next()?;
                let socket = if addr.is_ipv4() {
                    tokio::net::TcpSocket::new_v4()
                } else {
                    tokio::net::TcpSocket::new_v6()
                }
                .ok()?;
                socket.set_recv_buffer_size(4096).ok()?;
                let stream = socket.connect(addr).await.ok()?;
                let (mut ws, _) = tokio_tungstenite::client_async(
                    request,
                    tokio_tungstenite::MaybeTlsStream::Plain(stream),
                )
                .await
                .ok()?;
                ws.send(Message::Text(watch.into())).await.ok()?;
                Some(ws)
            }
        })
        .buffer_unordered(64)
        .filter_map(|ws| async move { ws })
        .collect()
        .await
}

/// Opens `opts.idle` anonymous sockets that send nothing; each is read (so that the server's
/// pings are answered) by a task of its own until aborted.
async fn idle_sockets(opts: &Options) -> Vec<tokio::task::JoinHandle<()>> {
    let ws_url = format!("{}/ws", opts.url.replacen("http", "ws", 1));
    futures_util::stream::iter(0..opts.idle)
        .map(|_| {
            let (ws_url, origin) = (ws_url.clone(), opts.url.clone());
            async move {
                let mut request = ws_url.into_client_request().ok()?;
                request
                    .headers_mut()
                    .insert("origin", HeaderValue::from_str(&origin).ok()?);
                let (mut ws, _) = tokio_tungstenite::connect_async_with_config(
                    request,
                    Some(socket_config()),
                    true,
                )
                .await
                .ok()?;
                Some(tokio::spawn(async move {
                    while let Some(Ok(_)) = ws.next().await {}
                }))
            }
        })
        .buffer_unordered(64)
        .filter_map(|task| async move { task })
        .collect()
        .await
}

/// Registers a fresh account and returns its session cookie (`scoop_session=…`).
async fn register(http: &reqwest::Client, url: &str) -> Result<String, BotError> {
    let name = format!("lb-{:08x}", rand::rng().random::<u32>());
    let resp = http
        .post(format!("{url}/api/register"))
        // As the site's own page would: state-changing requests must say where they come from.
        .header("origin", url.trim_end_matches('/'))
        .json(&json!({"username": name, "password": "load-test-password"}))
        .send()
        .await?;
    if !resp.status().is_success() {
        return Err(BotError::Register(resp.text().await.unwrap_or_default()));
    }
    Ok(resp
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or_default()
        .to_string())
}

/// Plays until the end of the window; with `reconnect_to`, a lost connection is made again
/// (to the next node, every 200 ms until one answers) and the bot plays on from the
/// snapshot it gets, in the seat it kept.
async fn bot(
    opts: &Options,
    table: &str,
    cookie: &str,
    counts_hands: bool,
    measured: std::ops::Range<Instant>,
    stats: &Mutex<Stats>,
) -> Result<(), BotError> {
    let urls: Vec<&str> = std::iter::once(opts.url.as_str())
        .chain(opts.reconnect_to.iter().map(String::as_str))
        .collect();
    let mut next = 0;
    let mut lost = false;
    loop {
        let url = urls[next % urls.len()];
        let mut connected = false;
        let played = session(
            opts,
            url,
            table,
            cookie,
            counts_hands,
            measured.clone(),
            stats,
            &mut connected,
        )
        .await;
        if connected && lost {
            lost = false;
            if let Ok(mut s) = stats.lock() {
                s.reconnected += 1;
            }
        }
        let error = match played {
            Ok(()) => return Ok(()),
            // The same node, a little later (as the page does); counted, not an error.
            Err(e) if !connected && e.is_retryable_handshake() && Instant::now() < measured.end => {
                tracing::debug!(%table, %url, error = %e, "handshake failed; trying again");
                if let Ok(mut s) = stats.lock() {
                    s.handshakes_retried += 1;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            Err(e) if urls.len() == 1 || Instant::now() >= measured.end => return Err(e),
            Err(e) => e,
        };
        if connected {
            tracing::info!(%table, %url, %error, "bot lost its connection; connecting again");
            lost = true;
            if let Ok(mut s) = stats.lock() {
                s.lost += 1;
            }
        }
        next += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[allow(clippy::too_many_arguments)]
async fn session(
    opts: &Options,
    url: &str,
    table: &str,
    cookie: &str,
    counts_hands: bool,
    measured: std::ops::Range<Instant>,
    stats: &Mutex<Stats>,
    connected: &mut bool,
) -> Result<(), BotError> {
    let ws_url = format!("{}/ws", url.replacen("http", "ws", 1));
    let mut request = ws_url.into_client_request()?;
    if let Ok(v) = HeaderValue::from_str(cookie) {
        request.headers_mut().insert("cookie", v);
    }
    // The page's origin, whichever node the socket reaches (as behind a balancer).
    if let Ok(v) = HeaderValue::from_str(&opts.url) {
        request.headers_mut().insert("origin", v);
    }
    let (mut ws, _) =
        tokio_tungstenite::connect_async_with_config(request, Some(socket_config()), true).await?;
    *connected = true;
    let send =
        |msg: &ClientMessage| Message::Text(serde_json::to_string(msg).unwrap_or_default().into());
    ws.send(send(&ClientMessage::Watch {
        table: table.to_string(),
        invite: None,
    }))
    .await?;

    // The seat asked for, while the answer is awaited.
    let mut sitting: Option<u8> = None;
    // Seats refused since the view last changed (at that `seq`): each is asked once a view.
    let mut refused: (u64, Vec<u8>) = (0, Vec::new());
    let mut last_view: Option<Box<TableView>> = None;
    let mut last_seq = 0;
    let mut resyncing = false;
    let mut pending: Option<(u64, Instant)> = None;
    let mut acted_for: Option<(u64, u64)> = None;
    // What was last asked for between hands (after which hand; a top-up, else a sit-in):
    // each once per break, not at every frame of it (a break brings many, and the socket's
    // message cap closes a bot that repeats itself).
    let mut asked: Option<(u64, bool)> = None;
    let (mut frames, mut bytes) = (0u64, 0u64);
    // One timer for the whole session, not one a frame (a frame arrives every few
    // hundred microseconds per bot when the room plays flat out).
    let end = tokio::time::sleep_until(measured.end.into());
    tokio::pin!(end);
    loop {
        let next = tokio::select! {
            biased;
            () = &mut end => break,
            next = ws.next() => next,
        };
        let text = match next {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(e.into()),
            None => return Err(BotError::Closed),
        };
        if Instant::now() >= measured.start {
            frames += 1;
            bytes += text.len() as u64;
        }
        let Ok(frame) = serde_json::from_str::<Frame>(text.as_str()) else {
            continue;
        };
        let seq = frame.seq;
        let events: Vec<Happened> = match frame.kind {
            Kind::Snapshot => {
                let Some(view) = frame.view else { continue };
                last_view = Some(view);
                last_seq = seq;
                resyncing = false;
                Vec::new()
            }
            Kind::Events => {
                let follows = if let Some(view) = frame.view {
                    last_view = Some(view);
                    true
                } else {
                    match (frame.patch, frame.since, last_view.as_deref_mut()) {
                        (Some(patch), Some(since), Some(old)) if since <= last_seq => {
                            patch.apply(old).is_ok()
                        }
                        _ => false,
                    }
                };
                if !follows {
                    // This change starts from a view the bot does not hold: ask for the
                    // table once, and ignore changes until it comes.
                    last_view = None;
                    if !resyncing {
                        resyncing = true;
                        ws.send(send(&ClientMessage::Resync {
                            table: table.to_string(),
                        }))
                        .await?;
                    }
                    continue;
                }
                last_seq = seq;
                frame.events
            }
            Kind::Error => {
                let (code, message) = (frame.code, frame.message);
                tracing::debug!(%table, ?code, %message, "refused");
                // A top-up or sit-in refused because the table was moving is asked again.
                if code == Some(shared::protocol::ErrorCode::DatabaseUnavailable) {
                    asked = None;
                }
                // A refused sit is most likely a seat someone else took first: try another
                // now, from the last view (no further message may come while the table waits
                // for a player), but never the same seat again from the same view, which
                // would repeat the request at network speed. Any other refusal waits for
                // the next update.
                let unseated = last_view.as_ref().is_some_and(|v| v.you.is_none());
                let Some(seat) = sitting.take().filter(|_| unseated) else {
                    continue;
                };
                if refused.0 != last_seq {
                    refused = (last_seq, Vec::new());
                }
                refused.1.push(seat);
                Vec::new()
            }
            Kind::Other => continue,
        };
        let Some(view) = last_view.as_deref() else {
            continue;
        };
        let seq = last_seq;
        let my_seat = view.you;
        for e in &events {
            match e {
                Happened {
                    event: EventKind::Acted,
                    seat,
                } if *seat == my_seat && my_seat.is_some() => {
                    if let Some((_, sent)) = pending.take()
                        && sent >= measured.start
                        && let Ok(mut s) = stats.lock()
                    {
                        s.latencies_us.push(sent.elapsed().as_micros() as u64);
                        s.actions += 1;
                    }
                }
                Happened {
                    event: EventKind::HandEnded,
                    ..
                } if counts_hands && Instant::now() >= measured.start => {
                    if let Ok(mut s) = stats.lock() {
                        s.hands += 1;
                    }
                }
                _ => {}
            }
        }
        if my_seat.is_none() && sitting.is_none() {
            let tried = |seat: usize| refused.0 == seq && refused.1.contains(&(seat as u8));
            let free = (0..view.seats.len()).find(|&s| view.seats[s].is_none() && !tried(s));
            if let Some(free) = free {
                let buy_in = view.max_buy_in / 2;
                ws.send(send(&ClientMessage::Sit {
                    table: table.to_string(),
                    seat: free as u8,
                    buy_in: buy_in.max(view.min_buy_in),
                    post_now: true,
                    request_id: None,
                }))
                .await?;
                sitting = Some(free as u8);
            }
            continue;
        }
        let Some(seat) = my_seat else { continue };
        let me = view.seats.get(seat as usize).and_then(|s| s.as_ref());
        if !view.hand_running {
            if let Some(me) = me {
                let top_up = me.stack < view.min_buy_in;
                let sit_in = me.status == shared::table::SeatStatus::SittingOut;
                if !(top_up || sit_in) || asked == Some((view.hand, top_up)) {
                    continue;
                }
                asked = Some((view.hand, top_up));
                if top_up {
                    ws.send(send(&ClientMessage::TopUp {
                        table: table.to_string(),
                        amount: view.max_buy_in / 2 - me.stack.min(view.max_buy_in / 2),
                        request_id: None,
                    }))
                    .await?;
                } else {
                    ws.send(send(&ClientMessage::SitIn {
                        table: table.to_string(),
                        post_now: true,
                    }))
                    .await?;
                }
            }
            continue;
        }
        if let Some(legal) = view.legal
            && acted_for != Some((view.hand, seq))
        {
            let action = strategy::choose(&legal, &mut rand::rng());
            acted_for = Some((view.hand, seq));
            let think = rand::rng().random_range(opts.think.clone());
            if !think.is_zero() {
                // Messages arriving meanwhile wait in the socket; nobody else acts meanwhile.
                tokio::time::sleep(think).await;
            }
            pending = Some((view.hand, Instant::now()));
            ws.send(send(&ClientMessage::Act {
                table: table.to_string(),
                hand: view.hand,
                action,
            }))
            .await?;
        }
    }
    if let Ok(mut s) = stats.lock() {
        s.frames += frames;
        s.bytes += bytes;
    }
    let _ = ws
        .send(send(&ClientMessage::Leave {
            table: table.to_string(),
            request_id: None,
        }))
        .await;
    let _ = ws.close(None).await;
    // Wait for the server's close: a socket closed with unread data is reset, and the reset can
    // discard the leave (and a last action) before the server has read them.
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(_)) = ws.next().await {}
    })
    .await;
    Ok(())
}
