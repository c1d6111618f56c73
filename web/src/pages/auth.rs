//! Log in and register. The form checks what the server would refuse before sending, and shows
//! the server's answer in place when it refuses anyway.

use leptos::prelude::*;

use crate::api::{self, Credentials, Me};
use crate::i18n::{self, Text};
use crate::route::{self, Route};
use crate::{socket, store};

/// The same rules as the server's `check_username` and `check_password`.
fn check(t: &Text, username: &str, password: &str) -> Option<&'static str> {
    let len = username.chars().count();
    let chars_ok = username
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && username.starts_with(|c: char| c.is_ascii_alphanumeric());
    if !(3..=20).contains(&len) || !chars_ok {
        return Some(t.username_rule);
    }
    if username.to_ascii_lowercase().starts_with("bot-") {
        return Some(t.username_reserved);
    }
    if !(10..=128).contains(&password.chars().count()) {
        return Some(t.password_rule);
    }
    None
}

#[component]
pub fn AuthPage(register: bool) -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    let username = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);

    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (u, p) = (username.get_untracked(), password.get_untracked());
        if let Some(problem) = check(t, &u, &p) {
            error.set(Some(problem.to_string()));
            return;
        }
        error.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let path = if register {
                "/api/register"
            } else {
                "/api/login"
            };
            let result = api::post::<serde::de::IgnoredAny>(
                path,
                &Credentials {
                    username: &u,
                    password: &p,
                },
            )
            .await;
            busy.set(false);
            match result {
                Ok(_) => {
                    store.user.set(api::get::<Me>("/api/me").await.ok());
                    socket::reconnect();
                    route::go(&crate::prefs::take_return().unwrap_or(Route::Lobby));
                }
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        });
    };

    view! {
        <section class="auth panel">
            <h1>{move || if register { t.register_title } else { t.login_title }}</h1>
            <form on:submit=submit novalidate>
                <label>
                    <span>{t.username}</span>
                    <input name="username" autocomplete="username" required minlength="3" maxlength="20"
                        prop:value=username on:input=move |ev| username.set(event_target_value(&ev)) />
                    <small>{t.username_rule}</small>
                </label>
                <label>
                    <span>{t.password}</span>
                    <input name="password" type="password" required minlength="10" maxlength="128"
                        autocomplete=if register { "new-password" } else { "current-password" }
                        prop:value=password on:input=move |ev| password.set(event_target_value(&ev)) />
                    <small>{t.password_rule}</small>
                </label>
                <p class="error" role="alert" data-test="form-error">{move || error.get()}</p>
                <button type="submit" class="primary" disabled=busy>
                    {move || if register { t.register } else { t.login }}
                </button>
            </form>
            <p class="switch">
                {move || if register { t.have_account } else { t.no_account }}" "
                <a href=move || if register { "#/login" } else { "#/register" }>
                    {move || if register { t.login } else { t.register }}
                </a>
            </p>
        </section>
    }
}
