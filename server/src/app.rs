//! The application: shared state and the router.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use sqlx::PgPool;
use tokio::sync::broadcast;
use tower_http::trace::TraceLayer;
use uuid::Uuid;

use crate::config::Config;
use crate::http;
use crate::password::{HashError, Hasher};
use crate::ratelimit::RateLimiter;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub config: Arc<Config>,
    pub hasher: Hasher,
    pub auth_limiter: Arc<RateLimiter<IpAddr>>,
    /// Accounts that just logged out: their sockets close.
    pub logouts: broadcast::Sender<Uuid>,
}

impl AppState {
    pub fn new(pool: PgPool, config: Config) -> Result<AppState, HashError> {
        let hasher = Hasher::new(config.hash_concurrency)?;
        let auth_limiter = Arc::new(RateLimiter::new(
            config.auth_per_minute,
            config.auth_per_minute,
        ));
        let (logouts, _) = broadcast::channel(1024);
        Ok(AppState {
            pool,
            config: Arc::new(config),
            hasher,
            auth_limiter,
            logouts,
        })
    }
}

/// The whole HTTP application; tests drive it over a real socket.
pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(http::health::router())
        .merge(http::accounts::router())
        .merge(http::chips::router())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
