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
use sqlx::Row;
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

async fn list(
    State(state): State<AppState>,
    user: AuthUser,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let limit = super::page_limit(q.limit)?;
    let rows = sqlx::query(
        "SELECT h.id, h.table_id, h.number, \
         to_char(h.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
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
        .iter()
        .map(|r| HandSummary {
            id: r.get::<Uuid, _>(0).to_string(),
            table_id: r.get(1),
            number: r.get(2),
            started_at: r.get(3),
            seat: r.get(4),
            net: r.get(5),
            status: r.get(6),
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
    let row = sqlx::query(
        "SELECT h.history, hp.seat FROM hands h JOIN hand_players hp ON hp.hand_id = h.id \
         WHERE h.id = $1 AND hp.account_id = $2 AND h.status = 'complete'",
    )
    .bind(id)
    .bind(user.id)
    .fetch_optional(&state.pool)
    .await?
    .ok_or_else(not_found)?;
    let record: HandRecord = serde_json::from_value(row.get(0)).map_err(|e| {
        tracing::error!(hand = %id, error = %e, "stored hand history does not read");
        ApiError::NotFound("this hand's history is unreadable".into())
    })?;
    let seat: i16 = row.get(1);
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
