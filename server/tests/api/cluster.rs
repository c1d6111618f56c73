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
use crate::lease::signal;

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

/// Each table's owner, once `nodes` nodes are live and each of the `tables` tables is dealt
/// by the node that wins it (rendezvous hashing); `None` while tables are still moving.
async fn spread_over(
    pool: &PgPool,
    nodes_live: usize,
    tables: usize,
) -> Option<HashMap<String, Uuid>> {
    let live: Vec<NodeId> = nodes(pool).await.into_iter().map(NodeId).collect();
    let owners = owners(pool).await;
    let settled = live.len() == nodes_live
        && owners.len() == tables
        && owners
            .iter()
            .all(|(table, owner)| lease::rendezvous(table, &live) == Some(NodeId(*owner)));
    settled.then_some(owners)
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
        || async { spread_over(pool, 2, TABLES).await.is_some() },
    )
    .await;
    [first, second]
}

/// Two nodes sharing table `t` (as `def` says), once it is dealt by the node that wins it:
/// that node (the dealer), the other (a gateway for its sockets), and the gateway's node id.
async fn dealer_and_gateway(
    pool: &PgPool,
    url: &str,
    def: &TableDef,
) -> (
    (Node, std::net::SocketAddr),
    (Node, std::net::SocketAddr),
    Uuid,
) {
    def::upsert(pool, def).await.unwrap();
    let first = node(url);
    wait_healthy(first.1).await;
    let second = node(url);
    wait_healthy(second.1).await;
    wait_until(
        Duration::from_secs(30),
        "the table dealt by the node that wins it",
        || async { spread_over(pool, 2, 1).await.is_some() },
    )
    .await;
    let owner = spread_over(pool, 2, 1).await.unwrap()[&def.id];
    let live = nodes(pool).await;
    if live[0] == owner {
        (first, second, live[1])
    } else {
        (second, first, live[0])
    }
}

/// The rows of the lobby the node at `addr` shows.
async fn lobby(addr: std::net::SocketAddr) -> Vec<serde_json::Value> {
    let body: serde_json::Value = reqwest::get(format!("http://{addr}/api/tables"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["tables"].as_array().cloned().unwrap_or_default()
}

async fn lobby_ids(addr: std::net::SocketAddr) -> HashSet<String> {
    lobby(addr)
        .await
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
    // Counted from its exit: every hand after it is dealt by the other node.
    let exited_at = db_now(&pool).await;
    wait_until(
        Duration::from_secs(30),
        "every table of the stopped node deals on the other",
        || async { dealt_again(&pool, &moved, exited_at).await.len() == moved.len() },
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

/// A socket on one node plays a table dealt on the other: its commands go over NATS to the
/// dealing node and its frames come back. No card crosses NATS outside the frames addressed
/// to one node's sockets, and those carry only what that socket's viewer may see.
#[tokio::test]
async fn a_player_on_one_node_plays_a_table_dealt_on_the_other() {
    use futures_util::StreamExt;
    use shared::hand::Action;
    use shared::protocol::{ClientMessage, ServerMessage};

    use crate::helpers::TestApp;
    use crate::tables::sit;
    use crate::ws::{connect, register};

    let (pool, url) = fresh_database().await;
    let mut t = TableDef::new("t", "t", Structure::NoLimit, 5, 10);
    t.between_hands_ms = 60_000;
    t.run_out_street_ms = 0;
    let (mut dealing, gatewaying, gateway_node) = dealer_and_gateway(&pool, &url, &t).await;
    let (dealer, gateway) = (dealing.1, gatewaying.1);

    // Everything on NATS while they play.
    let nats = async_nats::connect(nats_url()).await.unwrap();
    let mut everything = nats.subscribe(">").await.unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let collecting = {
        let seen = seen.clone();
        tokio::spawn(async move {
            while let Some(m) = everything.next().await {
                seen.lock()
                    .unwrap()
                    .push((m.subject.to_string(), m.payload.to_vec()));
            }
        })
    };

    let at = |addr| TestApp {
        addr,
        pool: pool.clone(),
        state: None,
    };
    let (dealer_app, gateway_app) = (at(dealer), at(gateway));
    let ann = register(&dealer_app, "ann").await;
    let bob = register(&gateway_app, "bob").await;
    let mut a = connect(&dealer_app, Some(&ann)).await;
    let mut b = connect(&gateway_app, Some(&bob)).await;
    let (from_dealer, through_gateway) = (a.watch("t").await, b.watch("t").await);
    assert_eq!(
        through_gateway.seats, from_dealer.seats,
        "bob's snapshot came from the dealing node"
    );
    // Two spectators on the gateway: each change reaches both as one message on NATS.
    let mut spectators = [
        connect(&gateway_app, None).await,
        connect(&gateway_app, None).await,
    ];
    for c in &mut spectators {
        c.watch("t").await;
    }
    // Bob in seat 0: the first hand's button, first to act, so his fold is a command that
    // travels from the gateway to the dealing node.
    sit(&mut b, "t", 0, 500).await;
    sit(&mut a, "t", 1, 500).await;
    let dealt = |m: &ServerMessage| matches!(m, ServerMessage::Events { view: Some(v), .. } if v.hand_running && v.to_act.is_some());
    let running = b.until(dealt).await;
    let ServerMessage::Events {
        view: Some(view), ..
    } = running
    else {
        unreachable!()
    };
    a.until(dealt).await;
    let ann_cards = a.view.as_ref().unwrap().seats[1]
        .as_ref()
        .unwrap()
        .cards
        .unwrap();
    assert_eq!(view.to_act, Some(0), "bob, on the gateway, acts first");
    let (folder, other) = (&mut b, &mut a);
    folder
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: Action::Fold,
        })
        .await;
    let over = |m: &ServerMessage| matches!(m, ServerMessage::Events { view: Some(v), .. } if !v.hand_running);
    folder.until(over).await;
    other.until(over).await;
    for c in &mut spectators {
        c.until(over).await;
    }
    let complete: i64 = sqlx::query_scalar("SELECT count(*) FROM hands WHERE status = 'complete'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(complete, 1);
    let report = audit(&pool).await.unwrap();
    assert!(report.balanced(), "{report:?}");

    tokio::time::sleep(Duration::from_millis(300)).await;
    collecting.abort();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let gateway_subject = format!("scoop.node.{gateway_node}.out");
    assert!(
        seen.iter().any(|(s, _)| *s == gateway_subject),
        "bob's snapshots came over NATS"
    );
    let changes: Vec<(u64, u64)> = seen
        .iter()
        .filter(|(s, _)| s == "scoop.table.t.view.spectators")
        .filter_map(|(_, p)| server::cluster::wire::read_change(p).map(|(a, b, _)| (a, b)))
        .collect();
    let once: HashSet<u64> = changes.iter().map(|&(_, seq)| seq).collect();
    assert!(
        !changes.is_empty(),
        "the spectators' changes came over NATS"
    );
    assert_eq!(
        once.len(),
        changes.len(),
        "each change published once for both spectators: {changes:?}"
    );
    assert!(
        seen.iter().any(|(s, p)| s == "scoop.table.t.view.seat0"
            && String::from_utf8_lossy(p).contains("\"cards\":[")),
        "bob's changes, his cards with them, came on his seat's subject"
    );
    let ann_hand: Vec<String> = ann_cards.iter().map(|c| format!("\"{c}\"")).collect();
    for (subject, payload) in &seen {
        let text = String::from_utf8_lossy(payload);
        assert!(
            !(subject.starts_with("scoop.node.") && text.contains("\"type\":\"events\"")),
            "a change sent to one socket, not its audience: {text}"
        );
        // Only a seat's subject and one node's sockets' frames may carry cards at all; bob's
        // never carry ann's (she folded or won without a showdown).
        let private = subject.starts_with("scoop.node.") || subject.contains(".view.seat");
        if !private {
            assert!(!text.contains("\"cards\":["), "cards on {subject}: {text}");
        }
        assert!(
            ann_hand.iter().all(|c| !text.contains(c.as_str())),
            "ann's cards on {subject}: {text}"
        );
    }

    // The dealing node dies: the table is dealt on the gateway's node now, which tells the
    // gateway's proxy, and bob's socket gets the table again without doing anything.
    stop(&mut dealing.0);
    let again = tokio::time::timeout(
        Duration::from_secs(30),
        b.until(|m| matches!(m, ServerMessage::Snapshot { .. })),
    )
    .await
    .expect("bob's socket follows the table to its new node");
    let ServerMessage::Snapshot { view, .. } = again else {
        unreachable!()
    };
    assert_eq!(view.you, Some(0), "bob is still in his seat");
    let report = audit(&pool).await.unwrap();
    assert!(report.balanced(), "{report:?}");
    drop((dealing, gatewaying));
}

/// A NATS server of this test's own, on a port the system picked.
struct Nats {
    child: Child,
    port: u16,
}

impl Nats {
    fn start(port: u16) -> Nats {
        let bin = [
            "nats-server",
            "/usr/sbin/nats-server",
            "/usr/bin/nats-server",
        ]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok())
        .expect("nats-server is installed (scripts/test.sh installs it)");
        let child = Command::new(bin)
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Nats { child, port }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn tables_deal_through_a_nats_restart_and_the_lobbies_fill_again() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let nats = Nats::start(port);
    let (pool, url) = fresh_database().await;
    let ids = practice_tables(&pool).await;
    let start = |url: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_scoop"));
        cmd.arg("serve").env("SCOOP_NATS_URL", nats.url());
        let (child, addr) = start_command(settings(&mut cmd, url));
        (Node(child), addr)
    };
    let first = start(&url);
    wait_healthy(first.1).await;
    let second = start(&url);
    wait_healthy(second.1).await;
    let all: HashSet<String> = ids.iter().cloned().collect();
    let both_list_all =
        || async { lobby_ids(first.1).await == all && lobby_ids(second.1).await == all };
    wait_until(
        Duration::from_secs(40),
        "both lobbies list every table",
        both_list_all,
    )
    .await;

    wait_until(Duration::from_secs(40), "the tables spread", || async {
        spread_over(&pool, 2, ids.len()).await.is_some()
    })
    .await;

    // NATS goes away: ownership and dealing are Postgres's, so every table deals on, on the
    // node that had it.
    let before = owners(&pool).await;
    drop(nats);
    let down_at = db_now(&pool).await;
    wait_until(
        Duration::from_secs(40),
        "every table deals a new hand while NATS is down",
        || async { dealt_again(&pool, &ids, down_at).await.len() == ids.len() },
    )
    .await;
    assert_eq!(owners(&pool).await, before, "no table changed nodes");

    // Back on the same port: the nodes reconnect and the lobbies fill again.
    let _nats = Nats::start(port);
    wait_until(
        Duration::from_secs(40),
        "both lobbies list every table again",
        both_list_all,
    )
    .await;
    let report = audit(&pool).await.unwrap();
    assert!(report.balanced(), "{report:?}");
}

/// Sockets watching a table on the node that deals it follow it when it moves to a node that
/// joined: each gets the table again from its new node, without reconnecting.
#[tokio::test]
async fn watchers_follow_a_table_that_moves_to_a_joining_node() {
    use shared::protocol::ServerMessage;

    use crate::helpers::TestApp;
    use crate::ws::{connect, register};

    let (pool, url) = fresh_database().await;
    // Twelve: the joining node wins none of them once in 4,096 runs.
    let ids: Vec<String> = (0..12).map(|i| format!("m{i:02}")).collect();
    for id in &ids {
        let mut t = TableDef::new(id, id, Structure::NoLimit, 5, 10);
        t.between_hands_ms = 50;
        def::upsert(&pool, &t).await.unwrap();
    }
    let first = node(&url);
    wait_healthy(first.1).await;
    let app = TestApp {
        addr: first.1,
        pool: pool.clone(),
        state: None,
    };
    let ann = register(&app, "ann").await;
    let mut a = connect(&app, Some(&ann)).await;
    for id in &ids {
        a.watch(id).await;
    }
    let second = node(&url);
    wait_healthy(second.1).await;
    wait_until(Duration::from_secs(40), "the tables spread", || async {
        spread_over(&pool, 2, ids.len()).await.is_some()
    })
    .await;
    let owners = spread_over(&pool, 2, ids.len()).await.unwrap();
    let joined = nodes(&pool).await[1];
    let moved: HashSet<String> = owners
        .into_iter()
        .filter(|(_, n)| *n == joined)
        .map(|(t, _)| t)
        .collect();
    assert!(!moved.is_empty(), "the joining node won some tables");
    let mut followed = HashSet::new();
    while followed.len() < moved.len() {
        let m = tokio::time::timeout(Duration::from_secs(20), a.recv())
            .await
            .expect("a snapshot from the table's new node")
            .expect("the socket stays open");
        if let ServerMessage::Snapshot { table, .. } = m
            && moved.contains(&table)
        {
            followed.insert(table);
        }
    }
    drop((first, second));
}

/// The lobby row of `table` as the node at `addr` shows it.
async fn lobby_row(addr: std::net::SocketAddr, table: &str) -> Option<serde_json::Value> {
    lobby(addr).await.into_iter().find(|t| t["id"] == table)
}

/// A node that dies says no goodbye for its sockets: the dealing node lets them go once the
/// node is no longer live, and its lobby's spectator count falls back.
#[tokio::test]
async fn the_sockets_of_a_node_that_died_are_let_go_where_their_table_is_dealt() {
    use crate::helpers::TestApp;
    use crate::ws::connect;

    let (pool, url) = fresh_database().await;
    let t = TableDef::new("t", "t", Structure::NoLimit, 5, 10);
    let (dealer, mut gateway, _) = dealer_and_gateway(&pool, &url, &t).await;
    let gateway_app = TestApp {
        addr: gateway.1,
        pool: pool.clone(),
        state: None,
    };
    let mut watching = Vec::new();
    for _ in 0..3 {
        let mut c = connect(&gateway_app, None).await;
        c.watch("t").await;
        watching.push(c);
    }
    let spectators = |n: u64| {
        let addr = dealer.1;
        move || async move {
            lobby_row(addr, "t")
                .await
                .is_some_and(|row| row["spectators"] == n)
        }
    };
    wait_until(
        Duration::from_secs(10),
        "the dealing node counts the gateway's three spectators",
        spectators(3),
    )
    .await;
    stop(&mut gateway.0);
    wait_until(
        Duration::from_secs(30),
        "the dealing node lets the dead node's sockets go",
        spectators(0),
    )
    .await;
    drop((dealer, gateway, watching));
}

/// A node frozen (SIGSTOP) past its leases, then woken: the other node took its tables over
/// and voided their hands; when it wakes, its late writes are refused, it drops those
/// tables, nothing is settled twice, and it comes back as a member that gets its share.
#[tokio::test]
async fn a_frozen_node_woken_after_its_tables_moved_settles_nothing() {
    let (pool, url) = fresh_database().await;
    let ids = practice_tables(&pool).await;
    let [(first, _), (second, _)] = two_nodes_sharing(&pool, &url).await;
    let frozen = nodes(&pool).await[0];
    let theirs: Vec<String> = owners(&pool)
        .await
        .into_iter()
        .filter(|(_, owner)| *owner == frozen)
        .map(|(table, _)| table)
        .collect();
    assert!(!theirs.is_empty(), "the first node deals some tables");

    signal(&first.0, "-STOP");
    let frozen_at = db_now(&pool).await;
    // What it was dealing when it froze, as the database holds it (it writes nothing now).
    let in_play: Vec<Uuid> =
        sqlx::query_scalar("SELECT id FROM hands WHERE status = 'running' AND table_id = ANY($1)")
            .bind(&theirs)
            .fetch_all(&pool)
            .await
            .unwrap();
    assert!(!in_play.is_empty(), "house bots keep hands running");
    wait_until(
        Duration::from_secs(30),
        "the other node deals every table again",
        || async { dealt_again(&pool, &theirs, frozen_at).await.len() == theirs.len() },
    )
    .await;
    let void = |hands: Vec<Uuid>| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(
                "SELECT count(*) FROM hands WHERE id = ANY($1) AND status = 'void'",
            )
            .bind(&hands)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    assert_eq!(
        void(in_play.clone()).await,
        in_play.len() as i64,
        "every hand the frozen node had in play is void"
    );

    signal(&first.0, "-CONT");
    // Awake, it plays on from memory: every write it tries is fenced off. Then it is a live
    // node again and gets its share of the tables between hands.
    wait_until(
        Duration::from_secs(45),
        "the woken node deals its share again",
        || async { spread_over(&pool, 2, TABLES).await.is_some() },
    )
    .await;
    assert_eq!(
        void(in_play.clone()).await,
        in_play.len() as i64,
        "no hand of the frozen node was settled after it woke"
    );
    let doubled: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT table_id FROM hands WHERE status = 'running' \
         GROUP BY table_id HAVING count(*) > 1) t",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(doubled, 0, "no table runs two hands at once");
    let report = audit(&pool).await.unwrap();
    assert!(report.balanced(), "{report:?}");
    let _ = ids;
    drop((first, second));
}
