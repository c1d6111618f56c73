//! One's own hand histories: `GET /api/hands` and `GET /api/hands/{id}` (JSON, or exported
//! with `?format=phh` / `?format=pokerstars`), always as that player may see them; and hands
//! their players chose to share (`POST`/`DELETE /api/hands/{id}/share`), which anyone with
//! the link reads at `GET /api/shared/{token}` as a spectator saw them: no hidden card.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use shared::api::{HandList, HandShare, HandSummary};
use shared::history::{HandRecord, HandView, to_phh, to_pokerstars};
use shared::view::Viewer;
use uuid::Uuid;

use crate::app::AppState;
use crate::error::{ApiError, ApiQuery};
use crate::session::AuthUser;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/hands", get(list))
        .route("/api/hands/{id}", get(one))
        .route("/api/hands/{id}/share", post(share).delete(unshare))
        .route("/api/shared/{token}", get(shared_hand))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    limit: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct SummaryRow {
    id: Uuid,
    table_id: String,
    number: i64,
    started_at: String,
    seat: i16,
    net: Option<i64>,
    status: String,
}

#[derive(sqlx::FromRow)]
struct HistoryRow {
    history: serde_json::Value,
    seat: i16,
}

async fn list(
    State(state): State<AppState>,
    user: AuthUser,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let limit = super::page_limit(q.limit)?;
    let rows: Vec<SummaryRow> = sqlx::query_as(
        "SELECT h.id, h.table_id, h.number, \
         to_char(h.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS started_at, \
         hp.seat, hp.net, h.status \
         FROM hand_players hp JOIN hands h ON h.id = hp.hand_id \
         WHERE hp.account_id = $1 AND h.status <> 'running' \
         ORDER BY h.started_at DESC, h.number DESC LIMIT $2",
    )
    .bind(user.id)
    .bind(limit)
    .fetch_all(&state.pool)
    .await?;
    let hands = rows
        .into_iter()
        .map(|r| HandSummary {
            id: r.id.to_string(),
            table_id: r.table_id,
            number: r.number,
            started_at: r.started_at,
            seat: r.seat,
            net: r.net,
            status: r.status,
        })
        .collect();
    Ok(axum::Json(HandList { hands }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OneQuery {
    format: Option<String>,
}

async fn one(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<OneQuery>,
) -> Result<Response, ApiError> {
    let not_found = || ApiError::NotFound("no such hand among yours".into());
    let id: Uuid = id.parse().map_err(|_| not_found())?;
    let row: HistoryRow = sqlx::query_as(
        "SELECT h.history, hp.seat FROM hands h JOIN hand_players hp ON hp.hand_id = h.id \
         WHERE h.id = $1 AND hp.account_id = $2 AND h.status = 'complete'",
    )
    .bind(id)
    .bind(user.id)
    .fetch_optional(&state.pool)
    .await?
    .ok_or_else(not_found)?;
    let record = read_record(id, row.history)?;
    let seat = row.seat;
    let viewer = u8::try_from(seat).map_or(Viewer::Spectator, Viewer::Seat);
    respond(record.for_viewer(viewer), q.format.as_deref())
}

fn read_record(id: Uuid, history: serde_json::Value) -> Result<HandRecord, ApiError> {
    serde_json::from_value(history).map_err(|e| {
        tracing::error!(hand = %id, error = %e, "stored hand history does not read");
        ApiError::NotFound("this hand's history is unreadable".into())
    })
}

/// A hand as JSON, PHH or PokerStars text.
fn respond(view: HandView, format: Option<&str>) -> Result<Response, ApiError> {
    match format {
        None | Some("json") => Ok(axum::Json(view).into_response()),
        Some("phh") => {
            let text = to_phh(&view).map_err(|e| {
                ApiError::BadRequest(format!("this hand cannot be written as PHH: {e}"))
            })?;
            Ok(([(CONTENT_TYPE, "application/toml; charset=utf-8")], text).into_response())
        }
        Some("pokerstars") => Ok((
            [(CONTENT_TYPE, "text/plain; charset=utf-8")],
            to_pokerstars(&view),
        )
            .into_response()),
        Some(other) => Err(ApiError::BadRequest(format!(
            "unknown format `{other}` (json, phh or pokerstars)"
        ))),
    }
}

/// The player's link to one of their finished hands: the same link each time it is asked.
async fn share(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> Result<axum::Json<HandShare>, ApiError> {
    let not_found = || ApiError::NotFound("no such hand among yours".into());
    let id: Uuid = id.parse().map_err(|_| not_found())?;
    let (fresh, _) = crate::session::new_token();
    let token: String = sqlx::query_scalar(
        "INSERT INTO hand_shares (token, hand_id, account_id) \
         SELECT $1, h.id, hp.account_id FROM hands h \
         JOIN hand_players hp ON hp.hand_id = h.id \
         WHERE h.id = $2 AND hp.account_id = $3 AND h.status = 'complete' \
         ON CONFLICT (hand_id, account_id) DO UPDATE SET token = hand_shares.token \
         RETURNING token",
    )
    .bind(&fresh)
    .bind(id)
    .bind(user.id)
    .fetch_optional(&state.pool)
    .await?
    .ok_or_else(not_found)?;
    Ok(axum::Json(HandShare { token }))
}

/// The player stops sharing the hand: the link no longer opens it.
async fn unshare(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id: Uuid = id
        .parse()
        .map_err(|_| ApiError::NotFound("no such hand among yours".into()))?;
    sqlx::query("DELETE FROM hand_shares WHERE hand_id = $1 AND account_id = $2")
        .bind(id)
        .bind(user.id)
        .execute(&state.pool)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A shared hand, for anyone with its link, as the table's spectators saw it.
async fn shared_hand(
    State(state): State<AppState>,
    Path(token): Path<String>,
    ApiQuery(q): ApiQuery<OneQuery>,
) -> Result<Response, ApiError> {
    let not_found =
        || ApiError::NotFound("this link opens no hand (it may have been unshared)".into());
    if token.len() > 64 {
        return Err(not_found());
    }
    let row: Option<(Uuid, serde_json::Value)> = sqlx::query_as(
        "SELECT h.id, h.history FROM hand_shares s JOIN hands h ON h.id = s.hand_id \
         WHERE s.token = $1 AND h.status = 'complete'",
    )
    .bind(&token)
    .fetch_optional(&state.pool)
    .await?;
    let (id, history) = row.ok_or_else(not_found)?;
    respond(
        read_record(id, history)?.for_viewer(Viewer::Spectator),
        q.format.as_deref(),
    )
}
