//! The application: shared state and the router.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use sqlx::PgPool;
use tokio::sync::broadcast;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;
use uuid::Uuid;

use crate::cluster::Cluster;
use crate::config::Config;
use crate::http;
use crate::lease::NodeId;
use crate::listen::PerIp;
use crate::metrics::Metrics;
use crate::password::{HashError, Hasher};
use crate::ratelimit::RateLimiter;
use crate::session::keeper::Keeper;
use crate::tables::Tables;
use crate::tables::def::DefError;
use crate::throttle::LoginThrottle;
use crate::ws;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error(transparent)]
    Cluster(#[from] crate::cluster::ClusterError),
    #[error(transparent)]
    Tables(#[from] DefError),
}

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub config: Arc<Config>,
    pub hasher: Hasher,
    pub auth_limiter: Arc<RateLimiter<IpAddr>>,
    /// Accounts that just logged out: their sockets close.
    pub logouts: broadcast::Sender<Uuid>,
    pub tables: Arc<Tables>,
    pub metrics: Arc<Metrics>,
    pub login_throttle: Arc<LoginThrottle>,
    /// WebSockets held per client address.
    pub websockets: Arc<PerIp>,
    /// The sessions of open sockets, checked together.
    pub sessions: Arc<Keeper>,
    /// Tables opened per account: a few at once, then one a minute.
    pub creations: Arc<RateLimiter<Uuid>>,
}

impl AppState {
    /// Voids hands left running by a stopped process and opens the tables.
    pub async fn start(pool: PgPool, config: Config) -> Result<AppState, StartError> {
        let metrics = Arc::new(Metrics::default());
        let cluster = match &config.nats {
            Some(url) => Some(Cluster::connect(url, NodeId::new()).await?),
            None => None,
        };
        if let Some(cluster) = &cluster {
            let _ = metrics.nats.set(cluster.statistics());
        }
        let tables = Tables::start(
            pool.clone(),
            metrics.clone(),
            config.tables.as_deref(),
            config.home_options(),
            cluster,
        )
        .await?;
        // The evaluator builds its tables on first use; do it now rather than in a showdown.
        shared::eval::warm_up();
        let hasher = Hasher::new(config.hash_concurrency)?;
        let auth_limiter = Arc::new(RateLimiter::new(
            config.auth_per_minute,
            config.auth_per_minute,
        ));
        let (logouts, _) = broadcast::channel(1024);
        let websockets = PerIp::new(config.max_websockets_per_ip);
        let sessions = Keeper::new();
        sessions.spawn(pool.clone(), config.session_lifetime());
        Ok(AppState {
            login_throttle: Arc::new(LoginThrottle::default()),
            websockets,
            sessions,
            pool,
            config: Arc::new(config),
            hasher,
            auth_limiter,
            logouts,
            tables,
            metrics,
            creations: Arc::new(RateLimiter::new(1, 3)),
        })
    }
}

/// The largest request body the API reads.
pub const API_BODY_LIMIT: usize = 16 * 1024;

async fn metrics_elsewhere() -> crate::error::ApiError {
    crate::error::ApiError::NotFound(
        "metrics are served on the metrics address (--metrics-bind)".into(),
    )
}

async fn api_not_found() -> crate::error::ApiError {
    crate::error::ApiError::NotFound("no such API route".into())
}

/// `/metrics`, served on its own address.
pub fn metrics_router(state: AppState) -> Router {
    http::health::metrics_router().with_state(state)
}

/// The whole HTTP application; tests drive it over a real socket. Anything that is not an
/// API route is the web client (`web/dist`), with unknown paths answered by its index page
/// so the client's own routes work on reload.
pub fn router(state: AppState) -> Router {
    let dir = std::path::Path::new(&state.config.web_dir);
    // Files are sent as built: Brotli or gzip copies when the browser takes them.
    let index = ServeFile::new(dir.join("index.html"))
        .precompressed_br()
        .precompressed_gzip();
    let web = ServeDir::new(dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(index);
    let api = Router::new()
        .merge(http::health::router())
        .merge(http::accounts::router())
        .merge(http::chips::router())
        .merge(http::tables::router())
        .merge(http::hands::router())
        .route("/api/{*rest}", axum::routing::any(api_not_found));
    let config = state.config.clone();
    // Account bodies are a few hundred bytes; anything bigger is refused with 413.
    let api = api.layer(axum::extract::DefaultBodyLimit::max(API_BODY_LIMIT));
    let app = Router::new()
        .merge(
            http::headers::no_store(api).layer(axum::middleware::from_fn_with_state(
                state.clone(),
                http::csrf::guard,
            )),
        )
        .route("/ws", axum::routing::get(ws::handler))
        .route("/metrics", axum::routing::any(metrics_elsewhere))
        // index.html names the icon (a hashed SVG); without this the fallback would answer
        // every browser's /favicon.ico with the page.
        .route(
            "/favicon.ico",
            axum::routing::get(|| async { axum::http::StatusCode::NOT_FOUND }),
        )
        .fallback_service(web)
        .layer(axum::middleware::map_response(http::headers::cache_static));
    // The span names the path without an invite's token (nor any query string): a log must
    // not open a private table to whoever reads it.
    let trace = TraceLayer::new_for_http().make_span_with(|request: &axum::http::Request<_>| {
        tracing::debug_span!(
            "request",
            method = %request.method(),
            path = %loggable_path(request.uri().path()),
        )
    });
    http::headers::secure(app, &config.allowed_origins, config.secure_cookies)
        .layer(trace)
        .with_state(state)
}

/// A request path as logs may show it: an invite's token is left out.
fn loggable_path(path: &str) -> &str {
    if path.starts_with("/api/invites/") {
        "/api/invites/…"
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_invite_token_never_reaches_a_log() {
        assert_eq!(
            super::loggable_path("/api/invites/secret"),
            "/api/invites/…"
        );
        assert_eq!(super::loggable_path("/api/tables"), "/api/tables");
    }
}
