//! The one WebSocket to `/ws`. It reconnects with backoff when dropped, and on every (re)open
//! re-sends what the page had asked for (lobby subscription, watched table), so the server
//! answers with fresh state and nothing needs a page reload.
//!
//! The server reads the session cookie only at the handshake, so logging in or out reconnects.

use std::cell::RefCell;

use leptos::prelude::Set;
use shared::protocol::{ClientMessage, RequestId, ServerMessage, TableId};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{CloseEvent, MessageEvent, WebSocket};

use crate::store::{self, Conn};

const MAX_BACKOFF_MS: i32 = 10_000;

#[derive(Default)]
struct Socket {
    ws: Option<WebSocket>,
    /// Messages sent while the socket was not open yet; flushed on open.
    queue: Vec<String>,
    lobby: bool,
    watching: Option<TableId>,
    /// Tables whose page was left while seated there: still watched, so that a decision
    /// waiting at one shows on the other pages.
    kept: Vec<TableId>,
    failures: u32,
    /// Bumped on every new socket so callbacks of an abandoned one do nothing.
    generation: u32,
}

thread_local! {
    static SOCKET: RefCell<Socket> = RefCell::new(Socket::default());
}

fn url() -> Option<String> {
    let location = web_sys::window()?.location();
    let scheme = if location.protocol().ok()? == "https:" {
        "wss"
    } else {
        "ws"
    };
    Some(format!("{scheme}://{}/ws", location.host().ok()?))
}

fn connect() {
    let Some(url) = url() else { return };
    let Ok(ws) = WebSocket::new(&url) else {
        schedule_reconnect();
        return;
    };
    let generation = SOCKET.with(|s| {
        let mut s = s.borrow_mut();
        s.generation += 1;
        if let Some(old) = s.ws.replace(ws.clone()) {
            let _ = old.close();
        }
        s.generation
    });
    let current = move || SOCKET.with(|s| s.borrow().generation == generation);

    let on_open = Closure::<dyn FnMut()>::new(move || {
        if !current() {
            return;
        }
        store::get().conn.set(Conn::Open);
        let (ws, queue, lobby, watching) = SOCKET.with(|s| {
            let mut s = s.borrow_mut();
            s.failures = 0;
            let watching: Vec<TableId> = s.watching.iter().chain(&s.kept).cloned().collect();
            (
                s.ws.clone(),
                std::mem::take(&mut s.queue),
                s.lobby,
                watching,
            )
        });
        let Some(ws) = ws else { return };
        let mut resend = Vec::new();
        if lobby {
            resend.push(ClientMessage::SubscribeLobby);
        }
        resend.extend(watching.into_iter().map(watch_message));
        // Waiting lists joined from this tab: asking again keeps the place in line.
        resend.extend(
            crate::waitlist::joined()
                .into_iter()
                .map(|table| ClientMessage::JoinWaitlist { table }),
        );
        for text in resend
            .iter()
            .filter_map(|m| serde_json::to_string(m).ok())
            .chain(queue)
        {
            let _ = ws.send_with_str(&text);
        }
    });
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        if !current() {
            return;
        }
        let Some(text) = e.data().as_string() else {
            return;
        };
        // A message this client does not understand is skipped, not fatal: the next full
        // view carries the state anyway.
        if let Ok(msg) = serde_json::from_str::<ServerMessage>(&text) {
            store::get().on_message(msg);
        }
    });
    let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |_: CloseEvent| {
        if current() {
            schedule_reconnect();
        }
    });
    ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    // The callbacks live as long as their socket; a replaced socket's are inert (generation).
    on_open.forget();
    on_message.forget();
    on_close.forget();
}

fn schedule_reconnect() {
    let failures = SOCKET.with(|s| {
        let mut s = s.borrow_mut();
        s.ws = None;
        s.failures += 1;
        s.failures
    });
    store::get().conn.set(Conn::Reconnecting);
    let delay = (250i32 << failures.min(6)).min(MAX_BACKOFF_MS);
    let retry = Closure::once_into_js(connect);
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(retry.unchecked_ref(), delay);
    }
}

/// Opens the socket when the app starts; pings keep idle connections from being cut.
pub fn start() {
    connect();
    let ping = Closure::<dyn FnMut()>::new(|| send(&ClientMessage::Ping));
    if let Some(w) = web_sys::window() {
        let _ = w.set_interval_with_callback_and_timeout_and_arguments_0(
            ping.as_ref().unchecked_ref(),
            25_000,
        );
    }
    ping.forget();
}

/// A new socket now (after login or logout, so the server sees the new cookie).
pub fn reconnect() {
    store::get().conn.set(Conn::Connecting);
    connect();
}

/// A fresh id for one click that moves chips; the message keeps it if it has to wait for the
/// socket, so the server applies it once.
pub fn request_id() -> Option<RequestId> {
    let now = js_sys::Date::now() as u64;
    let random = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
    RequestId::try_from(format!("{now:x}-{random:x}")).ok()
}

pub fn send(msg: &ClientMessage) {
    let Ok(text) = serde_json::to_string(msg) else {
        return;
    };
    SOCKET.with(|s| {
        let mut s = s.borrow_mut();
        match &s.ws {
            Some(ws) if ws.ready_state() == WebSocket::OPEN => {
                let _ = ws.send_with_str(&text);
            }
            // Pings are worthless once stale; anything else waits for the socket.
            _ if matches!(msg, ClientMessage::Ping) => {}
            _ => s.queue.push(text),
        }
    });
}

fn is_open() -> bool {
    SOCKET.with(|s| {
        s.borrow()
            .ws
            .as_ref()
            .is_some_and(|ws| ws.ready_state() == WebSocket::OPEN)
    })
}

// Subscriptions are remembered rather than queued: opening the socket sends them anyway.
pub fn subscribe_lobby() {
    let already = SOCKET.with(|s| std::mem::replace(&mut s.borrow_mut().lobby, true));
    if !already && is_open() {
        send(&ClientMessage::SubscribeLobby);
    }
}

pub fn unsubscribe_lobby() {
    let was = SOCKET.with(|s| std::mem::replace(&mut s.borrow_mut().lobby, false));
    if was && is_open() {
        send(&ClientMessage::UnsubscribeLobby);
    }
}

/// A private table is watched with the invite it was opened by.
fn watch_message(table: TableId) -> ClientMessage {
    let invite = crate::prefs::invite(&table);
    ClientMessage::Watch { table, invite }
}

/// The table on screen. One kept in the background is already watched, and the page takes
/// over the state the store kept; another is watched afresh, so it sends a snapshot. The
/// table on screen before stops being watched unless it is kept.
pub fn watch(table: &str) {
    let (was_kept, replaced) = SOCKET.with(|s| {
        let mut s = s.borrow_mut();
        let before = s.kept.len();
        s.kept.retain(|t| t != table);
        let was_kept = s.kept.len() < before;
        let replaced = s
            .watching
            .replace(table.to_string())
            .filter(|old| old != table && !s.kept.contains(old));
        (was_kept, replaced)
    });
    if let Some(old) = replaced {
        send(&ClientMessage::Unwatch { table: old });
    }
    if !was_kept && is_open() {
        send(&watch_message(table.to_string()));
    }
}

pub fn unwatch(table: &str) {
    let was = SOCKET.with(|s| {
        let mut s = s.borrow_mut();
        if s.watching.as_deref() == Some(table) {
            s.watching.take().filter(|t| !s.kept.contains(t))
        } else {
            None
        }
    });
    if was.is_some() {
        send(&ClientMessage::Unwatch {
            table: table.to_string(),
        });
    }
}

/// Goes on watching a table after its page is left (the player sits there).
pub fn keep(table: &str) {
    SOCKET.with(|s| {
        let mut s = s.borrow_mut();
        if !s.kept.iter().any(|t| t == table) {
            s.kept.push(table.to_string());
        }
    });
}

/// A kept table the player no longer sits at: stop watching it, unless it is on screen.
pub fn release(table: &str) {
    let unwatch = SOCKET.with(|s| {
        let mut s = s.borrow_mut();
        let before = s.kept.len();
        s.kept.retain(|t| t != table);
        s.kept.len() < before && s.watching.as_deref() != Some(table)
    });
    if unwatch {
        send(&ClientMessage::Unwatch {
            table: table.to_string(),
        });
    }
}
