//! The app's state: a handful of signals that the socket writes and the pages read.

use std::cell::OnceCell;

use leptos::prelude::*;
use shared::protocol::{LobbyTable, ServerMessage};

use crate::api::{self, Me};
use crate::i18n::Lang;
use crate::table::state::TableState;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conn {
    Connecting,
    Open,
    Reconnecting,
}

#[derive(Clone, Copy)]
pub struct Store {
    pub user: RwSignal<Option<Me>>,
    /// `/api/session` has answered once: until then "not logged in" is not known yet.
    pub user_known: RwSignal<bool>,
    pub conn: RwSignal<Conn>,
    pub lobby: RwSignal<Vec<LobbyTable>>,
    /// The table being watched; one at a time.
    pub table: RwSignal<Option<TableState>>,
    pub lang: RwSignal<Lang>,
    pub four_colour: RwSignal<bool>,
    /// Tones on your turn and when time runs low (on unless turned off).
    pub sound: RwSignal<bool>,
}

thread_local! {
    static STORE: OnceCell<Store> = const { OnceCell::new() };
}

/// Created once under the app's root owner, which lives as long as the page.
pub fn init() -> Store {
    let store = Store {
        user: RwSignal::new(None),
        user_known: RwSignal::new(false),
        conn: RwSignal::new(Conn::Connecting),
        lobby: RwSignal::new(Vec::new()),
        table: RwSignal::new(None),
        lang: RwSignal::new(Lang::initial()),
        four_colour: RwSignal::new(
            crate::prefs::load(crate::prefs::FOUR_COLOUR).as_deref() == Some("1"),
        ),
        sound: RwSignal::new(crate::prefs::load(crate::prefs::SOUND).as_deref() != Some("0")),
    };
    STORE.with(|s| {
        let _ = s.set(store);
    });
    store
}

pub fn get() -> Store {
    STORE.with(|s| *s.get_or_init(init))
}

impl Store {
    pub fn on_message(self, msg: ServerMessage) {
        match msg {
            ServerMessage::Lobby { tables } => self.lobby.set(tables),
            ServerMessage::LobbyUpdate { table } => {
                self.lobby
                    .update(|list| match list.iter_mut().find(|t| t.id == table.id) {
                        Some(t) => *t = table,
                        None => list.push(table),
                    })
            }
            ServerMessage::SessionEnded => {
                self.user.set(None);
                crate::socket::reconnect();
            }
            ServerMessage::Pong => {}
            ServerMessage::Error {
                table: None,
                code,
                message,
            } => {
                // Errors about no table in particular still belong on the page in view.
                self.table.update(|t| {
                    if let Some(t) = t {
                        if code == shared::protocol::ErrorCode::NoSuchTable {
                            // The invite that brought us is dead (rotated, or the table closed).
                            crate::prefs::forget_invite(&t.id);
                        }
                        t.error = Some((code, message));
                    }
                });
            }
            other => {
                if let ServerMessage::Error {
                    code: shared::protocol::ErrorCode::NoSuchTable,
                    ..
                } = &other
                    && let Some(id) = self
                        .table
                        .with_untracked(|t| t.as_ref().map(|t| t.id.clone()))
                {
                    // The invite that brought us is dead (rotated, or the table closed).
                    crate::prefs::forget_invite(&id);
                }
                let mut resync = None;
                self.table.update(|t| {
                    if let Some(t) = t {
                        resync = t.apply(other);
                    }
                });
                if let Some(id) = resync {
                    crate::socket::send(&shared::protocol::ClientMessage::Resync { table: id });
                }
            }
        }
    }

    /// Reloads the account (balance changes after buy-ins, cash-outs and refills).
    pub fn refresh_user(self) {
        leptos::task::spawn_local(async move {
            // A visitor gets a 200 too, so a failure (network, server) says nothing about
            // who is logged in: keep what the page knows rather than show a player logged out.
            if let Ok(session) = api::get::<api::Session>("/api/session").await {
                self.user.set(session.user);
            }
            self.user_known.set(true);
        });
    }
}
