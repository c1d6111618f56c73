//! The Postgres pool and the migrations embedded in the binary.

use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// How long a request waits for a connection before it is told the database is not
/// answering (sqlx's default, 30 s, kept players and health checks waiting that long).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest one statement may run: every query the room makes is a few milliseconds, so
/// one that runs for seconds is stuck (a lock, a sick server) and fails rather than waits.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn connect(url: &str) -> Result<PgPool, sqlx::Error> {
    let options: PgConnectOptions = url.parse::<PgConnectOptions>()?.options([(
        "statement_timeout",
        STATEMENT_TIMEOUT.as_millis().to_string(),
    )]);
    PgPoolOptions::new()
        .max_connections(20)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options)
        .await
}

/// Applies every pending migration.
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}
