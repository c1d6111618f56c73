//! The replayer: a finished hand, rebuilt event by event from its history, on the same felt
//! as a live table.

use leptos::prelude::*;
use shared::api::HandShare;
use shared::format::{Acted, BlindKind, Event};
use shared::hand::Street;
use shared::history::HandView;
use shared::protocol::{SeatView, TableView, ViewEvent};
use shared::table::SeatStatus;

use crate::api;
use crate::i18n::{self, fill};
use crate::labels::{self, log_line};
use crate::route::Route;
use crate::table::felt::Felt;
use crate::table::state::{LogEntry, Showdown, event_seat};

/// The table as it stood after each event: `frames[k]` follows the first `k` events.
struct Frames {
    views: Vec<TableView>,
    showdowns: Vec<Showdown>,
    log: Vec<LogEntry>,
}

fn frames(hand: &HandView) -> Frames {
    let seat_count = usize::from(hand.seat_count);
    let mut seats: Vec<Option<SeatView>> = vec![None; seat_count];
    for s in &hand.seats {
        if let Some(slot) = seats.get_mut(usize::from(s.seat)) {
            *slot = Some(SeatView {
                seat: s.seat,
                name: s.name.clone(),
                stack: s.starting_stack,
                bet: 0,
                status: SeatStatus::Playing,
                live: true,
                all_in: false,
                cards: None,
                missed_big: false,
                missed_small: false,
            });
        }
    }
    // The player's own seat from the first frame, so the felt does not turn to put them at
    // the bottom when their cards are dealt.
    let own_seat = hand.events.iter().find_map(|e| match e {
        ViewEvent::Dealt(d) if d.cards.is_some() => Some(d.seat),
        _ => None,
    });
    let mut view = TableView {
        stakes: hand.stakes,
        seat_count: hand.seat_count,
        min_buy_in: 0,
        max_buy_in: 0,
        hand: hand.number,
        hand_running: true,
        seats,
        button: Some(hand.button),
        small_blind: None,
        big_blind: None,
        street: Some(Street::Preflop),
        board: Vec::new(),
        pots: Vec::new(),
        to_act: None,
        you: own_seat,
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
    };
    let mut showdown = Showdown::default();
    let mut out = Frames {
        views: vec![view.clone()],
        showdowns: vec![showdown.clone()],
        log: Vec::new(),
    };
    for event in &hand.events {
        let seat_no = event_seat(event);
        let name = seat_no
            .and_then(|s| {
                view.seats
                    .get(usize::from(s))?
                    .as_ref()
                    .map(|s| s.name.clone())
            })
            .unwrap_or_default();
        view.to_act = None;
        let seat = seat_no.and_then(|s| view.seats.get_mut(usize::from(s))?.as_mut());
        match (event, seat) {
            (ViewEvent::Dealt(d), Some(s)) => {
                s.cards = d.cards;
                if d.cards.is_some() {
                    view.you = Some(d.seat);
                }
            }
            (ViewEvent::Public(e), seat) => match (e, seat) {
                (
                    Event::BlindPosted {
                        seat: n,
                        blind,
                        amount,
                        all_in,
                    },
                    Some(s),
                ) => {
                    s.stack = s.stack.saturating_sub(*amount);
                    s.all_in = *all_in;
                    match blind {
                        BlindKind::DeadSmall => {}
                        BlindKind::Small => {
                            s.bet += amount;
                            view.small_blind = Some(*n);
                        }
                        BlindKind::Big => {
                            s.bet += amount;
                            view.big_blind = Some(*n);
                        }
                        BlindKind::Straddle => s.bet += amount,
                    }
                }
                (Event::HoleCards { cards, .. }, Some(s)) => s.cards = Some(*cards),
                (
                    Event::Acted {
                        seat: n,
                        action,
                        stack,
                        all_in,
                    },
                    Some(s),
                ) => {
                    s.stack = *stack;
                    s.all_in = *all_in;
                    match action {
                        Acted::Fold => s.live = false,
                        Acted::Check => {}
                        Acted::Call { amount } => s.bet += amount,
                        Acted::Bet { to } | Acted::Raise { to } => s.bet = *to,
                    }
                    view.to_act = Some(*n);
                }
                (Event::UncalledBetReturned { amount, .. }, Some(s)) => {
                    s.bet = s.bet.saturating_sub(*amount);
                    s.stack += amount;
                }
                (Event::Shown { cards, .. }, Some(s)) => {
                    s.cards = Some(*cards);
                }
                (Event::Mucked { .. }, Some(s)) => s.live = false,
                (Event::PotAwarded { amount, .. }, Some(s)) => {
                    s.stack += amount;
                }
                (Event::PotsGathered { pots }, _) => {
                    view.pots = pots.clone();
                    for s in view.seats.iter_mut().flatten() {
                        s.bet = 0;
                    }
                }
                (Event::BoardDealt { street, cards }, _) => {
                    view.street = Some(*street);
                    view.board.extend(cards);
                }
                (Event::SecondRunDealt { street, cards }, _) => {
                    // The second board starts with the cards dealt before the all-in.
                    if view.second_board.is_empty() {
                        let shared = street.board_before().min(view.board.len());
                        view.second_board = view.board[..shared].to_vec();
                    }
                    view.second_board.extend(cards);
                }
                (Event::HandsFaceUp { hands }, _) => {
                    for (n, cards) in hands {
                        if let Some(Some(s)) = view.seats.get_mut(usize::from(*n)) {
                            s.cards = Some(*cards);
                        }
                    }
                }
                (Event::HandEnded { stacks }, _) => {
                    view.hand_running = false;
                    view.pots.clear();
                    for (n, stack) in stacks {
                        if let Some(Some(s)) = view.seats.get_mut(usize::from(*n)) {
                            s.stack = *stack;
                            s.bet = 0;
                            // Over: nobody is all in any more, whatever they won.
                            s.all_in = false;
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
        if let ViewEvent::Public(e) = event {
            showdown.follow(e);
        }
        let names = match event {
            ViewEvent::Public(Event::Equity { hands, .. }) => hands
                .iter()
                .map(|h| {
                    view.seats
                        .get(usize::from(h.seat))
                        .and_then(|s| s.as_ref().map(|s| s.name.clone()))
                        .unwrap_or_default()
                })
                .collect(),
            _ => Vec::new(),
        };
        out.log.push(LogEntry {
            hand: hand.number,
            event: event.clone(),
            name,
            names,
        });
        out.views.push(view.clone());
        out.showdowns.push(showdown.clone());
    }
    out
}

/// The step at which each street's cards are out (preflop: once the hole cards are dealt),
/// for the replayer's jumps. `log[i]` is shown from step `i + 1`.
fn street_steps(log: &[LogEntry]) -> Vec<(Street, usize)> {
    let mut steps = Vec::new();
    let dealt = log
        .iter()
        .rposition(|e| matches!(e.event, ViewEvent::Dealt(_)));
    if let Some(i) = dealt {
        steps.push((Street::Preflop, i + 1));
    }
    for (i, e) in log.iter().enumerate() {
        if let ViewEvent::Public(Event::BoardDealt { street, .. }) = e.event {
            steps.push((street, i + 1));
        }
    }
    steps
}

/// A street's name in the page's markup (for tests), not shown.
fn street_name(street: Street) -> &'static str {
    match street {
        Street::Preflop => "preflop",
        Street::Flop => "flop",
        Street::Turn => "turn",
        Street::River => "river",
    }
}

/// Autoplay speeds, in per cent of one step a second (integers: float formatting and
/// parsing would add ~13 KB to the bundle).
const SPEEDS: [(u32, &str); 3] = [(50, "½×"), (100, "1×"), (200, "2×")];

#[component]
pub fn ReplayPage(id: String) -> impl IntoView {
    let t = i18n::current();
    let hand = api::load::<HandView>(format!("/api/hands/{id}"));
    view! {
        <section class="replay panel">
            {move || match hand.get() {
                None => view! { <p>{t.loading}</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error">{t.error(&e.code, &e.message)}</p> }.into_any(),
                Some(Ok(hand)) => view! { <Replayer hand /> <ShareHand id=id.clone() /> }.into_any(),
            }}
        </section>
    }
}

/// A hand someone shared: anyone with the link replays it as its spectators saw it.
#[component]
pub fn SharedPage(token: String) -> impl IntoView {
    let t = i18n::current();
    let hand = api::load::<HandView>(format!("/api/shared/{token}"));
    view! {
        <section class="replay panel" data-test="shared-hand">
            <p class="muted">{t.shared_hand}</p>
            {move || match hand.get() {
                None => view! { <p>{t.loading}</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error">{t.error(&e.code, &e.message)}</p> }.into_any(),
                Some(Ok(hand)) => view! { <Replayer hand /> }.into_any(),
            }}
        </section>
    }
}

/// The player shares their hand (a link the server keeps until they stop), or stops.
#[component]
fn ShareHand(id: String) -> impl IntoView {
    let t = i18n::current();
    let id = StoredValue::new(id);
    let link = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let share = move |_| {
        leptos::task::spawn_local(async move {
            let path = format!("/api/hands/{}/share", id.get_value());
            match api::post::<HandShare>(&path, &()).await {
                Ok(s) => {
                    let url = Route::Shared(s.token).absolute();
                    if let Some(w) = web_sys::window() {
                        let _ = w.navigator().clipboard().write_text(&url);
                    }
                    link.set(Some(url));
                    error.set(None);
                }
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        })
    };
    let stop = move |_| {
        leptos::task::spawn_local(async move {
            let path = format!("/api/hands/{}/share", id.get_value());
            match api::delete(&path).await {
                Ok(()) => link.set(None),
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        })
    };
    view! {
        <div class="share-hand">
            {move || match link.get() {
                None => view! { <button data-test="share-hand" on:click=share>{t.share_hand}</button> }.into_any(),
                Some(url) => view! {
                    <p>{t.share_hand_link}" "
                        <input readonly class="share-link" data-test="share-link" aria-label=t.share_hand prop:value=url />
                        " "<button data-test="stop-sharing" on:click=stop>{t.stop_sharing}</button>
                    </p>
                }.into_any(),
            }}
            <small class="error">{move || error.get()}</small>
        </div>
    }
}

#[component]
fn Replayer(hand: HandView) -> impl IntoView {
    let t = i18n::current();
    let Frames {
        views,
        showdowns,
        log,
    } = frames(&hand);
    let last = views.len().saturating_sub(1);
    let step = RwSignal::new(0usize);
    let streets = street_steps(&log);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(100u32);
    // Autoplay: one step per period, rescheduled after every step; a timer left over from
    // before a pause, a jump or a change of speed finds its generation stale and does nothing.
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let (at, on, pace) = (step.get(), playing.get(), speed.get());
        generation.update_value(|g| *g += 1);
        if !on {
            return;
        }
        if at >= last {
            playing.set(false);
            return;
        }
        let mine = generation.get_value();
        set_timeout(
            move || {
                // The replayer may be gone by then (another page was opened).
                if generation.try_get_value() == Some(mine) {
                    step.try_update(|s| *s = (*s + 1).min(last));
                }
            },
            std::time::Duration::from_millis(100_000 / u64::from(pace.max(1))),
        );
    });
    let views = StoredValue::new(views);
    let showdowns = StoredValue::new(showdowns);
    let log = StoredValue::new(log);
    // `frames` yields the starting frame plus one per event, so `last` always indexes.
    let view_now = Signal::derive(move || views.with_value(|v| v[step.get().min(last)].clone()));
    let showdown_now = Signal::derive(move || {
        showdowns.with_value(|s| s.get(step.get()).cloned().unwrap_or_default())
    });
    let title = format!(
        "{} · {}",
        hand.table_name,
        hand.started_at.replace('T', " ").trim_end_matches('Z')
    );
    let number = hand.number;
    view! {
        <h1>{move || fill(t.hand_number, "", number)}" · "{title}</h1>
        <Felt view=view_now showdown=showdown_now clock=Signal::derive(|| None) />
        <div class="replay-controls">
            <button on:click=move |_| step.set(0) disabled=move || step.get() == 0>"|◀ "{t.first}</button>
            <button on:click=move |_| step.update(|s| *s = s.saturating_sub(1)) disabled=move || step.get() == 0 data-test="replay-back">"◀ "{t.previous}</button>
            <span data-test="replay-step">{move || t.step.replace("{a}", &step.get().to_string()).replace("{b}", &last.to_string())}</span>
            <button on:click=move |_| step.update(|s| *s = (*s + 1).min(last)) disabled=move || { step.get() >= last } data-test="replay-next">{t.next}" ▶"</button>
            <button on:click=move |_| step.set(last) disabled=move || { step.get() >= last }>{t.last}" ▶|"</button>
        </div>
        <div class="replay-controls">
            <button data-test="replay-play" on:click=move |_| {
                if step.get_untracked() >= last {
                    step.set(0);
                }
                playing.update(|p| *p = !*p);
            }>{move || if playing.get() { t.pause_replay } else { t.play }}</button>
            <label>{t.speed}" "
                <select data-test="replay-speed" on:change=move |ev| {
                    if let Ok(x) = event_target_value(&ev).parse::<u32>() {
                        speed.set(x);
                    }
                }>
                    {SPEEDS.iter().map(|&(x, label)| view! { <option value=x.to_string() selected=x == 100>{label}</option> }).collect_view()}
                </select>
            </label>
            {streets.into_iter().map(|(street, at)| view! {
                <button data-test="replay-street" data-street=street_name(street)
                    class:current=move || step.get() == at
                    on:click=move |_| { playing.set(false); step.set(at); }>{match street {
                        Street::Preflop => t.preflop,
                        later => labels::street(t, later),
                    }}</button>
            }).collect_view()}
        </div>
        <ol class="log replay-log" tabindex="0" aria-label=t.hand_log>
            {move || log.with_value(|entries| {
                entries.iter().take(step.get()).filter_map(|e| log_line(t, e)).map(|line| view! { <li>{line}</li> }).collect_view()
            })}
        </ol>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::card::Card;
    use shared::protocol::Dealt;

    fn entry(event: ViewEvent) -> LogEntry {
        LogEntry {
            hand: 1,
            event,
            name: String::new(),
            names: Vec::new(),
        }
    }

    #[test]
    fn the_replayer_keeps_the_players_seat_at_the_bottom_from_the_first_frame() {
        let cards = Card::parse_exact::<4>("AhKd3c2s").ok();
        let hand = HandView {
            id: "h".into(),
            table_id: "t".into(),
            table_name: "T".into(),
            number: 1,
            started_at: String::new(),
            stakes: shared::rules::Stakes::no_limit(5, 10),
            seat_count: 6,
            button: 0,
            seats: [0u8, 3]
                .iter()
                .map(|&seat| shared::history::HistorySeat {
                    seat,
                    name: format!("p{seat}"),
                    starting_stack: 100,
                })
                .collect(),
            events: vec![
                ViewEvent::Dealt(Dealt {
                    seat: 0,
                    cards: None,
                }),
                ViewEvent::Dealt(Dealt { seat: 3, cards }),
            ],
        };
        let frames = frames(&hand);
        assert!(frames.views.len() >= 3);
        assert!(frames.views.iter().all(|v| v.you == Some(3)));
    }

    #[test]
    fn the_replayer_jumps_to_each_street_once_its_cards_are_out() {
        let board = |street, cards| {
            entry(ViewEvent::Public(Event::BoardDealt {
                street,
                cards: Card::parse_many(cards).unwrap_or_default(),
            }))
        };
        let dealt = |seat| entry(ViewEvent::Dealt(Dealt { seat, cards: None }));
        let log = vec![
            entry(ViewEvent::Public(Event::HandStarted {
                button: 0,
                stacks: vec![(0, 100), (1, 100)],
            })),
            dealt(0),
            dealt(1),
            board(Street::Flop, "2c3d4h"),
            board(Street::Turn, "5s"),
        ];
        assert_eq!(
            street_steps(&log),
            [(Street::Preflop, 3), (Street::Flop, 4), (Street::Turn, 5)]
        );
        assert!(street_steps(&[]).is_empty());
    }
}
