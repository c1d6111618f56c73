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
