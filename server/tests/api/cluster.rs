//! Cluster mode: real `scoop serve --nats` processes on one Postgres and one NATS server,
//! practice tables whose house bots deal by themselves.

use std::collections::{HashMap, HashSet};
use std::process::{Child, Command};

use std::time::{Duration, Instant};

use server::chips::audit;
use server::lease::{self, NodeId};
use server::tables::def::{self, TableDef};
use shared::rules::Structure;
use sqlx::PgPool;
use uuid::Uuid;

use crate::crash::{settings, start_command, wait_healthy};
use crate::helpers::fresh_database;

const TABLES: usize = 12;

fn nats_url() -> String {
    std::env::var("SCOOP_TEST_NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".into())
}

/// A `scoop serve --nats` process, killed when dropped (a failed test leaves none behind).
struct Node(Child);

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn node(url: &str) -> (Node, std::net::SocketAddr) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scoop"));
    cmd.arg("serve").env("SCOOP_NATS_URL", nats_url());
    let (child, addr) = start_command(settings(&mut cmd, url));
    (Node(child), addr)
}

async fn practice_tables(pool: &PgPool) -> Vec<String> {
    let mut ids = Vec::new();
    for i in 0..TABLES {
        let id = format!("p{i:02}");
        let mut t = TableDef::new(&id, &id, Structure::FixedLimit, 5, 10);
        t.practice = true;
        t.house_bots = 3;
        t.between_hands_ms = 100;
        t.run_out_street_ms = 0;
        def::upsert(pool, &t).await.unwrap();
        ids.push(id);
    }
    ids
}

/// Each table's lease holder, among live leases.
async fn owners(pool: &PgPool) -> HashMap<String, Uuid> {
    sqlx::query_as::<_, (String, Uuid)>(
        "SELECT table_id, node FROM table_leases WHERE expires_at > now()",
    )
    .fetch_all(pool)
    .await
    .unwrap()
    .into_iter()
    .collect()
}

/// The live nodes, oldest first.
async fn nodes(pool: &PgPool) -> Vec<Uuid> {
    sqlx::query_scalar(
        "SELECT node FROM cluster_nodes WHERE expires_at > now() ORDER BY started_at, node",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

/// Waits (at most `limit`) until `done` holds.
async fn wait_until<F: std::future::Future<Output = bool>>(
    limit: Duration,
    what: &str,
    mut done: impl FnMut() -> F,
) {
    let start = Instant::now();
    while !done().await {
        assert!(start.elapsed() < limit, "not within {limit:?}: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Two nodes sharing every table as rendezvous hashing says: the first took them all alone,
/// and handed the second its share between hands when it joined.
async fn two_nodes_sharing(pool: &PgPool, url: &str) -> [(Node, std::net::SocketAddr); 2] {
    let first = node(url);
    wait_healthy(first.1).await;
    wait_until(
        Duration::from_secs(20),
        "the first node deals every table",
        || async { owners(pool).await.len() == TABLES },
    )
    .await;
    let second = node(url);
    wait_healthy(second.1).await;
    wait_until(
        Duration::from_secs(40),
        "each table dealt by the node that wins it",
        || async {
            let live: Vec<NodeId> = nodes(pool).await.into_iter().map(NodeId).collect();
            let owners = owners(pool).await;
            live.len() == 2
                && owners.len() == TABLES
                && owners
                    .iter()
                    .all(|(table, owner)| lease::rendezvous(table, &live) == Some(NodeId(*owner)))
        },
    )
    .await;
    [first, second]
}

async fn lobby_ids(addr: std::net::SocketAddr) -> HashSet<String> {
    let body: serde_json::Value = reqwest::get(format!("http://{addr}/api/tables"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["id"].as_str().map(String::from))
        .collect()
}

/// The first hand each table started after `since`, in milliseconds after it.
async fn dealt_again(pool: &PgPool, tables: &[String], since: f64) -> Vec<f64> {
    sqlx::query_scalar::<_, f64>(
        "SELECT (min(extract(epoch FROM started_at)) - $2) * 1000 FROM hands \
         WHERE table_id = ANY($1) AND extract(epoch FROM started_at) > $2 GROUP BY table_id",
    )
    .bind(tables)
    .bind(since)
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn db_now(pool: &PgPool) -> f64 {
    sqlx::query_scalar("SELECT extract(epoch FROM now())::float8")
        .fetch_one(pool)
        .await
        .unwrap()
}

fn stop(node: &mut Node) {
    let _ = node.0.kill();
    let _ = node.0.wait();
}

#[tokio::test]
async fn a_killed_nodes_tables_deal_again_on_the_other_with_every_chip_kept() {
    let (pool, url) = fresh_database().await;
    let ids = practice_tables(&pool).await;
    let [(mut first, first_addr), (mut second, second_addr)] = two_nodes_sharing(&pool, &url).await;

    // Either node's lobby lists every table, its own and those it heard of over NATS.
    let all: HashSet<String> = ids.iter().cloned().collect();
    wait_until(
        Duration::from_secs(10),
        "both lobbies list every table",
        || async { lobby_ids(first_addr).await == all && lobby_ids(second_addr).await == all },
    )
    .await;

    // The second node dies without a word.
    let victim = nodes(&pool).await[1];
    let lost: Vec<String> = owners(&pool)
        .await
        .into_iter()
        .filter(|(_, n)| *n == victim)
        .map(|(t, _)| t)
        .collect();
    let killed_at = db_now(&pool).await;
    stop(&mut second);

    wait_until(
        Duration::from_secs(30),
        "every table of the killed node deals again",
        || async { dealt_again(&pool, &lost, killed_at).await.len() == lost.len() },
    )
    .await;
    let mut delays = dealt_again(&pool, &lost, killed_at).await;
    delays.sort_by(f64::total_cmp);
    eprintln!(
        "failover: {} tables dealing again after the kill: p50 {:.0} ms, max {:.0} ms",
        delays.len(),
        delays[delays.len() / 2],
        delays[delays.len() - 1]
    );

    // Every hand the dead node left running was voided, none is settled twice (a hand has
    // one status), and every chip is where the ledger says.
    let running: Vec<(String, i64)> = sqlx::query_as(
        "SELECT table_id, count(*) FROM hands WHERE status = 'running' GROUP BY table_id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(running.iter().all(|(_, n)| *n == 1), "{running:?}");
    let report = audit(&pool).await.unwrap();
    assert!(report.balanced(), "{report:?}");
    assert!(
        owners(&pool).await.values().all(|n| *n != victim),
        "the dead node holds no table"
    );
    stop(&mut first);
}

#[tokio::test]
async fn a_node_stopped_with_sigterm_hands_its_tables_over_and_voids_no_hand() {
    let (pool, url) = fresh_database().await;
    let ids = practice_tables(&pool).await;
    let [(mut first, _), (mut second, _)] = two_nodes_sharing(&pool, &url).await;
    let leaving = nodes(&pool).await[1];
    let moved: Vec<String> = owners(&pool)
        .await
        .into_iter()
        .filter(|(_, n)| *n == leaving)
        .map(|(t, _)| t)
        .collect();
    let stopped_at = db_now(&pool).await;
    let status = Command::new("kill")
        .args(["-TERM", &second.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exited = tokio::task::spawn_blocking(move || {
        for _ in 0..300 {
            if let Ok(Some(status)) = second.0.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    })
    .await
    .unwrap();
    assert!(exited.is_some_and(|s| s.success()), "{exited:?}");
    wait_until(
        Duration::from_secs(30),
        "every table of the stopped node deals on the other",
        || async { dealt_again(&pool, &moved, stopped_at).await.len() == moved.len() },
    )
    .await;
    let void: i64 = sqlx::query_scalar("SELECT count(*) FROM hands WHERE status = 'void'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(void, 0, "a rolling stop voids no hand");
    assert_eq!(owners(&pool).await.len(), ids.len());
    let report = audit(&pool).await.unwrap();
    assert!(report.balanced(), "{report:?}");
    stop(&mut first);
}
