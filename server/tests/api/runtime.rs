//! The table runtime when things go wrong: a table task that panics, a database that stops
//! answering mid-hand or under a leave, and players sat out for the table's number of hands.

use std::time::Duration;

use serde_json::Value;
use shared::format::Event;
use shared::hand::Action;
use shared::protocol::{ClientMessage, ErrorCode, ServerMessage, TableView, ViewEvent};
use shared::rules::Structure;
use shared::table::SeatStatus;

use crate::helpers::{TestApp, spawn_behind_proxy, spawn_tables};
use crate::tables::{quick_table, sit};
use crate::ws::{Client, connect, connect_with_origin, register};

fn ended(m: &ServerMessage) -> bool {
    matches!(m, ServerMessage::Events { events, .. }
        if events.iter().any(|e| matches!(e, ViewEvent::Public(Event::HandEnded { .. }))))
}

fn view_of(m: &ServerMessage) -> Option<&TableView> {
    match m {
        ServerMessage::Events {
            view: Some(view), ..
        }
        | ServerMessage::Snapshot { view, .. } => Some(view),
        _ => None,
    }
}

async fn hand_status(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT status FROM hands ORDER BY number")
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

async fn metrics(app: &TestApp) -> String {
    crate::edge::metrics(app).await
}

/// ann (seat 0) and bob (seat 1) at `table`, 500 chips each.
async fn two_players(app: &TestApp, table: &str) -> (String, Client, Client) {
    let (ann, bob) = (register(app, "ann").await, register(app, "bob").await);
    let mut a = connect(app, Some(&ann)).await;
    let mut b = connect(app, Some(&bob)).await;
    sit(&mut a, table, 0, 500).await;
    sit(&mut b, table, 1, 500).await;
    (ann, a, b)
}

#[tokio::test]
async fn a_table_that_panics_voids_its_hand_and_comes_back_from_the_database() {
    let app = spawn_tables(&[quick_table("p", Structure::NoLimit)], |_| {}).await;
    let (_, mut a, mut b) = two_players(&app, "p").await;
    // Chips in the middle: whoever is to act raises.
    let view = a.hand_running().await;
    let (actor, hand) = (view.to_act.unwrap(), view.hand);
    let raiser = if actor == 0 { &mut a } else { &mut b };
    raiser
        .send(&ClientMessage::Act {
            table: "p".into(),
            hand,
            action: Action::RaiseTo { to: 100 },
        })
        .await;
    raiser
        .until(|m| view_of(m).is_some_and(|v| v.seats.iter().flatten().any(|s| s.bet == 100)))
        .await;

    let state = app.state.as_ref().unwrap();
    assert!(state.tables.inject_panic("p").await);

    // Both players see the table again as the database holds it: the hand gone, every stack
    // as before it, everyone sat out.
    for c in [&mut a, &mut b] {
        let m = c
            .until(|m| {
                view_of(m).is_some_and(|v| {
                    !v.hand_running
                        && v.seats.iter().flatten().count() == 2
                        && v.seats
                            .iter()
                            .flatten()
                            .all(|s| s.stack == 500 && s.status == SeatStatus::SittingOut)
                })
            })
            .await;
        assert!(view_of(&m).is_some());
    }
    assert_eq!(hand_status(&app).await, vec!["void"]);
    app.assert_balanced().await;
    assert!(
        metrics(&app).await.contains("scoop_table_restarts_total 1"),
        "the restart is counted"
    );

    // The table lives on: back in, and a hand is dealt.
    for c in [&mut a, &mut b] {
        c.send(&ClientMessage::SitIn {
            table: "p".into(),
            post_now: true,
        })
        .await;
    }
    let view = a.hand_running().await;
    assert_eq!(view.hand, hand + 1);
}

#[tokio::test]
async fn a_hand_ending_while_the_database_is_down_is_shown_only_once_settled() {
    let (app, proxy) = spawn_behind_proxy(&[quick_table("d", Structure::NoLimit)], |_| {}).await;
    let (_, mut a, mut b) = two_players(&app, "d").await;
    let view = a.hand_running().await;
    let (actor, hand) = (view.to_act.unwrap(), view.hand);
    let (folder, other) = if actor == 0 {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };

    // The database goes away for longer than the server's pool waits for a connection.
    proxy.cut();
    folder
        .send(&ClientMessage::Act {
            table: "d".into(),
            hand,
            action: Action::Fold,
        })
        .await;
    let until_notice = other
        .until(|m| ended(m) || matches!(m, ServerMessage::Error { .. }))
        .await;
    match until_notice {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::DatabaseUnavailable),
        m => panic!("the result was shown before it was saved: {m:?}"),
    }
    let meanwhile = other.drain(Duration::from_secs(3)).await;
    assert!(
        !meanwhile.iter().any(ended),
        "nothing about the result is sent while it is not saved: {meanwhile:?}"
    );
    assert_eq!(hand_status(&app).await, vec!["running"]);

    // Back: the hand is settled, not voided, and only then shown.
    proxy.restore();
    other.until(ended).await;
    folder.until(ended).await;
    assert_eq!(hand_status(&app).await[0], "complete");
    app.assert_balanced().await;
    assert!(
        metrics(&app)
            .await
            .contains("scoop_settlements_held_total 1")
    );
}

#[tokio::test]
async fn leaving_while_the_database_is_down_changes_nothing_and_works_once_it_is_back() {
    let mut def = quick_table("l", Structure::NoLimit);
    def.between_hands_ms = 60_000;
    let (app, proxy) = spawn_behind_proxy(&[def], |_| {}).await;
    let (ann, mut a, mut b) = two_players(&app, "l").await;
    // Finish the first hand, then nothing is dealt for a minute.
    let view = a.hand_running().await;
    let folder = if view.to_act == Some(0) {
        &mut a
    } else {
        &mut b
    };
    folder
        .send(&ClientMessage::Act {
            table: "l".into(),
            hand: view.hand,
            action: Action::Fold,
        })
        .await;
    a.until(|m| view_of(m).is_some_and(|v| !v.hand_running))
        .await;
    let stack = a.view.as_ref().unwrap().seats[0].as_ref().unwrap().stack;

    proxy.cut();
    a.send(&ClientMessage::Leave {
        table: "l".into(),
        request_id: None,
    })
    .await;
    let (code, _) = a.error().await;
    assert_eq!(code, ErrorCode::DatabaseUnavailable);
    // Still seated, in memory and in the database.
    a.send(&ClientMessage::Resync { table: "l".into() }).await;
    let m = a
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await;
    assert_eq!(view_of(&m).and_then(|v| v.you), Some(0));
    let seated: i64 = sqlx::query_scalar("SELECT count(*) FROM table_seats")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(seated, 2);

    proxy.restore();
    // The pool may need a moment to reconnect: try until the leave goes through.
    let mut left = false;
    for _ in 0..20 {
        a.send(&ClientMessage::Leave {
            table: "l".into(),
            request_id: None,
        })
        .await;
        let m = a
            .until(|m| {
                matches!(m, ServerMessage::Error { .. })
                    || view_of(m).is_some_and(|v| v.you.is_none())
            })
            .await;
        if view_of(&m).is_some() {
            left = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(left, "the leave went through once the database was back");
    let me: Value = app.get_as(&ann, "/api/me").await.json().await.unwrap();
    assert_eq!(me["on_tables"], 0, "{me}");
    assert_eq!(me["balance"].as_u64().unwrap(), 10_000 - 500 + stack);
    app.assert_balanced().await;
}

#[tokio::test]
async fn players_sat_out_for_the_tables_number_of_hands_are_stood_up_with_their_chips() {
    let mut def = quick_table("s", Structure::NoLimit);
    def.sit_out_hands = 2;
    let app = spawn_tables(&[def], |_| {}).await;
    let (_, mut a, mut b) = two_players(&app, "s").await;
    let carl = register(&app, "carl").await;
    let mut c = connect(&app, Some(&carl)).await;
    sit(&mut c, "s", 2, 500).await;
    c.send(&ClientMessage::SitOut { table: "s".into() }).await;
    c.until(|m| {
        view_of(m).is_some_and(|v| {
            v.seats[2]
                .as_ref()
                .is_some_and(|s| s.status == SeatStatus::SittingOut)
        })
    })
    .await;
    // Hands numbered above this one are dealt while carl sits out.
    let before: i64 = sqlx::query_scalar("SELECT coalesce(max(number), 0) FROM hands")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    // ann and bob play on, checking and calling, while carl sits out.
    let (mut stood_up, mut seen_carl) = (false, [false; 2]);
    for _ in 0..2000 {
        let (m, who) = tokio::select! {
            m = a.recv() => (m, 0u8),
            m = b.recv() => (m, 1u8),
        };
        let Some(m) = m else { break };
        let Some(v) = view_of(&m) else { continue };
        // Frames queued from before carl sat down show seat 2 empty too (on each socket).
        match (&v.seats[2], seen_carl[usize::from(who)]) {
            (Some(_), _) => seen_carl[usize::from(who)] = true,
            (None, true) => {
                stood_up = true;
                break;
            }
            (None, false) => {}
        }
        if let Some(legal) = v.legal
            && v.you == Some(who)
        {
            let action = if legal.can_check {
                Action::Check
            } else {
                Action::Call
            };
            let client = if who == 0 { &mut a } else { &mut b };
            client
                .send(&ClientMessage::Act {
                    table: "s".into(),
                    hand: v.hand,
                    action,
                })
                .await;
        }
    }
    assert!(stood_up, "carl was stood up");
    let dealt: i64 =
        sqlx::query_scalar("SELECT count(*) FROM hands WHERE status = 'complete' AND number > $1")
            .bind(before)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(dealt, 2, "stood up after two hands sat out, not before");
    let me: Value = app.get_as(&carl, "/api/me").await.json().await.unwrap();
    assert_eq!(me["on_tables"], 0, "{me}");
    assert_eq!(me["balance"], 10_000);
    app.assert_balanced().await;
}

#[tokio::test]
async fn a_request_sent_twice_with_the_same_id_moves_chips_once() {
    let mut def = quick_table("i", Structure::NoLimit);
    def.between_hands_ms = 60_000;
    let app = spawn_tables(&[def], |_| {}).await;
    let ann = register(&app, "ann").await;
    // Two sockets of one account: a page and its reload, both sending the same click.
    let mut a1 = connect(&app, Some(&ann)).await;
    let mut a2 = connect(&app, Some(&ann)).await;
    a1.watch("i").await;
    a2.watch("i").await;
    let id = |s: &str| shared::protocol::RequestId::try_from(s.to_string()).ok();
    for c in [&mut a1, &mut a2] {
        c.send(&ClientMessage::Sit {
            table: "i".into(),
            seat: 0,
            buy_in: 500,
            post_now: true,
            request_id: id("sit-1"),
        })
        .await;
    }
    a1.until(|m| view_of(m).is_some_and(|v| v.you == Some(0)))
        .await;
    let (code, _) = a2.error().await;
    assert!(
        matches!(code, ErrorCode::Seat | ErrorCode::AlreadyDone),
        "{code:?}"
    );
    for c in [&mut a1, &mut a2] {
        c.send(&ClientMessage::TopUp {
            table: "i".into(),
            amount: 100,
            request_id: id("top-up-1"),
        })
        .await;
    }
    a1.until(|m| view_of(m).is_some_and(|v| v.seats[0].as_ref().is_some_and(|s| s.stack == 600)))
        .await;
    let (code, _) = a2.error().await;
    assert_eq!(code, ErrorCode::AlreadyDone);
    // A later top-up with a new id is a new request.
    a2.send(&ClientMessage::TopUp {
        table: "i".into(),
        amount: 50,
        request_id: id("top-up-2"),
    })
    .await;
    a2.until(|m| view_of(m).is_some_and(|v| v.seats[0].as_ref().is_some_and(|s| s.stack == 650)))
        .await;
    let me: Value = app.get_as(&ann, "/api/me").await.json().await.unwrap();
    assert_eq!(me["balance"], 10_000 - 650, "{me}");
    assert_eq!(me["on_tables"], 650, "{me}");
    let rows: i64 =
        sqlx::query_scalar("SELECT count(*) FROM ledger WHERE kind IN ('buy_in', 'top_up')")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(rows, 3);
    // A request id that is not one is refused as a bad message, and nothing moves.
    a1.send_raw(tokio_tungstenite::tungstenite::Message::Text(
        r#"{"type":"top_up","table":"i","amount":10,"request_id":"no spaces allowed"}"#.into(),
    ))
    .await;
    let (code, _) = a1.error().await;
    assert_eq!(code, ErrorCode::BadMessage);
    app.assert_balanced().await;
}

#[tokio::test]
async fn a_leave_request_id_used_again_after_sitting_down_again_changes_nothing() {
    let mut def = quick_table("r", Structure::NoLimit);
    def.between_hands_ms = 60_000;
    let app = spawn_tables(&[def], |_| {}).await;
    let ann = register(&app, "ann").await;
    let mut a = connect(&app, Some(&ann)).await;
    let id = |s: &str| shared::protocol::RequestId::try_from(s.to_string()).ok();
    sit(&mut a, "r", 0, 500).await;
    a.send(&ClientMessage::Leave {
        table: "r".into(),
        request_id: id("leave-1"),
    })
    .await;
    a.until(|m| view_of(m).is_some_and(|v| v.you.is_none()))
        .await;
    sit(&mut a, "r", 0, 400).await;
    // The old click again: the new sitting is not ended by it, in memory or in Postgres.
    a.send(&ClientMessage::Leave {
        table: "r".into(),
        request_id: id("leave-1"),
    })
    .await;
    let (code, _) = a.error().await;
    assert_eq!(code, ErrorCode::AlreadyDone);
    a.send(&ClientMessage::Resync { table: "r".into() }).await;
    let m = a
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await;
    assert_eq!(view_of(&m).and_then(|v| v.you), Some(0));
    let me: Value = app.get_as(&ann, "/api/me").await.json().await.unwrap();
    assert_eq!(me["on_tables"], 400, "{me}");
    app.assert_balanced().await;
}

/// The clock in a table message, if any.
fn clock_of(m: &ServerMessage) -> Option<shared::protocol::Clock> {
    match m {
        ServerMessage::Events { clock, .. } | ServerMessage::Snapshot { clock, .. } => *clock,
        _ => None,
    }
}

#[tokio::test]
async fn the_time_bank_stays_with_the_seat_through_a_restart_and_a_leave() {
    let mut def = quick_table("b", Structure::NoLimit);
    def.clock_secs = 1;
    def.time_bank_secs = 5;
    def.between_hands_ms = 300;
    let app = spawn_tables(&[def], |_| {}).await;
    let (ann, mut a, mut b) = two_players(&app, "b").await;
    let bob = b.view.as_ref().and_then(|v| v.you);
    assert_eq!(bob, Some(1));
    // ann lets her clock run out and uses about a second of her bank before checking or calling.
    let view = loop {
        let view = a.hand_running().await;
        if view.to_act == Some(0) {
            break view;
        }
        // bob's turn: he acts at once.
        let legal = b.hand_running().await.legal;
        if let Some(l) = legal {
            b.send(&ClientMessage::Act {
                table: "b".into(),
                hand: view.hand,
                action: if l.can_check {
                    Action::Check
                } else {
                    Action::Call
                },
            })
            .await;
        }
    };
    a.until(|m| clock_of(m).is_some_and(|c| c.seat == 0 && c.in_time_bank))
        .await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let legal = view.legal.unwrap();
    a.send(&ClientMessage::Act {
        table: "b".into(),
        hand: view.hand,
        action: if legal.can_check {
            Action::Check
        } else {
            Action::Call
        },
    })
    .await;
    // Written with the seat, without holding the table up.
    let mut stored = None;
    for _ in 0..50 {
        stored = sqlx::query_scalar::<_, Option<i32>>(
            "SELECT s.time_bank_ms FROM table_seats s JOIN accounts a ON a.id = s.account_id \
             WHERE a.username = 'ann'",
        )
        .fetch_one(&app.pool)
        .await
        .unwrap();
        if stored.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let stored = u64::try_from(stored.expect("the bank is saved")).unwrap();
    assert!((500..=4600).contains(&stored), "{stored} ms left of 5000");

    // A restart of the table (a panic) brings the bank back from Postgres.
    let state = app.state.as_ref().unwrap();
    assert!(state.tables.inject_panic("b").await);
    a.until(|m| view_of(m).is_some_and(|v| !v.hand_running && v.seats[0].is_some()))
        .await;
    for c in [&mut a, &mut b] {
        c.send(&ClientMessage::SitIn {
            table: "b".into(),
            post_now: true,
        })
        .await;
    }
    let bank = a
        .until(|m| clock_of(m).is_some_and(|c| c.seat == 0 && !c.in_time_bank))
        .await;
    assert_eq!(
        clock_of(&bank).map(|c| c.time_bank_ms),
        Some(stored),
        "restored with the seat"
    );

    // Leaving and sitting down again in the same sitting does not refill it.
    a.send(&ClientMessage::Leave {
        table: "b".into(),
        request_id: None,
    })
    .await;
    a.until(|m| view_of(m).is_some_and(|v| v.you.is_none()))
        .await;
    sit(&mut a, "b", 0, 500).await;
    // bob plays whenever it is his turn, until it is ann's.
    let bank = loop {
        let (m, who) = tokio::select! {
            m = a.recv() => (m, 0u8),
            m = b.recv() => (m, 1u8),
        };
        let m = m.expect("open");
        if who == 0 && clock_of(&m).is_some_and(|c| c.seat == 0 && !c.in_time_bank) {
            break m;
        }
        if who == 1
            && let Some(v) = view_of(&m)
            && let Some(l) = v.legal
        {
            b.send(&ClientMessage::Act {
                table: "b".into(),
                hand: v.hand,
                action: if l.can_check {
                    Action::Check
                } else {
                    Action::Call
                },
            })
            .await;
        }
    };
    assert_eq!(clock_of(&bank).map(|c| c.time_bank_ms), Some(stored));
    let _ = ann;
}

#[tokio::test]
async fn a_socket_opened_while_the_database_is_down_is_refused_not_opened_as_a_visitors() {
    let (app, proxy) = spawn_behind_proxy(&[quick_table("v", Structure::NoLimit)], |_| {}).await;
    let ann = register(&app, "ann").await;

    // The session cannot be looked up: opened as a visitor's, the socket would tell a
    // logged-in player to log in; refused, the page reconnects later.
    proxy.cut();
    match connect_with_origin(&app, Some(&ann), "http://localhost:8080").await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 503);
            assert_eq!(
                response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()),
                Some("1")
            );
        }
        Err(e) => panic!("refused otherwise: {e}"),
        Ok(_) => panic!("the socket was opened without its session"),
    }
    // A visitor's socket needs no lookup and opens as before.
    connect(&app, None).await.watch("v").await;

    // Back: the same cookie opens a socket that is ann's.
    proxy.restore();
    let mut a = connect(&app, Some(&ann)).await;
    sit(&mut a, "v", 0, 500).await;
}
