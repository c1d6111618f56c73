use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use reqwest::{Client, Response};
use serde_json::{Value, json};
use server::app::{AppState, router};
use server::chips::audit;
use server::config::Config;
use server::db;
use server::tables::def::{self, TableDef};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

#[derive(Parser)]
struct Args {
    #[command(flatten)]
    config: Config,
}

pub struct TestApp {
    pub addr: SocketAddr,
    /// A pool of the test's own, straight to the database (the server's may go through a
    /// `DbProxy`).
    pub pool: PgPool,
    /// The server's state when it runs in this process (not for a `scoop serve` child).
    pub state: Option<AppState>,
}

fn admin_url() -> String {
    std::env::var("SCOOP_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

/// A fresh, migrated database with a unique name.
pub async fn fresh_database() -> (PgPool, String) {
    let admin_url = admin_url();
    let admin = PgPoolOptions::new()
        .max_connections(1)
        .connect(&admin_url)
        .await
        .expect("Postgres must be reachable at SCOOP_TEST_DATABASE_URL or 127.0.0.1:5432");
    let name = format!("scoop_test_{}", uuid::Uuid::new_v4().simple());
    // The name is ours (a UUID), not input.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .expect("create test database");
    admin.close().await;
    let base = admin_url
        .rsplit_once('/')
        .map_or(admin_url.as_str(), |(b, _)| b)
        .to_string();
    let url = format!("{base}/{name}");
    let pool = PgPoolOptions::new()
        .max_connections(10)
        .connect(&url)
        .await
        .expect("connect test database");
    db::migrate(&pool).await.expect("migrate");
    (pool, url)
}

pub async fn spawn_app() -> TestApp {
    spawn_with(|_| {}).await
}

pub async fn spawn_with(configure: impl FnOnce(&mut Config)) -> TestApp {
    spawn_tables(&[], configure).await
}

/// A server with these tables open.
pub async fn spawn_tables(tables: &[TableDef], configure: impl FnOnce(&mut Config)) -> TestApp {
    let (pool, url) = fresh_database().await;
    for t in tables {
        def::upsert(&pool, t).await.expect("table definition");
    }
    serve(pool.clone(), pool, url, configure).await
}

/// A server with these tables open whose every database connection goes through a proxy the
/// test can cut. The server's pool gives up on a connection after one second, so an outage
/// longer than that is one the server has to live through.
pub async fn spawn_behind_proxy(
    tables: &[TableDef],
    configure: impl FnOnce(&mut Config),
) -> (TestApp, DbProxy) {
    let (pool, url) = fresh_database().await;
    for t in tables {
        def::upsert(&pool, t).await.expect("table definition");
    }
    let (base, name) = url.rsplit_once('/').expect("database url");
    let host = base.rsplit_once('@').map_or(base, |(_, h)| h);
    let target = tokio::net::lookup_host(host.trim_start_matches("postgres://"))
        .await
        .expect("database address")
        .next()
        .expect("database address");
    let proxy = DbProxy::start(target).await;
    let proxied = url.replace(host, &proxy.addr.to_string());
    let app_pool = PgPoolOptions::new()
        .max_connections(10)
        .acquire_timeout(Duration::from_secs(1))
        .connect(&proxied)
        .await
        .expect("connect through the proxy");
    let _ = name;
    (serve(app_pool, pool, proxied, configure).await, proxy)
}

async fn serve(
    app_pool: PgPool,
    pool: PgPool,
    url: String,
    configure: impl FnOnce(&mut Config),
) -> TestApp {
    let mut config = Args::parse_from(["scoop"]).config;
    config.db.database_url = url;
    config.bind = "127.0.0.1:0".parse().expect("address");
    configure(&mut config);
    let state = AppState::start(app_pool, config).await.expect("state");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let serving = state.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router(serving).into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .expect("serve");
    });
    TestApp {
        addr,
        pool,
        state: Some(state),
    }
}

/// A TCP proxy in front of Postgres. `cut` drops every connection through it and refuses new
/// ones (as a network partition or a database restart would); `restore` lets them through
/// again.
pub struct DbProxy {
    pub addr: SocketAddr,
    cut: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl DbProxy {
    async fn start(target: SocketAddr) -> DbProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let cut = Arc::new(AtomicBool::new(false));
        let links: Arc<Mutex<Vec<tokio::task::AbortHandle>>> = Arc::default();
        let (c, l) = (cut.clone(), links.clone());
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if c.load(Ordering::SeqCst) {
                    continue; // dropped: the client sees the connection close
                }
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                if let Ok(mut links) = l.lock() {
                    links.retain(|h| !h.is_finished());
                    links.push(link.abort_handle());
                }
            }
        });
        DbProxy { addr, cut, links }
    }

    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        if let Ok(mut links) = self.links.lock() {
            for link in links.drain(..) {
                link.abort();
            }
        }
    }

    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

/// The origin the test server allows (one of `--allowed-origins`' defaults): what a browser
/// on the site's own page sends.
pub const SITE: &str = "http://127.0.0.1:8080";

fn browser() -> reqwest::ClientBuilder {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::ORIGIN,
        reqwest::header::HeaderValue::from_static(SITE),
    );
    Client::builder().default_headers(headers)
}

/// A browser without a cookie jar, on the site's own page.
pub fn plain_browser() -> Client {
    browser().build().expect("client")
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A client with its own cookie jar (a browser on the site's own page).
    pub fn client(&self) -> Client {
        browser().cookie_store(true).build().expect("client")
    }

    pub async fn post(&self, client: &Client, path: &str, body: &Value) -> Response {
        client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn get(&self, client: &Client, path: &str) -> Response {
        client.get(self.url(path)).send().await.expect("request")
    }

    /// A GET carrying a session cookie (`scoop_session=…`) rather than a client's jar.
    pub async fn get_as(&self, cookie: &str, path: &str) -> Response {
        plain_browser()
            .get(self.url(path))
            .header("cookie", cookie)
            .send()
            .await
            .expect("request")
    }

    /// `POST /api/logout` with a session cookie, as a browser that keeps sending it.
    pub async fn logout_as(&self, cookie: &str) -> Response {
        plain_browser()
            .post(self.url("/api/logout"))
            .header("cookie", cookie)
            .send()
            .await
            .expect("request")
    }

    /// Registers `name` and returns its logged-in client.
    pub async fn register(&self, name: &str) -> Client {
        let c = self.client();
        let r = self
            .post(
                &c,
                "/api/register",
                &json!({"username": name, "password": "correct horse"}),
            )
            .await;
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap_or_default());
        c
    }

    pub async fn assert_balanced(&self) {
        let a = audit(&self.pool).await.expect("audit");
        assert!(a.balanced(), "chips created or lost: {a:?}");
    }
}
