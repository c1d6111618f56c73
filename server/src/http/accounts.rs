//! Register, log in, log out, who am I.

use std::time::Instant;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;
use shared::api::{Me, Session};
use uuid::Uuid;

use crate::app::AppState;
use crate::chips;
use crate::client_ip::ClientIp;
use crate::error::{ApiError, ApiJson};
use crate::session::{self, AuthUser};
use crate::throttle::Client;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/register", post(register))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/logout-everywhere", post(logout_everywhere))
        .route("/api/password", post(change_password))
        .route("/api/me", get(me))
        .route("/api/session", get(session_of))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    username: String,
    password: String,
}

pub const USERNAME_CHARS: std::ops::RangeInclusive<usize> = 3..=20;
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 10..=128;

/// Usernames are 3-20 letters, digits, `_` or `-`, starting with a letter or digit.
pub fn check_username(name: &str) -> Result<(), ApiError> {
    let len = name.chars().count();
    if !USERNAME_CHARS.contains(&len) {
        return Err(ApiError::BadRequest(format!(
            "a username has {} to {} characters",
            USERNAME_CHARS.start(),
            USERNAME_CHARS.end()
        )));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || !name.starts_with(|c: char| c.is_ascii_alphanumeric())
    {
        return Err(ApiError::BadRequest(
            "a username uses letters, digits, _ and - and starts with a letter or digit".into(),
        ));
    }
    // House bots' names start with "bot-": nobody may pass for one.
    if name.to_ascii_lowercase().starts_with("bot-") {
        return Err(ApiError::BadRequest(
            "usernames starting with bot- are reserved".into(),
        ));
    }
    Ok(())
}

/// Passwords have 10 to 128 characters, are not the username, not blank, and not one of the
/// 10,000 most common.
pub fn check_password(password: &str, username: &str) -> Result<(), ApiError> {
    let len = password.chars().count();
    if !PASSWORD_CHARS.contains(&len) {
        return Err(ApiError::BadRequest(format!(
            "a password has {} to {} characters",
            PASSWORD_CHARS.start(),
            PASSWORD_CHARS.end()
        )));
    }
    if password.trim().is_empty() || password.trim().eq_ignore_ascii_case(username.trim()) {
        return Err(ApiError::BadRequest(
            "a password cannot be blank or your username".into(),
        ));
    }
    if crate::password::is_common(password) {
        return Err(ApiError::BadRequest(
            "that password is one of the 10,000 most common; choose another".into(),
        ));
    }
    Ok(())
}

/// Refuses an attempt at `name`'s password that the login throttle says must wait.
fn throttled(state: &AppState, name: &str, client: &Client) -> Result<(), ApiError> {
    state
        .login_throttle
        .check(name, client, Instant::now())
        .map_err(|wait| {
            let secs = u64::try_from(wait.as_millis().div_ceil(1000)).unwrap_or(u64::MAX);
            ApiError::SlowDown(secs.max(1))
        })
}

fn session_response(
    state: &AppState,
    token: &str,
    status: StatusCode,
    body: serde_json::Value,
    extra: HeaderMap,
) -> Response {
    let max_age = u64::from(state.config.session_idle_minutes) * 60;
    // The session cookie first: clients that read one `Set-Cookie` read that one.
    let mut headers = HeaderMap::new();
    session::set_cookie(&mut headers, token, max_age, state.config.secure_cookies);
    for (name, value) in &extra {
        headers.append(name, value.clone());
    }
    (status, headers, Json(body)).into_response()
}

async fn register(
    State(state): State<AppState>,
    ClientIp(client_ip): ClientIp,
    headers: HeaderMap,
    ApiJson(body): ApiJson<Credentials>,
) -> Result<impl IntoResponse, ApiError> {
    if !state.auth_limiter.allow(&client_ip) {
        return Err(ApiError::RateLimited);
    }
    check_username(&body.username)?;
    check_password(&body.password, &body.username)?;
    let taken = sqlx::query("SELECT 1 FROM accounts WHERE username_key = lower($1)")
        .bind(&body.username)
        .fetch_optional(&state.pool)
        .await?;
    if taken.is_some() {
        return Err(ApiError::UsernameTaken);
    }
    let hash = state.hasher.hash(body.password).await?;
    let id = Uuid::new_v4();
    let mut tx = state.pool.begin().await?;
    match chips::create_account(&mut tx, id, &body.username, &hash, state.config.grant).await {
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("accounts_username_key_key") => {
            return Err(ApiError::UsernameTaken);
        }
        other => other?,
    }
    tx.commit().await?;
    let token = session::create(&state.pool, id).await?;
    tracing::info!(account = %id, username = %body.username, "registered");
    let mut answer = HeaderMap::new();
    session::remember_device(
        &state.pool,
        &headers,
        &mut answer,
        id,
        state.config.secure_cookies,
    )
    .await?;
    Ok(session_response(
        &state,
        &token,
        StatusCode::CREATED,
        json!({"id": id, "username": body.username, "balance": state.config.grant}),
        answer,
    ))
}

async fn login(
    State(state): State<AppState>,
    ClientIp(client_ip): ClientIp,
    headers: HeaderMap,
    ApiJson(body): ApiJson<Credentials>,
) -> Result<impl IntoResponse, ApiError> {
    if !state.auth_limiter.allow(&client_ip) {
        return Err(ApiError::RateLimited);
    }
    // Malformed names cannot exist; treat them like unknown ones (same error, same cost).
    let row = if check_username(&body.username).is_ok() && body.password.len() <= 1024 {
        sqlx::query_as::<_, LoginRow>(
            "SELECT id, username, password_hash FROM accounts WHERE username_key = lower($1)",
        )
        .bind(&body.username)
        .fetch_optional(&state.pool)
        .await?
    } else {
        None
    };
    let device = match &row {
        Some(r) => session::known_device(&state.pool, &headers, r.id).await?,
        None => None,
    };
    let client = match device {
        Some(hash) => Client::Device(hash),
        None => Client::Address(client_ip),
    };
    throttled(&state, &body.username, &client)?;
    let password = body
        .password
        .chars()
        .take(PASSWORD_CHARS.end() + 1)
        .collect::<String>();
    let ok = state
        .hasher
        .verify(password, row.as_ref().map(|r| r.password_hash.clone()))
        .await?;
    // Unknown names and wrong passwords count, and answer, the same.
    let Some(LoginRow { id, username, .. }) = row.filter(|_| ok) else {
        state
            .login_throttle
            .failed(&body.username, &client, Instant::now());
        return Err(ApiError::InvalidCredentials);
    };
    state.login_throttle.succeeded(&body.username, &client);
    // Rotation: a login always starts a new session, and ends the one it replaces.
    if let Some(old) = session::token_from(&headers) {
        session::revoke(&state.pool, &old).await?;
    }
    let token = session::create(&state.pool, id).await?;
    let balance: i64 = sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1")
        .bind(id)
        .fetch_one(&state.pool)
        .await?;
    let mut answer = HeaderMap::new();
    session::remember_device(
        &state.pool,
        &headers,
        &mut answer,
        id,
        state.config.secure_cookies,
    )
    .await?;
    Ok(session_response(
        &state,
        &token,
        StatusCode::OK,
        json!({"id": id, "username": username, "balance": balance}),
        answer,
    ))
}

async fn logout(
    State(state): State<AppState>,
    user: AuthUser,
) -> Result<impl IntoResponse, ApiError> {
    session::revoke(&state.pool, &user.token).await?;
    // Nobody listening is fine: the sockets of this account (if any) close on it.
    let _ = state.logouts.send(user.id);
    let mut headers = HeaderMap::new();
    session::clear_cookie(&mut headers, state.config.secure_cookies);
    Ok((StatusCode::NO_CONTENT, headers))
}

/// Ends every session of the account, this one included, and closes its sockets.
async fn logout_everywhere(
    State(state): State<AppState>,
    user: AuthUser,
) -> Result<impl IntoResponse, ApiError> {
    let ended = session::revoke_all(&state.pool, user.id, None).await?;
    let _ = state.logouts.send(user.id);
    tracing::info!(account = %user.id, sessions = ended, "logged out everywhere");
    let mut headers = HeaderMap::new();
    session::clear_cookie(&mut headers, state.config.secure_cookies);
    Ok((StatusCode::NO_CONTENT, headers))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    current: String,
    new: String,
}

/// A new password, given the current one; every other session of the account ends.
async fn change_password(
    State(state): State<AppState>,
    ClientIp(client_ip): ClientIp,
    user: AuthUser,
    ApiJson(body): ApiJson<PasswordChange>,
) -> Result<impl IntoResponse, ApiError> {
    // Guessing the current password here is throttled like a login.
    let client = Client::Address(client_ip);
    throttled(&state, &user.username, &client)?;
    let hash: String = sqlx::query_scalar("SELECT password_hash FROM accounts WHERE id = $1")
        .bind(user.id)
        .fetch_one(&state.pool)
        .await?;
    let current: String = body
        .current
        .chars()
        .take(PASSWORD_CHARS.end() + 1)
        .collect();
    if !state.hasher.verify(current, Some(hash)).await? {
        state
            .login_throttle
            .failed(&user.username, &client, Instant::now());
        return Err(ApiError::InvalidCredentials);
    }
    check_password(&body.new, &user.username)?;
    let new_hash = state.hasher.hash(body.new).await?;
    sqlx::query("UPDATE accounts SET password_hash = $2 WHERE id = $1")
        .bind(user.id)
        .bind(new_hash)
        .execute(&state.pool)
        .await?;
    let ended = session::revoke_all(&state.pool, user.id, Some(&user.token)).await?;
    tracing::info!(account = %user.id, other_sessions_ended = ended, "password changed");
    Ok(StatusCode::NO_CONTENT)
}

async fn me(State(state): State<AppState>, user: AuthUser) -> Result<Json<Me>, ApiError> {
    Ok(Json(account(&state, user).await?))
}

async fn session_of(
    State(state): State<AppState>,
    user: Option<AuthUser>,
) -> Result<Json<Session>, ApiError> {
    let user = match user {
        Some(user) => Some(account(&state, user).await?),
        None => None,
    };
    Ok(Json(Session { user }))
}

#[derive(sqlx::FromRow)]
struct LoginRow {
    id: Uuid,
    username: String,
    password_hash: String,
}

#[derive(sqlx::FromRow)]
struct MeRow {
    balance: i64,
    on_tables: i64,
    refill_due: bool,
}

async fn account(state: &AppState, user: AuthUser) -> Result<Me, ApiError> {
    let MeRow {
        balance,
        on_tables,
        refill_due,
    } = sqlx::query_as(
        "SELECT a.balance, coalesce((SELECT sum(stack) FROM table_seats WHERE account_id = a.id), 0)::bigint \
         AS on_tables, \
         (a.last_refill_at IS NULL OR a.last_refill_at <= now() - make_interval(hours => $2)) \
         AS refill_due FROM accounts a WHERE a.id = $1",
    )
    .bind(user.id)
    .bind(state.config.refill_hours as i32)
    .fetch_one(&state.pool)
    .await?;
    let below = i64::try_from(state.config.refill_below).unwrap_or(i64::MAX);
    Ok(Me {
        id: user.id.to_string(),
        username: user.username,
        balance,
        on_tables,
        can_refill: refill_due && balance + on_tables < below,
    })
}
