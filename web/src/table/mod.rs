//! The table page: the felt, the player's controls, the hand log and chat. Spectators get the
//! same page without hole cards (the server never sends them) and without controls.

pub mod actions;
pub mod felt;
pub mod host;
pub mod state;
pub mod strength;

use leptos::prelude::*;
use shared::protocol::{ClientMessage, MAX_CHAT_CHARS, TableView};
use shared::rules::Chips;

use crate::attention::{self, Chime};
use crate::i18n;
use crate::labels::{self, chips, error_code, log_line, stakes, structure};
use crate::route::Route;
use crate::{prefs, socket, store};
use actions::{ActionBar, PreActions, SeatControls};
use felt::Felt;
use host::{HomeLine, HostPanel};
use strength::HandStrength;

thread_local! {
    /// Table pages created so far; the number identifies the latest.
    static PAGES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[component]
pub fn TablePage(id: String, sit: bool) -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let instance = PAGES.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    store.open_table(&id);
    socket::watch(&id);
    // A re-render (language switch) builds the new page before the old one is cleaned up:
    // only the latest page may stop watching.
    on_cleanup(move || {
        if PAGES.with(|n| n.get()) == instance {
            store.close_table();
        }
    });

    let id = StoredValue::new(id);
    let loaded = Memo::new(move |_| {
        store
            .table
            .with(|s| s.as_ref().is_some_and(|s| s.view.is_some()))
    });
    let view_sig: Memo<Option<TableView>> = Memo::new(move |_| {
        store
            .table
            .with(|s| s.as_ref().and_then(|s| s.view.clone()))
    });
    // An all-in run-out is shown a street at a time: `now` ticks while one is on screen.
    let now = RwSignal::new(js_sys::Date::now());
    if let Ok(handle) = set_interval_with_handle(
        move || {
            if store
                .table
                .with_untracked(|s| s.as_ref().is_some_and(|s| s.run_out.is_some()))
            {
                now.set(js_sys::Date::now());
            }
        },
        std::time::Duration::from_millis(200),
    ) {
        on_cleanup(move || handle.clear());
    }
    let run_out_step = Memo::new(move |_| {
        let at = now.get();
        store.table.with(|s| {
            let run_out = s.as_ref()?.run_out.as_ref()?;
            Some((run_out.clone(), run_out.step(at.max(js_sys::Date::now()))?))
        })
    });
    let view = Signal::derive(move || {
        let view = view_sig.get().unwrap_or_else(placeholder);
        match run_out_step.get() {
            Some((run_out, step)) => run_out.view_at(step, &view),
            None => view,
        }
    });
    let showdown = Memo::new(move |_| match run_out_step.get() {
        Some((run_out, step)) => run_out.showdown_at(step),
        None => store
            .table
            .with(|s| s.as_ref().map(|s| s.showdown.clone()).unwrap_or_default()),
    });
    // A click on the felt skips the rest of a run-out.
    let skip_run_out = move |_| {
        if run_out_step.with_untracked(Option::is_some) {
            store.table.update(|s| {
                if let Some(s) = s {
                    s.run_out = None;
                }
            });
        }
    };
    let clock = Memo::new(move |_| {
        store
            .table
            .with(|s| s.as_ref().and_then(|s| s.clock.map(|c| (c, s.clock_at))))
    });
    let error = Memo::new(move |_| {
        store
            .table
            .with(|s| s.as_ref().and_then(|s| s.error.clone()))
    });
    let seated = Memo::new(move |_| view_sig.with(|v| v.as_ref().and_then(|v| v.you)));
    let logged_in = Memo::new(move |_| store.user.with(Option::is_some));

    // The balance changes when we sit down or leave.
    Effect::new(move |prev: Option<Option<u8>>| {
        let now = seated.get();
        if prev.is_some_and(|p| p != now) {
            store.refresh_user();
        }
        now
    });

    // ...and when chips are added between hands (a top-up or a rebuy). A stack that changes
    // as a hand ends is the table's money, not the balance's.
    let between_hands_stack = Memo::new(move |_| {
        view_sig.with(|v| {
            let v = v.as_ref()?;
            let me = v.seats.get(usize::from(v.you?))?.as_ref()?;
            Some((v.hand, v.hand_running, me.stack))
        })
    });
    Effect::new(move |prev: Option<Option<(u64, bool, Chips)>>| {
        let now = between_hands_stack.get();
        if let (Some(Some((hand, false, before))), Some((now_hand, false, after))) = (prev, now)
            && hand == now_hand
            && after > before
        {
            store.refresh_user();
        }
        now
    });

    let buy_in_seat = RwSignal::new(None::<u8>);
    // Arriving from the lobby's "sit" button: offer the first free seat once the view is in.
    let offered = StoredValue::new(!sit);
    Effect::new(move |_| {
        if offered.get_value() || !logged_in.get() {
            return;
        }
        if let Some(v) = view_sig.get() {
            offered.set_value(true);
            if v.you.is_none() {
                // The seat the waiting list holds for this player, else the first free one.
                let offered = id.with_value(|id| crate::waitlist::offered_seat(id));
                buy_in_seat.set(offered.or_else(|| {
                    v.seats
                        .iter()
                        .position(Option::is_none)
                        .and_then(|i| u8::try_from(i).ok())
                }));
            }
        }
    });
    let on_sit = Callback::new(move |seat: u8| {
        if logged_in.get_untracked() && seated.get_untracked().is_none() {
            buy_in_seat.set(Some(seat));
        } else if !logged_in.get_untracked() {
            // Back here, offered a seat, once logged in or registered.
            id.with_value(|id| {
                crate::prefs::return_after_login(&Route::Table {
                    id: id.clone(),
                    sit: true,
                })
            });
            crate::route::go(&Route::Register);
        }
    });

    let table_name = move || {
        view_sig
            .with(|v| v.as_ref().map(|v| v.name.clone()))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| id.get_value())
    };
    let title = move || {
        view_sig.with(|v| {
            v.as_ref().map(|v| {
                let mut title = format!(
                    "{} · {} {}",
                    table_name(),
                    structure(t, v.stakes.structure),
                    stakes(&v.stakes),
                );
                // A table that has not dealt yet has no hand to number.
                if v.hand > 0 {
                    title.push_str(" · ");
                    title.push_str(&i18n::fill(t.hand_number, "", v.hand));
                }
                title
            })
        })
    };

    // The tone, the tab's title and the notification of a decision are `attention`'s, for
    // every page; the page adds a tone once when the decision's last seconds start.
    let my_turn = Memo::new(move |_| {
        store
            .turn
            .with(|turn| id.with_value(|id| turn.as_ref().is_some_and(|t| t.table == *id)))
    });
    // The deadline of the decision last warned about: a new decision, or the time bank
    // starting, moves the deadline and earns a new warning.
    let warned = StoredValue::new(None::<f64>);
    if let Ok(handle) = set_interval_with_handle(
        move || {
            if !my_turn.get_untracked() {
                return;
            }
            if let Some((c, at)) = clock.get_untracked() {
                let deadline = felt::deadline(&c, at);
                if felt::ms_left(&c, at) < LOW_TIME_MS
                    && warned
                        .get_value()
                        .is_none_or(|d| !felt::same_decision(d, deadline))
                {
                    warned.set_value(Some(deadline));
                    attention::play(Chime::TimeLow);
                }
            }
        },
        std::time::Duration::from_millis(1000),
    ) {
        on_cleanup(move || handle.clear());
    }
    // Said by screen readers as it changes: the last thing that happened, in words, and
    // whether it is the reader's turn.
    let announcement = Memo::new(move |_| {
        let last = store.table.with(|s| {
            s.as_ref()
                .and_then(|s| s.log.iter().rev().find_map(|e| labels::spoken_line(t, e)))
        });
        match (last, my_turn.get()) {
            (Some(line), true) => format!("{line}. {}", t.your_turn),
            (Some(line), false) => line,
            (None, true) => t.your_turn.to_string(),
            (None, false) => String::new(),
        }
    });
    // The hash is the page's route, so the skip link moves the focus itself.
    let skip_to_actions = move |_| {
        use wasm_bindgen::JsCast;
        if let Some(button) = document()
            .query_selector("[data-test=actions] button, .seat-controls button")
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = button.focus();
        }
    };

    view! {
        <section class="table-page">
            <button type="button" class="skip-link" data-test="skip-to-actions" on:click=skip_to_actions>{t.skip_to_actions}</button>
            <div class="sr-only" role="status" aria-live="polite" data-test="announce">{announcement}</div>
            <h1 class="table-title">{title}</h1>
            <HomeLine view />
            <Show when=move || loaded.get() fallback=move || view! { <p>{t.loading}</p> }>
                <div class="felt-click" on:click=skip_run_out>
                    <Felt view showdown=showdown.into() clock=clock.into() on_sit />
                </div>
            </Show>
            <div class="under">
                <div class="controls">
                    {move || error.get().map(|(code, message)| view! {
                        <p class="error" role="alert" data-test="table-error">{t.error(error_code(code), &message)}</p>
                    })}
                    <Show when=move || seated.get().is_some() fallback=move || view! {
                        <p class="spectating" data-test="spectating">{t.spectating}
                            <Show when=move || !logged_in.get()>" · "<a href="#/login" on:click=move |_| id.with_value(|id| crate::prefs::return_after_login(&Route::Table { id: id.clone(), sit: true }))>{t.login_to_play}</a></Show>
                        </p>
                    }>
                        <HandStrength view />
                        <ActionBar table=id.get_value() view />
                        <PreActions table=id.get_value() view />
                        <SeatControls table=id.get_value() view />
                    </Show>
                    <HostPanel table=id.get_value() view />
                    <Show when=move || loaded.get() && view.with(|v| !v.hand_running && v.seats.iter().flatten().count() < 2)>
                        <p class="note">{t.waiting_for_players}</p>
                    </Show>
                </div>
                <HandLog />
                <Chat table=id.get_value() can_chat=Signal::derive(move || seated.get().is_some()) />
            </div>
            {move || buy_in_seat.get().map(|seat| view! { <BuyIn table=id.get_value() seat view close=move || buy_in_seat.set(None) /> })}
        </section>
    }
}

/// Shown for the instant before the first snapshot; never rendered (the felt waits for it).
fn placeholder() -> TableView {
    TableView {
        stakes: shared::rules::Stakes::fixed_limit(2),
        seat_count: 0,
        min_buy_in: 0,
        max_buy_in: 0,
        hand: 0,
        hand_running: false,
        seats: Vec::new(),
        button: None,
        small_blind: None,
        big_blind: None,
        street: None,
        board: Vec::new(),
        pots: Vec::new(),
        to_act: None,
        you: None,
        legal: None,
        name: String::new(),
        home: None,
        second_board: Vec::new(),
        run_twice: false,
        straddle: false,
        straddling: false,
        sit_out_at_big_blind: false,
        show_losing: false,
        auto_top_up: None,
        can_show: false,
        waiting: 0,
    }
}

#[component]
fn HandLog() -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let lines = Memo::new(move |_| {
        store.table.with(|s| {
            s.as_ref()
                .map(|s| {
                    s.log
                        .iter()
                        .rev()
                        .filter_map(|e| log_line(t, e))
                        .take(60)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    view! {
        <div class="side log-box">
            <h2>{t.hand_log}</h2>
            <ol class="log" data-test="log" tabindex="0" aria-label=t.hand_log>
                {move || lines.get().into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
            </ol>
        </div>
    }
}

#[component]
fn Chat(table: String, can_chat: Signal<bool>) -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let table = StoredValue::new(table);
    let text = RwSignal::new(String::new());
    let lines = Memo::new(move |_| {
        store
            .table
            .with(|s| s.as_ref().map(|s| s.chat.clone()).unwrap_or_default())
    });
    let me = Memo::new(move |_| store.user.with(|u| u.as_ref().map(|u| u.username.clone())));
    // Muting is the reader's own: kept in this browser, nobody is told.
    let muted = RwSignal::new(prefs::muted());
    let set_muted = move |names: Vec<String>| {
        prefs::set_muted(&names);
        muted.set(names);
    };
    let mute = move |name: String| {
        let mut names = muted.get_untracked();
        if !names.contains(&name) {
            names.push(name);
            set_muted(names);
        }
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let line = text.get_untracked().trim().to_string();
        let count = line.chars().count();
        if count == 0 || count > MAX_CHAT_CHARS {
            return;
        }
        socket::send(&ClientMessage::Chat {
            table: table.get_value(),
            text: line,
        });
        text.set(String::new());
    };
    view! {
        <div class="side chat-box">
            <h2>{t.chat}</h2>
            <ol class="chat" data-test="chat" tabindex="0" aria-label=t.chat>
                {move || {
                    let hidden = muted.get();
                    lines.get().into_iter().rev().filter(|l| !hidden.contains(&l.from)).map(|l| {
                        let from = l.from.clone();
                        let label = i18n::fill(t.mute_player, &l.from, "");
                        view! {
                            <li>
                                {l.at.map(|at| view! { <time class="at">{labels::clock_time(at)}" "</time> })}
                                <b>{l.from}": "</b>{l.text}
                                {(me.get().as_deref() != Some(from.as_str())).then(|| view! {
                                    <button type="button" class="mute" data-test="mute" title=label.clone() aria-label=label
                                        on:click=move |_| mute(from.clone())>"×"</button>
                                })}
                            </li>
                        }
                    }).collect_view()
                }}
            </ol>
            {move || {
                let names = muted.get();
                (!names.is_empty()).then(|| view! {
                    <p class="muted-note" data-test="muted">
                        {i18n::fill(t.muted_players, "", names.join(", "))}" "
                        <button type="button" class="link" data-test="unmute" on:click=move |_| set_muted(Vec::new())>{t.unmute}</button>
                    </p>
                })
            }}
            <Show when=move || can_chat.get()>
                <form on:submit=submit>
                    <input maxlength=MAX_CHAT_CHARS.to_string() aria-label=t.chat
                        prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev)) />
                    <button type="submit">{t.send}</button>
                </form>
            </Show>
        </div>
    }
}

/// Tab from a modal's last control goes to its first, Shift+Tab from its first to its last:
/// the focus stays in the dialog while it is open.
fn keep_focus_inside(ev: &leptos::ev::KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let Some(dialog) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Ok(found) = dialog.query_selector_all("input, button, select, textarea, a[href]") else {
        return;
    };
    let controls: Vec<web_sys::HtmlElement> = (0..found.length())
        .filter_map(|i| found.item(i)?.dyn_into::<web_sys::HtmlElement>().ok())
        .filter(|e| !e.has_attribute("disabled"))
        .collect();
    let (Some(first), Some(last)) = (controls.first(), controls.last()) else {
        return;
    };
    let active = document().active_element();
    let at =
        |e: &web_sys::HtmlElement| active.as_ref() == Some(e.unchecked_ref::<web_sys::Element>());
    let to = match ev.shift_key() {
        true if at(first) => last,
        false if at(last) => first,
        _ => return,
    };
    ev.prevent_default();
    let _ = to.focus();
}

/// When the clock's last seconds begin, for the time-low tone.
const LOW_TIME_MS: f64 = 5000.0;

#[component]
fn BuyIn(
    table: String,
    seat: u8,
    view: Signal<TableView>,
    close: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let (min, max) = view.with_untracked(|v| (v.min_buy_in, v.max_buy_in));
    let balance = move || {
        store
            .user
            .with(|u| u.as_ref().map_or(0, |u| u.balance.max(0) as Chips))
    };
    let amount = RwSignal::new(max.min(balance()).max(min).to_string());
    let post_now = RwSignal::new(true);
    let error = RwSignal::new(None::<String>);
    let table = StoredValue::new(table);
    let blinds = view.with_untracked(|v| stakes(&v.stakes));
    let input = NodeRef::<leptos::html::Input>::new();
    // The amount takes the focus as the dialog opens, so Enter sits at once.
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let _ = el.focus();
            el.select();
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let top = max.min(balance());
        match amount.get_untracked().trim().parse::<Chips>() {
            Ok(n) if n >= min && n <= top => {
                socket::send(&ClientMessage::Sit {
                    table: table.get_value(),
                    seat,
                    buy_in: n,
                    post_now: post_now.get_untracked(),
                    request_id: socket::request_id(),
                });
                close();
            }
            _ if top < min => error.set(Some(t.err_insufficient_balance.to_string())),
            _ => error.set(Some(
                t.invalid_amount
                    .replace("{a}", &chips(min))
                    .replace("{b}", &chips(top)),
            )),
        }
    };
    view! {
        <div class="modal-back" on:click=move |ev| {
            // A click on the shade outside the dialog closes it, as Escape does.
            if ev.target() == ev.current_target() { close() }
        }>
            <form class="modal panel" on:submit=submit data-test="buy-in" role="dialog" aria-modal="true"
                aria-labelledby="buy-in-title"
                on:keydown=move |ev| match ev.key().as_str() {
                    "Escape" => { ev.prevent_default(); close() }
                    "Tab" => keep_focus_inside(&ev),
                    _ => {}
                }>
                <h2 id="buy-in-title">{t.buy_in}" · "{t.seat_number.replace("{a}", &(u16::from(seat) + 1).to_string())}" · "{blinds}</h2>
                <label>
                    <span>{t.amount}</span>
                    <input type="number" name="buy-in" min=min max=max step="1" prop:value=move || amount.get()
                        node_ref=input data-test="buy-in-amount"
                        on:input=move |ev| amount.set(event_target_value(&ev)) />
                    <input type="range" min=min max=move || max.min(balance()).max(min) step="1" aria-label=t.amount
                        prop:value=move || amount.get() on:input=move |ev| amount.set(event_target_value(&ev)) />
                    <span class="presets">
                        <button type="button" class="small" on:click=move |_| amount.set(min.to_string())>{t.min}</button>
                        <button type="button" class="small" data-test="buy-in-max" on:click=move |_| amount.set(max.min(balance()).max(min).to_string())>{t.max}</button>
                    </span>
                    <small>{t.buy_in_range.replace("{a}", &chips(min)).replace("{b}", &chips(max))}" · "{t.balance}" "{move || chips(balance())}</small>
                </label>
                <label class="check">
                    <input type="checkbox" prop:checked=move || post_now.get() on:change=move |ev| post_now.set(event_target_checked(&ev)) />
                    <span>{t.post_now}</span>
                </label>
                <p class="error" role="alert">{move || error.get()}</p>
                <div class="row">
                    <button type="button" on:click=move |_| close()>{t.cancel}</button>
                    <button type="submit" class="primary" data-test="buy-in-ok">{t.sit}</button>
                </div>
            </form>
        </div>
    }
}
