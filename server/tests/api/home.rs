//! Home games over real sockets and a real Postgres: a player opens a table, shares its link,
//! friends join and play; the host's controls; limits; a table closing itself; a restart.

use std::time::Duration;

use reqwest::Response;
use serde_json::{Value, json};
use shared::api::{CreatedTable, HostedTables, Invite};
use shared::format::{BlindKind, Event};
use shared::hand::Action;
use shared::history::HandRecord;
use shared::protocol::{ClientMessage, ErrorCode, HostAction, SeatRequest, ServerMessage};
use shared::table::SeatStatus;

use crate::helpers::{TestApp, plain_browser, spawn_with};
use crate::tables::{play, play_with, sit};
use crate::ws::{Client, connect, register};

fn body(private: bool) -> Value {
    json!({
        "name": "Friday game",
        "structure": "pot_limit",
        "small_blind": 1,
        "big_blind": 2,
        "seats": 6,
        "clock_secs": 30,
        "private": private,
    })
}

async fn post_as(app: &TestApp, cookie: &str, path: &str, body: &Value) -> Response {
    plain_browser()
        .post(app.url(path))
        .header("cookie", cookie)
        .json(body)
        .send()
        .await
        .expect("request")
}

async fn create(app: &TestApp, cookie: &str, body: &Value) -> CreatedTable {
    let r = post_as(app, cookie, "/api/tables", body).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap_or_default());
    r.json().await.expect("created table")
}

async fn invite_status(app: &TestApp, token: &str) -> u16 {
    plain_browser()
        .get(app.url(&format!("/api/invites/{token}")))
        .send()
        .await
        .expect("request")
        .status()
        .as_u16()
}

/// The public lobby's rows, as `/api/tables` answers them.
pub(crate) async fn lobby_rows(app: &TestApp) -> Vec<Value> {
    let mut v: Value = plain_browser()
        .get(app.url("/api/tables"))
        .send()
        .await
        .expect("lobby")
        .json()
        .await
        .expect("json");
    match v["tables"].take() {
        Value::Array(rows) => rows,
        other => panic!("no tables in the lobby: {other}"),
    }
}

async fn lobby_ids(app: &TestApp) -> Vec<String> {
    lobby_rows(app)
        .await
        .iter()
        .filter_map(|t| t["id"].as_str().map(String::from))
        .collect()
}

pub(crate) async fn balance(app: &TestApp, name: &str) -> i64 {
    sqlx::query_scalar("SELECT balance FROM accounts WHERE username = $1")
        .bind(name)
        .fetch_one(&app.pool)
        .await
        .expect("balance")
}

async fn open_tables(app: &TestApp) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM poker_tables WHERE host_id IS NOT NULL AND closed_at IS NULL",
    )
    .fetch_one(&app.pool)
    .await
    .expect("count")
}

async fn watch_with(c: &mut Client, table: &str, invite: Option<&str>) -> ServerMessage {
    c.send(&ClientMessage::Watch {
        table: table.into(),
        invite: invite.map(String::from),
    })
    .await;
    c.until(|m| {
        matches!(
            m,
            ServerMessage::Snapshot { .. } | ServerMessage::Error { .. }
        )
    })
    .await
}

async fn host(c: &mut Client, table: &str, action: HostAction) {
    c.send(&ClientMessage::Host {
        table: table.into(),
        action,
    })
    .await;
}

/// Reads until the host's panel arrives.
async fn panel(c: &mut Client) -> (Option<String>, Vec<SeatRequest>) {
    match c
        .until(|m| matches!(m, ServerMessage::HostPanel { .. }))
        .await
    {
        ServerMessage::HostPanel {
            invite, pending, ..
        } => (invite, pending),
        _ => unreachable!(),
    }
}

/// Registers each player and opens their socket: (session cookie, socket), in order.
async fn players<const N: usize>(app: &TestApp, names: [&str; N]) -> [(String, Client); N] {
    let mut all = Vec::with_capacity(N);
    for name in names {
        let cookie = register(app, name).await;
        let socket = connect(app, Some(&cookie)).await;
        all.push((cookie, socket));
    }
    all.try_into()
        .unwrap_or_else(|_| unreachable!("one socket a player"))
}

async fn quick_room() -> TestApp {
    spawn_with(|c| {
        c.player_table_pause_ms = 50;
        c.auth_per_minute = 1_000;
    })
    .await
}

fn sit_message(table: &str, seat: u8) -> ClientMessage {
    ClientMessage::Sit {
        table: table.into(),
        seat,
        buy_in: 200,
        post_now: true,
        request_id: None,
    }
}

#[tokio::test]
async fn a_friend_joins_a_private_table_by_its_link_and_plays_a_hand() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b)] = players(&app, ["ann", "bob"]).await;
    let created = create(&app, &ann, &body(true)).await;
    let (table, invite) = (created.table, created.invite.expect("an invite"));
    assert!(invite.len() >= 22, "at least 128 bits: {invite}");

    // Never listed, never named in the metrics; the link opens it.
    assert!(!lobby_ids(&app).await.contains(&table));
    let metrics = crate::edge::metrics(&app).await;
    assert!(!metrics.contains(&table) && !metrics.contains(&invite));
    let opened: Invite = plain_browser()
        .get(app.url(&format!("/api/invites/{invite}")))
        .send()
        .await
        .expect("invite")
        .json()
        .await
        .expect("json");
    assert_eq!(opened.table.id, table);
    assert_eq!(opened.table.host.as_deref(), Some("ann"));

    // Without the link the table is one that does not exist, word for word.
    let refused = watch_with(&mut b, &table, None).await;
    let never = watch_with(&mut b, "p-000000000000", None).await;
    let text = |m: &ServerMessage| match m {
        ServerMessage::Error { code, message, .. } => (
            *code,
            message
                .replace(&table, "ID")
                .replace("p-000000000000", "ID"),
        ),
        other => panic!("not refused: {other:?}"),
    };
    assert_eq!(text(&refused), text(&never));
    assert_eq!(text(&refused).0, ErrorCode::NoSuchTable);
    b.send(&sit_message(&table, 1)).await;
    assert_eq!(b.error().await.0, ErrorCode::NoSuchTable);
    assert_eq!(balance(&app, "bob").await, 10_000, "nothing moved");

    let ServerMessage::Snapshot { view, .. } = watch_with(&mut b, &table, Some(&invite)).await
    else {
        panic!("the link opens the table");
    };
    let home = view.home.expect("a player's table says so");
    assert_eq!((home.host.as_str(), home.private), ("ann", true));

    let ServerMessage::Snapshot { .. } = watch_with(&mut a, &table, None).await else {
        panic!("the host needs no link");
    };
    assert_eq!(panel(&mut a).await.0.as_deref(), Some(invite.as_str()));
    sit(&mut a, &table, 0, 200).await;
    sit(&mut b, &table, 1, 200).await;
    let _ = tokio::join!(play(&mut a, &table, 1), play(&mut b, &table, 1));
    let hands: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM hands WHERE table_id = $1 AND status = 'complete'",
    )
    .bind(&table)
    .fetch_one(&app.pool)
    .await
    .expect("hands");
    assert!(hands >= 1);
    app.assert_balanced().await;
}

#[tokio::test]
async fn a_rotated_link_stops_working_at_once_and_seated_players_stay() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b), (_, mut c)] = players(&app, ["ann", "bob", "cat"]).await;
    let created = create(&app, &ann, &body(true)).await;
    let (table, old) = (created.table, created.invite.expect("invite"));
    let mut visitor = connect(&app, None).await;
    watch_with(&mut a, &table, None).await;
    watch_with(&mut b, &table, Some(&old)).await;
    sit(&mut b, &table, 1, 200).await;
    watch_with(&mut c, &table, Some(&old)).await;
    assert!(matches!(
        watch_with(&mut visitor, &table, Some(&old)).await,
        ServerMessage::Snapshot { .. }
    ));

    assert_eq!(panel(&mut a).await.0.as_deref(), Some(old.as_str()));
    host(&mut a, &table, HostAction::RotateInvite).await;
    let new = panel(&mut a).await.0.expect("a new invite");
    assert_ne!(new, old);
    assert_eq!(invite_status(&app, &old).await, 404);
    assert_eq!(invite_status(&app, &new).await, 200);
    // Those who came by the old link and have no seat are let go; the seated player stays.
    assert_eq!(c.error().await.0, ErrorCode::NoSuchTable);
    assert_eq!(visitor.error().await.0, ErrorCode::NoSuchTable);
    let mut late = connect(&app, None).await;
    assert!(matches!(
        watch_with(&mut late, &table, Some(&old)).await,
        ServerMessage::Error {
            code: ErrorCode::NoSuchTable,
            ..
        }
    ));
    b.send(&ClientMessage::Resync {
        table: table.clone(),
    })
    .await;
    let view = b
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await;
    assert!(matches!(view, ServerMessage::Snapshot { view, .. } if view.you == Some(1)));
    // A non-host cannot rotate it back, nor do anything else a host does.
    host(&mut b, &table, HostAction::RotateInvite).await;
    assert_eq!(b.error().await.0, ErrorCode::NotHost);
    assert_eq!(invite_status(&app, &new).await, 200);
}

#[tokio::test]
async fn without_spectators_people_without_a_seat_see_the_seats_only() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b), (_, mut c)] = players(&app, ["ann", "bob", "cat"]).await;
    let mut no_spectators = body(false);
    no_spectators["spectators"] = json!(false);
    let table = create(&app, &ann, &no_spectators).await.table;
    assert!(
        lobby_ids(&app).await.contains(&table),
        "a public player table is listed"
    );
    sit(&mut a, &table, 0, 200).await;
    sit(&mut b, &table, 1, 200).await;
    let first = watch_with(&mut c, &table, None).await;
    let seated = a.hand_running().await;
    assert!(seated.seats[0].as_ref().is_some_and(|s| s.cards.is_some()));
    // cat sees who sits where, and that a hand is on, but not the hand: neither its events
    // nor, in a snapshot taken during it, its log. (The hand may have begun before cat came.)
    let outside = match first {
        ServerMessage::Snapshot { ref view, .. } if view.hand_running => first,
        _ => {
            c.until(|m| matches!(m, ServerMessage::Events { view: Some(view), .. } if view.hand_running))
                .await
        }
    };
    let (hidden, view, clock) = match outside {
        ServerMessage::Events {
            events,
            view: Some(view),
            clock,
            ..
        } => (events, view, clock),
        ServerMessage::Snapshot {
            log, view, clock, ..
        } => (log, view, clock),
        _ => unreachable!(),
    };
    assert!(hidden.is_empty() && clock.is_none());
    assert!(view.pots.is_empty() && view.board.is_empty() && view.to_act.is_none());
    assert!(view.seats.iter().flatten().all(|s| s.bet == 0 && !s.live));
    assert_eq!(view.seats.iter().flatten().count(), 2);

    // The host lets spectators in: cat sees the hand from the next message on.
    host(&mut a, &table, HostAction::SetSpectators { allowed: true }).await;
    c.until(|m| match m {
        ServerMessage::Snapshot { view, .. }
        | ServerMessage::Events {
            view: Some(view), ..
        } => {
            view.home.as_ref().is_some_and(|h| h.spectators)
                && view.seats.iter().flatten().any(|s| s.live || s.bet > 0)
        }
        _ => false,
    })
    .await;
}

#[tokio::test]
async fn a_paused_table_deals_no_new_hand_until_the_host_resumes() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b)] = players(&app, ["ann", "bob"]).await;
    let table = create(&app, &ann, &body(false)).await.table;
    host(&mut a, &table, HostAction::Pause).await;
    sit(&mut a, &table, 0, 200).await;
    sit(&mut b, &table, 1, 200).await;
    let quiet = a.drain(Duration::from_millis(800)).await;
    assert!(
        quiet.iter().all(
            |m| !matches!(m, ServerMessage::Events { view: Some(view), .. } if view.hand_running)
        ),
        "no hand while paused"
    );
    assert!(
        a.view
            .as_ref()
            .and_then(|v| v.home.as_ref())
            .is_some_and(|h| h.paused)
    );
    // Only the host resumes.
    host(&mut b, &table, HostAction::Resume).await;
    assert_eq!(b.error().await.0, ErrorCode::NotHost);
    host(&mut a, &table, HostAction::Resume).await;
    a.hand_running().await;
}

#[tokio::test]
async fn a_removed_player_gets_their_chips_back_and_cannot_sit_again() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b)] = players(&app, ["ann", "bob"]).await;
    let table = create(&app, &ann, &body(false)).await.table;
    host(&mut a, &table, HostAction::Pause).await;
    sit(&mut a, &table, 0, 200).await;
    sit(&mut b, &table, 1, 150).await;
    assert_eq!(balance(&app, "bob").await, 9_850);
    // The host cannot remove themselves (they leave like anyone).
    host(&mut a, &table, HostAction::Remove { seat: 0 }).await;
    assert_eq!(a.error().await.0, ErrorCode::Seat);
    host(&mut a, &table, HostAction::Remove { seat: 1 }).await;
    let (code, message) = b.error().await;
    assert_eq!(code, ErrorCode::SeatRefused, "{message}");
    assert_eq!(balance(&app, "bob").await, 10_000, "the stack is back");
    b.send(&sit_message(&table, 2)).await;
    assert_eq!(b.error().await.0, ErrorCode::SeatRefused);
    assert_eq!(balance(&app, "bob").await, 10_000);
    app.assert_balanced().await;
}

#[tokio::test]
async fn a_player_removed_during_a_hand_finishes_it_and_is_stood_up_after() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b)] = players(&app, ["ann", "bob"]).await;
    let table = create(&app, &ann, &body(false)).await.table;
    sit(&mut a, &table, 0, 200).await;
    sit(&mut b, &table, 1, 200).await;
    a.hand_running().await;
    host(&mut a, &table, HostAction::Remove { seat: 1 }).await;
    let _ = tokio::join!(play(&mut a, &table, 1), async {
        // bob plays on until the host's removal stands him up.
        let mut b = b;
        loop {
            if let Some(view) = b.view.clone()
                && let Some(legal) = view.legal
            {
                b.send(&ClientMessage::Act {
                    table: table.clone(),
                    hand: view.hand,
                    action: if legal.can_check {
                        shared::hand::Action::Check
                    } else {
                        shared::hand::Action::Call
                    },
                })
                .await;
            }
            match b.recv().await {
                Some(ServerMessage::Error {
                    code: ErrorCode::SeatRefused,
                    ..
                }) => break,
                Some(_) => {}
                None => panic!("closed"),
            }
        }
    });
    let seats: i64 = sqlx::query_scalar("SELECT count(*) FROM table_seats WHERE table_id = $1")
        .bind(&table)
        .fetch_one(&app.pool)
        .await
        .expect("seats");
    assert_eq!(seats, 1, "only the host is left");
    app.assert_balanced().await;
}

#[tokio::test]
async fn with_seat_approval_nothing_moves_until_the_host_decides() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b), (_, mut c)] = players(&app, ["ann", "bob", "cat"]).await;
    let mut approval = body(false);
    approval["seat_approval"] = json!(true);
    let table = create(&app, &ann, &approval).await.table;
    watch_with(&mut a, &table, None).await;
    sit(&mut a, &table, 0, 200).await; // the host needs no approval

    b.send(&sit_message(&table, 1)).await;
    assert_eq!(b.error().await.0, ErrorCode::AwaitingApproval);
    assert_eq!(balance(&app, "bob").await, 10_000, "nothing taken yet");
    let (_, pending) = panel(&mut a).await;
    assert_eq!(
        pending,
        vec![SeatRequest {
            seat: 1,
            name: "bob".into(),
            buy_in: 200
        }]
    );
    // The same seat cannot be asked for twice.
    c.send(&sit_message(&table, 1)).await;
    assert_eq!(c.error().await.0, ErrorCode::Seat);
    c.send(&sit_message(&table, 2)).await;
    assert_eq!(c.error().await.0, ErrorCode::AwaitingApproval);

    host(&mut a, &table, HostAction::Approve { seat: 1 }).await;
    b.until(|m| matches!(m, ServerMessage::Snapshot { view, .. } | ServerMessage::Events { view: Some(view), .. } if view.you == Some(1)))
        .await;
    assert_eq!(balance(&app, "bob").await, 9_800);
    host(&mut a, &table, HostAction::Refuse { seat: 2 }).await;
    assert_eq!(c.error().await.0, ErrorCode::SeatRefused);
    assert_eq!(balance(&app, "cat").await, 10_000);
    host(&mut a, &table, HostAction::Approve { seat: 2 }).await;
    assert_eq!(a.error().await.0, ErrorCode::Seat, "nobody asks any more");
    app.assert_balanced().await;
}

#[tokio::test]
async fn the_host_hands_the_table_over_to_a_seated_player() {
    let app = quick_room().await;
    let [(ann, mut a), (bob, mut b)] = players(&app, ["ann", "bob"]).await;
    let table = create(&app, &ann, &body(true)).await;
    let (table, invite) = (table.table, table.invite.expect("invite"));
    watch_with(&mut a, &table, None).await;
    watch_with(&mut b, &table, Some(&invite)).await;
    host(&mut a, &table, HostAction::Pause).await;
    sit(&mut a, &table, 0, 200).await;
    sit(&mut b, &table, 1, 200).await;
    // Only to someone seated.
    host(&mut a, &table, HostAction::HandOver { seat: 3 }).await;
    assert_eq!(a.error().await.0, ErrorCode::Seat);
    host(&mut a, &table, HostAction::HandOver { seat: 1 }).await;
    b.until(|m| matches!(m, ServerMessage::Events { view: Some(view), .. } | ServerMessage::Snapshot { view, .. } if view.home.as_ref().is_some_and(|h| h.host == "bob")))
        .await;
    assert_eq!(panel(&mut b).await.0.as_deref(), Some(invite.as_str()));
    host(&mut a, &table, HostAction::Resume).await;
    assert_eq!(a.error().await.0, ErrorCode::NotHost);
    let mine: HostedTables = plain_browser()
        .get(app.url("/api/tables/mine"))
        .header("cookie", &bob)
        .send()
        .await
        .expect("mine")
        .json()
        .await
        .expect("json");
    assert_eq!(mine.tables.len(), 1);
    assert_eq!(mine.tables[0].invite.as_deref(), Some(invite.as_str()));
    let host_id: String = sqlx::query_scalar(
        "SELECT a.username FROM poker_tables t JOIN accounts a ON a.id = t.host_id WHERE t.id = $1",
    )
    .bind(&table)
    .fetch_one(&app.pool)
    .await
    .expect("host");
    assert_eq!(host_id, "bob");
}

#[tokio::test]
async fn the_host_closes_the_table_and_everyone_is_cashed_out() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b)] = players(&app, ["ann", "bob"]).await;
    let table = create(&app, &ann, &body(false)).await.table;
    sit(&mut a, &table, 0, 200).await;
    sit(&mut b, &table, 1, 150).await;
    a.hand_running().await;
    host(&mut a, &table, HostAction::Close).await;
    // The room's periodic look at the database (every 5 s in `scoop serve`) comes while the
    // hand is still on: the table must stay reachable until its players have finished it.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let tables = app
        .state
        .as_ref()
        .expect("in-process server")
        .tables
        .clone();
    tables.sync().await.expect("sync");
    // The hand in play finishes; then the chips go home and the table is gone.
    let _ = tokio::join!(play(&mut a, &table, 1), play(&mut b, &table, 1));
    for _ in 0..100 {
        let seated: i64 =
            sqlx::query_scalar("SELECT count(*) FROM table_seats WHERE table_id = $1")
                .bind(&table)
                .fetch_one(&app.pool)
                .await
                .expect("seats");
        if seated == 0 && !lobby_ids(&app).await.contains(&table) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        balance(&app, "ann").await + balance(&app, "bob").await,
        20_000
    );
    assert!(!lobby_ids(&app).await.contains(&table));
    assert_eq!(open_tables(&app).await, 0);
    // Once its task has ended the registry forgets it.
    let mut forgotten = false;
    for _ in 0..50 {
        if tables.sender_for(&table, None, None).await.is_none() {
            forgotten = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(forgotten, "the closed table is still in the registry");
    app.assert_balanced().await;
}

#[tokio::test]
async fn a_player_table_nobody_sits_at_closes_itself() {
    let app = spawn_with(|c| c.player_table_idle_secs = 1).await;
    let ann = register(&app, "ann").await;
    let created = create(&app, &ann, &body(true)).await;
    let invite = created.invite.expect("invite");
    assert_eq!(invite_status(&app, &invite).await, 200);
    let mut closed = false;
    for _ in 0..100 {
        if open_tables(&app).await == 0 && invite_status(&app, &invite).await == 404 {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(closed, "closed within 10 s of a 1 s idle limit");
    // Its place under the host's limit is free again.
    create(&app, &ann, &body(true)).await;
}

#[tokio::test]
async fn limits_and_bad_requests_are_refused_with_nothing_created() {
    let operator = crate::tables::quick_table("op", shared::rules::Structure::NoLimit);
    let app = crate::helpers::spawn_tables(&[operator], |c| {
        c.player_tables_per_host = 1;
        c.player_tables_max = 2;
        c.player_max_big_blind = 100;
    })
    .await;
    let (ann, bob, cat, dan) = (
        register(&app, "ann").await,
        register(&app, "bob").await,
        register(&app, "cat").await,
        register(&app, "dan").await,
    );
    let refused = |r: Response, status: u16, code: &'static str| async move {
        assert_eq!(r.status(), status);
        let v: Value = r.json().await.expect("json error");
        assert_eq!(v["error"], code, "{v}");
    };
    let visitor = plain_browser()
        .post(app.url("/api/tables"))
        .json(&body(false))
        .send()
        .await
        .expect("request");
    refused(visitor, 401, "not_logged_in").await;
    let mut high = body(false);
    high["big_blind"] = json!(200);
    high["small_blind"] = json!(100);
    refused(
        post_as(&app, &dan, "/api/tables", &high).await,
        400,
        "bad_request",
    )
    .await;
    let mut unknown = body(false);
    unknown["rake_basis_points"] = json!(500);
    refused(
        post_as(&app, &dan, "/api/tables", &unknown).await,
        400,
        "bad_request",
    )
    .await;
    let mut long = body(false);
    long["name"] = json!("x".repeat(41));
    refused(
        post_as(&app, &dan, "/api/tables", &long).await,
        400,
        "bad_request",
    )
    .await;
    assert_eq!(open_tables(&app).await, 0);

    create(&app, &ann, &body(false)).await;
    refused(
        post_as(&app, &ann, "/api/tables", &body(true)).await,
        409,
        "limit_reached",
    )
    .await;
    create(&app, &bob, &body(true)).await;
    refused(
        post_as(&app, &cat, "/api/tables", &body(true)).await,
        409,
        "limit_reached",
    )
    .await;
    assert_eq!(open_tables(&app).await, 2);

    // Operator tables have no host: nobody's controls work there.
    let mut c = connect(&app, Some(&cat)).await;
    host(&mut c, "op", HostAction::Pause).await;
    assert_eq!(c.error().await.0, ErrorCode::NotHost);
}

#[tokio::test]
async fn creating_tables_is_rate_limited_per_account() {
    let app = spawn_with(|c| c.player_tables_per_host = 100).await;
    let ann = register(&app, "ann").await;
    for _ in 0..3 {
        create(&app, &ann, &body(false)).await;
    }
    let r = post_as(&app, &ann, "/api/tables", &body(false)).await;
    assert_eq!(r.status(), 429);
    assert_eq!(open_tables(&app).await, 3);
}

#[tokio::test]
async fn a_restart_restores_a_private_table_with_its_host_link_and_seats() {
    use crate::crash::{settings, start_command, wait_healthy};
    let (pool, url) = crate::helpers::fresh_database().await;
    let serve = |url: &str| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_scoop"));
        cmd.arg("serve");
        settings(&mut cmd, url);
        start_command(&mut cmd)
    };
    let (mut child, addr) = serve(&url);
    wait_healthy(addr).await;
    let app = TestApp {
        addr,
        pool: pool.clone(),
        state: None,
    };
    let [(ann, mut a), (bob, _)] = players(&app, ["ann", "bob"]).await;
    let mut approval = body(true);
    approval["seat_approval"] = json!(true);
    let created = create(&app, &ann, &approval).await;
    let (table, invite) = (created.table, created.invite.expect("invite"));
    host(&mut a, &table, HostAction::Pause).await;
    watch_with(&mut a, &table, None).await;
    sit(&mut a, &table, 0, 200).await;
    child.kill().expect("kill");
    let _ = child.wait();

    let (mut child, addr) = serve(&url);
    wait_healthy(addr).await;
    let app = TestApp {
        addr,
        pool,
        state: None,
    };
    assert!(!lobby_ids(&app).await.contains(&table), "still private");
    assert_eq!(invite_status(&app, &invite).await, 200, "the same link");
    let mut b = connect(&app, Some(&bob)).await;
    let ServerMessage::Snapshot { view, .. } = watch_with(&mut b, &table, Some(&invite)).await
    else {
        panic!("the link still opens it");
    };
    let home = view.home.expect("home");
    assert_eq!(
        (home.host.as_str(), home.paused, home.seat_approval),
        ("ann", true, true)
    );
    let seat = view.seats[0].as_ref().expect("ann's seat is back");
    assert_eq!((seat.stack, seat.status), (200, SeatStatus::SittingOut));
    b.send(&sit_message(&table, 1)).await;
    assert_eq!(b.error().await.0, ErrorCode::AwaitingApproval);
    let _ = child.kill();
    let _ = child.wait();
}

/// Raises as much as allowed, else calls or checks, until `c` has seen `hands` hands end.
async fn shove(c: &mut Client, table: &str, hands: usize) {
    play_with(c, table, hands, |legal| match legal.raise {
        Ok(bounds) => Action::RaiseTo { to: bounds.max_to },
        Err(_) if legal.can_check => Action::Check,
        Err(_) => Action::Call,
    })
    .await
}

#[tokio::test]
async fn a_table_opened_to_run_twice_with_straddles_deals_both_and_keeps_every_chip() {
    let app = quick_room().await;
    let [(ann, mut a), (_, mut b), (_, mut c)] = players(&app, ["ann", "bob", "cat"]).await;
    let mut options = body(false);
    options["run_twice"] = json!(true);
    options["straddle"] = json!(true);
    let table = create(&app, &ann, &options).await.table;
    let lobby = lobby_rows(&app).await;
    let listed = lobby
        .iter()
        .find(|t| t["id"] == json!(table))
        .expect("listed");
    assert_eq!(
        (&listed["run_twice"], &listed["straddle"]),
        (&json!(true), &json!(true))
    );

    // Paused while everyone sits and asks to straddle, so the first hand has all three.
    let ServerMessage::Snapshot { view, .. } = watch_with(&mut a, &table, None).await else {
        panic!("the host watches");
    };
    assert!(view.run_twice && view.straddle && !view.straddling);
    host(&mut a, &table, HostAction::Pause).await;
    for (client, seat) in [(&mut a, 0), (&mut b, 1), (&mut c, 2)] {
        sit(client, &table, seat, 200).await;
        client
            .send(&ClientMessage::Straddle {
                table: table.clone(),
                on: true,
            })
            .await;
        client
            .until(|m| match m {
                ServerMessage::Events {
                    view: Some(view), ..
                }
                | ServerMessage::Snapshot { view, .. } => view.straddling,
                ServerMessage::Error { message, .. } => panic!("straddle refused: {message}"),
                _ => false,
            })
            .await;
    }
    host(&mut a, &table, HostAction::Resume).await;
    let _ = tokio::join!(
        shove(&mut a, &table, 1),
        shove(&mut b, &table, 1),
        shove(&mut c, &table, 1)
    );

    // The first hand: button 0, blinds 1 and 2, so seat 0 straddles; everyone shoves and the
    // board is run twice.
    let history: Value = sqlx::query_scalar(
        "SELECT history FROM hands WHERE table_id = $1 AND status = 'complete' ORDER BY number \
         LIMIT 1",
    )
    .bind(&table)
    .fetch_one(&app.pool)
    .await
    .expect("a hand");
    let record: HandRecord = serde_json::from_value(history).expect("a hand record");
    assert_eq!(record.format, HandRecord::FORMAT);
    assert!(record.events.contains(&Event::BlindPosted {
        seat: 0,
        blind: BlindKind::Straddle,
        amount: 4,
        all_in: false,
    }));
    let second_run: usize = record
        .events
        .iter()
        .map(|e| match e {
            Event::SecondRunDealt { cards, .. } => cards.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(second_run, 5);
    let from_second_board = record
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::PotAwarded {
                    second_run: true,
                    ..
                }
            )
        })
        .count();
    assert!(from_second_board >= 1);
    app.assert_balanced().await;
}

#[tokio::test]
async fn a_straddle_at_a_table_without_them_is_refused_and_changes_nothing() {
    let app = quick_room().await;
    let [(ann, mut a)] = players(&app, ["ann"]).await;
    let table = create(&app, &ann, &body(false)).await.table;
    let ServerMessage::Snapshot { .. } = watch_with(&mut a, &table, None).await else {
        panic!("the host watches");
    };
    sit(&mut a, &table, 0, 200).await;
    a.send(&ClientMessage::Straddle {
        table: table.clone(),
        on: true,
    })
    .await;
    let (code, message) = a.error().await;
    assert_eq!(code, ErrorCode::Seat, "{message}");
    assert!(message.contains("straddle"), "{message}");
    a.send(&ClientMessage::Resync {
        table: table.clone(),
    })
    .await;
    let ServerMessage::Snapshot { view, .. } = a
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await
    else {
        unreachable!()
    };
    assert!(!view.straddling && !view.straddle);
}
