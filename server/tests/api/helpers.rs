use std::net::SocketAddr;

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
    pub pool: PgPool,
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
    let mut config = Args::parse_from(["scoop"]).config;
    config.database_url = url;
    config.bind = "127.0.0.1:0".parse().expect("address");
    configure(&mut config);
    let state = AppState::start(pool.clone(), config).await.expect("state");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        axum::serve(
            listener,
            router(state).into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .expect("serve");
    });
    TestApp { addr, pool }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A client with its own cookie jar (a browser).
    pub fn client(&self) -> Client {
        Client::builder()
            .cookie_store(true)
            .build()
            .expect("client")
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
        Client::new()
            .get(self.url(path))
            .header("cookie", cookie)
            .send()
            .await
            .expect("request")
    }

    /// `POST /api/logout` with a session cookie, as a browser that keeps sending it.
    pub async fn logout_as(&self, cookie: &str) -> Response {
        Client::new()
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
