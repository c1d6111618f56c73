//! The equity calculator (`#/equity`, no account needed): hands, board and dead cards typed
//! (`AhKd2c3s`) or picked, computed by `shared::equity` in a Web Worker (its own wasm module,
//! `web/equity-worker`, fetched when this page opens) so the page never freezes, shown as a
//! table with bars.

use std::cell::RefCell;

use leptos::prelude::*;
use shared::card::{Card, CardError, Rank, Suit};
use shared::equity::calculator::{Reply, Request, Summary};
use shared::equity::{Computed, EquityError, Spot, validate};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::i18n::{self, Text, fill};
use crate::labels::{cards_text, chips, percent};

const MAX_HANDS: usize = 10;

struct Running {
    page: u64,
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

thread_local! {
    static WORKER: RefCell<Option<Running>> = const { RefCell::new(None) };
    /// Calculator pages created so far; the number identifies the latest.
    static PAGES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// boot.js names the worker script (its file name carries a content hash).
fn worker_url() -> String {
    js_sys::Reflect::get(&js_sys::global(), &"scoopEquityWorker".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| "/equity-worker.js".into())
}

fn start_worker(page: u64, on_reply: impl Fn(u64, Reply) + 'static) {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let Ok(worker) = Worker::new_with_options(&worker_url(), &options) else {
        return;
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        // "<microseconds>\n<reply>", as equity-worker.js sends it.
        let Some(text) = e.data().as_string() else {
            return;
        };
        let Some((ms, json)) = text.split_once('\n') else {
            return;
        };
        if let Some(reply) = Reply::parse(json) {
            on_reply(ms.parse().unwrap_or(0), reply);
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    WORKER.with(|w| {
        if let Some(old) = w.borrow_mut().replace(Running {
            page,
            worker,
            _on_message: on_message,
        }) {
            old.worker.terminate();
        }
    });
}

fn stop_worker(page: u64) {
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        if w.as_ref().is_some_and(|r| r.page == page)
            && let Some(r) = w.take()
        {
            r.worker.terminate();
        }
    });
}

fn post(request: &Request) -> bool {
    let text = request.to_string();
    WORKER.with(|w| {
        w.borrow()
            .as_ref()
            .is_some_and(|r| r.worker.post_message(&text.into()).is_ok())
    })
}

/// Which input the card picker writes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Hand(usize),
    Board,
    Dead,
}

fn parse(t: &Text, text: &str) -> Result<Vec<Card>, String> {
    Card::parse_many(text).map_err(|e| match e {
        CardError::Malformed(s) => fill(t.err_card, "", s),
        CardError::Duplicate(c) => fill(t.err_card_twice, "", cards_text(&[c])),
        CardError::WrongCount { .. } => t.err_other.to_string(),
    })
}

/// The page's fields as a spot, or what is wrong with them, in the viewer's language.
fn spot(t: &Text, hands: &[String], board: &str, dead: &str) -> Result<Spot, String> {
    if !(2..=MAX_HANDS).contains(&hands.len()) {
        return Err(t.err_hand_count.to_string());
    }
    let mut spot = Spot::default();
    for (i, text) in hands.iter().enumerate() {
        let cards = parse(t, text)?;
        spot.hands.push(match cards.len() {
            0 => None,
            4 => Some([cards[0], cards[1], cards[2], cards[3]]),
            _ => return Err(fill(t.err_hand_size, &fill(t.hand_n, "", i + 1), "")),
        });
    }
    spot.board = parse(t, board)?;
    spot.dead = parse(t, dead)?;
    // The engine's own check, its errors in this language.
    match validate(&spot) {
        Ok(()) => Ok(spot),
        Err(EquityError::HandCount(_)) => Err(t.err_hand_count.to_string()),
        Err(EquityError::BoardSize(_)) => Err(t.err_board_size.to_string()),
        Err(EquityError::Duplicate(c)) => Err(fill(t.err_card_twice, "", cards_text(&[c]))),
        Err(EquityError::DeckExhausted) => Err(t.err_deck_exhausted.to_string()),
        Err(EquityError::NoTrials) => Err(t.err_other.to_string()),
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Shown {
    names: Vec<String>,
    equity: Summary,
    /// Time the worker spent computing, in microseconds.
    micros: u64,
}

#[component]
pub fn EquityPage() -> impl IntoView {
    let t = i18n::current();
    let page = PAGES.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let hands = RwSignal::new(vec![String::new(), String::new()]);
    let board = RwSignal::new(String::new());
    let dead = RwSignal::new(String::new());
    let focus = RwSignal::new(Field::Hand(0));
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let result = RwSignal::new(None::<Shown>);
    // Replies so far, so that a reader (or a test) can tell a new result from the last.
    let replies = RwSignal::new(0u32);
    let asked = StoredValue::new(Vec::<String>::new());

    start_worker(page, move |micros, reply| {
        let _ = busy.try_set(false);
        let _ = replies.try_update(|n| *n += 1);
        match reply {
            Reply::Done(equity) => {
                let names = asked.try_get_value().unwrap_or_default();
                let _ = result.try_set(Some(Shown {
                    names,
                    equity,
                    micros,
                }));
            }
            Reply::Refused(message) => {
                let _ = problem.try_set(Some(message));
            }
        }
    });
    on_cleanup(move || stop_worker(page));

    let compute = move || {
        let all = hands.get_untracked();
        match spot(t, &all, &board.get_untracked(), &dead.get_untracked()) {
            Ok(spot) => {
                problem.set(None);
                asked.set_value(
                    spot.hands
                        .iter()
                        .map(|h| h.map_or_else(|| "?".to_string(), |h| cards_text(&h)))
                        .collect(),
                );
                if post(&Request { spot, trials: None }) {
                    busy.set(true);
                }
            }
            Err(e) => problem.set(Some(e)),
        }
    };

    // Every card already written somewhere: the picker greys it out.
    let used = Memo::new(move |_| {
        let mut text = hands.get().concat();
        text.push_str(&board.get());
        text.push_str(&dead.get());
        Card::parse_many(&text).unwrap_or_default()
    });
    let pick = move |card: Card| {
        let add = |s: &mut String| s.push_str(&card.to_string());
        match focus.get_untracked() {
            Field::Hand(i) => hands.update(|h| {
                if let Some(s) = h.get_mut(i) {
                    add(s);
                    if Card::parse_many(s).is_ok_and(|c| c.len() >= 4) && i + 1 < h.len() {
                        focus.set(Field::Hand(i + 1));
                    }
                }
            }),
            Field::Board => board.update(add),
            Field::Dead => dead.update(add),
        }
    };

    let hand_inputs = move || {
        let count = hands.with(Vec::len);
        (0..count)
            .map(|i| {
                let label = fill(t.hand_n, "", i + 1);
                view! {
                    <label class="equity-field" class:focus=move || focus.get() == Field::Hand(i)>
                        <span>{label}</span>
                        <input type="text" spellcheck="false" autocomplete="off" maxlength="24"
                            placeholder=t.random_hint data-test="equity-hand"
                            prop:value=move || hands.with(|h| h.get(i).cloned().unwrap_or_default())
                            on:focus=move |_| focus.set(Field::Hand(i))
                            on:input=move |ev| {
                                let v = event_target_value(&ev);
                                hands.update(|h| if let Some(s) = h.get_mut(i) { *s = v; });
                            }
                            on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" { compute() } />
                        {(count > 2).then(|| view! {
                            <button class="link" type="button" on:click=move |_| {
                                hands.update(|h| { if h.len() > 2 { h.remove(i); } });
                                focus.set(Field::Hand(0));
                            }>{t.remove}</button>
                        })}
                    </label>
                }
            })
            .collect_view()
    };

    let picker = move || {
        Suit::ALL
            .into_iter()
            .map(|suit| {
                let row = (0..13u8)
                    .rev()
                    .filter_map(Rank::new)
                    .map(|rank| {
                        let card = Card::new(rank, suit);
                        let taken = move || used.with(|u| u.contains(&card));
                        view! {
                            <button type="button" class="pick" data-card=card.to_string()
                                disabled=taken aria-label=card.to_string()
                                on:click=move |_| pick(card)>{cards_text(&[card])}</button>
                        }
                    })
                    .collect_view();
                view! { <div class="pick-row">{row}</div> }
            })
            .collect_view()
    };

    let results = move || {
        result.get().map(|shown| {
            let method = match shown.equity.computed {
                Computed::Exact { boards } => fill(t.exact_boards, "", chips(boards)),
                Computed::MonteCarlo { trials, .. } => {
                    let error = shown
                        .equity
                        .players
                        .iter()
                        .map(|p| p.pot_error)
                        .max()
                        .unwrap_or(0);
                    fill(t.sampled, "", chips(u64::from(trials)))
                        .replace("{b}", &percent(t, error, 2))
                }
            };
            let exact = matches!(shown.equity.computed, Computed::Exact { .. });
            let rows = shown
                .names
                .iter()
                .zip(&shown.equity.players)
                .map(|(name, p)| {
                    let pot = p.pot;
                    let bar = format!("width:{}%", pot / 10_000);
                    view! {
                        <tr data-test="equity-row" data-pot=pot.to_string()>
                            <td class="cards-text">{name.clone()}</td>
                            <td class="num" data-test="equity-pot">{percent(t, pot, if exact { 4 } else { 2 })}
                                <div class="bar" aria-hidden="true"><i style=bar></i></div></td>
                            <td class="num">{percent(t, p.scoop, 2)}</td>
                            <td class="num">{percent(t, p.high, 2)}</td>
                            <td class="num">{percent(t, p.low, 2)}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <p class="equity-method" data-test="equity-method" data-micros=shown.micros.to_string()
                    data-reply=move || replies.get().to_string()>
                    {method}" · "{format!("{} ms", shown.micros.div_ceil(1000))}
                </p>
                <table class="list equity-table" data-test="equity-result">
                    <thead><tr>
                        <th></th>
                        <th class="num">{t.pot}</th>
                        <th class="num">{t.scoop}</th>
                        <th class="num">{t.hi}</th>
                        <th class="num">{t.lo}</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
                <p class="muted">{t.no_low}": "{percent(t, shown.equity.no_low, 2)}</p>
            }
        })
    };

    view! {
        <section class="equity-page panel" data-test="equity-page">
            <h1>{t.equity_title}</h1>
            <p class="muted">{t.equity_intro}</p>
            <form class="equity-form" on:submit=move |ev| { ev.prevent_default(); compute(); }>
                {hand_inputs}
                <button type="button" class="small" disabled=move || { hands.with(Vec::len) >= MAX_HANDS }
                    on:click=move |_| hands.update(|h| h.push(String::new()))>{t.add_hand}</button>
                <label class="equity-field" class:focus=move || focus.get() == Field::Board>
                    <span>{t.board}</span>
                    <input type="text" spellcheck="false" autocomplete="off" maxlength="24" data-test="equity-board"
                        prop:value=move || board.get()
                        on:focus=move |_| focus.set(Field::Board)
                        on:input=move |ev| board.set(event_target_value(&ev)) />
                </label>
                <label class="equity-field" class:focus=move || focus.get() == Field::Dead>
                    <span>{t.dead_cards}</span>
                    <input type="text" spellcheck="false" autocomplete="off" maxlength="60" data-test="equity-dead"
                        prop:value=move || dead.get()
                        on:focus=move |_| focus.set(Field::Dead)
                        on:input=move |ev| dead.set(event_target_value(&ev)) />
                </label>
                <p class="muted">{t.pick_hint}</p>
                <div class="picker" data-test="picker">{picker}</div>
                <button type="submit" class="primary" data-test="equity-compute" disabled=move || busy.get()>
                    {move || if busy.get() { t.computing } else { t.compute }}
                </button>
            </form>
            {move || problem.get().map(|p| view! { <p class="error" role="alert" data-test="equity-error">{p}</p> })}
            <div aria-live="polite">{results}</div>
        </section>
    }
}
