//! What the seated player can do: the action buttons fitted to the betting structure, the
//! bet slider (clamped to the server's legal range), pre-actions, and seat controls.

use leptos::prelude::*;
use shared::hand::{Action, Legal, RaiseBounds};
use shared::protocol::{ClientMessage, PreAction, TableView};
use shared::rules::{Chips, Structure};
use shared::table::SeatStatus;
use wasm_bindgen::JsCast;

use crate::i18n;
use crate::labels::chips;
use crate::{socket, store};

/// The raise-to for half the pot: the call, then half of what the pot would be after it.
fn half_pot_to(bounds: &RaiseBounds, call_level: Chips) -> Chips {
    let to = match bounds.pot_to {
        Some(pot_to) => call_level + pot_to.saturating_sub(call_level) / 2,
        None => bounds.min_to,
    };
    to.clamp(bounds.min_to, bounds.max_to)
}

/// A typed amount is sent only when it is a whole number inside the legal range.
fn parse_amount(text: &str, bounds: &RaiseBounds) -> Option<Chips> {
    let n: Chips = text.trim().parse().ok()?;
    (bounds.min_to..=bounds.max_to).contains(&n).then_some(n)
}

fn act(view: &TableView, action: Action, table: &str) {
    socket::send(&ClientMessage::Act {
        table: table.to_string(),
        hand: view.hand,
        action,
    });
}

#[component]
pub fn ActionBar(table: String, view: Signal<TableView>) -> impl IntoView {
    let t = i18n::current();
    let table = StoredValue::new(table);
    let legal: Memo<Option<Legal>> =
        Memo::new(move |_| view.with(|v| v.legal.filter(|l| v.you == Some(l.seat))));
    let amount = RwSignal::new(String::new());
    // A new decision starts at the minimum raise.
    Effect::new(move |_| {
        if let Some(Ok(b)) = legal.get().map(|l| l.raise) {
            amount.set(b.min_to.to_string());
        }
    });
    let structure = Memo::new(move |_| view.with(|v| v.stakes.structure));
    let call_level = Memo::new(move |_| {
        view.with(|v| v.seats.iter().flatten().map(|s| s.bet).max().unwrap_or(0))
    });
    let bounds = Memo::new(move |_| legal.get().and_then(|l| l.raise.ok()));
    let valid_amount =
        Memo::new(move |_| bounds.get().and_then(|b| parse_amount(&amount.get(), &b)));

    // Folding when checking is free is legal but almost always a misclick: the first press
    // (button or F) asks, the second folds. Each new decision asks again: any action sent
    // ends the question (the next decision's `legal` may be equal to this one's).
    let confirming_fold = RwSignal::new(false);
    Effect::new(move |_| {
        legal.track();
        confirming_fold.set(false);
    });
    let send = move |action: Action| {
        confirming_fold.set(false);
        view.with_untracked(|v| table.with_value(|id| act(v, action, id)));
    };
    let fold = move || {
        let free = legal.get_untracked().is_some_and(|l| l.can_check);
        if free && !confirming_fold.get_untracked() {
            confirming_fold.set(true);
        } else {
            send(Action::Fold);
        }
    };
    let check_call = move || {
        if let Some(l) = legal.get_untracked() {
            send(if l.can_check {
                Action::Check
            } else {
                Action::Call
            });
        }
    };
    let raise = move || {
        if let Some(to) = valid_amount.get_untracked() {
            send(Action::RaiseTo { to });
        }
    };

    // Keyboard: F fold, C check/call, R (or B) bet/raise — not while typing in a field.
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let typing = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if typing
            || ev.ctrl_key()
            || ev.meta_key()
            || ev.alt_key()
            || legal.get_untracked().is_none()
        {
            return;
        }
        match ev.key().to_ascii_lowercase().as_str() {
            "f" => fold(),
            "c" => check_call(),
            "r" | "b" => raise(),
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());

    let bet_word = move || {
        if call_level.get() == 0 {
            t.bet
        } else {
            t.raise_to
        }
    };

    view! {
        <Show when=move || legal.with(Option::is_some) fallback=|| ()>
            <div class="actions" data-test="actions"
                data-can-check=move || legal.get().is_some_and(|l| l.can_check).to_string()>
                <strong class="your-turn">{t.your_turn}</strong>
                <div class="buttons">
                    <button class="fold" data-test="fold" on:click=move |_| fold()
                        class:confirm=move || confirming_fold.get()>
                        {move || if confirming_fold.get() { t.fold_free_confirm } else { t.fold }}" "<kbd>"F"</kbd>
                    </button>
                    <button class="call" data-test="check-call" on:click=move |_| check_call()>
                        {move || match legal.get() {
                            Some(l) if l.can_check => t.check.to_string(),
                            Some(l) => format!("{} {}", t.call, chips(l.to_call)),
                            None => String::new(),
                        }}" "<kbd>"C"</kbd>
                    </button>
                    <Show when=move || bounds.get().is_some()>
                        <button class="raise" data-test="raise" on:click=move |_| raise() disabled=move || valid_amount.get().is_none()>
                            {move || format!("{} {}", bet_word(), valid_amount.get().map(chips).unwrap_or_default())}" "<kbd>"R"</kbd>
                        </button>
                    </Show>
                </div>
                <Show when=move || bounds.get().is_some_and(|b| b.min_to < b.max_to) && structure.get() != Structure::FixedLimit>
                    {move || bounds.get().map(|b| {
                        let presets = [
                            (t.min, b.min_to),
                            (t.half_pot, half_pot_to(&b, call_level.get())),
                            (t.pot, b.pot_to.unwrap_or(b.max_to).clamp(b.min_to, b.max_to)),
                            (t.all_in, b.max_to),
                        ];
                        view! {
                            <div class="sizing">
                                <input type="range" min=b.min_to max=b.max_to step="1" aria-label=t.amount
                                    prop:value=move || amount.get() on:input=move |ev| amount.set(event_target_value(&ev)) />
                                <input type="number" class="amount" data-test="amount" min=b.min_to max=b.max_to step="1"
                                    aria-label=t.amount class:invalid=move || valid_amount.get().is_none()
                                    prop:value=move || amount.get() on:input=move |ev| amount.set(event_target_value(&ev)) />
                                <div class="presets">
                                    {presets.into_iter().map(|(label, to)| view! {
                                        <button class="small" on:click=move |_| amount.set(to.to_string())>{label}</button>
                                    }).collect_view()}
                                </div>
                                <Show when=move || valid_amount.get().is_none()>
                                    <small class="error">{t.invalid_amount.replace("{a}", &chips(b.min_to)).replace("{b}", &chips(b.max_to))}</small>
                                </Show>
                            </div>
                        }
                    })}
                </Show>
                <small class="keys">{t.keys_hint}</small>
            </div>
        </Show>
    }
}

/// Decide ahead (check/fold, call any, fold to any bet); one choice covers one decision.
#[component]
pub fn PreActions(table: String, view: Signal<TableView>) -> impl IntoView {
    let t = i18n::current();
    let table = StoredValue::new(table);
    let chosen = RwSignal::new(None::<PreAction>);
    let waiting = Memo::new(move |_| {
        view.with(|v| {
            let me = v.you.and_then(|s| v.seats.get(usize::from(s))?.as_ref());
            v.hand_running && v.to_act != v.you && me.is_some_and(|s| s.live && !s.all_in)
        })
    });
    // The server drops a pre-action once used; forget ours when our turn comes or a hand starts.
    let turn = Memo::new(move |_| view.with(|v| (v.hand, v.to_act == v.you)));
    Effect::new(move |_| {
        turn.track();
        chosen.set(None);
    });
    let pick = move |pre: PreAction, on: bool| {
        let pre = on.then_some(pre);
        chosen.set(pre);
        socket::send(&ClientMessage::PreSelect {
            table: table.get_value(),
            pre,
        });
    };
    let choice = move |pre: PreAction, label: fn(&i18n::Text) -> &'static str| {
        view! {
            <label class="check">
                <input type="checkbox" prop:checked=move || chosen.get() == Some(pre)
                    on:change=move |ev| pick(pre, event_target_checked(&ev)) />
                <span>{move || label(t)}</span>
            </label>
        }
    };
    view! {
        <Show when=move || waiting.get()>
            <div class="pre-actions" data-test="pre-actions">
                {choice(PreAction::CheckFold, |t| t.check_fold)}
                {choice(PreAction::CallAny, |t| t.call_any)}
                {choice(PreAction::FoldToAnyBet, |t| t.fold_any)}
            </div>
        </Show>
    }
}

/// Sit out or in (now, or when the big blind comes), straddle (at a table that allows it),
/// auto-muck, top up between hands (once, or automatically), show an uncalled winner's cards,
/// leave.
#[component]
pub fn SeatControls(table: String, view: Signal<TableView>) -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let table = StoredValue::new(table);
    let me = Memo::new(move |_| {
        view.with(|v| {
            v.you
                .and_then(|s| v.seats.get(usize::from(s)).cloned().flatten())
        })
    });
    let limits = Memo::new(move |_| view.with(|v| (v.max_buy_in, v.hand_running)));
    let straddle_allowed = Memo::new(move |_| view.with(|v| v.straddle));
    let straddle = move |on: bool| {
        socket::send(&ClientMessage::Straddle {
            table: table.get_value(),
            on,
        })
    };
    let flag = move |msg: fn(String, bool) -> ClientMessage, on: bool| {
        socket::send(&msg(table.get_value(), on))
    };
    // The automatic top-up brings the stack back to what it is set to, or, when turned on,
    // to the stack now: right after sitting down, the buy-in the player chose.
    let auto_top_up = Memo::new(move |_| {
        view.with(|v| {
            let stack = v
                .you
                .and_then(|s| v.seats.get(usize::from(s)).cloned().flatten())
                .map_or(0, |s| s.stack);
            (
                v.auto_top_up.is_some(),
                v.auto_top_up
                    .unwrap_or(stack.clamp(v.min_buy_in, v.max_buy_in)),
            )
        })
    });
    let set_auto_top_up = move |on: bool| {
        socket::send(&ClientMessage::AutoTopUp {
            table: table.get_value(),
            to: on.then(|| auto_top_up.get_untracked().1),
        })
    };
    let top_up = RwSignal::new(String::new());
    let top_up_error = RwSignal::new(None::<String>);
    let send = move |msg: fn(String) -> ClientMessage| socket::send(&msg(table.get_value()));
    let balance = move || {
        store
            .user
            .with_untracked(|u| u.as_ref().map_or(0, |u| u.balance.max(0) as Chips))
    };

    // Broke: a rebuy is a buy-in (docs/rules.md §7.9), and the player is dealt in again
    // after it. The server takes the two requests in order.
    let rebuy = RwSignal::new(String::new());
    let buy_in_range = Memo::new(move |_| view.with(|v| (v.min_buy_in, v.max_buy_in)));
    let do_rebuy = move |_| {
        let (min, max) = buy_in_range.get_untracked();
        let allowed = max.min(balance());
        if allowed < min {
            top_up_error.set(Some(t.rebuy_balance_short.replace("{a}", &chips(min))));
            return;
        }
        let text = rebuy.get_untracked();
        let amount = if text.trim().is_empty() {
            Ok(min)
        } else {
            text.trim().parse::<Chips>()
        };
        match amount {
            Ok(n) if (min..=allowed).contains(&n) => {
                top_up_error.set(None);
                socket::send(&ClientMessage::TopUp {
                    table: table.get_value(),
                    amount: n,
                    request_id: socket::request_id(),
                });
                send(|table| ClientMessage::SitIn {
                    table,
                    post_now: true,
                });
                rebuy.set(String::new());
            }
            _ => top_up_error.set(Some(
                t.invalid_amount
                    .replace("{a}", &chips(min))
                    .replace("{b}", &chips(allowed)),
            )),
        }
    };

    let do_top_up = move |_| {
        let Some(seat) = me.get_untracked() else {
            return;
        };
        let (max, _) = limits.get_untracked();
        let room = max.saturating_sub(seat.stack);
        let allowed = room.min(balance());
        match top_up.get_untracked().trim().parse::<Chips>() {
            Ok(n) if n >= 1 && n <= allowed => {
                top_up_error.set(None);
                socket::send(&ClientMessage::TopUp {
                    table: table.get_value(),
                    amount: n,
                    request_id: socket::request_id(),
                });
                top_up.set(String::new());
            }
            _ => top_up_error.set(Some(
                t.invalid_amount
                    .replace("{a}", "1")
                    .replace("{b}", &chips(allowed)),
            )),
        }
    };

    view! {
        {move || me.get().map(|seat| {
            let sitting_out = seat.status == SeatStatus::SittingOut;
            let in_hand = limits.get().1 && seat.live;
            let broke = seat.stack == 0 && !in_hand;
            view! {
                <Show when=move || broke>
                    <div class="rebuy" data-test="rebuy" role="group" aria-label=t.rebuy>
                        <strong>{t.out_of_chips}</strong>
                        <input type="number" class="amount" data-test="rebuy-amount" aria-label=t.amount
                            min=move || buy_in_range.get().0 max=move || buy_in_range.get().1 step="1"
                            prop:value=move || { let r = rebuy.get(); if r.is_empty() { buy_in_range.get().0.to_string() } else { r } }
                            on:input=move |ev| rebuy.set(event_target_value(&ev)) />
                        <button class="primary" data-test="rebuy-ok" on:click=do_rebuy>{t.rebuy}</button>
                        <small class="muted">{move || { let (a, b) = buy_in_range.get(); t.rebuy_range.replace("{a}", &chips(a)).replace("{b}", &chips(b)) }}</small>
                    </div>
                </Show>
                <div class="seat-controls">
                    {if broke {
                        ().into_any()
                    } else if sitting_out {
                        view! { <button data-test="sit-in" on:click=move |_| send(|table| ClientMessage::SitIn { table, post_now: true })>{t.sit_in}</button> }.into_any()
                    } else {
                        view! { <button data-test="sit-out" on:click=move |_| send(|table| ClientMessage::SitOut { table })>{t.sit_out}</button> }.into_any()
                    }}
                    <Show when=move || straddle_allowed.get()>
                        <label class="check">
                            <input type="checkbox" data-test="straddle-toggle"
                                data-asked=move || view.with(|v| v.straddling.to_string())
                                prop:checked=move || view.with(|v| v.straddling)
                                on:change=move |ev| straddle(event_target_checked(&ev)) />
                            <span>{t.straddle_toggle}</span>
                        </label>
                    </Show>
                    <Show when=move || !sitting_out>
                        <label class="check">
                            <input type="checkbox" data-test="sit-out-bb"
                                prop:checked=move || view.with(|v| v.sit_out_at_big_blind)
                                on:change=move |ev| flag(|table, on| ClientMessage::SitOutAtBigBlind { table, on }, event_target_checked(&ev)) />
                            <span>{t.sit_out_next_bb}</span>
                        </label>
                    </Show>
                    <label class="check">
                        <input type="checkbox" data-test="auto-muck"
                            prop:checked=move || view.with(|v| !v.show_losing)
                            on:change=move |ev| flag(|table, on| ClientMessage::ShowLosing { table, on }, !event_target_checked(&ev)) />
                        <span>{t.auto_muck}</span>
                    </label>
                    <label class="check">
                        <input type="checkbox" data-test="auto-top-up"
                            prop:checked=move || auto_top_up.get().0
                            on:change=move |ev| set_auto_top_up(event_target_checked(&ev)) />
                        <span>{move || t.auto_top_up.replace("{a}", &chips(auto_top_up.get().1))}</span>
                    </label>
                    <Show when=move || view.with(|v| v.can_show)>
                        <button data-test="show-cards" on:click=move |_| send(|table| ClientMessage::ShowCards { table })>{t.show_cards}</button>
                    </Show>
                    <Show when=move || !in_hand && !broke && seat.stack < limits.get().0>
                        <span class="top-up">
                            <input type="number" min="1" class="amount" aria-label=t.top_up
                                prop:value=move || top_up.get() on:input=move |ev| top_up.set(event_target_value(&ev)) />
                            <button on:click=do_top_up>{t.top_up}</button>
                        </span>
                    </Show>
                    <button data-test="leave" on:click=move |_| send(|table| ClientMessage::Leave { table, request_id: socket::request_id() })>{t.leave}</button>
                    <small class="error">{move || top_up_error.get()}</small>
                </div>
            }
        })}
    }
}
