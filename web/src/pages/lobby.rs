//! The lobby: every open table, live (SubscribeLobby while the page is shown), with filters.

use leptos::prelude::*;
use shared::api::HostedTables;
use shared::protocol::LobbyTable;
use shared::rules::{Chips, Structure};

use crate::api;
use crate::i18n;
use crate::labels::{chips, stakes, structure};
use crate::route::{self, Route};
use crate::{prefs, socket, store};

/// Where "Play now" seats a player: a practice table (house bots keep a game going) with a
/// free seat, else the open table with the smallest blinds that has a free seat and someone
/// already playing; the smallest blinds first either way.
pub fn play_now_table(lobby: &[LobbyTable]) -> Option<&LobbyTable> {
    let open = || {
        lobby
            .iter()
            .filter(|t| t.host.is_none() && t.seats_taken < t.seat_count)
    };
    let smallest = |t: &&LobbyTable| (t.stakes.big_blind, t.stakes.small_blind, t.id.clone());
    open()
        .filter(|t| t.practice)
        .min_by_key(smallest)
        .or_else(|| open().filter(|t| t.seats_taken > 0).min_by_key(smallest))
}

/// What Scoop is, "Play now" and the way to the rules; folded away for good with a click.
#[component]
fn Landing() -> impl IntoView {
    use wasm_bindgen::JsCast;
    let t = i18n::current();
    let store = store::get();
    let none_free = move || store.lobby.with(|l| play_now_table(l).is_none());
    let play_now = move |_| {
        let Some(id) = store
            .lobby
            .with_untracked(|l| play_now_table(l).map(|t| t.id.clone()))
        else {
            return;
        };
        let table = Route::Table { id, sit: true };
        if store.user.with_untracked(Option::is_some) {
            route::go(&table);
        } else {
            // Registering comes back to the table's buy-in.
            prefs::return_after_login(&table);
            route::go(&Route::Register);
        }
    };
    let open = prefs::load(prefs::LANDING).as_deref() != Some("0");
    let toggled = move |ev: leptos::ev::Event| {
        if let Some(details) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
        {
            prefs::save(prefs::LANDING, if details.open() { "1" } else { "0" });
        }
    };
    view! {
        <details class="landing panel" data-test="landing" open=open on:toggle=toggled>
            <summary>{t.landing_title}</summary>
            <p>{t.landing_body}</p>
            <p class="landing-actions">
                <button type="button" class="primary" data-test="play-now" on:click=play_now
                    disabled=none_free>{t.play_now}</button>
                <a href=Route::Rules.href() data-test="landing-rules">{t.how_to_play}</a>
            </p>
            <p class="note">
                {move || store.lobby.with(|l| match play_now_table(l) {
                    Some(table) if table.practice => t.play_now_note,
                    None if !l.is_empty() => t.no_practice_table,
                    // Not loaded yet, or a game with people rather than bots.
                    _ => "",
                })}
            </p>
        </details>
    }
}

thread_local! {
    /// Lobby pages built so far: only the latest one may unsubscribe when it goes away.
    static PAGES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[component]
pub fn LobbyPage() -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    socket::subscribe_lobby();
    let instance = PAGES.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    // Updates for every table are of no use once the visitor has left the lobby. A re-render
    // (language switch) builds the new page before the old one is cleaned up.
    on_cleanup(move || {
        if PAGES.with(|n| n.get()) == instance {
            socket::unsubscribe_lobby();
        }
    });

    let by_structure = RwSignal::new(None::<Structure>);
    let by_stakes = RwSignal::new(String::new());
    let free_only = RwSignal::new(false);

    let stake_options = Memo::new(move |_| {
        // By size (big blind, then small blind), not as text: "5/10" before "25/50".
        let mut all: Vec<(Chips, Chips, String)> = store.lobby.with(|l| {
            l.iter()
                .map(|t| (t.stakes.big_blind, t.stakes.small_blind, stakes(&t.stakes)))
                .collect()
        });
        all.sort();
        all.dedup_by(|a, b| a.2 == b.2);
        all.into_iter()
            .map(|(_, _, label)| label)
            .collect::<Vec<String>>()
    });
    let shown = Memo::new(move |_| {
        let wanted_stakes = by_stakes.get();
        let mut list: Vec<LobbyTable> = store.lobby.with(|l| {
            l.iter()
                .filter(|t| by_structure.get().is_none_or(|s| t.stakes.structure == s))
                .filter(|t| wanted_stakes.is_empty() || stakes(&t.stakes) == wanted_stakes)
                .filter(|t| !free_only.get() || t.seats_taken < t.seat_count)
                .cloned()
                .collect()
        });
        list.sort_by(|a, b| a.name.cmp(&b.name));
        list
    });

    let structure_choice = move |ev| {
        by_structure.set(match event_target_value(&ev).as_str() {
            "fl" => Some(Structure::FixedLimit),
            "pl" => Some(Structure::PotLimit),
            "nl" => Some(Structure::NoLimit),
            _ => None,
        })
    };

    let row = move |table: LobbyTable| {
        let watch = Route::Table {
            id: table.id.clone(),
            sit: false,
        }
        .href();
        let full = table.seats_taken >= table.seat_count;
        let sit = if store.user.with_untracked(Option::is_some) {
            Route::Table {
                id: table.id.clone(),
                sit: true,
            }
            .href()
        } else {
            Route::Login.href()
        };
        view! {
            <tr data-table=table.id.clone()>
                <td class="name">{table.name.clone()}
                    {table.host.clone().map(|host| view! {
                        " "<span class="badge" data-test="player-table" title=i18n::fill(t.hosted_by, &host, "")>{t.player_table}</span>
                    })}
                    {table.run_twice.then(|| view! { " "<span class="badge" data-test="run-twice">{t.run_twice_badge}</span> })}
                    {table.straddle.then(|| view! { " "<span class="badge" data-test="straddle">{t.straddle_badge}</span> })}
                </td>
                <td>{move || structure(t, table.stakes.structure)}</td>
                <td>{stakes(&table.stakes)}</td>
                <td>{table.seats_taken}" / "{table.seat_count}</td>
                <td class="num">{chips(table.average_pot)}</td>
                <td class="num">{table.hands_per_hour}</td>
                <td class="num">{table.spectators}</td>
                <td class="actions">
                    <a class="button small" href=watch data-test="watch">{t.watch}</a>
                    <a class="button small primary" class:disabled=full href=sit data-test="sit">{t.sit}</a>
                    {(full && store.user.with_untracked(Option::is_some)).then(|| view! {
                        " "<crate::waitlist::WaitlistCell table=table.id.clone() waiting=table.waiting />
                    })}
                </td>
            </tr>
        }
    };

    // The tables this player hosts, private ones included (no lobby lists those).
    let hosted = RwSignal::new(Vec::new());
    Effect::new(move |_| {
        if store.user.with(Option::is_some) {
            leptos::task::spawn_local(async move {
                if let Ok(mine) = api::get::<HostedTables>("/api/tables/mine").await {
                    hosted.set(mine.tables);
                }
            });
        }
    });

    view! {
        <Landing />
        <section class="lobby panel">
            <div class="lobby-head">
                <h1>{t.tables}</h1>
                {move || store.user.with(Option::is_some).then(|| view! {
                    <a class="button primary" href=Route::NewTable.href() data-test="new-table-button">{t.new_table}</a>
                })}
            </div>
            {move || {
                let hosted: Vec<shared::api::HostedTable> = hosted.get();
                (!hosted.is_empty()).then(|| view! {
                    <div class="hosted" data-test="your-tables">
                        <h2>{t.your_tables}</h2>
                        <ul>
                            {hosted.into_iter().map(|h| view! {
                                <li>
                                    <a href=Route::Table { id: h.table.id.clone(), sit: false }.href()>{h.table.name.clone()}</a>
                                    " · "{stakes(&h.table.stakes)}" · "{h.table.seats_taken}" / "{h.table.seat_count}
                                    {h.invite.is_some().then(|| view! { " · "<span class="badge">{t.private_badge}</span> })}
                                </li>
                            }).collect_view()}
                        </ul>
                    </div>
                })
            }}
            <div class="filters">
                <label>
                    <span>{t.structure}</span>
                    <select on:change=structure_choice>
                        <option value="">{t.all}</option>
                        <option value="fl">{t.fixed_limit}</option>
                        <option value="pl">{t.pot_limit}</option>
                        <option value="nl">{t.no_limit}</option>
                    </select>
                </label>
                <label>
                    <span>{t.stakes}</span>
                    <select on:change=move |ev| by_stakes.set(event_target_value(&ev))>
                        <option value="">{t.all}</option>
                        <For each=move || stake_options.get() key=|s| s.clone() let(s)>
                            <option value=s.clone()>{s.clone()}</option>
                        </For>
                    </select>
                </label>
                <label class="check">
                    <input type="checkbox" on:change=move |ev| free_only.set(event_target_checked(&ev)) />
                    <span>{t.free_seats_only}</span>
                </label>
            </div>
            <table class="tables" data-test="lobby">
                <thead>
                    <tr>
                        <th>{t.table}</th>
                        <th>{t.structure}</th>
                        <th>{t.stakes}</th>
                        <th>{t.players}</th>
                        <th class="num">{t.avg_pot}</th>
                        <th class="num">{t.hands_per_hour}</th>
                        <th class="num">{t.watching}</th>
                        <th></th>
                    </tr>
                </thead>
                <tbody>
                    <For each=move || shown.get() key=|t| (t.id.clone(), t.seats_taken, t.average_pot, t.hands_per_hour, t.spectators, t.waiting) children=row />
                </tbody>
            </table>
            <Show when=move || shown.with(Vec::is_empty)>
                <p class="empty">{t.no_tables}</p>
            </Show>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::Stakes;

    fn table(id: &str, stakes: Stakes, taken: u8, seats: u8) -> LobbyTable {
        LobbyTable {
            id: id.into(),
            name: id.into(),
            stakes,
            seats_taken: taken,
            seat_count: seats,
            average_pot: 0,
            hands_per_hour: 0,
            spectators: 0,
            host: None,
            run_twice: false,
            straddle: false,
            waiting: 0,
            practice: false,
        }
    }

    #[test]
    fn play_now_prefers_a_practice_table_then_the_smallest_game_with_players() {
        let practice = |id, stakes, taken| LobbyTable {
            practice: true,
            ..table(id, stakes, taken, 6)
        };
        let chosen = |lobby: &[LobbyTable]| play_now_table(lobby).map(|t| t.id.clone());
        let mut lobby = vec![
            table("empty", Stakes::no_limit(1, 2), 0, 6),
            table("busy", Stakes::pot_limit(5, 10), 3, 6),
            table("full", Stakes::pot_limit(2, 4), 2, 2),
            table("big", Stakes::fixed_limit(40), 1, 6),
            LobbyTable {
                host: Some("ann".into()),
                ..table("home", Stakes::no_limit(1, 2), 1, 6)
            },
        ];
        // Nobody plays at the cheapest open table, the full one and a player's table are out.
        assert_eq!(chosen(&lobby).as_deref(), Some("busy"));
        lobby.push(practice("bots-big", Stakes::pot_limit(25, 50), 2));
        lobby.push(practice("bots", Stakes::pot_limit(5, 10), 2));
        assert_eq!(chosen(&lobby).as_deref(), Some("bots"));
        // A full practice table gives way to the next.
        lobby.retain(|t| t.id != "bots");
        lobby.push(practice("bots", Stakes::pot_limit(5, 10), 6));
        assert_eq!(chosen(&lobby).as_deref(), Some("bots-big"));
        assert_eq!(
            chosen(&[table("empty", Stakes::no_limit(1, 2), 0, 6)]),
            None
        );
    }
}
