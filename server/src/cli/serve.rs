//! `scoop serve`: the room.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use server::config::Config;
use server::{app, db, listen};

use super::init_logs;

pub async fn run(config: Config) -> anyhow::Result<ExitCode> {
    init_logs(config.log_json);
    let pool = db::connect(&config.db.database_url)
        .await
        .context("connecting to the database")?;
    db::migrate(&pool).await.context("migrating the database")?;
    let (bind, metrics_bind) = (config.bind, config.metrics_bind);
    let open_files = listen::raise_open_files_limit();
    let limits = listen::Limits {
        trusted_proxies: config.trusted_proxies.clone(),
        max_connections: listen::connection_cap(open_files, config.max_connections),
        per_ip: config.max_connections_per_ip,
        header_timeout: Duration::from_secs(config.header_timeout_secs),
    };
    tracing::info!(
        open_files,
        max_connections = limits.max_connections,
        "connection limits"
    );
    let grace = Duration::from_secs(config.shutdown_grace_secs);
    // A cluster's node looks for tables to take (a node gone, one joined) at every renewal.
    let sync_every = if config.nats.is_some() {
        server::lease::RENEW_EVERY
    } else {
        Duration::from_secs(5)
    };
    let state = app::AppState::start(pool, config).await?;
    let listener = listen::bind(bind).with_context(|| format!("binding {bind}"))?;
    // The address actually bound: with port 0 the system picks one, and tests read it here.
    let addr = listener.local_addr().context("reading the bound address")?;
    tracing::info!(%addr, "scoop listening");

    // Tables opened or closed with `scoop tables` are picked up within seconds.
    let tables = state.tables.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(sync_every);
        loop {
            every.tick().await;
            if let Err(e) = tables.sync().await {
                tracing::warn!(error = %e, "could not refresh the table list");
            }
        }
    });

    let metrics_listener = listen::bind(metrics_bind)
        .with_context(|| format!("binding {metrics_bind} for /metrics"))?;
    tracing::info!(addr = %metrics_bind, "metrics at /metrics");
    let metrics = app::metrics_router(state.clone());
    tokio::spawn(async move {
        if let Err(e) = axum::serve(metrics_listener, metrics).await {
            tracing::error!(error = %e, "the metrics listener stopped");
        }
    });

    let tables = state.tables.clone();
    let metrics = state.metrics.clone();
    let router = app::router(state);
    listen::serve(
        listener,
        router,
        limits,
        metrics,
        async move {
            shutdown_signal().await;
            // Stop dealing, let running hands finish, then close the sockets.
            tables.drain(grace).await;
            tracing::info!("hands finished; closing connections");
        },
        Duration::from_secs(5),
    )
    .await;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}
