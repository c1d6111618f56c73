//! One's own hand histories: `GET /api/hands` and `GET /api/hands/{id}` (JSON, or exported
//! with `?format=phh` / `?format=pokerstars`), always as that player may see them.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use shared::api::{HandList, HandSummary};
use shared::history::{HandRecord, to_phh, to_pokerstars};
use shared::view::Viewer;
use uuid::Uuid;

use crate::app::AppState;
use crate::error::{ApiError, ApiQuery};
use crate::session::AuthUser;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/hands", get(list))
        .route("/api/hands/{id}", get(one))
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
    let record: HandRecord = serde_json::from_value(row.history).map_err(|e| {
        tracing::error!(hand = %id, error = %e, "stored hand history does not read");
        ApiError::NotFound("this hand's history is unreadable".into())
    })?;
    let seat = row.seat;
    let viewer = u8::try_from(seat).map_or(Viewer::Spectator, Viewer::Seat);
    let view = record.for_viewer(viewer);
    match q.format.as_deref() {
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
