//! Sessions: a random 256-bit token in an HttpOnly, SameSite cookie, stored only as its
//! SHA-256, rotated at login, deleted at logout, expired after inactivity.

pub mod keeper;

use std::time::Duration;

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use uuid::Uuid;

use crate::app::AppState;
use crate::error::ApiError;

pub const COOKIE_NAME: &str = "scoop_session";
/// A device that has logged in before (see `throttle`); it outlives sessions.
pub const DEVICE_COOKIE: &str = "scoop_device";
const DEVICE_MAX_AGE_SECS: u64 = 400 * 24 * 60 * 60;

/// A new random token (what the cookie holds) and its hash (what the database holds).
pub fn new_token() -> (String, Vec<u8>) {
    let mut bytes = [0u8; 32];
    // ThreadRng is a CSPRNG (ChaCha12) seeded and reseeded from the OS.
    rand::rng().fill_bytes(&mut bytes);
    let token = URL_SAFE_NO_PAD.encode(bytes);
    let hash = token_hash(&token);
    (token, hash)
}

pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// The session token from a request's cookies, if any.
pub fn token_from(headers: &HeaderMap) -> Option<String> {
    cookie(headers, COOKIE_NAME)
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// The device cookie's hash when the request comes from a device that has logged into
/// `account` before.
pub async fn known_device(
    pool: &PgPool,
    headers: &HeaderMap,
    account: Uuid,
) -> Result<Option<Vec<u8>>, sqlx::Error> {
    let Some(token) = cookie(headers, DEVICE_COOKIE) else {
        return Ok(None);
    };
    let hash = token_hash(&token);
    let known: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM known_devices WHERE account_id = $1 AND token_hash = $2")
            .bind(account)
            .bind(&hash)
            .fetch_optional(pool)
            .await?;
    Ok(known.map(|_| hash))
}

/// Remembers this device for `account` (its cookie if it has one, else a new one).
pub async fn remember_device(
    pool: &PgPool,
    request: &HeaderMap,
    response: &mut HeaderMap,
    account: Uuid,
    secure: bool,
) -> Result<(), sqlx::Error> {
    let token = match cookie(request, DEVICE_COOKIE) {
        Some(t) if t.len() == 43 => t,
        _ => new_token().0,
    };
    sqlx::query(
        "INSERT INTO known_devices (account_id, token_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(account)
    .bind(token_hash(&token))
    .execute(pool)
    .await?;
    let secure = if secure { "; Secure" } else { "" };
    let value = format!(
        "{DEVICE_COOKIE}={token}; Path=/api/login; HttpOnly; SameSite=Strict; Max-Age={DEVICE_MAX_AGE_SECS}{secure}"
    );
    if let Ok(v) = HeaderValue::from_str(&value) {
        response.append(SET_COOKIE, v);
    }
    Ok(())
}

pub fn set_cookie(headers: &mut HeaderMap, token: &str, max_age_secs: u64, secure: bool) {
    let secure = if secure { "; Secure" } else { "" };
    let value = format!(
        "{COOKIE_NAME}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}{secure}"
    );
    if let Ok(v) = HeaderValue::from_str(&value) {
        headers.append(SET_COOKIE, v);
    }
}

pub fn clear_cookie(headers: &mut HeaderMap, secure: bool) {
    set_cookie(headers, "", 0, secure);
}

pub async fn create(pool: &PgPool, account: Uuid) -> Result<String, sqlx::Error> {
    let (token, hash) = new_token();
    sqlx::query("INSERT INTO sessions (token_hash, account_id) VALUES ($1, $2)")
        .bind(hash)
        .bind(account)
        .execute(pool)
        .await?;
    Ok(token)
}

pub async fn revoke(pool: &PgPool, token: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
        .bind(token_hash(token))
        .execute(pool)
        .await?;
    Ok(())
}

/// How long a session lives: unused for `idle_minutes`, or `max_days` after its login,
/// whichever comes first.
#[derive(Clone, Copy, Debug)]
pub struct Lifetime {
    pub idle_minutes: u32,
    pub max_days: u32,
}

impl Lifetime {
    /// How stale `last_seen_at` may get before a use writes it: a quarter of the idle limit,
    /// at most five minutes, so that use is one commit per session every few minutes rather
    /// than one per request, and a session in use never comes near its idle limit.
    pub fn touch_every(&self) -> Duration {
        Duration::from_secs((u64::from(self.idle_minutes) * 15).min(300))
    }

    fn idle_minutes_param(&self) -> i32 {
        i32::try_from(self.idle_minutes).unwrap_or(i32::MAX)
    }

    fn max_days_param(&self) -> i32 {
        i32::try_from(self.max_days).unwrap_or(i32::MAX)
    }
}

/// The account behind a live session. Use keeps a session alive: `last_seen_at` moves on
/// when it is older than [`Lifetime::touch_every`], so most lookups are reads.
pub async fn lookup(
    pool: &PgPool,
    token: &str,
    lifetime: Lifetime,
) -> Result<Option<(Uuid, String)>, sqlx::Error> {
    let live = alive(pool, &[token_hash(token)], lifetime).await?;
    Ok(live
        .into_iter()
        .next()
        .map(|session| (session.account, session.username)))
}

/// A session still alive, as [`alive`] finds it.
#[derive(sqlx::FromRow)]
pub struct Alive {
    pub token_hash: Vec<u8>,
    #[sqlx(rename = "id")]
    pub account: Uuid,
    pub username: String,
}

/// Which of the sessions with these token hashes are alive, touching those last seen longer
/// ago than [`Lifetime::touch_every`] (a use, or an open socket, keeps a session alive). One
/// statement whatever the number of sessions; it writes nothing when none needs a touch.
pub async fn alive(
    pool: &PgPool,
    hashes: &[Vec<u8>],
    lifetime: Lifetime,
) -> Result<Vec<Alive>, sqlx::Error> {
    sqlx::query_as(
        "WITH live AS ( \
           SELECT s.token_hash, s.last_seen_at, a.id, a.username FROM sessions s \
           JOIN accounts a ON a.id = s.account_id \
           WHERE s.token_hash = ANY($1) \
             AND s.last_seen_at > now() - make_interval(mins => $2) \
             AND s.created_at > now() - make_interval(days => $3) \
         ), touched AS ( \
           UPDATE sessions s SET last_seen_at = now() FROM live \
           WHERE s.token_hash = live.token_hash \
             AND live.last_seen_at < now() - make_interval(secs => $4) \
         ) \
         SELECT token_hash, id, username FROM live",
    )
    .bind(hashes)
    .bind(lifetime.idle_minutes_param())
    .bind(lifetime.max_days_param())
    .bind(lifetime.touch_every().as_secs_f64())
    .fetch_all(pool)
    .await
}

/// Ends every session of `account` but `keep` (if given).
pub async fn revoke_all(
    pool: &PgPool,
    account: Uuid,
    keep: Option<&str>,
) -> Result<u64, sqlx::Error> {
    let keep = keep.map(token_hash).unwrap_or_default();
    let done = sqlx::query("DELETE FROM sessions WHERE account_id = $1 AND token_hash <> $2")
        .bind(account)
        .bind(keep)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}

/// A request made by a logged-in account.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub id: Uuid,
    pub username: String,
    pub token: String,
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        <AuthUser as OptionalFromRequestParts<AppState>>::from_request_parts(parts, state)
            .await?
            .ok_or(ApiError::Unauthorized)
    }
}

/// `Option<AuthUser>`: `None` for a visitor (no cookie, or a session that has ended); a
/// database failure is still an error.
impl OptionalFromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Option<Self>, ApiError> {
        let Some(token) = token_from(&parts.headers) else {
            return Ok(None);
        };
        let user = lookup(&state.pool, &token, state.config.session_lifetime())
            .await?
            .map(|(id, username)| AuthUser {
                id,
                username,
                token,
            });
        Ok(user)
    }
}
