//! Tables over HTTP: the lobby (`GET /api/tables`; live updates come over the WebSocket),
//! opening a player's table, what an invite link opens, and the tables one hosts.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::json;
use shared::api::{HostedTables, Invite, NewTable};

use crate::app::AppState;
use crate::error::{ApiError, ApiJson};
use crate::session::AuthUser;
use crate::tables::home::HomeError;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/tables", get(list).post(create))
        .route("/api/tables/mine", get(mine))
        .route("/api/invites/{token}", get(invite))
}

async fn list(State(state): State<AppState>) -> impl IntoResponse {
    axum::Json(json!({"tables": state.tables.lobby().await}))
}

impl From<HomeError> for ApiError {
    fn from(e: HomeError) -> ApiError {
        match e {
            HomeError::Invalid(why) => ApiError::BadRequest(why),
            HomeError::HostLimit(_) | HomeError::RoomLimit(_) => ApiError::Limit(e.to_string()),
            HomeError::Database(e) => ApiError::Database(e),
        }
    }
}

async fn create(
    State(state): State<AppState>,
    user: AuthUser,
    ApiJson(new): ApiJson<NewTable>,
) -> Result<impl IntoResponse, ApiError> {
    if !state.creations.allow(&user.id) {
        return Err(ApiError::RateLimited);
    }
    let created = state.tables.create(&new, user.id, &user.username).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

async fn mine(
    State(state): State<AppState>,
    user: AuthUser,
) -> Result<impl IntoResponse, ApiError> {
    let tables = state.tables.hosted_by(user.id).await?;
    Ok(axum::Json(HostedTables { tables }))
}

/// A wrong, rotated or closed invite gets the answer a table that never existed gets.
async fn invite(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    match state.tables.invite(&token).await {
        Some(table) => Ok(axum::Json(Invite { table })),
        None => Err(ApiError::NotFound("no such table".into())),
    }
}
