//! The account's ledger and the free refill.

use axum::Router;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use shared::api::LedgerPage;

use crate::app::AppState;
use crate::chips;
use crate::error::{ApiError, ApiQuery};
use crate::session::AuthUser;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/ledger", get(ledger))
        .route("/api/refill", post(refill))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Page {
    before: Option<i64>,
    limit: Option<i64>,
}

async fn ledger(
    State(state): State<AppState>,
    user: AuthUser,
    ApiQuery(page): ApiQuery<Page>,
) -> Result<impl IntoResponse, ApiError> {
    let limit = super::page_limit(page.limit)?;
    let rows = chips::ledger_page(&state.pool, user.id, page.before, limit).await?;
    let next = (rows.len() as i64 == limit)
        .then(|| rows.last().map(|r| r.id))
        .flatten();
    Ok(axum::Json(LedgerPage {
        rows,
        next_before: next,
    }))
}

async fn refill(
    State(state): State<AppState>,
    user: AuthUser,
) -> Result<impl IntoResponse, ApiError> {
    let c = &state.config;
    let balance = chips::refill(
        &state.pool,
        user.id,
        c.refill_amount,
        c.refill_below,
        c.refill_hours,
    )
    .await?;
    Ok(axum::Json(json!({"balance": balance})))
}
