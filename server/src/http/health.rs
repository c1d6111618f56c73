//! Health and metrics: `/healthz` answers 200 only when the database does, and within a
//! second whatever the database does; `/readyz` once tables are open, and 503 again from the
//! moment a shutdown stops dealing (so a load balancer sends new players elsewhere);
//! `/metrics` in Prometheus text format, served on its own address (`--metrics-bind`), not
//! to the public.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;

use crate::app::AppState;

/// The longest a health check waits for the database before answering that it is down.
const CHECK_TIMEOUT: Duration = Duration::from_secs(1);

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
}

/// `/metrics` alone, for the metrics address.
pub fn metrics_router() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

async fn database_answers(state: &AppState) -> bool {
    let ping = sqlx::query("SELECT 1").execute(&state.pool);
    let up = matches!(tokio::time::timeout(CHECK_TIMEOUT, ping).await, Ok(Ok(_)));
    if !up {
        state.metrics.db_errors.inc();
    }
    up
}

async fn healthz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if database_answers(&state).await {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "database unreachable")
    }
}

async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if state.tables.draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down");
    }
    if database_answers(&state).await && state.metrics.tables.get() > 0 {
        (StatusCode::OK, "ready")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let lobby = state.tables.all_rows().await;
    let seated: u64 = lobby.iter().map(|t| u64::from(t.seats_taken)).sum();
    let spectators: u64 = lobby.iter().map(|t| u64::from(t.spectators)).sum();
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(seated, spectators),
    )
}
