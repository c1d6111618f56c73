//! Short tones that tell a player their turn has come or their time is running out, for a
//! player whose eyes are elsewhere. Synthesised with Web Audio: no sound file to download.
//! Off with the header's sound toggle (remembered in the browser).

use std::cell::RefCell;

use leptos::prelude::GetUntracked;
use wasm_bindgen::JsValue;
use web_sys::{AudioContext, OscillatorType};

use crate::store;

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
