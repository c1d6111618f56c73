//! How the room reaches its database.

use server::db;

use crate::helpers::fresh_database;

const ENCRYPTED: &str = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";

/// The test database is on loopback: reached in the clear by default, and over TLS when the
/// URL asks for it (a managed database's case), if this Postgres offers TLS at all.
#[tokio::test]
async fn a_loopback_database_is_reached_without_tls_unless_the_url_asks_for_it() {
    let (_pool, url) = fresh_database().await;
    let plain = db::connect(&url).await.expect("connect");
    let encrypted: bool = sqlx::query_scalar(ENCRYPTED)
        .fetch_one(&plain)
        .await
        .expect("pg_stat_ssl");
    assert!(!encrypted, "no TLS to a database on loopback by default");
    let offered: String = sqlx::query_scalar("SHOW ssl")
        .fetch_one(&plain)
        .await
        .expect("show ssl");

    let separator = if url.contains('?') { '&' } else { '?' };
    let asked = db::connect(&format!("{url}{separator}sslmode=require")).await;
    if offered == "on" {
        let pool = asked.expect("TLS when the URL requires it");
        let encrypted: bool = sqlx::query_scalar(ENCRYPTED)
            .fetch_one(&pool)
            .await
            .expect("pg_stat_ssl");
        assert!(encrypted, "sslmode=require must encrypt");
    } else {
        assert!(
            asked.is_err(),
            "sslmode=require to a server without TLS must fail"
        );
    }
}

/// Hand histories (a few KB of JSON each) are stored with lz4 where this Postgres has it, and
/// with its default compression where it does not (the migration must not fail there).
#[tokio::test]
async fn hand_histories_are_compressed_with_lz4_where_postgres_has_it() {
    let (pool, _url) = fresh_database().await;
    let mut conn = pool.acquire().await.expect("connection");
    let has_lz4 = sqlx::query("SET default_toast_compression = 'lz4'")
        .execute(&mut *conn)
        .await
        .is_ok();
    let method: String = sqlx::query_scalar(
        "SELECT attcompression::text FROM pg_attribute \
         WHERE attrelid = 'hands'::regclass AND attname = 'history'",
    )
    .fetch_one(&mut *conn)
    .await
    .expect("pg_attribute");
    assert_eq!(method, if has_lz4 { "l" } else { "" });
}
