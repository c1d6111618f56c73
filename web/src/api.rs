//! The HTTP API (README.md): JSON in, JSON out, errors as `{"error": code, "message": text}`.

use leptos::prelude::{ReadSignal, Set, signal};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Request, RequestCredentials, RequestInit, Response};

/// What went wrong, with the server's machine code (or `network` when it never answered) so
/// the page can translate it, and its message to show beside.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ApiError {
    #[serde(rename = "error")]
    pub code: String,
    pub message: String,
}

impl ApiError {
    fn local(code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code: code.into(),
            message: message.into(),
        }
    }
}

pub use shared::api::{Me, Session};

#[derive(Serialize)]
pub struct Credentials<'a> {
    pub username: &'a str,
    pub password: &'a str,
}

/// `{}`: a POST that carries no fields.
#[derive(Serialize)]
pub struct NoFields {}

#[derive(Deserialize)]
pub struct Balance {
    pub balance: i64,
}

/// The request itself, the same for every answer type (one copy in the wasm, not one per
/// `T`): the body of a successful answer, or the server's error.
async fn send(method: &str, path: &str, body: Option<String>) -> Result<String, ApiError> {
    let network = |e: wasm_bindgen::JsValue| {
        ApiError::local(
            "network",
            e.as_string()
                .unwrap_or_else(|| "no answer from the server".into()),
        )
    };
    let init = RequestInit::new();
    init.set_method(method);
    init.set_credentials(RequestCredentials::SameOrigin);
    if let Some(body) = &body {
        init.set_body(&body.into());
    }
    let request = Request::new_with_str_and_init(path, &init).map_err(network)?;
    if body.is_some() {
        request
            .headers()
            .set("Content-Type", "application/json")
            .map_err(network)?;
    }
    let window = web_sys::window().ok_or_else(|| ApiError::local("network", "no window"))?;
    let response: Response = JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(network)?
        .dyn_into()
        .map_err(network)?;
    let text = JsFuture::from(response.text().map_err(network)?)
        .await
        .map_err(network)?
        .as_string()
        .unwrap_or_default();
    if response.ok() {
        Ok(text)
    } else {
        Err(serde_json::from_str(&text).unwrap_or_else(|_| {
            ApiError::local("http", format!("the server answered {}", response.status()))
        }))
    }
}

fn parse<T: DeserializeOwned>(text: &str) -> Result<T, ApiError> {
    // An empty body (logout) reads as JSON null.
    let text = if text.trim().is_empty() { "null" } else { text };
    serde_json::from_str(text).map_err(|e| ApiError::local("bad_response", e.to_string()))
}

pub async fn get<T: DeserializeOwned>(path: &str) -> Result<T, ApiError> {
    parse(&send("GET", path, None).await?)
}

pub async fn post<T: DeserializeOwned>(path: &str, body: &impl Serialize) -> Result<T, ApiError> {
    let body =
        serde_json::to_string(body).map_err(|e| ApiError::local("bad_request", e.to_string()))?;
    parse(&send("POST", path, Some(body)).await?)
}

/// A GET whose answer lands in a signal, `None` until it arrives. Pages show "loading" until
/// then; this costs far less wasm than a `LocalResource` under `<Suspense>`, which brings in
/// Leptos' whole async-derived machinery.
pub fn load<T>(path: String) -> ReadSignal<Option<Result<T, ApiError>>>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    let (read, write) = signal(None);
    leptos::task::spawn_local(async move { write.set(Some(get::<T>(&path).await)) });
    read
}

/// A DELETE whose answer body does not matter.
pub async fn delete(path: &str) -> Result<(), ApiError> {
    send("DELETE", path, None).await.map(|_| ())
}

/// A POST whose answer body does not matter.
pub async fn post_empty(path: &str) -> Result<(), ApiError> {
    let text = send("POST", path, None).await?;
    parse::<IgnoredAny>(&text).map(|_| ())
}
