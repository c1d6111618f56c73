//! Health and metrics: `/healthz` answers 200 only when the database does; `/readyz` once
//! tables are open, and 503 again from the moment a shutdown stops dealing (so a load
//! balancer sends new players elsewhere); `/metrics` in Prometheus text format.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;

use crate::app::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

async fn healthz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    match sqlx::query("SELECT 1").execute(&state.pool).await {
        Ok(_) => (StatusCode::OK, "ok"),
        Err(_) => {
            state.metrics.db_errors.inc();
            (StatusCode::SERVICE_UNAVAILABLE, "database unreachable")
        }
    }
}

async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if state.tables.draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down");
    }
    let db = sqlx::query("SELECT 1").execute(&state.pool).await.is_ok();
    if db && state.metrics.tables.get() > 0 {
        (StatusCode::OK, "ready")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let lobby = state.tables.lobby().await;
    let seated: u64 = lobby.iter().map(|t| u64::from(t.seats_taken)).sum();
    let spectators: u64 = lobby.iter().map(|t| u64::from(t.spectators)).sum();
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(seated, spectators),
    )
}
