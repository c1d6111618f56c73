//! The Postgres pool and the migrations embedded in the binary.

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};

pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

pub async fn connect(url: &str) -> Result<PgPool, sqlx::Error> {
    PgPoolOptions::new().max_connections(20).connect(url).await
}

/// Applies every pending migration.
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}
