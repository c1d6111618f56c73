//! Pages fetched when first shown, each compiled into a WebAssembly module of its own.
//!
//! A first visit needs the lobby and the sign-in form. The table, the hand history and its
//! replayer, the account, the calculator, the home-game form and the rules are split out of
//! the build (`scripts/build-web.sh` runs wasm-split on these split points) and loaded on
//! demand; the table's module is fetched in the background as soon as the lobby is up, so
//! opening a table does not wait for it. Native builds (tests, clippy) call the pages
//! directly. A route shows one as `lazy::page(lazy::rules())`.
//!
//! The split points are `fallible`: a module that cannot be fetched (the network, or a
//! deploy that replaced the files of an open page) says so on the page instead of aborting
//! the whole program, which is what a failed load of a plain `#[lazy]` function does.

use leptos::prelude::*;
use leptos::wasm_split::{SplitLoaderError, wasm_split};
use send_wrapper::SendWrapper;

use crate::i18n;
use crate::pages::{
    account::AccountPage,
    equity::EquityPage,
    hands::HandsPage,
    home::NewTablePage,
    replay::{ReplayPage, SharedPage},
    rules::RulesPage,
};
use crate::table::TablePage;

type Loaded = Result<AnyView, SplitLoaderError>;

#[wasm_split(table, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_table))]
pub fn table(id: String, sit: bool) -> Loaded {
    Ok(view! { <TablePage id sit /> }.into_any())
}

#[wasm_split(hands, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn hands() -> Loaded {
    Ok(view! { <HandsPage /> }.into_any())
}

#[wasm_split(replay, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn replay(id: String) -> Loaded {
    Ok(view! { <ReplayPage id /> }.into_any())
}

#[wasm_split(shared_hand, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn shared_hand(token: String) -> Loaded {
    Ok(view! { <SharedPage token /> }.into_any())
}

#[wasm_split(account, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn account() -> Loaded {
    Ok(view! { <AccountPage /> }.into_any())
}

#[wasm_split(equity, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn equity() -> Loaded {
    Ok(view! { <EquityPage /> }.into_any())
}

#[wasm_split(new_table, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn new_table() -> Loaded {
    Ok(view! { <NewTablePage /> }.into_any())
}

#[wasm_split(rules, wasm_split_path = ::leptos::wasm_split, fallible)]
pub fn rules() -> Loaded {
    Ok(view! { <RulesPage /> }.into_any())
}

/// A page whose module may still be on its way: "Loading…" until it has come, and a way to
/// try again if it cannot come.
pub fn page(load: impl Future<Output = Loaded> + 'static) -> AnyView {
    let t = i18n::current();
    // The browser runs one thread: the loader's future never leaves it.
    let load = SendWrapper::new(load);
    let shown = async move {
        match load.await {
            Ok(view) => view,
            Err(_) => view! {
                <p class="error" role="alert">
                    {t.page_failed} " "
                    <button type="button" data-test="page-reload" on:click=|_| reload()>
                        {t.reload}
                    </button>
                </p>
            }
            .into_any(),
        }
    };
    view! {
        <Suspense fallback=move || view! { <p class="loading">{t.loading}</p> }>
            {Suspend::new(SendWrapper::new(shown))}
        </Suspense>
    }
    .into_any()
}

fn reload() {
    if let Some(w) = web_sys::window() {
        let _ = w.location().reload();
    }
}

/// Fetches the table's module without showing it, for the table a visitor opens next.
pub fn preload_table_page() {
    leptos::task::spawn_local(async {
        // A failure is not kept: opening a table tries again and says so if it fails.
        let _ = preload_table().await;
    });
}
