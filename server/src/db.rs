//! The Postgres pool and the migrations embedded in the binary.

use std::net::IpAddr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgSslMode};

pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// How long a request waits for a connection before it is told the database is not
/// answering (sqlx's default, 30 s, kept players and health checks waiting that long).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest one statement may run: every query the room makes is a few milliseconds, so
/// one that runs for seconds is stuck (a lock, a sick server) and fails rather than waits.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn connect(url: &str) -> Result<PgPool, sqlx::Error> {
    PgPoolOptions::new()
        .max_connections(20)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options(url)?)
        .await
}

/// The connection options for `url`, with the room's statement timeout and its TLS default.
///
/// TLS is what the URL's `sslmode` (or `PGSSLMODE`) says. When neither says, a database on
/// this machine or a private network is reached without TLS (it was a fifth of the server's
/// CPU under load, spent encrypting loopback traffic), and any other is reached the way
/// libpq's default does: TLS when the server offers it.
pub fn options(url: &str) -> Result<PgConnectOptions, sqlx::Error> {
    let options = url.parse::<PgConnectOptions>()?.options([(
        "statement_timeout",
        STATEMENT_TIMEOUT.as_millis().to_string(),
    )]);
    let asked = url_sets_sslmode(url) || std::env::var_os("PGSSLMODE").is_some();
    Ok(if !asked && is_private_host(options.get_host()) {
        options.ssl_mode(PgSslMode::Disable)
    } else {
        options
    })
}

fn url_sets_sslmode(url: &str) -> bool {
    url.split_once('?').is_some_and(|(_, query)| {
        query
            .split('&')
            .any(|pair| pair.split('=').next() == Some("sslmode"))
    })
}

/// A Unix socket, `localhost`, a single-label name (a container or a host on the local
/// network, as in docker compose), or a loopback, private or link-local address.
fn is_private_host(host: &str) -> bool {
    if host.starts_with('/') || host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    {
        Ok(IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.is_unique_local() || ip.is_unicast_link_local()
        }
        Err(_) => !host.contains('.'),
    }
}

/// Applies every pending migration.
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn databases_on_this_machine_or_a_private_network_are_reached_without_tls() {
        for url in [
            "postgres://postgres@127.0.0.1:5432/scoop",
            "postgres://postgres@localhost/scoop",
            "postgres://scoop:pw@db:5432/scoop",
            "postgres://scoop@10.1.2.3/scoop",
            "postgres://scoop@192.168.0.9/scoop",
            "postgres://scoop@172.20.0.2/scoop",
            "postgres://scoop@[::1]:5432/scoop",
            "postgres://scoop@[fd00::5]/scoop",
        ] {
            let options = options(url).expect(url);
            assert!(
                matches!(options.get_ssl_mode(), PgSslMode::Disable),
                "{url}"
            );
        }
    }

    #[test]
    fn other_databases_keep_the_tls_default_and_an_explicit_sslmode_wins() {
        let managed = options("postgres://scoop@db.example.com/scoop").expect("url");
        assert!(matches!(managed.get_ssl_mode(), PgSslMode::Prefer));
        let public_ip = options("postgres://scoop@203.0.113.7/scoop").expect("url");
        assert!(matches!(public_ip.get_ssl_mode(), PgSslMode::Prefer));
        let asked = options("postgres://postgres@127.0.0.1/scoop?sslmode=require").expect("url");
        assert!(matches!(asked.get_ssl_mode(), PgSslMode::Require));
        let asked =
            options("postgres://db/scoop?application_name=x&sslmode=verify-full").expect("url");
        assert!(matches!(asked.get_ssl_mode(), PgSslMode::VerifyFull));
    }
}
