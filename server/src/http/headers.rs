//! Security headers on every response (tower-http's `SetResponseHeaderLayer`).
//!
//! The content security policy lets the page run only its own script and WebAssembly
//! (`'wasm-unsafe-eval'` compiles the bundle, no `eval` of text), talk only to this origin and
//! its WebSocket, and never be framed, so the one-click bet buttons cannot be clicked through
//! from another site.

use axum::Router;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, STRICT_TRANSPORT_SECURITY,
    X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderName, HeaderValue};
use tower_http::set_header::SetResponseHeaderLayer;

/// The policy for origins `allowed` (the site's own, as configured for the WebSocket).
pub fn content_security_policy(allowed: &[String]) -> String {
    let sockets: Vec<String> = allowed
        .iter()
        .filter_map(|o| {
            o.strip_prefix("https://")
                .map(|host| format!("wss://{host}"))
                .or_else(|| o.strip_prefix("http://").map(|host| format!("ws://{host}")))
        })
        .collect();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
         style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self'; \
         connect-src 'self' {}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; \
         object-src 'none'",
        sockets.join(" ")
    )
}

fn value(text: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(text).ok()
}

/// Headers for every answer. `https` adds HSTS (a year; only when the site is served over
/// HTTPS, which `--secure-cookies` says).
pub fn secure<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    allowed_origins: &[String],
    https: bool,
) -> Router<S> {
    let mut router = router
        .layer(set(
            CONTENT_SECURITY_POLICY,
            value(&content_security_policy(allowed_origins)),
        ))
        .layer(set(X_CONTENT_TYPE_OPTIONS, value("nosniff")))
        .layer(set(X_FRAME_OPTIONS, value("DENY")))
        .layer(set(REFERRER_POLICY, value("same-origin")))
        .layer(set(
            HeaderName::from_static("cross-origin-opener-policy"),
            value("same-origin"),
        ));
    if https {
        router = router.layer(set(
            STRICT_TRANSPORT_SECURITY,
            value("max-age=31536000; includeSubDomains"),
        ));
    }
    router
}

/// Whether a path names a content-hashed asset (`web-<16 hex>.js` and the like, see
/// `scripts/build-web.sh`): its content never changes under that name.
pub fn is_hashed_asset(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    let Some((_, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    matches!(ext, "js" | "wasm" | "css" | "svg")
        && hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Caching for the web client's files: hashed assets are immutable for a year; everything
/// else (`index.html`, and any answer that did not say) is revalidated on every visit.
pub async fn cache_static(
    uri: axum::http::Uri,
    mut response: axum::response::Response,
) -> axum::response::Response {
    if response.headers().contains_key(CACHE_CONTROL) {
        return response;
    }
    let value = if response.status().is_success() && is_hashed_asset(uri.path()) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static(value));
    response
}

/// Answers about accounts, balances and hands are personal: no cache keeps them.
pub fn no_store<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    router.layer(SetResponseHeaderLayer::overriding(
        CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    ))
}

fn set(
    name: HeaderName,
    value: Option<HeaderValue>,
) -> SetResponseHeaderLayer<Option<HeaderValue>> {
    SetResponseHeaderLayer::if_not_present(name, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_content_hashed_bundle_files_count_as_immutable() {
        assert!(is_hashed_asset("/web-0123456789abcdef.js"));
        assert!(is_hashed_asset("/web_bg-0123456789abcdef.wasm"));
        assert!(!is_hashed_asset("/index.html"));
        assert!(!is_hashed_asset("/web.js"));
        assert!(!is_hashed_asset("/web-0123.js"));
        assert!(!is_hashed_asset("/style-0123456789abcdeg.css"));
    }

    #[test]
    fn the_policy_allows_the_sites_own_websocket_and_no_inline_script() {
        let csp = content_security_policy(&[
            "https://scoop.example".into(),
            "http://127.0.0.1:8080".into(),
        ]);
        assert!(
            csp.contains("connect-src 'self' wss://scoop.example ws://127.0.0.1:8080;"),
            "{csp}"
        );
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval';"),
            "{csp}"
        );
        let script = csp
            .split(';')
            .find(|d| d.trim().starts_with("script-src"))
            .unwrap_or_default();
        assert!(
            !script.contains("unsafe-inline") && !script.contains("'unsafe-eval'"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    }
}
