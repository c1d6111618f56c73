//! The felt: an oval with the seats around it, the viewer's own seat at the bottom; bets in
//! front of the seats, the board and pots in the middle, the button and blind markers, the
//! clock bar under the seat to act, each face-up hand's equity during an all-in run-out, and at
//! the showdown who won which half with what. A hand run twice shows its second board under the
//! first, and what each board paid.
//!
//! Motion (each ≤ 400 ms, none with `prefers-reduced-motion`, a click on the felt ends it):
//! the hole cards fly in at the deal and each board card as it comes; at the end of a
//! betting round the bets slide into the pot; at the showdown each award slides from the pot
//! to its winner, high and low halves apart.

use leptos::prelude::*;
use shared::protocol::{Clock, SeatView, TableView};
use shared::table::SeatStatus;

use crate::cards::{CardFace, card_or_back};
use crate::i18n::{self, Text};
use crate::labels::{self, chips, player_name, share};
use crate::table::state::Showdown;

/// A point on an ellipse around the centre, in percent of the felt box; seat `0` of the
/// rotation is at the bottom.
fn around(index: u8, count: u8, rx: f64, ry: f64) -> (f64, f64) {
    let angle = std::f64::consts::FRAC_PI_2
        + f64::from(index) * std::f64::consts::TAU / f64::from(count.max(1));
    // The browser's Math: Rust's own sin/cos would add several KB of libm to the bundle.
    (
        50.0 + rx * js_sys::Math::cos(angle),
        50.0 + ry * js_sys::Math::sin(angle),
    )
}

/// Tenths of a percent written as integers: float formatting is a lot of wasm for this.
fn percent(v: f64) -> String {
    let tenths = (v * 10.0).round().max(0.0) as u32;
    format!("{}.{}%", tenths / 10, tenths % 10)
}

fn place((x, y): (f64, f64)) -> String {
    format!("left:{};top:{}", percent(x), percent(y))
}

/// Where on the oval a seat sits, so that the viewer's own seat is at the bottom.
fn slot(view: &TableView, seat: u8) -> u8 {
    let n = view.seat_count.max(1);
    let me = view.you.unwrap_or(0);
    (seat + n - me % n) % n
}

pub(super) fn ms_left(clock: &Clock, received_at: f64) -> f64 {
    (clock.remaining_ms as f64 - (js_sys::Date::now() - received_at)).max(0.0)
}

/// When the clock runs out, in `Date.now()` milliseconds.
pub(super) fn deadline(clock: &Clock, received_at: f64) -> f64 {
    received_at + clock.remaining_ms as f64
}

/// Whether two clock messages are about the same decision: a new decision or the time bank
/// starting moves the deadline by seconds; the same decision sent again moves it by the
/// message's travel time only.
pub(super) fn same_decision(deadline: f64, other: f64) -> bool {
    (deadline - other).abs() < 1500.0
}

/// How often the countdown is redrawn; the clock bar glides from one redraw to the next.
const TICK_MS: f64 = 500.0;

/// The full length of the clock bar: the time that was left when this decision (or its time
/// bank) was first seen. Another message about the same decision keeps it, so the bar drains
/// at the rate the seconds count down however often the clock is sent again.
#[derive(Clone, Copy, Default, PartialEq)]
struct ClockSpan {
    seat: u8,
    in_time_bank: bool,
    deadline: f64,
    span_ms: f64,
}

impl ClockSpan {
    fn follow(self, clock: &Clock, received_at: f64) -> ClockSpan {
        let deadline = deadline(clock, received_at);
        let same = self.span_ms > 0.0
            && self.seat == clock.seat
            && self.in_time_bank == clock.in_time_bank
            && same_decision(deadline, self.deadline);
        if same {
            ClockSpan { deadline, ..self }
        } else {
            ClockSpan {
                seat: clock.seat,
                in_time_bank: clock.in_time_bank,
                deadline,
                span_ms: (clock.remaining_ms as f64).max(1.0),
            }
        }
    }

    /// The bar's length at the next redraw, in percent, for a CSS transition to reach.
    fn percent_at_next_tick(&self, left_ms: f64) -> f64 {
        ((left_ms - TICK_MS).max(0.0) / self.span_ms * 100.0).clamp(0.0, 100.0)
    }
}

#[component]
pub fn Felt(
    view: Signal<TableView>,
    showdown: Signal<Showdown>,
    /// The clock with the time it arrived.
    clock: Signal<Option<(Clock, f64)>>,
    #[prop(optional)] on_sit: Option<Callback<u8>>,
) -> impl IntoView {
    let t = i18n::current();
    // Re-render the countdown a few times a second; the ring itself is a CSS animation.
    let tick = RwSignal::new(0u32);
    if let Ok(handle) = set_interval_with_handle(
        move || tick.update(|n| *n = n.wrapping_add(1)),
        std::time::Duration::from_millis(TICK_MS as u64),
    ) {
        on_cleanup(move || handle.clear());
    }
    let span = StoredValue::new(ClockSpan::default());
    let clock_span = Memo::new(move |_| {
        let (c, at) = clock.get()?;
        let next = span.get_value().follow(&c, at);
        span.set_value(next);
        Some(next)
    });

    let seat_count = Memo::new(move |_| view.with(|v| v.seat_count));

    // Motion: what moves, from the change between the last view and this one. Chips in
    // flight are drawn for one animation and then dropped.
    let dealing = RwSignal::new(false);
    let flights = RwSignal::new(Vec::<Flight>::new());
    let generation = StoredValue::new(0u32);
    let last_seen = StoredValue::new(None::<(u64, bool, Vec<(u8, u8, u64)>, usize)>);
    let dealt_hand = StoredValue::new(None::<u64>);
    let settle = move || {
        generation.update_value(|g| *g = g.wrapping_add(1));
        let mine = generation.get_value();
        set_timeout(
            move || {
                // The felt may be gone by then (the player left the page).
                if generation.try_get_value() == Some(mine) {
                    dealing.try_set(false);
                    flights.try_set(Vec::new());
                }
            },
            std::time::Duration::from_millis(MOTION_MS),
        );
    };
    Effect::new(move |_| {
        let now = view.with(|v| {
            let bets: Vec<(u8, u8, u64)> = v
                .seats
                .iter()
                .flatten()
                .filter(|s| s.bet > 0)
                .map(|s| (s.seat, slot(v, s.seat), s.bet))
                .collect();
            (v.hand, v.hand_running, bets, v.board.len())
        });
        let before = last_seen.get_value();
        last_seen.set_value(Some(now.clone()));
        // Each hand's deal once, from the first view that shows it running (which may come
        // with its first actions already in it).
        if now.1 && dealt_hand.get_value() != Some(now.0) {
            dealt_hand.set_value(Some(now.0));
            dealing.set(true);
            settle();
            return;
        }
        let Some((hand, _, bets, board)) = before else {
            return;
        };
        let n = seat_count.get_untracked();
        if now.0 == hand && !bets.is_empty() && now.2.is_empty() && now.3 >= board {
            // The round is over: its bets go into the pot.
            flights.set(
                bets.iter()
                    .map(|&(_, at, _)| Flight {
                        from: around(at, n, 28.0, 23.0),
                        to: POT,
                        low: false,
                    })
                    .collect(),
            );
            settle();
        }
    });
    let paid_seen = StoredValue::new(0usize);
    Effect::new(move |_| {
        let paid: Vec<(u8, bool)> = showdown.with(|s| {
            s.awards
                .iter()
                .filter(|a| a.amount > 0)
                .map(|a| (a.seat, matches!(a.share, shared::format::Share::Low)))
                .collect()
        });
        // Once per showdown, not again when something else about it changes.
        let seen = paid_seen.get_value();
        paid_seen.set_value(paid.len());
        if paid.is_empty() || paid.len() == seen {
            return;
        }
        let n = seat_count.get_untracked();
        let targets = view.with_untracked(|v| {
            paid.iter()
                .map(|&(seat, low)| Flight {
                    from: POT,
                    to: around(slot(v, seat), n, 44.0, 40.0),
                    low,
                })
                .collect()
        });
        flights.set(targets);
        settle();
    });
    let skip = move |_| {
        dealing.set(false);
        flights.set(Vec::new());
    };
    let seat_at = move |seat: u8| view.with(|v| v.seats.get(usize::from(seat)).cloned().flatten());

    let seat_view = move |seat: u8| {
        let pos = Memo::new(move |_| view.with(|v| slot(v, seat)));
        let style = move || place(around(pos.get(), seat_count.get(), 44.0, 40.0));
        let bet_style = move || place(around(pos.get(), seat_count.get(), 28.0, 23.0));
        let button_style = move || {
            let (x, y) = around(pos.get(), seat_count.get(), 31.0, 27.0);
            place((x + 4.5, y))
        };
        let occupant = Memo::new(move |_| seat_at(seat));
        let to_act = Memo::new(move |_| view.with(|v| v.hand_running && v.to_act == Some(seat)));
        let is_me = Memo::new(move |_| view.with(|v| v.you == Some(seat)));
        let won: Memo<Vec<String>> = Memo::new(move |_| {
            let t: &Text = t;
            showdown.with(|s| {
                let mine = s.awards.iter().filter(|a| a.seat == seat);
                // A hand run twice pays each board apart: the seat shows the total, the
                // centre the detail.
                if s.awards.iter().any(|a| a.second_run) {
                    let total: u64 = mine.map(|a| a.amount).sum();
                    return (total > 0)
                        .then(|| format!("+{}", chips(total)))
                        .into_iter()
                        .collect();
                }
                mine.map(|a| format!("+{} {}", chips(a.amount), share(t, a.share)))
                    .collect()
            })
        });
        let shown =
            Memo::new(move |_| showdown.with(|s| s.shown.iter().find(|n| n.seat == seat).copied()));
        let equity = Memo::new(move |_| {
            showdown.with(|s| s.equity.iter().find(|e| e.seat == seat).copied())
        });
        let marker = move || {
            view.with(|v| {
                if !v.hand_running && v.board.is_empty() {
                    return None;
                }
                if v.small_blind == Some(seat) {
                    Some(t.small_blind_marker)
                } else if v.big_blind == Some(seat) {
                    Some(t.big_blind_marker)
                } else {
                    None
                }
            })
        };
        let occupied = move |s: SeatView| {
            let cards = s.cards;
            let in_hand = s.live || cards.is_some();
            let status = match s.status {
                SeatStatus::SittingOut => Some(t.sitting_out),
                SeatStatus::Waiting { .. } if !s.live => Some(t.waiting),
                _ if s.all_in => Some(t.all_in),
                _ => None,
            };
            let owed = (!s.live).then(|| labels::owed(t, &s)).flatten();
            view! {
                <div class="hole" class:mine=move || is_me.get() data-test="hole">
                    {in_hand.then(|| (0..4).map(|i| card_or_back(cards.map(|c| c[i]))).collect_view())}
                </div>
                <div class="plate">
                    <span class="name">{player_name(t, &s.name)}</span>
                    <span class="stack">{chips(s.stack)}</span>
                    {status.map(|st| view! { <span class="status">{st}</span> })}
                    {owed.map(|o| view! { <span class="owed" data-test="owed">{o}</span> })}
                </div>
            }
        };
        view! {
            <div class="seat" style=style data-seat=seat
                class:empty=move || occupant.with(Option::is_none)
                class:to-act=move || to_act.get()
                class:me=move || is_me.get()
                class:folded=move || occupant.with(|o| o.as_ref().is_some_and(|s| !s.live))
                class:winner=move || won.with(|w| !w.is_empty())>
                {move || match occupant.get() {
                    Some(s) => occupied(s).into_any(),
                    None => match on_sit {
                        Some(cb) => view! {
                            <button class="sit-here" data-test="sit-here" on:click=move |_| cb.run(seat)>{t.sit_here}</button>
                        }.into_any(),
                        None => view! { <span class="free"></span> }.into_any(),
                    },
                }}
                {move || to_act.get().then(|| clock.get().filter(|(c, _)| c.seat == seat)).flatten().map(|(c, at)| {
                    let left = move || {
                        tick.track();
                        ms_left(&c, at)
                    };
                    let seconds = move || (left() / 1000.0).ceil() as u64;
                    let bank = c.time_bank_ms / 1000;
                    let bar = move || {
                        let percent = clock_span.get().map_or(0.0, |s| s.percent_at_next_tick(left()));
                        format!("width:{}%", percent.round() as u32)
                    };
                    // Under the name plate, so that the name and stack stay readable.
                    view! {
                        <div class="clock" class:bank=c.in_time_bank data-test="clock">
                            <span class="clock-bar" aria-hidden="true"><i style=bar></i></span>
                            <span class="clock-secs" data-test="clock-secs">{seconds}"s"</span>
                            {(c.in_time_bank || bank > 0).then(|| view! { <small>{t.time_bank}" "{move || if c.in_time_bank { seconds() } else { bank }}"s"</small> })}
                        </div>
                    }
                })}
                {move || shown.get().map(|n| {
                    let (hi, lo) = labels::showdown(t, n.high, n.low);
                    let second = n.second.map(|v| {
                        let (hi, lo) = labels::showdown(t, v.high, v.low);
                        view! {
                            <div class="labels second" data-test="hand-labels-2">
                                <small class="run">{i18n::fill(t.run_n, "", 2)}</small><span class="hi">{hi}</span><span class="lo">{lo}</span>
                            </div>
                        }
                    });
                    view! {
                        <div class="labels" data-test="hand-labels"><span class="hi">{hi}</span><span class="lo">{lo}</span></div>
                        {second}
                    }
                })}
                {move || won.with(|w| (!w.is_empty()).then(|| view! { <div class="award" data-test="award">{w.join(" · ")}</div> }))}
                {move || equity.get().map(|e| view! {
                    <div class="seat-equity" data-test="equity" title=t.equity>
                        <b>{labels::percent(t, e.pot, 1)}</b>" "<small>{t.scoop}" "{labels::percent(t, e.scoop, 1)}</small>
                    </div>
                })}
            </div>
            // A blind still in front of its seat carries its marker in the same pill, so the two
            // never sit on top of each other (on a phone they would).
            {move || occupant.get().filter(|s| s.bet > 0).map(|s| view! {
                <div class="bet" style=bet_style>
                    {marker().map(|m| view! { <small class="blind-tag" data-test="blind-tag">{m}</small> })}
                    <i class="chip"></i>{chips(s.bet)}
                </div>
            })}
            {move || (view.with(|v| v.button) == Some(seat)).then(|| view! {
                <div class="dealer-button" style=button_style title=t.dealer>"D"</div>
            })}
            {move || marker().filter(|_| occupant.with(|o| o.as_ref().is_none_or(|s| s.bet == 0))).map(|m| view! {
                <div class="blind-marker" style=move || { let (x, y) = around(pos.get(), seat_count.get(), 31.0, 27.0); place((x - 4.5, y)) }>{m}</div>
            })}
        }
    };

    let pots = move || {
        let list: Vec<(String, u64)> = view.with(|v| {
            // While bets are still out the engine's pots include them, and an unmatched bet
            // would look like a side pot: show one total until the round's bets are gathered.
            if v.seats.iter().flatten().any(|s| s.bet > 0) {
                let total = v.pots.iter().map(|p| p.amount).sum();
                return vec![(t.pot.to_string(), total)];
            }
            v.pots
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let name = if i == 0 {
                        t.pot.to_string()
                    } else {
                        format!("{} {i}", t.side_pot)
                    };
                    (name, p.amount)
                })
                .collect()
        });
        list.into_iter()
            .filter(|(_, amount)| *amount > 0)
            .map(|(name, amount)| view! { <span class="pot" data-test="pot">{name}": "{chips(amount)}</span> })
            .collect_view()
    };
    let awards = move || {
        let names = move |a: &crate::table::state::Award| {
            let name = match a.name.is_empty() {
                true => seat_at(a.seat).map(|s| s.name).unwrap_or_default(),
                false => a.name.clone(),
            };
            player_name(t, &name)
        };
        showdown.with(|s| {
            // One line per pot, or per pot and board for a pot split between two runs.
            let mut lines: Vec<(usize, bool)> = Vec::new();
            for a in &s.awards {
                if !lines.contains(&(a.pot, a.second_run)) {
                    lines.push((a.pot, a.second_run));
                }
            }
            lines
                .iter()
                .map(|&(pot, second_run)| {
                    let mut pot_name = if pot == 0 { t.pot.to_string() } else { format!("{} {pot}", t.side_pot) };
                    if lines.contains(&(pot, true)) {
                        let run = if second_run { 2 } else { 1 };
                        pot_name = format!("{pot_name} · {}", i18n::fill(t.run_n, "", run));
                    }
                    let parts: Vec<String> = s
                        .awards
                        .iter()
                        .filter(|a| a.pot == pot && a.second_run == second_run)
                        .map(|a| format!("{} {} ({})", names(a), chips(a.amount), share(t, a.share)))
                        .collect();
                    view! { <div class="split" data-test="split">{pot_name}": "{parts.join(" · ")}</div> }
                })
                .collect_view()
        })
    };

    view! {
        <div class="felt-wrap" class:dealing=move || dealing.get() on:click=skip>
            <div class="felt" data-test="felt" data-hand=move || view.with(|v| v.hand) data-running=move || view.with(|v| v.hand_running.to_string())>
                <div class="centre">
                    <div class="board" data-test="board">
                        {move || view.with(|v| !v.second_board.is_empty()).then(|| view! { <small class="run">{i18n::fill(t.run_n, "", 1)}</small> })}
                        <For each=move || view.with(|v| v.board.clone()) key=|card| *card children=|card| view! { <CardFace card /> } />
                    </div>
                    {move || {
                        let cards = view.with(|v| v.second_board.clone());
                        (!cards.is_empty()).then(|| view! {
                            <div class="board second" data-test="second-board">
                                <small class="run">{i18n::fill(t.run_n, "", 2)}</small>
                                {cards.into_iter().map(|card| view! { <CardFace card /> }).collect_view()}
                            </div>
                        })
                    }}
                    <div class="pots">{pots}</div>
                    <div class="awards">{awards}</div>
                </div>
            </div>
            {move || (0..seat_count.get()).map(seat_view).collect_view()}
            {move || flights.get().into_iter().map(|f| view! {
                <i class="chip flight" class:low=f.low aria-hidden="true" style=f.style()></i>
            }).collect_view()}
        </div>
    }
}

/// How long each motion lasts; the CSS animations take the same time.
const MOTION_MS: u64 = 380;

/// The pot's place on the felt.
const POT: (f64, f64) = (50.0, 47.0);

/// A chip sliding across the felt: bets into the pot, or a pot's award to its winner.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Flight {
    from: (f64, f64),
    to: (f64, f64),
    /// The low half of a split pot (drawn in the low colour).
    low: bool,
}

impl Flight {
    /// Where it starts and ends, for the `fly` animation.
    fn style(&self) -> String {
        format!(
            "--fx:{};--fy:{};--tx:{};--ty:{}",
            percent(self.from.0),
            percent(self.from.1),
            percent(self.to.0),
            percent(self.to.1)
        )
    }
}
