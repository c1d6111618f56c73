//! The app's state: a handful of signals that the socket writes and the pages read.

use std::cell::OnceCell;

use leptos::prelude::*;
use shared::protocol::{ErrorCode, LobbyTable, ServerMessage, TableId};

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
    /// The table on screen; one at a time.
    pub table: RwSignal<Option<TableState>>,
    /// Tables this player sits at whose page was left: still followed, so that a decision
    /// waiting there can be shown (and announced) on any page.
    pub kept: RwSignal<Vec<TableState>>,
    /// The decision waiting for this player: at the table on screen, else at a kept one.
    pub turn: Memo<Option<Turn>>,
    pub lang: RwSignal<Lang>,
    pub four_colour: RwSignal<bool>,
    /// Tones on your turn and when time runs low (on unless turned off).
    pub sound: RwSignal<bool>,
    /// A system notification on your turn while the tab is hidden (off unless turned on).
    pub notify: RwSignal<bool>,
    /// Where this player stands on waiting lists, and seats held for them.
    pub waitlist: RwSignal<Vec<crate::waitlist::WaitSpot>>,
}

/// A decision waiting for this player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    pub table: TableId,
    /// The table's name (its id when it has none).
    pub name: String,
    /// With `board`, tells one decision from the next, which can follow it with no message
    /// in between (the last to act preflop is the first on the flop).
    pub hand: u64,
    pub board: usize,
}

/// The decision waiting for this player at one table, if there is one.
pub fn turn_at(state: &TableState) -> Option<Turn> {
    let v = state.view.as_ref()?;
    let legal = v.legal.as_ref()?;
    (v.you == Some(legal.seat)).then(|| Turn {
        table: state.id.clone(),
        name: if v.name.is_empty() {
            state.id.clone()
        } else {
            v.name.clone()
        },
        hand: v.hand,
        board: v.board.len(),
    })
}

fn seated(state: &TableState) -> bool {
    state.view.as_ref().is_some_and(|v| v.you.is_some())
}

/// The table a message is about, if it names one.
fn table_of(msg: &ServerMessage) -> Option<&str> {
    match msg {
        ServerMessage::Snapshot { table, .. }
        | ServerMessage::Events { table, .. }
        | ServerMessage::Chat { table, .. }
        | ServerMessage::HostPanel { table, .. } => Some(table),
        ServerMessage::Error { table, .. } => table.as_deref(),
        _ => None,
    }
}

thread_local! {
    static STORE: OnceCell<Store> = const { OnceCell::new() };
}

/// Created once under the app's root owner, which lives as long as the page.
pub fn init() -> Store {
    let table = RwSignal::new(None::<TableState>);
    let kept = RwSignal::new(Vec::<TableState>::new());
    let turn = Memo::new(move |_| {
        table
            .with(|t| t.as_ref().and_then(turn_at))
            .or_else(|| kept.with(|k| k.iter().find_map(turn_at)))
    });
    let store = Store {
        user: RwSignal::new(None),
        user_known: RwSignal::new(false),
        conn: RwSignal::new(Conn::Connecting),
        lobby: RwSignal::new(Vec::new()),
        table,
        kept,
        turn,
        lang: RwSignal::new(Lang::initial()),
        four_colour: RwSignal::new(
            crate::prefs::load(crate::prefs::FOUR_COLOUR).as_deref() == Some("1"),
        ),
        sound: RwSignal::new(crate::prefs::load(crate::prefs::SOUND).as_deref() != Some("0")),
        notify: RwSignal::new(
            crate::prefs::load(crate::prefs::NOTIFY).as_deref() == Some("1")
                && crate::attention::notifications_allowed(),
        ),
        waitlist: RwSignal::new(Vec::new()),
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
            ServerMessage::Waitlist {
                table,
                position,
                offer,
            } => crate::waitlist::heard(table, position, offer),
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
            other
                if table_of(&other).is_some_and(|id| {
                    self.table
                        .with_untracked(|t| t.as_ref().is_none_or(|t| t.id != id))
                        && self.kept.with_untracked(|k| k.iter().any(|s| s.id == id))
                }) =>
            {
                self.follow_kept(other)
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

    /// A message for a table kept in the background. Once the player no longer sits there
    /// (left, stood up, logged out) or the table is gone, it is let go.
    fn follow_kept(self, msg: ServerMessage) {
        let Some(id) = table_of(&msg).map(str::to_string) else {
            return;
        };
        let closed = matches!(
            msg,
            ServerMessage::Error {
                code: ErrorCode::NoSuchTable,
                ..
            }
        );
        let mut resync = None;
        let mut gone = false;
        self.kept.update(|kept| {
            if let Some(i) = kept.iter().position(|s| s.id == id) {
                resync = kept[i].apply(msg);
                gone = closed || !seated(&kept[i]);
                if gone {
                    kept.remove(i);
                }
            }
        });
        if gone {
            crate::socket::release(&id);
        } else if let Some(table) = resync {
            crate::socket::send(&shared::protocol::ClientMessage::Resync { table });
        }
    }

    /// The table page opens `id`: the state kept for it if there is one, else a fresh one.
    /// The table on screen before is kept if the player sits there.
    pub fn open_table(self, id: &str) {
        let mut before = None;
        self.table.update_untracked(|t| before = t.take());
        if let Some(before) = before.filter(|b| b.id != id) {
            self.keep(before);
        }
        let mut found = None;
        if self.kept.with_untracked(|k| k.iter().any(|s| s.id == id)) {
            self.kept.update(|k| {
                if let Some(i) = k.iter().position(|s| s.id == id) {
                    found = Some(k.remove(i));
                }
            });
        }
        self.table.set(Some(
            found.unwrap_or_else(|| TableState::new(id.to_string())),
        ));
    }

    /// The page of the table on screen is left: followed on if the player sits there.
    pub fn close_table(self) {
        let mut left = None;
        self.table.update(|t| left = t.take());
        if let Some(state) = left {
            let id = state.id.clone();
            self.keep(state);
            crate::socket::unwatch(&id);
        }
    }

    fn keep(self, state: TableState) {
        if !seated(&state) {
            return;
        }
        crate::socket::keep(&state.id);
        self.kept.update(|k| {
            k.retain(|s| s.id != state.id);
            k.push(state);
        });
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
