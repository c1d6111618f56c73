//! Telling a player whose eyes are elsewhere that a decision waits, at whichever table and on
//! whichever page: short tones (synthesised with Web Audio, no sound file to download; off
//! with the header's sound toggle), the tab's title, and a system notification while the tab
//! is hidden (only once the player turns it on in the header and the browser allows it).
//! The pages other than that table show a banner (`app`).

use std::cell::RefCell;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    AudioContext, Notification, NotificationOptions, NotificationPermission, OscillatorType,
};

use crate::route::{self, Route};
use crate::store::{self, Turn};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chime {
    /// A decision is waiting.
    Turn,
    /// A few seconds are left on the clock.
    TimeLow,
}

thread_local! {
    // One context for the page: browsers limit how many may exist.
    static AUDIO: RefCell<Option<AudioContext>> = const { RefCell::new(None) };
    /// The notification of the decision waiting and its table, closed once it is taken.
    static SHOWN: RefCell<Option<(Notification, String)>> = const { RefCell::new(None) };
    /// What a click on a notification does; one for the page's life, not one per decision.
    static ON_CLICK: wasm_bindgen::closure::Closure<dyn Fn()> =
        wasm_bindgen::closure::Closure::new(|| {
            let Some((shown, table)) = SHOWN.with(|s| s.borrow_mut().take()) else {
                return;
            };
            shown.close();
            if let Some(w) = web_sys::window() {
                let _ = w.focus();
            }
            route::go(&Route::Table { id: table, sit: false });
        });
}

/// Follows `store.turn` for the life of the page: a tone and (tab hidden) a notification for
/// each new decision, and the tab's title while one waits, alternating each second so it
/// catches the eye in a row of tabs.
pub fn follow_turns() {
    let store = store::get();
    let page_title = web_sys::window()
        .and_then(|w| w.document())
        .map(|d| d.title())
        .unwrap_or_default();
    let blink = RwSignal::new(false);
    Effect::new(move |was: Option<Option<Turn>>| {
        let now = store.turn.get();
        if now != was.flatten() {
            close_notification();
            if let Some(turn) = &now {
                play(Chime::Turn);
                notify(turn);
            }
        }
        now
    });
    Effect::new(move |_| {
        let title = match store.turn.get() {
            Some(turn) if blink.get() => format!("• {}", turn.name),
            Some(turn) => format!("{} — {}", store.lang.get().text().your_turn, turn.name),
            None => page_title.clone(),
        };
        if let Some(d) = web_sys::window().and_then(|w| w.document()) {
            d.set_title(&title);
        }
    });
    // Lives as long as the page.
    let _ = set_interval_with_handle(
        move || {
            if store.turn.with_untracked(Option::is_some) {
                blink.update(|b| *b = !*b);
            }
        },
        std::time::Duration::from_millis(1000),
    );
}

/// The browser has notifications (some do not, and the calls would throw).
pub fn notifications_exist() -> bool {
    web_sys::window().is_some_and(|w| {
        js_sys::Reflect::has(&w, &JsValue::from_str("Notification")).unwrap_or(false)
    })
}

/// Notifications are available and this page may show them.
pub fn notifications_allowed() -> bool {
    notifications_exist() && Notification::permission() == NotificationPermission::Granted
}

/// The header's toggle: turning it on asks the browser first, and stays on only if allowed.
pub fn set_notify(on: bool) {
    let store = store::get();
    let remember = move |on: bool| {
        store.notify.set(on);
        crate::prefs::save(crate::prefs::NOTIFY, if on { "1" } else { "0" });
    };
    if !on || !notifications_exist() {
        return remember(false);
    }
    if Notification::permission() != NotificationPermission::Default {
        return remember(notifications_allowed());
    }
    let Ok(asked) = Notification::request_permission() else {
        return remember(false);
    };
    // Old Safari answers through a callback and returns nothing: then ask the permission
    // again once the player toggles again.
    let Ok(asked) = JsValue::from(asked).dyn_into::<js_sys::Promise>() else {
        return remember(false);
    };
    leptos::task::spawn_local(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(asked).await;
        remember(notifications_allowed());
    });
}

fn notify(turn: &Turn) {
    let store = store::get();
    let hidden = web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden());
    if !hidden || !store.notify.get_untracked() || !notifications_allowed() {
        return;
    }
    let t = store.lang.get_untracked().text();
    let options = NotificationOptions::new();
    options.set_body(t.notify_body);
    // One at a time, even across tabs of the room: a newer one replaces the last.
    options.set_tag("scoop-turn");
    let title = format!("{} — {}", t.your_turn, turn.name);
    let Ok(shown) = Notification::new_with_options(&title, &options) else {
        return;
    };
    ON_CLICK.with(|f| shown.set_onclick(Some(f.as_ref().unchecked_ref())));
    SHOWN.with(|s| *s.borrow_mut() = Some((shown, turn.table.clone())));
}

fn close_notification() {
    if let Some((shown, _)) = SHOWN.with(|s| s.borrow_mut().take()) {
        shown.close();
    }
}

pub fn play(chime: Chime) {
    if !store::get().sound.get_untracked() {
        return;
    }
    AUDIO.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = AudioContext::new().ok();
        }
        if let Some(ctx) = slot.as_ref() {
            // A browser that has not seen a click on the page yet keeps the context
            // suspended and the tone silent; nothing else to do about it.
            let _ = tone(ctx, chime);
        }
    });
}

fn tone(ctx: &AudioContext, chime: Chime) -> Result<(), JsValue> {
    let (frequency, seconds) = match chime {
        Chime::Turn => (660.0, 0.15),
        Chime::TimeLow => (990.0, 0.09),
    };
    let oscillator = ctx.create_oscillator()?;
    let gain = ctx.create_gain()?;
    oscillator.set_type(OscillatorType::Sine);
    oscillator.frequency().set_value(frequency);
    let now = ctx.current_time();
    // A quick rise and an exponential fall: a soft chime rather than a click.
    gain.gain().set_value_at_time(0.0001, now)?;
    gain.gain()
        .exponential_ramp_to_value_at_time(0.25, now + 0.01)?;
    gain.gain()
        .exponential_ramp_to_value_at_time(0.0001, now + seconds)?;
    oscillator.connect_with_audio_node(&gain)?;
    gain.connect_with_audio_node(&ctx.destination())?;
    oscillator.start()?;
    oscillator.stop_with_when(now + seconds + 0.02)?;
    Ok(())
}
