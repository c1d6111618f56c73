//! `scoop bench money`: how fast the money layer is on this machine, against a scratch
//! database that is created, used and dropped.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use sqlx::postgres::PgPoolOptions;
use thiserror::Error;
use uuid::Uuid;

use crate::chips::{self, ChipsError};
use crate::db;
use crate::password::{HashError, Hasher};

#[derive(Debug, Error)]
pub enum BenchError {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(transparent)]
    Chips(#[from] ChipsError),
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error("a benchmark task failed")]
    Task,
}

#[derive(Debug, Serialize)]
pub struct MoneyFigures {
    pub logins: usize,
    pub login_verifies_per_second: f64,
    pub hash_concurrency: usize,
    pub buy_ins: usize,
    pub buy_ins_per_second: f64,
    pub buy_in_concurrency: usize,
}

/// `admin_url` must be allowed to create databases. Logins are measured as the password
/// check they cost (argon2id verify, bounded to `hash_concurrency` at once), buy-ins as
/// complete transactions (lock, idempotency check, seat insert, balance update, ledger row).
pub async fn money(
    admin_url: &str,
    logins: usize,
    buy_ins: usize,
    hash_concurrency: usize,
) -> Result<MoneyFigures, BenchError> {
    let admin = PgPoolOptions::new()
        .max_connections(1)
        .connect(admin_url)
        .await?;
    let name = format!("scoop_bench_{}", Uuid::new_v4().simple());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await?;
    let base = admin_url.rsplit_once('/').map_or(admin_url, |(b, _)| b);
    let result = run(&format!("{base}/{name}"), logins, buy_ins, hash_concurrency).await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&admin)
    .await?;
    result
}

async fn run(
    url: &str,
    logins: usize,
    buy_ins: usize,
    hash_concurrency: usize,
) -> Result<MoneyFigures, BenchError> {
    let pool = db::connect(url).await?;
    db::migrate(&pool).await?;

    let hasher = Hasher::new(hash_concurrency)?;
    let hash = hasher.hash("correct horse battery".into()).await?;
    let start = Instant::now();
    let tasks: Vec<_> = (0..logins)
        .map(|_| {
            let hasher = hasher.clone();
            let hash = hash.clone();
            tokio::spawn(async move {
                hasher
                    .verify("correct horse battery".into(), Some(hash))
                    .await
            })
        })
        .collect();
    for t in tasks {
        t.await.map_err(|_| BenchError::Task)??;
    }
    let login_rate = logins as f64 / start.elapsed().as_secs_f64();

    let concurrency = 16;
    let accounts: Vec<Uuid> = (0..concurrency).map(|_| Uuid::new_v4()).collect();
    let mut tx = pool.begin().await?;
    for (i, id) in accounts.iter().enumerate() {
        chips::create_account(&mut tx, *id, &format!("bench{i}"), &hash, 1 << 40).await?;
    }
    tx.commit().await?;
    let pool = Arc::new(pool);
    let per_task = buy_ins.div_ceil(concurrency);
    let start = Instant::now();
    let tasks: Vec<_> = accounts
        .iter()
        .map(|&id| {
            let pool = pool.clone();
            tokio::spawn(async move {
                for i in 0..per_task {
                    chips::buy_in(
                        &pool,
                        id,
                        &format!("t{i}-{id}"),
                        0,
                        100,
                        &format!("k{i}"),
                        None,
                    )
                    .await?;
                }
                Ok::<_, ChipsError>(())
            })
        })
        .collect();
    for t in tasks {
        t.await.map_err(|_| BenchError::Task)??;
    }
    let done = per_task * concurrency;
    let buy_in_rate = done as f64 / start.elapsed().as_secs_f64();
    pool.close().await;
    Ok(MoneyFigures {
        logins,
        login_verifies_per_second: login_rate,
        hash_concurrency,
        buy_ins: done,
        buy_ins_per_second: buy_in_rate,
        buy_in_concurrency: concurrency,
    })
}
