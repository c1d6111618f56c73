//! Scoop's browser client. Everything the server says arrives as `shared::protocol` types, so
//! the client and the server cannot disagree about a message; the client never decides a rule,
//! it only shows what the server sent and offers the actions the server said are legal.

mod api;
mod app;
mod attention;
mod cards;
mod i18n;
mod labels;
mod lazy;
mod pages;
mod prefs;
mod route;
mod socket;
mod store;
mod table;
mod waitlist;

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(start)]
pub fn start() {
    leptos::mount::mount_to_body(app::App);
}
