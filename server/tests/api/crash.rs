//! The real `scoop` binary, killed with SIGKILL in the middle of a hand and started again.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use server::tables::def::{self, TableDef};
use shared::hand::Action;
use shared::protocol::{ClientMessage, ServerMessage};
use shared::rules::Structure;
use shared::table::SeatStatus;
use sqlx::{PgPool, Row};

use crate::helpers::{TestApp, fresh_database};
use crate::ws::{connect, register};

/// Starts `scoop serve` on a port the system picks and returns it with the address it bound
/// (read from its JSON log, so no other test can take the port in between).
pub fn start(url: &str) -> (Child, SocketAddr) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scoop"));
    cmd.arg("serve");
    start_command(settings(&mut cmd, url))
}

/// The environment every test server gets: the database, ports the system picks, JSON logs.
pub fn settings<'a>(cmd: &'a mut Command, url: &str) -> &'a mut Command {
    cmd.env("DATABASE_URL", url)
        .env("SCOOP_BIND", "127.0.0.1:0")
        .env("SCOOP_METRICS_BIND", "127.0.0.1:0")
        .env("SCOOP_AUTH_PER_MINUTE", "1000")
        .env("SCOOP_LOG_JSON", "true")
        .env("RUST_LOG", "warn,scoop=info")
}

/// Starts a prepared `scoop serve` command and returns it with the address it bound.
pub fn start_command(cmd: &mut Command) -> (Child, SocketAddr) {
    let mut child = cmd.stderr(Stdio::piped()).spawn().expect("start scoop");
    // A thread reads the log (and keeps draining it, so the child never blocks on a full
    // pipe); the test waits for the address with a deadline, so a server that hangs before
    // listening fails the test instead of stalling it.
    let stderr = child.stderr.take().expect("piped stderr");
    let (found, listening) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            let Ok(entry) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if entry["fields"]["message"] == "scoop listening"
                && let Some(addr) = entry["fields"]["addr"].as_str()
            {
                let _ = found.send(addr.to_string());
            }
        }
    });
    let addr = listening
        .recv_timeout(Duration::from_secs(60))
        .expect("scoop logs its address within 60 s")
        .parse()
        .expect("a socket address");
    (child, addr)
}

pub async fn wait_healthy(addr: SocketAddr) {
    for _ in 0..200 {
        if let Ok(r) = reqwest::get(format!("http://{addr}/healthz")).await
            && r.status() == 200
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("scoop did not come up");
}

/// Each account's balance plus its chips on tables.
async fn holdings(pool: &PgPool) -> Vec<(String, i64)> {
    sqlx::query(
        "SELECT a.username, a.balance + coalesce((SELECT sum(stack) FROM table_seats s WHERE s.account_id = a.id), 0)::bigint \
         FROM accounts a ORDER BY a.username",
    )
    .fetch_all(pool)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

/// A real `scoop serve` with one table of `structure` and two players, ann (seat 0) and
/// bob (seat 1), sitting down.
pub struct Running {
    pub child: Child,
    pub url: String,
    pub app: TestApp,
    pub ann: String,
    pub a: crate::ws::Client,
    pub b: crate::ws::Client,
}

pub async fn two_players_sitting(structure: Structure) -> Running {
    let (pool, url) = fresh_database().await;
    let mut t = TableDef::new("t", "t", structure, 5, 10);
    t.between_hands_ms = 50;
    t.run_out_street_ms = 0;
    def::upsert(&pool, &t).await.unwrap();
    let (child, addr) = start(&url);
    wait_healthy(addr).await;
    let app = TestApp {
        addr,
        pool,
        state: None,
    };
    let (ann, bob) = (register(&app, "ann").await, register(&app, "bob").await);
    let mut a = connect(&app, Some(&ann)).await;
    let mut b = connect(&app, Some(&bob)).await;
    for (c, seat) in [(&mut a, 0u8), (&mut b, 1u8)] {
        c.send(&ClientMessage::Sit {
            table: "t".into(),
            seat,
            buy_in: 500,
            post_now: true,
            request_id: None,
        })
        .await;
    }
    Running {
        child,
        url,
        app,
        ann,
        a,
        b,
    }
}

#[tokio::test]
async fn killing_the_server_mid_hand_voids_the_hand_and_loses_no_chip() {
    let Running {
        mut child,
        url,
        app,
        ann,
        mut a,
        mut b,
    } = two_players_sitting(Structure::NoLimit).await;
    let pool = app.pool.clone();
    let running = a.until(|m| matches!(m, ServerMessage::Events { view: Some(view), .. } if view.hand_running && view.to_act.is_some())).await;
    let ServerMessage::Events {
        view: Some(view), ..
    } = running
    else {
        unreachable!()
    };
    let before = holdings(&pool).await;
    // Chips go into the pot, then the process dies.
    let actor = if view.to_act == Some(0) {
        &mut a
    } else {
        &mut b
    };
    actor
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: Action::RaiseTo { to: 300 },
        })
        .await;
    actor.until(|m| matches!(m, ServerMessage::Events { view: Some(v), .. } if v.pots.iter().map(|p| p.amount).sum::<u64>() >= 300)).await;
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let running: i64 = sqlx::query("SELECT count(*) FROM hands WHERE status = 'running'")
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(running, 1, "the killed hand is still on record as running");

    let (mut child, addr) = start(&url);
    wait_healthy(addr).await;
    let app = TestApp {
        addr,
        pool,
        state: None,
    };
    let pool = app.pool.clone();
    let statuses: Vec<String> = sqlx::query_scalar("SELECT status FROM hands ORDER BY number")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(statuses.last().map(String::as_str), Some("void"));
    assert_eq!(
        holdings(&pool).await,
        before,
        "every chip bet in the void hand is back"
    );
    let audit = server::chips::audit(&pool).await.unwrap();
    assert!(audit.balanced(), "{audit:?}");
    // The players are back at the table, sat out until they return.
    let mut again = connect(&app, Some(&ann)).await;
    let view = again.watch("t").await;
    assert_eq!(view.you, Some(0));
    assert_eq!(
        view.seats[0].as_ref().unwrap().status,
        SeatStatus::SittingOut
    );
    assert_eq!(view.seats[0].as_ref().unwrap().stack, 500);
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test]
async fn sigterm_lets_the_running_hand_finish_deals_no_new_one_and_exits() {
    let Running {
        mut child,
        app,
        mut a,
        mut b,
        ..
    } = two_players_sitting(Structure::FixedLimit).await;
    let pool = app.pool.clone();
    a.until(|m| matches!(m, ServerMessage::Events { view: Some(view), .. } if view.hand_running && view.to_act.is_some())).await;
    let hands_before: i64 = sqlx::query("SELECT count(*) FROM hands")
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // Once /readyz refuses, every table has queued the stop ahead of the actions below, so
    // the hand they finish is the last one.
    let http = reqwest::Client::new();
    let mut ready = 200;
    for _ in 0..100 {
        ready = http
            .get(app.url("/readyz"))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
        if ready == 503 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(ready, 503, "/readyz refuses once the shutdown has begun");
    // Both players finish the hand by checking and calling.
    tokio::join!(check_down(&mut a), check_down(&mut b));
    let exited = tokio::task::spawn_blocking(move || {
        for _ in 0..100 {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        None
    })
    .await
    .unwrap();
    assert!(
        exited.is_some_and(|s| s.success()),
        "scoop exits cleanly after SIGTERM: {exited:?}"
    );
    let statuses: Vec<String> = sqlx::query_scalar("SELECT status FROM hands ORDER BY number")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(
        statuses.len() as i64,
        hands_before,
        "no hand dealt after SIGTERM"
    );
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("complete"),
        "the running hand finished"
    );
    assert!(server::chips::audit(&pool).await.unwrap().balanced());
}

/// Checks or calls until the current hand ends (or the server goes away).
async fn check_down(c: &mut crate::ws::Client) {
    let mut acted = None;
    loop {
        if let Some(view) = c.view.clone()
            && let Some(legal) = view.legal
            && acted != Some(c.seq)
        {
            acted = Some(c.seq);
            let action = if legal.can_check {
                Action::Check
            } else {
                Action::Call
            };
            c.send(&ClientMessage::Act {
                table: "t".into(),
                hand: view.hand,
                action,
            })
            .await;
        }
        match c.recv().await {
            Some(ServerMessage::Events { events, .. })
                if events.iter().any(|e| {
                    matches!(
                        e,
                        shared::protocol::ViewEvent::Public(
                            shared::format::Event::HandEnded { .. }
                        )
                    )
                }) =>
            {
                return;
            }
            Some(_) => {}
            None => return,
        }
    }
}

#[tokio::test]
async fn a_table_opened_during_a_shutdown_is_not_started() {
    let (pool, _) = fresh_database().await;
    def::upsert(&pool, &TableDef::new("a", "a", Structure::NoLimit, 5, 10))
        .await
        .unwrap();
    let metrics = std::sync::Arc::new(server::metrics::Metrics::default());
    let tables =
        server::tables::Tables::start(pool.clone(), metrics, None, Default::default(), None)
            .await
            .unwrap();
    assert!(!tables.draining());
    tables.drain(Duration::from_secs(5)).await;
    assert!(tables.draining(), "/readyz refuses from here on");
    // `scoop tables add` while the grace period runs: the table would never hear the stop.
    def::upsert(&pool, &TableDef::new("b", "b", Structure::NoLimit, 5, 10))
        .await
        .unwrap();
    tables.sync().await.unwrap();
    let open: Vec<String> = tables.lobby().await.into_iter().map(|t| t.id).collect();
    assert_eq!(open, vec!["a".to_string()]);
}

#[tokio::test]
async fn a_seat_left_at_a_closed_table_is_cashed_out_at_the_next_start() {
    let (pool, _) = fresh_database().await;
    def::upsert(
        &pool,
        &TableDef::new("gone", "gone", Structure::NoLimit, 5, 10),
    )
    .await
    .unwrap();
    let ann = uuid::Uuid::new_v4();
    let mut tx = pool.begin().await.unwrap();
    server::chips::create_account(&mut tx, ann, "ann", "x", 1_000)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    server::chips::buy_in(&pool, ann, "gone", 0, 400, "k1", None)
        .await
        .unwrap();
    // The table closed while its cash-out could not go through.
    def::close(&pool, "gone").await.unwrap();
    let metrics = std::sync::Arc::new(server::metrics::Metrics::default());
    let _tables =
        server::tables::Tables::start(pool.clone(), metrics, None, Default::default(), None)
            .await
            .unwrap();
    let balance: i64 = sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1")
        .bind(ann)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(balance, 1_000, "the 400 came home");
    let audit = server::chips::audit(&pool).await.unwrap();
    assert!(audit.balanced(), "{audit:?}");
}
