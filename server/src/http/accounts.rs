//! Register, log in, log out, who am I.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
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
use crate::error::{ApiError, ApiJson};
use crate::session::{self, AuthUser};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/register", post(register))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
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
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=128;

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

pub fn check_password(password: &str) -> Result<(), ApiError> {
    let len = password.chars().count();
    if !PASSWORD_CHARS.contains(&len) {
        return Err(ApiError::BadRequest(format!(
            "a password has {} to {} characters",
            PASSWORD_CHARS.start(),
            PASSWORD_CHARS.end()
        )));
    }
    Ok(())
}

fn session_response(
    state: &AppState,
    token: &str,
    status: StatusCode,
    body: serde_json::Value,
) -> Response {
    let mut headers = HeaderMap::new();
    let max_age = u64::from(state.config.session_idle_minutes) * 60;
    session::set_cookie(&mut headers, token, max_age, state.config.secure_cookies);
    (status, headers, Json(body)).into_response()
}

async fn register(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    ApiJson(body): ApiJson<Credentials>,
) -> Result<impl IntoResponse, ApiError> {
    if !state.auth_limiter.allow(&peer.ip()) {
        return Err(ApiError::RateLimited);
    }
    check_username(&body.username)?;
    check_password(&body.password)?;
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
    Ok(session_response(
        &state,
        &token,
        StatusCode::CREATED,
        json!({"id": id, "username": body.username, "balance": state.config.grant}),
    ))
}

async fn login(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<Credentials>,
) -> Result<impl IntoResponse, ApiError> {
    if !state.auth_limiter.allow(&peer.ip()) {
        return Err(ApiError::RateLimited);
    }
    // Malformed names cannot exist; treat them like unknown ones (same error, same cost).
    let row = if check_username(&body.username).is_ok() && body.password.len() <= 1024 {
        sqlx::query_as::<_, LoginRow>(
            "SELECT id, username, password_hash, \
             CASE WHEN locked_until > now() \
                  THEN ceil(extract(epoch FROM locked_until - now()) / 60)::bigint END \
             AS locked_minutes \
             FROM accounts WHERE username_key = lower($1)",
        )
        .bind(&body.username)
        .fetch_optional(&state.pool)
        .await?
    } else {
        None
    };
    let account = row.map(|r| (r.id, r.username, r.password_hash, r.locked_minutes));
    let password = body
        .password
        .chars()
        .take(PASSWORD_CHARS.end() + 1)
        .collect::<String>();
    let ok = state
        .hasher
        .verify(password, account.as_ref().map(|a| a.2.clone()))
        .await?;
    let Some((id, username, _, locked_minutes)) = account else {
        return Err(ApiError::InvalidCredentials);
    };
    if let Some(minutes) = locked_minutes {
        return Err(ApiError::Locked(minutes.max(1)));
    }
    if !ok {
        record_failure(&state, id).await?;
        return Err(ApiError::InvalidCredentials);
    }
    sqlx::query(
        "UPDATE accounts SET failed_logins = 0, first_failed_at = NULL, locked_until = NULL \
         WHERE id = $1",
    )
    .bind(id)
    .execute(&state.pool)
    .await?;
    // Rotation: a login always starts a new session, and ends the one it replaces.
    if let Some(old) = session::token_from(&headers) {
        session::revoke(&state.pool, &old).await?;
    }
    let token = session::create(&state.pool, id).await?;
    let balance: i64 = sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1")
        .bind(id)
        .fetch_one(&state.pool)
        .await?;
    Ok(session_response(
        &state,
        &token,
        StatusCode::OK,
        json!({"id": id, "username": username, "balance": balance}),
    ))
}

/// Counts a failed login; the configured number within the window locks the account.
async fn record_failure(state: &AppState, id: Uuid) -> Result<(), ApiError> {
    let c = &state.config;
    sqlx::query(
        "UPDATE accounts SET \
           failed_logins = CASE WHEN first_failed_at IS NULL \
                                  OR first_failed_at < now() - make_interval(mins => $2) \
                                THEN 1 ELSE failed_logins + 1 END, \
           first_failed_at = CASE WHEN first_failed_at IS NULL \
                                    OR first_failed_at < now() - make_interval(mins => $2) \
                                  THEN now() ELSE first_failed_at END \
         WHERE id = $1",
    )
    .bind(id)
    .bind(c.lockout_window_minutes as i32)
    .execute(&state.pool)
    .await?;
    sqlx::query(
        "UPDATE accounts SET locked_until = now() + make_interval(mins => $3), \
           failed_logins = 0, first_failed_at = NULL \
         WHERE id = $1 AND failed_logins >= $2",
    )
    .bind(id)
    .bind(c.lockout_failures as i32)
    .bind(c.lockout_minutes as i32)
    .execute(&state.pool)
    .await?;
    Ok(())
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
    locked_minutes: Option<i64>,
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
