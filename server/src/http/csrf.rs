//! Cross-site request forgery: a request that changes anything must come from the site's own
//! pages. Browsers say where a request comes from (`Origin`, and `Sec-Fetch-Site`), and a page
//! cannot forge either; a request carrying neither is refused too, so a browser old enough to
//! send neither cannot be used against its user.

use axum::extract::{Request, State};
use axum::http::header::ORIGIN;
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::error::ApiError;

/// Whether a state-changing request with these headers comes from one of `allowed` origins.
pub fn same_site(headers: &HeaderMap, allowed: &[String]) -> bool {
    if let Some(origin) = headers.get(ORIGIN) {
        return origin
            .to_str()
            .is_ok_and(|o| allowed.iter().any(|a| a == o));
    }
    headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|site| matches!(site, "same-origin" | "same-site"))
}

pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if !safe && !same_site(request.headers(), &state.config.allowed_origins) {
        return ApiError::Forbidden("this request must come from the site's own pages".into())
            .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn only_the_sites_own_origin_passes() {
        let allowed = vec!["https://scoop.example".to_string()];
        assert!(same_site(
            &headers(&[("origin", "https://scoop.example")]),
            &allowed
        ));
        assert!(!same_site(
            &headers(&[("origin", "https://evil.example")]),
            &allowed
        ));
        // A foreign Origin is not excused by a claim in another header.
        assert!(!same_site(
            &headers(&[
                ("origin", "https://evil.example"),
                ("sec-fetch-site", "same-origin")
            ]),
            &allowed
        ));
    }

    #[test]
    fn without_origin_the_fetch_site_decides_and_silence_is_refused() {
        let allowed = vec!["https://scoop.example".to_string()];
        assert!(same_site(
            &headers(&[("sec-fetch-site", "same-origin")]),
            &allowed
        ));
        assert!(!same_site(
            &headers(&[("sec-fetch-site", "cross-site")]),
            &allowed
        ));
        assert!(!same_site(&headers(&[]), &allowed));
    }
}
