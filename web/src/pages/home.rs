//! Home games: the "New table" form, and the page an invite link opens.

use leptos::prelude::*;
use shared::api::{CreatedTable, Invite, NewTable, STAKES_PRESETS};
use shared::rules::{Chips, Structure};

use crate::api;
use crate::i18n::{self, Text};
use crate::prefs;
use crate::route::{self, Route};

/// What the server would refuse, checked before sending (the operator's ceiling on the big
/// blind is the server's to tell).
fn check(t: &Text, new: &NewTable) -> Option<&'static str> {
    let name = new.name.trim().chars().count();
    if name == 0 || name > 40 {
        return Some(t.err_table_name);
    }
    if new.small_blind == 0 || new.small_blind > new.big_blind {
        return Some(t.err_blinds);
    }
    if !(5..=120).contains(&new.clock_secs) {
        return Some(t.err_clock);
    }
    if let (Some(min), Some(max)) = (new.min_buy_in, new.max_buy_in)
        && min > max
    {
        return Some(t.err_buy_ins);
    }
    None
}

fn number(text: &str) -> Option<Chips> {
    text.trim().parse().ok()
}

#[component]
pub fn NewTablePage() -> impl IntoView {
    let t = i18n::current();
    let name = RwSignal::new(String::new());
    let structure = RwSignal::new(Structure::PotLimit);
    // An index into STAKES_PRESETS, or None for custom blinds.
    let preset = RwSignal::new(Some(2usize));
    let small = RwSignal::new(String::from("5"));
    let big = RwSignal::new(String::from("10"));
    let seats = RwSignal::new(6u8);
    let clock = RwSignal::new(String::from("30"));
    let min_buy_in = RwSignal::new(String::new());
    let max_buy_in = RwSignal::new(String::new());
    let private = RwSignal::new(true);
    let spectators = RwSignal::new(true);
    let approval = RwSignal::new(false);
    let run_twice = RwSignal::new(false);
    let straddle = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);

    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (small_blind, big_blind) = match preset.get_untracked() {
            Some(i) => STAKES_PRESETS.get(i).copied().unwrap_or((5, 10)),
            None => (
                number(&small.get_untracked()).unwrap_or(0),
                number(&big.get_untracked()).unwrap_or(0),
            ),
        };
        let new = NewTable {
            name: name.get_untracked(),
            structure: structure.get_untracked(),
            small_blind,
            big_blind,
            seats: seats.get_untracked(),
            clock_secs: clock.get_untracked().trim().parse().unwrap_or(0),
            min_buy_in: number(&min_buy_in.get_untracked()),
            max_buy_in: number(&max_buy_in.get_untracked()),
            private: private.get_untracked(),
            spectators: spectators.get_untracked(),
            seat_approval: approval.get_untracked(),
            run_twice: run_twice.get_untracked(),
            straddle: straddle.get_untracked(),
        };
        if let Some(problem) = check(t, &new) {
            error.set(Some(problem.to_string()));
            return;
        }
        error.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let created = api::post::<CreatedTable>("/api/tables", &new).await;
            busy.set(false);
            match created {
                Ok(c) => {
                    if let Some(invite) = &c.invite {
                        prefs::remember_invite(&c.table, invite);
                    }
                    route::go(&Route::Table {
                        id: c.table,
                        sit: true,
                    });
                }
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        });
    };

    let number_field = move |label: &'static str, value: RwSignal<String>, test: &'static str| {
        view! {
            <label>
                <span>{label}</span>
                <input inputmode="numeric" data-test=test prop:value=value
                    on:input=move |ev| value.set(event_target_value(&ev)) />
            </label>
        }
    };
    let check_box = move |label: &'static str, on: RwSignal<bool>, test: &'static str| {
        view! {
            <label class="check">
                <input type="checkbox" data-test=test prop:checked=move || on.get()
                    on:change=move |ev| on.set(event_target_checked(&ev)) />
                <span>{label}</span>
            </label>
        }
    };

    view! {
        <section class="auth panel new-table">
            <h1>{t.new_table_title}</h1>
            <p class="note">{t.new_table_intro}</p>
            <form on:submit=submit novalidate data-test="new-table">
                <label>
                    <span>{t.table_name}</span>
                    <input name="name" required maxlength="40" data-test="table-name"
                        prop:value=name on:input=move |ev| name.set(event_target_value(&ev)) />
                </label>
                <label>
                    <span>{t.structure}</span>
                    <select data-test="structure" on:change=move |ev| structure.set(match event_target_value(&ev).as_str() {
                        "fl" => Structure::FixedLimit,
                        "nl" => Structure::NoLimit,
                        _ => Structure::PotLimit,
                    })>
                        <option value="pl" selected>{t.pot_limit}</option>
                        <option value="nl">{t.no_limit}</option>
                        <option value="fl">{t.fixed_limit}</option>
                    </select>
                </label>
                <label>
                    <span>{t.blinds}</span>
                    <select data-test="blinds" on:change=move |ev| preset.set(event_target_value(&ev).parse().ok())>
                        {STAKES_PRESETS.iter().enumerate().map(|(i, (sb, bb))| view! {
                            <option value=i.to_string() selected=i == 2>{format!("{sb}/{bb}")}</option>
                        }).collect_view()}
                        <option value="custom">{t.custom}</option>
                    </select>
                </label>
                {move || preset.get().is_none().then(|| view! {
                    <div class="pair">
                        {number_field(t.small_blind_label, small, "small-blind")}
                        {number_field(t.big_blind_label, big, "big-blind")}
                    </div>
                })}
                <div class="pair">
                    <label>
                        <span>{t.seats_label}</span>
                        <select data-test="seats" on:change=move |ev| seats.set(event_target_value(&ev).parse().unwrap_or(6))>
                            {(2u8..=10).map(|n| view! { <option value=n.to_string() selected=n == 6>{n}</option> }).collect_view()}
                        </select>
                    </label>
                    {number_field(t.clock_label, clock, "clock")}
                </div>
                <div class="pair">
                    {number_field(t.min_buy_in_label, min_buy_in, "min-buy-in")}
                    {number_field(t.max_buy_in_label, max_buy_in, "max-buy-in")}
                </div>
                {check_box(t.private_label, private, "private")}
                {check_box(t.spectators_label, spectators, "spectators")}
                {check_box(t.approval_label, approval, "approval")}
                {check_box(t.run_twice_label, run_twice, "run-twice")}
                {check_box(t.straddle_label, straddle, "straddle")}
                <p class="error" role="alert" data-test="form-error">{move || error.get()}</p>
                <button type="submit" class="primary" disabled=busy data-test="open-table">{t.open_table}</button>
            </form>
        </section>
    }
}

/// `#/join/TOKEN`: finds the table the invite opens, remembers the invite for it (a reload, or
/// registering on the way to a seat, keeps the table) and goes there.
#[component]
pub fn JoinPage(token: String) -> impl IntoView {
    let t = i18n::current();
    let dead = RwSignal::new(false);
    leptos::task::spawn_local(async move {
        match api::get::<Invite>(&format!("/api/invites/{token}")).await {
            Ok(invite) => {
                prefs::remember_invite(&invite.table.id, &token);
                // Replaces the invite's address in the history: Back leaves the table.
                let table = Route::Table {
                    id: invite.table.id,
                    sit: false,
                };
                if let Some(location) = web_sys::window().map(|w| w.location()) {
                    let _ = location.replace(&table.href());
                }
            }
            Err(_) => dead.set(true),
        }
    });
    view! {
        <section class="panel">
            {move || if dead.get() {
                view! {
                    <p class="error" data-test="invite-dead">{t.invite_dead}</p>
                    <p><a href="#/lobby">{t.lobby}</a></p>
                }.into_any()
            } else {
                view! { <p>{t.opening_invite}</p> }.into_any()
            }}
        </section>
    }
}
