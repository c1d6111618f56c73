//! The hand-strength line: the player's own best high and where their low stands, worked out
//! in the browser from their cards and the board (`shared::eval::strength`), street by street.

use leptos::prelude::*;
use shared::eval::{LowSoFar, strength};
use shared::protocol::TableView;

use crate::i18n;
use crate::labels;

#[component]
pub fn HandStrength(view: Signal<TableView>) -> impl IntoView {
    let t = i18n::current();
    let now = Memo::new(move |_| {
        view.with(|v| {
            if !v.hand_running {
                return None;
            }
            let me = v.seats.get(usize::from(v.you?))?.as_ref()?;
            if !me.live {
                return None;
            }
            strength(&me.cards?, &v.board)
        })
    });
    move || {
        now.get().map(|s| {
            let high = format!("{}: {}", t.hi, labels::high(t, s.high));
            let low = match s.low {
                LowSoFar::Made(low) => format!("{}: {}", t.lo, labels::low(low)),
                LowSoFar::NotYet => format!("{}: {}", t.lo, t.no_low_yet),
                LowSoFar::Impossible => format!("{}: {}", t.lo, t.no_low_possible),
            };
            view! {
                <p class="strength" data-test="strength" aria-label=t.your_hand>
                    <span class="muted">{t.your_hand}" "</span>
                    <span class="hi" data-test="strength-high">{high}</span>" · "
                    <span class="lo" data-test="strength-low">{low}</span>
                </p>
            }
        })
    }
}
