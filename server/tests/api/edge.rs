//! The edge a browser meets: security headers on every answer, and state-changing requests
//! refused unless they come from the site's own pages.

use serde_json::json;
use server::app::metrics_router;

use crate::helpers::{SITE, TestApp, spawn_app, spawn_with};

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let app = spawn_app().await;
    let c = app.client();
    for path in [
        "/",
        "/api/tables",
        "/healthz",
        "/api/nothing-here",
        "/some/client/route",
    ] {
        let r = app.get(&c, path).await;
        let h = r.headers();
        let csp = h
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("no CSP on {path}"));
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval'"),
            "{path}: {csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("ws://127.0.0.1:8080"), "{path}: {csp}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
        assert!(
            h.get("strict-transport-security").is_none(),
            "no HSTS over plain HTTP"
        );
    }
}

#[tokio::test]
async fn personal_answers_are_never_cached() {
    let app = spawn_app().await;
    let c = app.register("ann").await;
    for path in ["/api/me", "/api/ledger", "/api/hands"] {
        let r = app.get(&c, path).await;
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["cache-control"], "no-store", "{path}");
    }
}

#[tokio::test]
async fn hsts_is_sent_when_the_site_is_served_over_https() {
    let app = spawn_with(|c| c.secure_cookies = true).await;
    let r = app.get(&app.client(), "/healthz").await;
    let hsts = r.headers()["strict-transport-security"].to_str().unwrap();
    assert!(hsts.starts_with("max-age=31536000"), "{hsts}");
}

#[tokio::test]
async fn every_post_from_a_foreign_origin_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let cookie = crate::ws::register(&app, "ann").await;
    let plain = reqwest::Client::new();
    let routes = [
        (
            "/api/register",
            json!({"username": "mallory", "password": "correct horse"}),
        ),
        (
            "/api/login",
            json!({"username": "ann", "password": "correct horse"}),
        ),
        ("/api/logout", json!({})),
        ("/api/refill", json!({})),
        ("/api/logout-everywhere", json!({})),
        (
            "/api/password",
            json!({"current": "correct horse", "new": "mallory was here"}),
        ),
    ];
    for (path, body) in &routes {
        for origin in [Some("https://evil.example"), None] {
            let mut req = plain
                .post(app.url(path))
                .header("cookie", &cookie)
                .json(body);
            if let Some(o) = origin {
                req = req.header("origin", o);
            }
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), 403, "{path} from {origin:?}");
            let err: serde_json::Value = r.json().await.unwrap();
            assert_eq!(err["error"], "forbidden", "{path}");
        }
        // Without Origin, a browser's own same-origin fetch still says so.
        let r = plain
            .post(app.url(path))
            .header("sec-fetch-site", "cross-site")
            .json(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{path} cross-site");
    }
    // Nothing happened: no account was made and ann is still logged in.
    let r = app.get_as(&cookie, "/api/me").await;
    assert_eq!(r.status(), 200, "the foreign logout did not log ann out");
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM accounts")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(n, 1);
    // The same requests from the site itself pass.
    let r = plain
        .post(app.url("/api/logout"))
        .header("cookie", &cookie)
        .header("origin", SITE)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let r = plain
        .post(app.url("/api/register"))
        .header("sec-fetch-site", "same-origin")
        .json(&json!({"username": "bob", "password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
}

/// `/metrics` as the operator reads it, from its own listener.
pub async fn metrics(app: &TestApp) -> String {
    let state = app.state.clone().expect("an in-process server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, metrics_router(state)).await;
    });
    reqwest::get(format!("http://{addr}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test]
async fn metrics_are_not_served_to_the_public() {
    let app = spawn_app().await;
    let r = app.get(&app.client(), "/metrics").await;
    assert_eq!(r.status(), 404);
    assert!(metrics(&app).await.contains("scoop_tables "));
}

#[tokio::test]
async fn an_oversized_body_is_refused_with_413() {
    let app = spawn_app().await;
    let name = "x".repeat(20 * 1024);
    let r = app
        .post(
            &app.client(),
            "/api/register",
            &json!({"username": name, "password": "correct horse"}),
        )
        .await;
    assert_eq!(r.status(), 413);
    let err: serde_json::Value = r.json().await.unwrap();
    assert_eq!(err["error"], "too_large");
}

#[tokio::test]
async fn health_says_the_database_is_down_at_once_while_it_is() {
    let (app, proxy) = crate::helpers::spawn_behind_proxy(&[], |_| {}).await;
    proxy.cut();
    let asked = std::time::Instant::now();
    let r = app.get(&app.client(), "/healthz").await;
    assert_eq!(r.status(), 503);
    // The check gives the database one second; the pool's own wait was 30 s before.
    assert!(
        asked.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    proxy.restore();
    let mut status = 503;
    for _ in 0..50 {
        status = app.get(&app.client(), "/healthz").await.status().as_u16();
        if status == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status, 200, "healthy again once the database is back");
}

/// Three failed logins on `name` claiming to come from `from`, then one more attempt: its status.
async fn fourth_login_from(app: &TestApp, from: &str, name: &str) -> u16 {
    let c = crate::helpers::plain_browser();
    let mut last = 0;
    for _ in 0..4 {
        last = c
            .post(app.url("/api/login"))
            .header("x-forwarded-for", from)
            .json(&json!({"username": name, "password": "bad password"}))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
    }
    last
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_client_address_has_its_own_limits() {
    let app = spawn_with(|c| c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
    assert_eq!(fourth_login_from(&app, "198.51.100.1", "lena").await, 429);
    // Another client through the same proxy is not slowed by the first one's failures.
    let c = crate::helpers::plain_browser();
    let r = c
        .post(app.url("/api/login"))
        .header("x-forwarded-for", "198.51.100.2")
        .json(&json!({"username": "lena", "password": "bad password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn a_forwarded_address_from_an_untrusted_peer_is_ignored() {
    let app = spawn_app().await;
    assert_eq!(fourth_login_from(&app, "198.51.100.1", "mona").await, 429);
    // Claiming another address changes nothing: the connection's address counts.
    let c = crate::helpers::plain_browser();
    let r = c
        .post(app.url("/api/login"))
        .header("x-forwarded-for", "198.51.100.2")
        .json(&json!({"username": "mona", "password": "bad password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
}

#[tokio::test]
async fn the_bundle_is_sent_precompressed_and_hashed_files_are_cached_for_good() {
    let dir = std::env::temp_dir().join(format!("scoop-web-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let asset = "web-0123456789abcdef.js";
    for (name, body) in [
        ("index.html", "<html>index</html>"),
        ("index.html.br", "brotli index"),
        ("index.html.gz", "gzip index"),
        (asset, "console.log(1)"),
        (&format!("{asset}.br") as &str, "brotli js"),
        (&format!("{asset}.gz") as &str, "gzip js"),
    ] {
        std::fs::write(dir.join(name), body).unwrap();
    }
    let web_dir = dir.to_string_lossy().to_string();
    let app = spawn_with(move |c| c.web_dir = web_dir).await;
    let c = reqwest::Client::new();
    let get = |path: &str, encoding: &'static str| {
        c.get(app.url(path))
            .header("accept-encoding", encoding)
            .send()
    };
    let r = get(&format!("/{asset}"), "gzip, deflate, br")
        .await
        .unwrap();
    assert_eq!(r.headers()["content-encoding"], "br");
    assert_eq!(
        r.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert_eq!(r.text().await.unwrap(), "brotli js");
    let r = get(&format!("/{asset}"), "gzip").await.unwrap();
    assert_eq!(r.headers()["content-encoding"], "gzip");
    let r = get(&format!("/{asset}"), "identity").await.unwrap();
    assert!(r.headers().get("content-encoding").is_none());
    assert_eq!(r.text().await.unwrap(), "console.log(1)");
    // The page itself, at / and at any client route, is always revalidated.
    for path in ["/", "/some/client/route"] {
        let r = get(path, "br").await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["cache-control"], "no-cache", "{path}");
        assert_eq!(r.text().await.unwrap(), "brotli index", "{path}");
    }
    // The page names its icon; a browser that asks for the conventional name gets a 404,
    // not the page served as an image.
    let r = get("/favicon.ico", "br").await.unwrap();
    assert_eq!(r.status(), 404);
    let _ = std::fs::remove_dir_all(&dir);
}
