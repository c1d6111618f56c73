//! A player's table: the host's panel (the invite link, pause, settings, seats asked for, the
//! players) and what everyone sees of the home game (who hosts, paused). The server checks
//! every control; this only offers them to the host.

use leptos::prelude::*;
use shared::protocol::{ClientMessage, HostAction, TableView};

use crate::i18n;
use crate::labels::{chips, table_terms};
use crate::route::Route;
use crate::{socket, store};

fn send(table: &str, action: HostAction) {
    socket::send(&ClientMessage::Host {
        table: table.to_string(),
        action,
    });
}

/// The page's address for an invite.
fn invite_link(token: &str) -> String {
    Route::Join(token.to_string()).absolute()
}

/// Under the table's title: the buy-in range and rake, and at a player's table "hosted by
/// ann · private" (and a note while it is paused).
#[component]
pub fn HomeLine(view: Signal<TableView>) -> impl IntoView {
    let t = i18n::current();
    let terms = move || view.with(|v| (v.seat_count > 0).then(|| table_terms(t, v)));
    let home = move || {
        view.with(|v| {
            v.home.as_ref().map(|h| {
                let mut line = i18n::fill(t.hosted_by, &h.host, "");
                if h.private {
                    line.push_str(" · ");
                    line.push_str(t.private_badge);
                }
                view! {
                    <p class="home-line" data-test="home-line">{line}</p>
                    {h.paused.then(|| view! { <p class="note" data-test="paused">{t.paused_note}</p> })}
                }
            })
        })
    };
    view! {
        <p class="home-line" data-test="table-terms">{terms}</p>
        {home}
    }
}

#[component]
pub fn HostPanel(table: String, view: Signal<TableView>) -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let table = StoredValue::new(table);
    let me = Memo::new(move |_| store.user.with(|u| u.as_ref().map(|u| u.username.clone())));
    let hosting = Memo::new(move |_| {
        let me = me.get();
        view.with(|v| {
            v.home
                .as_ref()
                .is_some_and(|h| Some(&h.host) == me.as_ref())
        })
    });
    let panel = Memo::new(move |_| {
        store
            .table
            .with(|s| s.as_ref().and_then(|s| s.host_panel.clone()))
            .unwrap_or_default()
    });
    let copied = RwSignal::new(false);
    let share = move |_| {
        let Some(token) = panel.with_untracked(|p| p.invite.clone()) else {
            return;
        };
        if let Some(w) = web_sys::window() {
            let _ = w.navigator().clipboard().write_text(&invite_link(&token));
        }
        copied.set(true);
    };
    let close = move |_| {
        let sure = web_sys::window()
            .and_then(|w| w.confirm_with_message(t.confirm_close).ok())
            .unwrap_or(false);
        if sure {
            send(&table.get_value(), HostAction::Close);
        }
    };
    let setting = move |label: &'static str,
                        on: fn(&TableView) -> bool,
                        action: fn(bool) -> HostAction,
                        test: &'static str| {
        view! {
            <label class="check">
                <input type="checkbox" data-test=test
                    prop:checked=move || view.with(on)
                    on:change=move |ev| send(&table.get_value(), action(event_target_checked(&ev))) />
                <span>{label}</span>
            </label>
        }
    };
    let players = Memo::new(move |_| {
        let me = me.get();
        view.with(|v| {
            v.seats
                .iter()
                .flatten()
                .filter(|s| Some(&s.name) != me.as_ref())
                .map(|s| (s.seat, s.name.clone()))
                .collect::<Vec<_>>()
        })
    });

    move || {
        hosting.get().then(|| view! {
            <div class="host-panel" data-test="host-panel">
                <h2>{t.host_panel}</h2>
                {move || panel.with(|p| p.invite.clone()).map(|invite| view! {
                    <div class="row">
                        <button on:click=share data-test="share-link">{move || if copied.get() { t.link_copied } else { t.share_link }}</button>
                        <input readonly class="invite" data-test="invite-link" value=invite_link(&invite) />
                        <button class="small" data-test="rotate-link" on:click=move |_| {
                            copied.set(false);
                            send(&table.get_value(), HostAction::RotateInvite);
                        }>{t.new_link}</button>
                    </div>
                })}
                <div class="row">
                    {move || if view.with(|v| v.home.as_ref().is_some_and(|h| h.paused)) {
                        view! { <button data-test="resume" on:click=move |_| send(&table.get_value(), HostAction::Resume)>{t.resume}</button> }.into_any()
                    } else {
                        view! { <button data-test="pause" on:click=move |_| send(&table.get_value(), HostAction::Pause)>{t.pause}</button> }.into_any()
                    }}
                    <button class="danger" data-test="close-table" on:click=close>{t.close_table}</button>
                </div>
                {setting(t.spectators_label, |v| v.home.as_ref().is_some_and(|h| h.spectators), |allowed| HostAction::SetSpectators { allowed }, "spectators-setting")}
                {setting(t.approval_label, |v| v.home.as_ref().is_some_and(|h| h.seat_approval), |on| HostAction::SetSeatApproval { on }, "approval-setting")}
                <ul class="pending" data-test="pending">
                    {move || panel.get().pending.into_iter().map(|p| {
                        let seat = p.seat;
                        view! {
                            <li>
                                {i18n::fill(t.asks_for_seat, &p.name, chips(p.buy_in))}" "
                                <button class="small primary" data-test="approve" on:click=move |_| send(&table.get_value(), HostAction::Approve { seat })>{t.approve}</button>
                                <button class="small" data-test="refuse" on:click=move |_| send(&table.get_value(), HostAction::Refuse { seat })>{t.refuse}</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <ul class="players">
                    {move || players.get().into_iter().map(|(seat, name)| view! {
                        <li>
                            {name}" "
                            <button class="small" data-test="remove" on:click=move |_| send(&table.get_value(), HostAction::Remove { seat })>{t.remove}</button>
                            <button class="small" data-test="make-host" on:click=move |_| send(&table.get_value(), HostAction::HandOver { seat })>{t.make_host}</button>
                        </li>
                    }).collect_view()}
                </ul>
            </div>
        })
    }
}
