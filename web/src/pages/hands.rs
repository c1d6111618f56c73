//! My hands: the hands one played, newest first, each opening in the replayer.

use leptos::prelude::*;
use shared::api::HandList;

use crate::api;
use crate::i18n;
use crate::labels::chips;
use crate::route::Route;

#[component]
pub fn HandsPage() -> impl IntoView {
    let t = i18n::current();
    let hands = api::load::<HandList>("/api/hands?limit=100".into());
    view! {
        <section class="hands panel">
            <h1>{t.my_hands}</h1>
            {move || match hands.get() {
                None => view! { <p>{t.loading}</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error">{t.error(&e.code, &e.message)}</p> }.into_any(),
                Some(Ok(list)) if list.hands.is_empty() => view! { <p class="empty">{t.no_hands}</p> }.into_any(),
                Some(Ok(list)) => view! {
                    <table class="list" data-test="hands">
                        <thead><tr>
                            <th>{t.date}</th>
                            <th>{t.table}</th>
                            <th>"#"</th>
                            <th class="num">{t.net}</th>
                            <th></th>
                        </tr></thead>
                        <tbody>
                            {list.hands.into_iter().map(|h| {
                                let net = h.net.unwrap_or(0);
                                let net_class = match net.signum() { 1 => "num won", -1 => "num lost", _ => "num" };
                                let net_text = if net > 0 { format!("+{}", chips(net as u64)) } else if net < 0 { format!("−{}", chips(net.unsigned_abs())) } else { "0".into() };
                                view! {
                                    <tr>
                                        <td>{h.started_at.replace('T', " ").trim_end_matches('Z').to_string()}</td>
                                        <td>{h.table_id.clone()}</td>
                                        <td>{h.number}</td>
                                        <td class=net_class>{net_text}</td>
                                        <td><a class="button small" href=Route::Replay(h.id.clone()).href()>{t.replay}</a></td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any(),
            }}
        </section>
    }
}
