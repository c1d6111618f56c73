//! Waiting lists (docs/rules.md §7.14): joining a full table's list from the lobby, the place
//! in line there, and, on any page, the seat the server holds for this player with its
//! countdown. The tables joined are kept for this tab, so a reload or a new socket asks
//! again and keeps its place.

use leptos::prelude::*;
use shared::protocol::{ClientMessage, SeatOffer, TableId};

use crate::i18n;
use crate::route::{self, Route};
use crate::{socket, store};

/// Where this player stands on one table's list.
#[derive(Clone, Debug, PartialEq)]
pub struct WaitSpot {
    pub table: TableId,
    /// 1 for the first in line.
    pub position: u32,
    /// A seat held for this player, and when it stops being held (`Date.now()` ms).
    pub offer: Option<(u8, f64)>,
}

impl WaitSpot {
    pub fn new(table: TableId, position: u32, offer: Option<SeatOffer>) -> WaitSpot {
        WaitSpot {
            table,
            position,
            offer: offer.map(|o| (o.seat, js_sys::Date::now() + o.expires_in_ms as f64)),
        }
    }
}

const JOINED: &str = "scoop.waiting";

fn tab_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// The tables whose list this tab joined, asked again whenever the socket opens.
pub fn joined() -> Vec<TableId> {
    tab_storage()
        .and_then(|s| s.get_item(JOINED).ok().flatten())
        .map(|list| list.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

fn remember(table: &str, on: bool) {
    let mut list = joined();
    list.retain(|t| t != table);
    if on {
        list.push(table.to_string());
    }
    if let Some(s) = tab_storage() {
        let _ = s.set_item(JOINED, &list.join("\n"));
    }
}

pub fn join(table: &str) {
    remember(table, true);
    socket::send(&ClientMessage::JoinWaitlist {
        table: table.to_string(),
    });
}

pub fn leave(table: &str) {
    remember(table, false);
    socket::send(&ClientMessage::LeaveWaitlist {
        table: table.to_string(),
    });
}

/// The server says where this player stands (none: off the list).
pub fn heard(table: TableId, position: Option<u32>, offer: Option<SeatOffer>) {
    let store = store::get();
    if position.is_none() {
        remember(&table, false);
    }
    store.waitlist.update(|list| {
        list.retain(|w| w.table != table);
        if let Some(position) = position {
            list.push(WaitSpot::new(table, position, offer));
        }
    });
}

/// The seat held for this player at `table`, if any.
pub fn offered_seat(table: &str) -> Option<u8> {
    store::get().waitlist.with_untracked(|list| {
        list.iter()
            .find(|w| w.table == table)
            .and_then(|w| w.offer.map(|(seat, _)| seat))
    })
}

/// The lobby row's part for a full table: join the list, or the place in it and leave.
#[component]
pub fn WaitlistCell(table: TableId, waiting: u32) -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let table = StoredValue::new(table);
    let place = Memo::new(move |_| {
        store.waitlist.with(|list| {
            list.iter()
                .find(|w| table.with_value(|id| &w.table == id))
                .map(|w| w.position)
        })
    });
    view! {
        {(waiting > 0).then(|| view! { <small class="muted" data-test="waiting">{i18n::fill(t.waiting_count, "", waiting)}</small>" " })}
        {move || match place.get() {
            Some(n) => view! {
                <small data-test="waitlist-place">{i18n::fill(t.waitlist_place, "", n)}</small>" "
                <button class="small" data-test="leave-waitlist" on:click=move |_| table.with_value(|id| leave(id))>{t.leave_waitlist}</button>
            }.into_any(),
            None => view! {
                <button class="small" data-test="join-waitlist" on:click=move |_| table.with_value(|id| join(id))>{t.join_waitlist}</button>
            }.into_any(),
        }}
    }
}

/// On every page: each seat held for this player, how long it stays held, take it or pass.
#[component]
pub fn SeatOfferBanner() -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let now = RwSignal::new(js_sys::Date::now());
    if let Ok(handle) = set_interval_with_handle(
        move || now.set(js_sys::Date::now()),
        std::time::Duration::from_millis(500),
    ) {
        on_cleanup(move || handle.clear());
    }
    let offers = Memo::new(move |_| {
        store.waitlist.with(|list| {
            list.iter()
                .filter_map(|w| w.offer.map(|(seat, until)| (w.table.clone(), seat, until)))
                .collect::<Vec<_>>()
        })
    });
    let name = move |id: &str| {
        store.lobby.with(|l| {
            l.iter()
                .find(|t| t.id == id)
                .map_or_else(|| id.to_string(), |t| t.name.clone())
        })
    };
    view! {
        <For each=move || offers.get() key=|(id, seat, _)| (id.clone(), *seat) children=move |(id, seat, until)| {
            let id = StoredValue::new(id);
            // `now` paces the redraws; the time itself is read afresh (the tick may be late).
            let seconds = move || {
                let at = now.get().max(js_sys::Date::now());
                ((until - at) / 1000.0).ceil().max(0.0) as u64
            };
            let text = move || {
                t.seat_offer
                    .replace("{n}", &(u32::from(seat) + 1).to_string())
                    .replace("{t}", &id.with_value(|id| name(id)))
                    .replace("{s}", &seconds().to_string())
            };
            view! {
                <div class="banner offer" role="alert" data-test="seat-offer" data-seat=seat>
                    <span>{text}</span>" "
                    <button class="primary" data-test="take-seat" on:click=move |_| {
                        route::go(&Route::Table { id: id.get_value(), sit: true })
                    }>{t.take_seat}</button>" "
                    <button data-test="pass-seat" on:click=move |_| id.with_value(|id| leave(id))>{t.pass_seat}</button>
                </div>
            }
        } />
    }
}
