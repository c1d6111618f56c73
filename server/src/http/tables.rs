//! The lobby over HTTP: `GET /api/tables`. Live updates come over the WebSocket.

use axum::Router;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::json;

use crate::app::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/tables", get(list))
}

async fn list(State(state): State<AppState>) -> impl IntoResponse {
    axum::Json(json!({"tables": state.tables.lobby().await}))
}
