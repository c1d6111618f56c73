//! The page frame: header (navigation, account, language, connection) and the current page.

use leptos::prelude::*;

use crate::i18n::{self, Lang};
use crate::labels::chips;
use crate::pages::{auth::AuthPage, home::JoinPage, lobby::LobbyPage};
use crate::route::{self, Route};
use crate::store::{self, Conn};
use crate::{api, attention, lazy, prefs, socket};

#[component]
pub fn App() -> impl IntoView {
    let store = store::init();
    store.refresh_user();
    socket::start();
    attention::follow_turns();
    lazy::preload_table_page();
    let route = route::current();

    Effect::new(move |_| {
        let lang = store.lang.get();
        prefs::save(prefs::LANG, lang.code());
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", lang.code());
        }
    });

    // Every word is read once per render: a language switch re-renders the whole frame.
    move || {
        store.lang.track();
        let t = i18n::current();
        let page = move || match route.get() {
            Route::Lobby => view! { <LobbyPage /> }.into_any(),
            Route::Login => view! { <AuthPage register=false /> }.into_any(),
            Route::Register => view! { <AuthPage register=true /> }.into_any(),
            Route::Table { id, sit } => lazy::page(lazy::table(id, sit)),
            Route::Hands => lazy::page(lazy::hands()),
            Route::Replay(id) => lazy::page(lazy::replay(id)),
            Route::Shared(token) => lazy::page(lazy::shared_hand(token)),
            Route::Account => lazy::page(lazy::account()),
            Route::Equity => lazy::page(lazy::equity()),
            Route::NewTable => lazy::page(lazy::new_table()),
            Route::Join(token) => view! { <JoinPage token /> }.into_any(),
            Route::Rules => lazy::page(lazy::rules()),
        };
        // A decision waiting at a table whose page is not the one on screen.
        let elsewhere = move || {
            store.turn.get().filter(
                |turn| !matches!(route.get(), Route::Table { ref id, .. } if *id == turn.table),
            )
        };

        let logout = move |_| {
            leptos::task::spawn_local(async move {
                let _ = api::post_empty("/api/logout").await;
                prefs::forget_invites();
                store.user.set(None);
                socket::reconnect();
                route::go(&Route::Lobby);
            });
        };

        let conn = move || match store.conn.get() {
            Conn::Open => ("conn ok", t.connected),
            Conn::Connecting => ("conn wait", t.connecting),
            Conn::Reconnecting => ("conn down", t.reconnecting),
        };

        view! {
            <header class="top">
                <a class="brand" href="#/lobby">"Scoop"</a>
                <nav>
                    <a href="#/lobby" class:active=move || route.get() == Route::Lobby>{t.lobby}</a>
                    <Show when=move || store.user.with(Option::is_some)>
                        <a href="#/hands" class:active=move || matches!(route.get(), Route::Hands | Route::Replay(_))>{t.my_hands}</a>
                        <a href="#/account" class:active=move || route.get() == Route::Account>{t.account}</a>
                    </Show>
                    <a href="#/equity" class:active=move || route.get() == Route::Equity data-test="nav-equity">{t.equity}</a>
                    <a href="#/rules" class:active=move || route.get() == Route::Rules data-test="nav-rules">{t.rules}</a>
                </nav>
                <div class="spacer"></div>
                <span class=move || conn().0 data-test="conn" title=move || conn().1>
                    <i></i><span class="conn-text">{move || conn().1}</span>
                </span>
                <select class="lang" aria-label="Language" on:change=move |ev| {
                    let code = event_target_value(&ev);
                    if let Some(l) = Lang::ALL.into_iter().find(|l| l.code() == code) {
                        store.lang.set(l);
                    }
                } prop:value=move || store.lang.get().code()>
                    {Lang::ALL.into_iter().map(|l| view! { <option value=l.code()>{l.text().language_name}</option> }).collect_view()}
                </select>
                <PrefToggle on=store.sound key=prefs::SOUND label=t.sound glyph="♪" test="sound" />
                <PrefToggle on=store.four_colour key=prefs::FOUR_COLOUR label=t.four_colour glyph="4♣" test="four-colour" />
                {attention::notifications_exist().then(|| view! {
                    <label class="deck4" title=t.notify>
                        <input type="checkbox" aria-label=t.notify data-test="notify" prop:checked=move || store.notify.get()
                            on:change=move |ev| attention::set_notify(event_target_checked(&ev)) />
                        // A bell drawn, not the emoji: not every system has an emoji font.
                        <svg class="bell" viewBox="0 0 16 16" aria-hidden="true">
                            <path d="M8 1.5a4 4 0 0 0-4 4V9l-1.5 2.5h11L12 9V5.5a4 4 0 0 0-4-4zM6.3 13a1.7 1.7 0 0 0 3.4 0z" />
                        </svg>
                    </label>
                })}
                {move || match store.user.get() {
                    Some(me) => view! {
                        <span class="me" data-test="me">{me.username.clone()}" · "{chips(me.balance.max(0) as u64)}</span>
                        <button class="link" on:click=logout>{t.logout}</button>
                    }.into_any(),
                    None => view! {
                        <a class="button small" href="#/login">{t.login}</a>
                        <a class="button small primary" href="#/register">{t.register}</a>
                    }.into_any(),
                }}
            </header>
            <main class=move || if store.four_colour.get() { "four-colour" } else { "" }>
                <crate::waitlist::SeatOfferBanner />
                // Always in the page, so that screen readers hear the banner when it comes.
                <div role="status" class="turn-slot">
                    {move || elsewhere().map(|turn| view! {
                        <p class="turn-banner" data-test="turn-banner">
                            <strong>{t.your_turn}</strong>" — "{turn.name.clone()}" "
                            <a class="button small primary" data-test="turn-banner-link"
                                href=Route::Table { id: turn.table.clone(), sit: false }.href()>{t.back_to_table}</a>
                        </p>
                    })}
                </div>
                {page}
            </main>
        }
    }
}

/// A header checkbox for a preference kept in the browser (sound, four-colour deck).
#[component]
fn PrefToggle(
    on: RwSignal<bool>,
    key: &'static str,
    label: &'static str,
    glyph: &'static str,
    test: &'static str,
) -> impl IntoView {
    view! {
        <label class="deck4" title=label>
            <input type="checkbox" aria-label=label data-test=test prop:checked=move || on.get() on:change=move |ev| {
                let checked = event_target_checked(&ev);
                on.set(checked);
                prefs::save(key, if checked { "1" } else { "0" });
            } />
            <span aria-hidden="true">{glyph}</span>
        </label>
    }
}
