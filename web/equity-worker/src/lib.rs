//! The equity calculator's Web Worker module. The page (`web`) checks the input and draws
//! the result; the enumeration and Monte Carlo of `shared::equity` run here, off the page's
//! thread, and are downloaded only when someone opens the calculator.

use wasm_bindgen::prelude::wasm_bindgen;

/// A request in, a reply out, in `shared::equity::calculator`'s text form.
#[wasm_bindgen]
pub fn equity_text(request: &str) -> String {
    shared::equity::calculator::answer_text(request)
}
