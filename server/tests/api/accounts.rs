use reqwest::header::SET_COOKIE;
use serde_json::{Value, json};
use shared::protocol::{ClientMessage, ServerMessage};
use sqlx::Row;

use crate::helpers::{TestApp, spawn_app, spawn_with};

async fn account_count(pool: &sqlx::PgPool) -> i64 {
    sqlx::query("SELECT count(*) FROM accounts")
        .fetch_one(pool)
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn register_logs_in_and_me_shows_the_play_chip_grant() {
    let app = spawn_with(|c| c.grant = 5_000).await;
    let c = app.register("Alice").await;
    let me: Value = app.get(&c, "/api/me").await.json().await.unwrap();
    assert_eq!(me["username"], "Alice");
    assert_eq!(me["balance"], 5_000);
    assert_eq!(me["on_tables"], 0);
    app.assert_balanced().await;
}

#[tokio::test]
async fn session_names_the_logged_in_account_and_answers_a_visitor_without_refusing() {
    let app = spawn_app().await;
    let visitor: Value = app
        .get(&app.client(), "/api/session")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(visitor, json!({"user": null}));
    for cookie in ["scoop_session=garbage", "scoop_session=", "other=1"] {
        let r = app.get_as(cookie, "/api/session").await;
        assert_eq!(r.status(), 200, "{cookie}");
        assert_eq!(r.json::<Value>().await.unwrap(), json!({"user": null}));
    }

    let c = app.register("Sofia").await;
    let session: Value = app.get(&c, "/api/session").await.json().await.unwrap();
    let me: Value = app.get(&c, "/api/me").await.json().await.unwrap();
    assert_eq!(session["user"], me);
    assert_eq!(me["username"], "Sofia");

    // A session that has ended is a visitor, even when the browser still sends its cookie.
    let cookie = crate::ws::register(&app, "Marco").await;
    let r = app.logout_as(&cookie).await;
    assert_eq!(r.status(), 204);
    let r = app.get_as(&cookie, "/api/session").await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"user": null}));
}

#[tokio::test]
async fn bad_registrations_get_a_clear_400_and_write_nothing() {
    let app = spawn_app().await;
    let c = app.client();
    let cases = [
        json!({"username": "ab", "password": "correct horse"}),
        json!({"username": "a".repeat(21), "password": "correct horse"}),
        json!({"username": "bob'; DROP TABLE accounts; --", "password": "correct horse"}),
        json!({"username": "_bob", "password": "correct horse"}),
        json!({"username": "bob", "password": "short"}),
        json!({"username": "bob", "password": "x".repeat(129)}),
        json!({"username": "bob"}),
        json!({"username": "bob", "password": "correct horse", "admin": true}),
        json!({"username": 7, "password": "correct horse"}),
    ];
    for body in cases {
        let r = app.post(&c, "/api/register", &body).await;
        assert_eq!(r.status(), 400, "{body}");
        let err: Value = r.json().await.unwrap();
        assert_eq!(err["error"], "bad_request", "{body}");
        assert!(!err["message"].as_str().unwrap().is_empty());
    }
    let r = c
        .post(app.url("/api/register"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(account_count(&app.pool).await, 0);
}

#[tokio::test]
async fn usernames_are_unique_case_insensitively() {
    let app = spawn_app().await;
    app.register("Carol").await;
    let r = app
        .post(
            &app.client(),
            "/api/register",
            &json!({"username": "cAROL", "password": "other password"}),
        )
        .await;
    assert_eq!(r.status(), 409);
    let err: Value = r.json().await.unwrap();
    assert_eq!(err["error"], "username_taken");
    assert_eq!(account_count(&app.pool).await, 1);
}

#[tokio::test]
async fn login_works_and_unknown_user_and_wrong_password_look_the_same() {
    let app = spawn_app().await;
    app.register("dave").await;
    let c = app.client();
    let ok = app
        .post(
            &c,
            "/api/login",
            &json!({"username": "DAVE", "password": "correct horse"}),
        )
        .await;
    assert_eq!(ok.status(), 200);
    let wrong = app
        .post(
            &c,
            "/api/login",
            &json!({"username": "dave", "password": "wrong horse"}),
        )
        .await;
    let unknown = app
        .post(
            &c,
            "/api/login",
            &json!({"username": "nobody", "password": "wrong horse"}),
        )
        .await;
    assert_eq!(wrong.status(), 401);
    assert_eq!(unknown.status(), 401);
    assert_eq!(wrong.text().await.unwrap(), unknown.text().await.unwrap());
}

/// A login attempt from this client, as a browser on the site sends it.
async fn try_login(
    app: &TestApp,
    c: &reqwest::Client,
    name: &str,
    password: &str,
) -> reqwest::Response {
    app.post(
        c,
        "/api/login",
        &json!({"username": name, "password": password}),
    )
    .await
}

#[tokio::test]
async fn failed_logins_slow_that_client_down_but_never_lock_the_owner_out() {
    let app = spawn_app().await;
    let owner = app.register("erin").await;
    // An attacker guesses erin's password from their own browser (one address on loopback,
    // the owner shares it; the owner's device cookie is what lets them through).
    let attacker = app.client();
    for _ in 0..3 {
        assert_eq!(
            try_login(&app, &attacker, "erin", "bad password")
                .await
                .status(),
            401
        );
    }
    let slowed = try_login(&app, &attacker, "erin", "correct horse").await;
    assert_eq!(slowed.status(), 429, "the pair waits before its next try");
    let err: Value = slowed.json().await.unwrap();
    assert_eq!(err["error"], "login_throttled");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("try again in 1 s"),
        "{err}"
    );
    // The wait doubles with each failure after it.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(
        try_login(&app, &attacker, "erin", "bad password")
            .await
            .status(),
        401
    );
    let again = try_login(&app, &attacker, "erin", "correct horse").await;
    let err: Value = again.json().await.unwrap();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("try again in 2 s"),
        "{err}"
    );
    // The owner logs in all the while: the account is not locked.
    let r = app.post(&owner, "/api/logout", &json!({})).await;
    assert!(r.status().is_success());
    assert_eq!(
        try_login(&app, &owner, "erin", "correct horse")
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn unknown_names_are_throttled_and_answered_exactly_like_real_ones() {
    let app = spawn_app().await;
    app.register("erin").await;
    let c = app.client();
    let mut answers = Vec::new();
    for name in ["erin", "nobody-here"] {
        let mut statuses = Vec::new();
        let mut bodies = Vec::new();
        for _ in 0..4 {
            let r = try_login(&app, &c, name, "bad password").await;
            statuses.push(r.status().as_u16());
            bodies.push(r.text().await.unwrap());
        }
        answers.push((statuses, bodies));
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0].0, vec![401, 401, 401, 429]);
}

#[tokio::test]
async fn weak_passwords_are_refused_at_registration() {
    let app = spawn_app().await;
    let c = app.client();
    for (name, password, why) in [
        ("gina", "short pw", "10 to 128"),
        ("gina", "1234567890", "most common"),
        ("gina", "Password123", "most common"),
        ("gina_the_great", "GINA_THE_GREAT", "username"),
        ("gina", "          ", "blank"),
    ] {
        let r = app
            .post(
                &c,
                "/api/register",
                &json!({"username": name, "password": password}),
            )
            .await;
        assert_eq!(r.status(), 400, "{password:?}");
        let err: Value = r.json().await.unwrap();
        assert!(
            err["message"].as_str().unwrap().contains(why),
            "{password:?}: {err}"
        );
    }
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM accounts")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
}

#[tokio::test]
async fn logout_revokes_the_session() {
    let app = spawn_app().await;
    let c = app.register("gina").await;
    assert_eq!(app.get(&c, "/api/me").await.status(), 200);
    let token: String = sqlx::query("SELECT count(*)::text FROM sessions")
        .fetch_one(&app.pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(token, "1");
    assert_eq!(app.post(&c, "/api/logout", &json!({})).await.status(), 204);
    assert_eq!(app.get(&c, "/api/me").await.status(), 401);
    let left: i64 = sqlx::query("SELECT count(*) FROM sessions")
        .fetch_one(&app.pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
}

#[tokio::test]
async fn login_rotates_the_session_token() {
    let app = spawn_app().await;
    let c = app.client();
    let r = app
        .post(
            &c,
            "/api/register",
            &json!({"username": "hank", "password": "correct horse"}),
        )
        .await;
    let first = cookie_value(r.headers().get(SET_COOKIE).unwrap().to_str().unwrap());
    let r = app
        .post(
            &c,
            "/api/login",
            &json!({"username": "hank", "password": "correct horse"}),
        )
        .await;
    let second = cookie_value(r.headers().get(SET_COOKIE).unwrap().to_str().unwrap());
    assert_ne!(first, second);
    // The old token no longer opens the account.
    let plain = reqwest::Client::new();
    let old = plain
        .get(app.url("/api/me"))
        .header("cookie", format!("scoop_session={first}"))
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), 401);
    let new = plain
        .get(app.url("/api/me"))
        .header("cookie", format!("scoop_session={second}"))
        .send()
        .await
        .unwrap();
    assert_eq!(new.status(), 200);
}

fn cookie_value(set_cookie: &str) -> String {
    set_cookie
        .split(';')
        .next()
        .and_then(|kv| kv.split_once('='))
        .map(|(_, v)| v.to_string())
        .unwrap()
}

#[tokio::test]
async fn sessions_expire_after_inactivity() {
    let app = spawn_with(|c| c.session_idle_minutes = 30).await;
    let c = app.register("ivy").await;
    sqlx::query("UPDATE sessions SET last_seen_at = now() - interval '31 minutes'")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(app.get(&c, "/api/me").await.status(), 401);
}

#[tokio::test]
async fn session_cookie_is_http_only_same_site_and_secure_when_configured() {
    let app = spawn_app().await;
    let r = app
        .post(
            &app.client(),
            "/api/register",
            &json!({"username": "jack", "password": "correct horse"}),
        )
        .await;
    let cookie = r
        .headers()
        .get(SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");
    assert!(!cookie.contains("Secure"), "{cookie}");
    // 256 bits of randomness, base64url: 43 characters.
    assert_eq!(cookie_value(&cookie).len(), 43);

    let app = spawn_with(|c| c.secure_cookies = true).await;
    let r = app
        .post(
            &app.client(),
            "/api/register",
            &json!({"username": "jack", "password": "correct horse"}),
        )
        .await;
    let cookie = r
        .headers()
        .get(SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(cookie.contains("; Secure"), "{cookie}");
}

#[tokio::test]
async fn registration_and_login_are_rate_limited_per_ip() {
    let app = spawn_with(|c| c.auth_per_minute = 3).await;
    let c = app.client();
    for i in 0..3 {
        let r = app
            .post(
                &c,
                "/api/register",
                &json!({"username": format!("user{i}"), "password": "correct horse"}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    let r = app
        .post(
            &c,
            "/api/login",
            &json!({"username": "user0", "password": "correct horse"}),
        )
        .await;
    assert_eq!(r.status(), 429);
    let err: Value = r.json().await.unwrap();
    assert_eq!(err["error"], "rate_limited");
}

#[tokio::test]
async fn healthz_answers_when_the_database_does() {
    let app = spawn_app().await;
    let r = app.get(&app.client(), "/healthz").await;
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn me_without_a_session_is_401_json() {
    let app = spawn_app().await;
    let r = app.get(&app.client(), "/api/me").await;
    assert_eq!(r.status(), 401);
    let err: Value = r.json().await.unwrap();
    assert_eq!(err["error"], "not_logged_in");
}

#[tokio::test]
async fn a_session_ends_thirty_days_after_its_login_however_much_it_is_used() {
    let app = spawn_app().await;
    let c = app.register("hana").await;
    assert_eq!(app.get(&c, "/api/me").await.status(), 200);
    sqlx::query("UPDATE sessions SET created_at = now() - interval '30 days 1 minute'")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(app.get(&c, "/api/me").await.status(), 401);
}

#[tokio::test]
async fn logging_out_everywhere_ends_every_session_of_the_account() {
    let app = spawn_app().await;
    let laptop = app.register("ivan").await;
    let phone = app.client();
    assert_eq!(
        try_login(&app, &phone, "ivan", "correct horse")
            .await
            .status(),
        200
    );
    let other = app.register("jade").await;
    let r = app
        .post(&laptop, "/api/logout-everywhere", &json!({}))
        .await;
    assert_eq!(r.status(), 204);
    assert_eq!(app.get(&laptop, "/api/me").await.status(), 401);
    assert_eq!(app.get(&phone, "/api/me").await.status(), 401);
    assert_eq!(
        app.get(&other, "/api/me").await.status(),
        200,
        "other accounts keep theirs"
    );
}

#[tokio::test]
async fn a_password_change_needs_the_current_password_and_ends_the_other_sessions() {
    let app = spawn_app().await;
    let laptop = app.register("kai").await;
    let phone = app.client();
    assert_eq!(
        try_login(&app, &phone, "kai", "correct horse")
            .await
            .status(),
        200
    );
    let change = |current: &str, new: &str| json!({"current": current, "new": new});
    let r = app
        .post(
            &laptop,
            "/api/password",
            &change("wrong horse", "a brand new secret"),
        )
        .await;
    assert_eq!(r.status(), 401);
    let r = app
        .post(
            &laptop,
            "/api/password",
            &change("correct horse", "password1"),
        )
        .await;
    assert_eq!(r.status(), 400, "the new one follows the same rules");
    assert_eq!(
        app.get(&phone, "/api/me").await.status(),
        200,
        "refusals change nothing"
    );
    let r = app
        .post(
            &laptop,
            "/api/password",
            &change("correct horse", "a brand new secret"),
        )
        .await;
    assert_eq!(r.status(), 204);
    assert_eq!(
        app.get(&laptop, "/api/me").await.status(),
        200,
        "this session stays"
    );
    assert_eq!(
        app.get(&phone, "/api/me").await.status(),
        401,
        "the others end"
    );
    let fresh = app.client();
    assert_eq!(
        try_login(&app, &fresh, "kai", "correct horse")
            .await
            .status(),
        401
    );
    assert_eq!(
        try_login(&app, &fresh, "kai", "a brand new secret")
            .await
            .status(),
        200
    );
}

/// Seconds since the only session was last seen.
async fn seconds_since_seen(app: &TestApp) -> f64 {
    sqlx::query_scalar("SELECT extract(epoch FROM now() - last_seen_at)::float8 FROM sessions")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn set_last_seen(app: &TestApp, minutes_ago: i32) {
    sqlx::query("UPDATE sessions SET last_seen_at = now() - make_interval(mins => $1)")
        .bind(minutes_ago)
        .execute(&app.pool)
        .await
        .unwrap();
}

/// Use keeps a session alive, but a request writes `last_seen_at` only once it is a few
/// minutes old: requests are reads, not commits.
#[tokio::test]
async fn requests_touch_a_session_only_when_it_was_last_seen_minutes_ago() {
    let app = spawn_with(|c| c.session_idle_minutes = 30).await;
    let c = app.register("uma").await;
    set_last_seen(&app, 2).await;
    assert_eq!(app.get(&c, "/api/me").await.status(), 200);
    let seen = seconds_since_seen(&app).await;
    assert!(
        (110.0..200.0).contains(&seen),
        "a recent session is left alone: {seen} s"
    );

    set_last_seen(&app, 6).await;
    assert_eq!(app.get(&c, "/api/me").await.status(), 200);
    let seen = seconds_since_seen(&app).await;
    assert!(seen < 60.0, "an older one is touched: {seen} s");
}

/// The sessions of open sockets are checked together by one statement: a socket held open
/// keeps its session alive, and a session ended behind the server's back (expired, deleted
/// by another process) closes its socket.
#[tokio::test]
async fn socket_sessions_are_kept_alive_and_ended_by_the_batched_check() {
    let app = spawn_with(|c| c.session_idle_minutes = 30).await;
    let state = app.state.clone().expect("in-process server");
    let lifetime = state.config.session_lifetime();
    let cookie = crate::ws::register(&app, "vic").await;
    let mut socket = crate::ws::connect(&app, Some(&cookie)).await;
    socket.send(&ClientMessage::Ping).await;
    socket.until(|m| matches!(m, ServerMessage::Pong)).await;
    assert_eq!(state.sessions.sockets(), 1);

    set_last_seen(&app, 20).await;
    assert_eq!(
        state.sessions.check(&state.pool, lifetime).await.unwrap(),
        0
    );
    let seen = seconds_since_seen(&app).await;
    assert!(
        seen < 60.0,
        "an open socket keeps its session alive: {seen} s"
    );

    sqlx::query("DELETE FROM sessions")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        state.sessions.check(&state.pool, lifetime).await.unwrap(),
        1
    );
    socket
        .until(|m| matches!(m, ServerMessage::SessionEnded))
        .await;
    assert!(socket.recv().await.is_none(), "the socket closes");
    for _ in 0..50 {
        if state.sessions.sockets() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        state.sessions.sockets(),
        0,
        "a closed socket leaves the keeper"
    );
}
