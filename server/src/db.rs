//! The Postgres pool and the migrations embedded in the binary.

use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};

pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// How long a request waits for a connection before it is told the database is not
/// answering (sqlx's default, 30 s, kept players and health checks waiting that long).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn connect(url: &str) -> Result<PgPool, sqlx::Error> {
    PgPoolOptions::new()
        .max_connections(20)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect(url)
        .await
}

/// Applies every pending migration.
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}
