//! The account: balance, chips on tables, the ledger, and the free refill when eligible.

use leptos::prelude::*;
use shared::api::{LedgerPage, LedgerRow};

use crate::api::{self, Balance};
use crate::i18n;
use crate::labels::chips;
use crate::route::{self, Route};
use crate::socket;
use crate::store;

fn signed(amount: i64) -> String {
    match amount {
        a if a > 0 => format!("+{}", chips(a as u64)),
        a if a < 0 => format!("−{}", chips(a.unsigned_abs())),
        _ => "0".into(),
    }
}

#[component]
pub fn AccountPage() -> impl IntoView {
    let t = i18n::current();
    let store = store::get();
    store.refresh_user();
    let rows = RwSignal::new(Vec::<LedgerRow>::new());
    let next = RwSignal::new(None::<i64>);
    let error = RwSignal::new(None::<String>);
    let refill_done = RwSignal::new(false);

    let load = move |before: Option<i64>| {
        leptos::task::spawn_local(async move {
            let path = match before {
                Some(b) => format!("/api/ledger?limit=50&before={b}"),
                None => "/api/ledger?limit=50".to_string(),
            };
            match api::get::<LedgerPage>(&path).await {
                Ok(page) => {
                    rows.update(|r| {
                        if before.is_none() {
                            r.clear();
                        }
                        r.extend(page.rows);
                    });
                    next.set(page.next_before);
                }
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        });
    };
    load(None);

    let refill = move |_| {
        leptos::task::spawn_local(async move {
            match api::post::<Balance>("/api/refill", &api::NoFields {}).await {
                Ok(answer) => {
                    refill_done.set(true);
                    store.user.update(|u| {
                        if let Some(u) = u {
                            u.balance = answer.balance;
                        }
                    });
                    store.refresh_user();
                    load(None);
                }
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        });
    };

    let current = RwSignal::new(String::new());
    let new = RwSignal::new(String::new());
    let changed = RwSignal::new(false);
    let change_password = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        changed.set(false);
        let body =
            serde_json::json!({"current": current.get_untracked(), "new": new.get_untracked()});
        leptos::task::spawn_local(async move {
            match api::post::<serde::de::IgnoredAny>("/api/password", &body).await {
                Ok(_) => {
                    changed.set(true);
                    error.set(None);
                    current.set(String::new());
                    new.set(String::new());
                }
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        });
    };
    let logout_everywhere = move |_| {
        leptos::task::spawn_local(async move {
            match api::post_empty("/api/logout-everywhere").await {
                Ok(()) => {
                    store.user.set(None);
                    socket::reconnect();
                    route::go(&Route::Lobby);
                }
                Err(e) => error.set(Some(t.error(&e.code, &e.message))),
            }
        });
    };

    view! {
        <section class="account panel">
            <h1>{t.account}</h1>
            {move || store.user.get().map(|me| view! {
                <dl class="summary">
                    <dt>{t.balance}</dt><dd data-test="balance">{chips(me.balance.max(0) as u64)}</dd>
                    <dt>{t.on_tables}</dt><dd>{chips(me.on_tables.max(0) as u64)}</dd>
                </dl>
                <Show when=move || me.can_refill && !refill_done.get()>
                    <p>{t.refill_note}" "
                        <button class="primary" on:click=refill data-test="refill">{t.refill}</button>
                    </p>
                </Show>
            })}
            <p class="error" role="alert">{move || error.get()}</p>
            <h2>{t.ledger}</h2>
            <table class="list" data-test="ledger">
                <thead><tr>
                    <th>{t.date}</th>
                    <th>{t.kind}</th>
                    <th>{t.table}</th>
                    <th class="num">{t.amount}</th>
                    <th class="num">{t.balance_after}</th>
                </tr></thead>
                <tbody>
                    <For each=move || rows.get() key=|r| r.id let(r)>
                        <tr>
                            <td>{r.created_at.replace('T', " ").trim_end_matches('Z').to_string()}</td>
                            <td>{t.ledger_kind(&r.kind)}</td>
                            <td>{r.table_id.clone().unwrap_or_default()}</td>
                            <td class="num">{signed(r.amount)}</td>
                            <td class="num">{r.balance_after.map(|b| chips(b.max(0) as u64)).unwrap_or_default()}</td>
                        </tr>
                    </For>
                </tbody>
            </table>
            <Show when=move || next.get().is_some()>
                <button on:click=move |_| load(next.get_untracked())>{t.more}</button>
            </Show>
            <h2>{t.security}</h2>
            <form class="security" on:submit=change_password data-test="change-password">
                <label>{t.current_password}
                    <input type="password" name="current" autocomplete="current-password" required
                        prop:value=move || current.get()
                        on:input=move |ev| current.set(event_target_value(&ev)) />
                </label>
                <label>{t.new_password}
                    <input type="password" name="new" autocomplete="new-password" required
                        minlength="10" maxlength="128"
                        prop:value=move || new.get()
                        on:input=move |ev| new.set(event_target_value(&ev)) />
                    <small>{t.password_rule}</small>
                </label>
                <button class="primary" type="submit">{t.change_password}</button>
            </form>
            <Show when=move || changed.get()>
                <p class="ok" role="status" data-test="password-changed">{t.password_changed}</p>
            </Show>
            <p>{t.logout_everywhere_note}" "
                <button on:click=logout_everywhere data-test="logout-everywhere">{t.logout_everywhere}</button>
            </p>
        </section>
    }
}
