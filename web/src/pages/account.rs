//! The account: balance, chips on tables, the ledger, and the free refill when eligible.

use leptos::prelude::*;
use shared::api::{LedgerPage, LedgerRow};

use crate::api::{self, Balance};
use crate::i18n;
use crate::labels::chips;
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
        </section>
    }
}
