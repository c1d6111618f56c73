//! Tables over real sockets against a real Postgres: playing, watching, hidden cards,
//! reconnecting, the clock, bad input.

use std::collections::HashMap;

use serde_json::Value;
use server::tables::def::TableDef;
use shared::card::Card;
use shared::format::Event;
use shared::hand::Action;
use shared::history::HandRecord;
use shared::protocol::{ClientMessage, ErrorCode, ServerMessage, ViewEvent};
use shared::rules::Structure;
use shared::table::SeatStatus;
use sqlx::Row;
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::{TestApp, spawn_tables};
use crate::ws::{Client, connect, connect_with_origin, register};

pub(crate) fn quick_table(id: &str, structure: Structure) -> TableDef {
    let mut t = TableDef::new(id, id, structure, 5, 10);
    t.between_hands_ms = 50;
    t.run_out_street_ms = 0;
    t
}

/// ann in seat 0 and bob in seat 1 of the one table `def`, each bought in for `buy_in`.
struct HeadsUp {
    app: TestApp,
    ann: String,
    bob: String,
    a: Client,
    b: Client,
}

async fn heads_up(def: TableDef, buy_in: u64) -> HeadsUp {
    let table = def.id.clone();
    let app = spawn_tables(&[def], |_| {}).await;
    let (ann, bob) = (register(&app, "ann").await, register(&app, "bob").await);
    let mut a = connect(&app, Some(&ann)).await;
    let mut b = connect(&app, Some(&bob)).await;
    sit(&mut a, &table, 0, buy_in).await;
    sit(&mut b, &table, 1, buy_in).await;
    HeadsUp {
        app,
        ann,
        bob,
        a,
        b,
    }
}

/// Plays whatever is legal for `c` (check, else call) until it has seen `hands` hands end.
/// Checks or calls until `c` has seen `hands` hands end.
pub(crate) async fn play(c: &mut Client, table: &str, hands: usize) {
    play_with(c, table, hands, |legal| {
        if legal.can_check {
            Action::Check
        } else {
            Action::Call
        }
    })
    .await
}

/// Acts with `choose` whenever `c` is to act, until it has seen `hands` hands end.
pub(crate) async fn play_with(
    c: &mut Client,
    table: &str,
    hands: usize,
    choose: impl Fn(&shared::hand::Legal) -> Action,
) {
    let mut ended = 0;
    let mut acted_at = None;
    while ended < hands {
        // Act on the view already received before waiting for more.
        if let Some(view) = c.view.clone()
            && let Some(legal) = view.legal
            && acted_at != Some(c.seq)
        {
            acted_at = Some(c.seq);
            let action = choose(&legal);
            c.send(&ClientMessage::Act {
                table: table.into(),
                hand: view.hand,
                action,
            })
            .await;
        }
        let Some(msg) = c.recv().await else {
            panic!("closed")
        };
        if let ServerMessage::Events { events, .. } = &msg {
            ended += events
                .iter()
                .filter(|e| matches!(e, ViewEvent::Public(Event::HandEnded { .. })))
                .count();
        }
    }
}

pub(crate) async fn sit(c: &mut Client, table: &str, seat: u8, buy_in: u64) {
    c.send(&ClientMessage::Sit {
        table: table.into(),
        seat,
        buy_in,
        post_now: true,
        request_id: None,
    })
    .await;
    c.until(|m| match m {
        ServerMessage::Events {
            view: Some(view), ..
        }
        | ServerMessage::Snapshot { view, .. } => view.you == Some(seat),
        ServerMessage::Error { message, .. } => panic!("sit refused: {message}"),
        _ => false,
    })
    .await;
}

async fn records(app: &TestApp, table: &str) -> Vec<HandRecord> {
    sqlx::query(
        "SELECT history FROM hands WHERE table_id = $1 AND status = 'complete' ORDER BY number",
    )
    .bind(table)
    .fetch_all(&app.pool)
    .await
    .unwrap()
    .iter()
    .map(|r| serde_json::from_value(r.get(0)).unwrap())
    .collect()
}

/// Asserts that none of `frames` for hand `number` names a hole card of a seat that was not
/// turned face up, except the viewer's own.
fn assert_no_hidden_cards(
    frames: &[String],
    records: &[HandRecord],
    own_seat: Option<u8>,
    who: &str,
) {
    for record in records {
        let mut shown: Vec<u8> = Vec::new();
        let mut holes: HashMap<u8, [Card; 4]> = HashMap::new();
        for e in &record.events {
            match e {
                Event::HoleCards { seat, cards } => {
                    holes.insert(*seat, *cards);
                }
                Event::Shown { seat, .. } => shown.push(*seat),
                Event::HandsFaceUp { hands } => shown.extend(hands.iter().map(|h| h.0)),
                _ => {}
            }
        }
        // A frame belongs to the hand its view shows: a snapshot names it, a change names it
        // when it changed, and a change that does not stays in the hand before it.
        let mut hand = None;
        let hand_frames: Vec<&String> = frames
            .iter()
            .filter(|f| {
                let v = serde_json::from_str::<Value>(f).unwrap_or_default();
                if let Some(h) = v["view"]["hand"].as_u64().or(v["patch"]["hand"].as_u64()) {
                    hand = Some(h);
                }
                hand == Some(record.number) && (v["view"].is_object() || v["patch"].is_object())
            })
            .collect();
        assert!(
            !hand_frames.is_empty(),
            "{who} saw no frame of hand {}",
            record.number
        );
        for (seat, cards) in &holes {
            if shown.contains(seat) || Some(*seat) == own_seat {
                continue;
            }
            for card in cards {
                let needle = format!("\"{card}\"");
                assert!(
                    !hand_frames.iter().any(|f| f.contains(&needle)),
                    "{who} received seat {seat}'s hidden card {card} in hand {}",
                    record.number
                );
            }
        }
    }
}

#[tokio::test]
async fn players_play_complete_hands_of_every_structure_and_nobody_sees_a_hidden_card() {
    let tables = [
        quick_table("fl", Structure::FixedLimit),
        quick_table("pl", Structure::PotLimit),
        quick_table("nl", Structure::NoLimit),
    ];
    let app = spawn_tables(&tables, |_| {}).await;
    for t in &tables {
        let (ann, bob) = (
            register(&app, &format!("ann{}", t.id)).await,
            register(&app, &format!("bob{}", t.id)).await,
        );
        let mut spectator = connect(&app, None).await;
        spectator.watch(&t.id).await;
        let mut a = connect(&app, Some(&ann)).await;
        let mut b = connect(&app, Some(&bob)).await;
        a.watch(&t.id).await;
        b.watch(&t.id).await;
        sit(&mut a, &t.id, 0, 500).await;
        sit(&mut b, &t.id, 3, 500).await;
        let (pa, pb) = tokio::join!(play(&mut a, &t.id, 3), play(&mut b, &t.id, 3));
        let _ = (pa, pb);
        let done = records(&app, &t.id).await;
        // Let the spectator read everything sent up to the end of the last recorded hand.
        let last = done.last().map_or(0, |r| r.number);
        spectator
            .until(|m| matches!(m, ServerMessage::Events { view: Some(view), .. } if view.hand >= last && !view.hand_running))
            .await;
        let done: Vec<HandRecord> = done.into_iter().filter(|r| r.number <= last).collect();
        assert!(done.len() >= 3, "{}: {} hands", t.id, done.len());
        assert_no_hidden_cards(&spectator.frames, &done, None, "the spectator");
        assert_no_hidden_cards(&a.frames, &done, Some(0), "ann");
        assert_no_hidden_cards(&b.frames, &done, Some(3), "bob");
        // Each player received their own cards.
        assert!(
            a.frames
                .iter()
                .any(|f| f.contains("\"event\":\"dealt\"") && f.contains("\"cards\":["))
        );
    }
    app.assert_balanced().await;
}

#[tokio::test]
async fn reconnecting_mid_hand_brings_back_the_whole_view_with_own_cards() {
    let app = spawn_tables(&[quick_table("t", Structure::NoLimit)], |_| {}).await;
    let (ann, bob) = (register(&app, "ann").await, register(&app, "bob").await);
    let mut a = connect(&app, Some(&ann)).await;
    let mut b = connect(&app, Some(&bob)).await;
    sit(&mut a, "t", 1, 500).await;
    sit(&mut b, "t", 2, 500).await;
    a.hand_running().await;
    drop(a);
    let mut again = connect(&app, Some(&ann)).await;
    let view = again.watch("t").await;
    assert!(view.hand_running);
    assert_eq!(view.you, Some(1));
    let me = view.seats[1].as_ref().unwrap();
    assert!(me.cards.is_some(), "own cards after reconnect");
    assert!(
        view.seats[2].as_ref().unwrap().cards.is_none(),
        "never the opponent's"
    );
    // The seat was kept: the opponent still plays against it.
    b.send(&ClientMessage::Resync { table: "t".into() }).await;
    let ServerMessage::Snapshot { view, .. } = b
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await
    else {
        unreachable!()
    };
    assert!(view.seats[1].as_ref().unwrap().live);
}

#[tokio::test]
async fn clock_expiry_checks_or_folds_and_sits_the_player_out() {
    let mut def = quick_table("t", Structure::NoLimit);
    def.clock_secs = 1;
    def.time_bank_secs = 0;
    // bob's socket stays open (`_b`), so only the clock acts.
    let HeadsUp {
        app, mut a, b: _b, ..
    } = heads_up(def, 500).await;
    // Nobody acts. Heads-up the button (small blind) acts first, faces the big blind: folds.
    let msg = a
        .until(|m| {
            matches!(m, ServerMessage::Events { events, .. }
                if events.iter().any(|e| matches!(e, ViewEvent::Public(Event::Acted { action: shared::format::Acted::Fold, .. }))))
        })
        .await;
    let ServerMessage::Events { events, .. } = msg else {
        unreachable!()
    };
    let folder = events
        .iter()
        .find_map(|e| match e {
            ViewEvent::Public(Event::Acted { seat, .. }) => Some(*seat),
            _ => None,
        })
        .unwrap();
    let view = a.until_view(|view| !view.hand_running).await;
    assert_eq!(
        view.seats[folder as usize].as_ref().unwrap().status,
        SeatStatus::SittingOut
    );
    app.assert_balanced().await;
}

#[tokio::test]
async fn bad_input_is_refused_with_an_error_and_changes_nothing() {
    let app = spawn_tables(&[quick_table("t", Structure::PotLimit)], |_| {}).await;
    let (ann, bob) = (register(&app, "ann").await, register(&app, "bob").await);

    // A foreign Origin cannot even open the socket.
    assert!(
        connect_with_origin(&app, Some(&ann), "https://evil.example")
            .await
            .is_err()
    );

    let mut a = connect(&app, Some(&ann)).await;
    let mut b = connect(&app, Some(&bob)).await;
    a.send_raw(Message::Text("{not json".into())).await;
    let (code, _) = a.error().await;
    assert_eq!(code, ErrorCode::BadMessage);

    // Buy-ins outside the table's range, or beyond the balance.
    a.send(&ClientMessage::Sit {
        table: "t".into(),
        seat: 0,
        buy_in: 5,
        post_now: true,
        request_id: None,
    })
    .await;
    let (code, _) = a.error().await;
    assert_eq!(code, ErrorCode::Seat);
    a.send(&ClientMessage::Sit {
        table: "t".into(),
        seat: 9,
        buy_in: 500,
        post_now: true,
        request_id: None,
    })
    .await;
    a.error().await;

    sit(&mut a, "t", 0, 500).await;
    sit(&mut b, "t", 1, 500).await;
    let view = a.hand_running().await;
    let to_act = view.to_act.unwrap();
    let (actor, other) = if to_act == 0 {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };

    // Out of turn.
    other
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: Action::Call,
        })
        .await;
    let (code, _) = other.error().await;
    assert_eq!(code, ErrorCode::IllegalAction);
    // More than the stack.
    actor
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: Action::RaiseTo { to: 10_000 },
        })
        .await;
    let (code, message) = actor.error().await;
    assert_eq!(code, ErrorCode::IllegalAction, "{message}");
    // A stale hand number.
    actor
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand + 7,
            action: Action::Call,
        })
        .await;
    let (code, _) = actor.error().await;
    assert_eq!(code, ErrorCode::StaleHand);
    // Nothing changed: a fresh snapshot shows the same turn and bets.
    actor
        .send(&ClientMessage::Resync { table: "t".into() })
        .await;
    let ServerMessage::Snapshot { view: after, .. } = actor
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await
    else {
        unreachable!()
    };
    assert_eq!(after.to_act, view.to_act);
    assert_eq!(after.pots, view.pots);
    assert_eq!(
        after
            .seats
            .iter()
            .map(|s| s.as_ref().map(|s| (s.stack, s.bet)))
            .collect::<Vec<_>>(),
        view.seats
            .iter()
            .map(|s| s.as_ref().map(|s| (s.stack, s.bet)))
            .collect::<Vec<_>>()
    );

    // A spectator cannot act.
    let mut spectator = connect(&app, None).await;
    spectator
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: Action::Fold,
        })
        .await;
    let (code, _) = spectator.error().await;
    assert_eq!(code, ErrorCode::NotLoggedIn);

    // An oversize frame closes the connection.
    let mut c = connect(&app, Some(&ann)).await;
    c.send_raw(Message::Text("x".repeat(20_000).into())).await;
    let mut closed = false;
    for _ in 0..5 {
        if c.recv().await.is_none() {
            closed = true;
            break;
        }
    }
    assert!(closed, "an oversize frame must close the socket");
    app.assert_balanced().await;
}

#[tokio::test]
async fn logout_closes_that_users_sockets() {
    let app = spawn_tables(&[quick_table("t", Structure::NoLimit)], |_| {}).await;
    let ann = register(&app, "ann").await;
    let mut a = connect(&app, Some(&ann)).await;
    a.watch("t").await;
    let r = app.logout_as(&ann).await;
    assert_eq!(r.status(), 204);
    a.until(|m| matches!(m, ServerMessage::SessionEnded)).await;
}

#[tokio::test]
async fn lobby_lists_tables_pushes_updates_and_stops_on_unsubscribe() {
    let app = spawn_tables(
        &[
            quick_table("t", Structure::FixedLimit),
            quick_table("u", Structure::NoLimit),
        ],
        |_| {},
    )
    .await;
    let list: Value = reqwest::get(app.url("/api/tables"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["tables"].as_array().unwrap().len(), 2);
    let mut watcher = connect(&app, None).await;
    watcher.send(&ClientMessage::SubscribeLobby).await;
    let ServerMessage::Lobby { tables } = watcher
        .until(|m| matches!(m, ServerMessage::Lobby { .. }))
        .await
    else {
        unreachable!()
    };
    assert_eq!(tables.len(), 2);
    let ann = register(&app, "ann").await;
    let mut a = connect(&app, Some(&ann)).await;
    sit(&mut a, "u", 4, 500).await;
    watcher
        .until(|m| matches!(m, ServerMessage::LobbyUpdate { table } if table.id == "u" && table.seats_taken == 1))
        .await;

    // Unsubscribed, the watcher hears nothing more; a still-subscribed client shows that an
    // update was sent meanwhile.
    let mut control = connect(&app, None).await;
    control.send(&ClientMessage::SubscribeLobby).await;
    control
        .until(|m| matches!(m, ServerMessage::Lobby { .. }))
        .await;
    watcher.send(&ClientMessage::UnsubscribeLobby).await;
    watcher.send(&ClientMessage::Ping).await;
    watcher.until(|m| matches!(m, ServerMessage::Pong)).await;
    let bob = register(&app, "bob").await;
    let mut b = connect(&app, Some(&bob)).await;
    sit(&mut b, "u", 2, 500).await;
    control
        .until(|m| matches!(m, ServerMessage::LobbyUpdate { table } if table.id == "u" && table.seats_taken == 2))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    watcher.send(&ClientMessage::Ping).await;
    loop {
        match watcher.recv().await {
            Some(ServerMessage::Pong) => break,
            Some(ServerMessage::LobbyUpdate { table }) => {
                panic!("lobby update after unsubscribing: {table:?}")
            }
            Some(_) => {}
            None => panic!("closed"),
        }
    }
}

#[tokio::test]
async fn hand_histories_list_ones_hands_and_show_only_what_one_may_see() {
    let HeadsUp {
        app,
        ann,
        mut a,
        mut b,
        ..
    } = heads_up(quick_table("t", Structure::NoLimit), 500).await;
    let _ = tokio::join!(play(&mut a, "t", 2), play(&mut b, "t", 2));
    let list: Value = app.get_as(&ann, "/api/hands").await.json().await.unwrap();
    let hands = list["hands"].as_array().unwrap();
    assert!(hands.len() >= 2);
    let id = hands[0]["id"].as_str().unwrap();
    let hand: Value = app
        .get_as(&ann, &format!("/api/hands/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert!(hand["events"].as_array().unwrap().len() > 5);
    assert!(
        hand.get("deck").is_none(),
        "the deck never leaves the server"
    );
    // Exports: PHH that `scoop replay` reads back to the recorded stacks, PokerStars text.
    let phh = app
        .get_as(&ann, &format!("/api/hands/{id}?format=phh"))
        .await;
    assert_eq!(phh.status(), 200);
    let phh = phh.text().await.unwrap();
    let parsed = shared::history::phh::parse_file(&phh, "exported.phh")
        .unwrap()
        .remove(0)
        .1
        .unwrap();
    let replayed = shared::history::phh::replay(&parsed);
    if !phh.contains("????") {
        assert_eq!(replayed.ok(), parsed.finishing_stacks.clone(), "{phh}");
    }
    let stars = app
        .get_as(&ann, &format!("/api/hands/{id}?format=pokerstars"))
        .await;
    let stars = stars.text().await.unwrap();
    assert!(stars.starts_with("PokerStars Hand #"), "{stars}");
    assert!(stars.contains("Dealt to ann ["), "{stars}");
    let r = app
        .get_as(&ann, &format!("/api/hands/{id}?format=xml"))
        .await;
    assert_eq!(r.status(), 400);
    let carol = register(&app, "carol").await;
    let r = app.get_as(&carol, &format!("/api/hands/{id}")).await;
    assert_eq!(r.status(), 404);
    let r = app.get_as(&ann, "/api/hands/not-a-uuid").await;
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn a_lone_visitor_plays_at_once_against_house_bots_at_a_practice_table() {
    let mut def = quick_table("practice", Structure::PotLimit);
    def.practice = true;
    def.house_bots = 2;
    let app = spawn_tables(&[def], |_| {}).await;
    let ann = register(&app, "ann").await;
    let mut a = connect(&app, Some(&ann)).await;
    a.watch("practice").await;
    let seated = |m: &ServerMessage| match m {
        ServerMessage::Events {
            view: Some(view), ..
        }
        | ServerMessage::Snapshot { view, .. } => view.seats.iter().flatten().count() >= 2,
        _ => false,
    };
    a.until(seated).await;
    let view = a.view.clone().unwrap();
    let bots: Vec<String> = view
        .seats
        .iter()
        .flatten()
        .map(|s| s.name.clone())
        .collect();
    assert!(bots.iter().all(|n| n.contains("house bot")), "{bots:?}");
    sit(&mut a, "practice", 0, 500).await;
    play(&mut a, "practice", 2).await;
    app.assert_balanced().await;
}

#[tokio::test]
async fn pre_selected_actions_chat_top_up_and_leave_work_over_the_socket() {
    let mut def = quick_table("t", Structure::FixedLimit);
    def.between_hands_ms = 60_000; // one hand, then time to top up and leave
    let HeadsUp {
        app,
        ann,
        mut a,
        mut b,
        ..
    } = heads_up(def, 200).await;
    let view = a.hand_running().await;
    // Whoever is not to act pre-selects "check/fold"; the one to act raises: the pre-selection folds.
    let (actor, waiter, waiter_seat) = if view.to_act == Some(0) {
        (&mut a, &mut b, 1u8)
    } else {
        (&mut b, &mut a, 0u8)
    };
    waiter
        .send(&ClientMessage::PreSelect {
            table: "t".into(),
            pre: Some(shared::protocol::PreAction::CheckFold),
        })
        .await;
    // Let the pre-selection reach the table before the raise.
    waiter
        .send(&ClientMessage::Resync { table: "t".into() })
        .await;
    waiter
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await;
    let bounds = actor
        .view
        .as_ref()
        .and_then(|v| v.legal)
        .and_then(|l| l.raise.ok())
        .expect("a raise is legal");
    actor
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: Action::RaiseTo { to: bounds.min_to },
        })
        .await;
    waiter
        .until(|m| matches!(m, ServerMessage::Events { events, .. }
            if events.iter().any(|e| matches!(e, ViewEvent::Public(Event::Acted { seat, action: shared::format::Acted::Fold, .. }) if *seat == waiter_seat))))
        .await;

    // Chat: players only, with a length limit.
    a.send(&ClientMessage::Chat {
        table: "t".into(),
        text: "bonne chance".into(),
    })
    .await;
    b.until(|m| matches!(m, ServerMessage::Chat { from, text, .. } if from == "ann" && text == "bonne chance")).await;
    a.send(&ClientMessage::Chat {
        table: "t".into(),
        text: "x".repeat(201),
    })
    .await;
    let (code, _) = a.error().await;
    assert_eq!(code, ErrorCode::ChatRejected);
    // A spectator who arrives later reads the hand so far (or the last one) with its
    // snapshot, no hole card in it, and what was said, stamped with the time the server took
    // it (the backlog follows the snapshot); but may not talk.
    let mut spectator = connect(&app, None).await;
    spectator
        .send(&ClientMessage::Watch {
            table: "t".into(),
            invite: None,
        })
        .await;
    let ServerMessage::Snapshot { log, .. } = spectator
        .until(|m| matches!(m, ServerMessage::Snapshot { .. }))
        .await
    else {
        unreachable!()
    };
    assert!(
        log.iter()
            .any(|e| matches!(e, ViewEvent::Public(Event::HandStarted { .. }))),
        "the hand's log comes with the snapshot: {log:?}"
    );
    assert!(
        log.iter()
            .all(|e| !matches!(e, ViewEvent::Dealt(d) if d.cards.is_some())),
        "a spectator's log shows no hole card"
    );
    let said = spectator
        .until(|m| matches!(m, ServerMessage::Chat { from, text, .. } if from == "ann" && text == "bonne chance"))
        .await;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64;
    assert!(
        matches!(said, ServerMessage::Chat { at: Some(at), .. } if at <= now_ms && now_ms - at < 60_000),
        "{said:?}"
    );
    spectator
        .send(&ClientMessage::Chat {
            table: "t".into(),
            text: "hi".into(),
        })
        .await;
    let (code, _) = spectator.error().await;
    assert_eq!(code, ErrorCode::NotLoggedIn);

    // Between hands: top up within the maximum, then leave with the whole stack. (The fold
    // ended the heads-up hand; the message saying so may already have been read.)
    if a.view.as_ref().is_some_and(|v| v.hand_running) {
        a.until(
            |m| matches!(m, ServerMessage::Events { view: Some(view), .. } if !view.hand_running),
        )
        .await;
    }
    let stack = a.view.as_ref().unwrap().seats[0].as_ref().unwrap().stack;
    a.send(&ClientMessage::TopUp {
        table: "t".into(),
        amount: 1_000_000,
        request_id: None,
    })
    .await;
    let (code, _) = a.error().await;
    assert_eq!(code, ErrorCode::Seat);
    a.send(&ClientMessage::TopUp {
        table: "t".into(),
        amount: 50,
        request_id: None,
    })
    .await;
    a.until(|m| matches!(m, ServerMessage::Events { view: Some(view), .. } if view.seats[0].as_ref().is_some_and(|s| s.stack == stack + 50))).await;
    a.send(&ClientMessage::Leave {
        table: "t".into(),
        request_id: None,
    })
    .await;
    // Now a spectator, the player gets the table as one: a snapshot.
    a.until(|m| matches!(m, ServerMessage::Snapshot { view, .. } if view.seats[0].is_none()))
        .await;
    let me: Value = app.get_as(&ann, "/api/me").await.json().await.unwrap();
    assert_eq!(me["on_tables"], 0);
    app.assert_balanced().await;
}

#[tokio::test]
async fn leaving_on_ones_turn_folds_and_the_hand_settles_before_the_cash_out() {
    let mut def = quick_table("t", Structure::NoLimit);
    def.between_hands_ms = 60_000; // one hand only
    let HeadsUp {
        app,
        ann,
        bob,
        mut a,
        mut b,
    } = heads_up(def, 200).await;
    let view = a.hand_running().await;
    // Heads-up, the player to act leaves: the fold ends the hand and the other one wins it.
    let (leaver, leaver_name, leaver_cookie, stayer) = if view.to_act == Some(0) {
        (&mut a, "ann", &ann, &mut b)
    } else {
        (&mut b, "bob", &bob, &mut a)
    };
    leaver
        .send(&ClientMessage::Leave {
            table: "t".into(),
            request_id: None,
        })
        .await;
    stayer
        .until(|m| {
            matches!(m, ServerMessage::Events { events, .. }
            if events.iter().any(|e| matches!(e, ViewEvent::Public(Event::HandEnded { .. }))))
        })
        .await;
    stayer
        .until_view(|view| !view.hand_running && view.seats.iter().flatten().count() == 1)
        .await;

    let status: Vec<String> = sqlx::query_scalar("SELECT status FROM hands")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        status,
        vec!["complete"],
        "the hand settles, it is not voided"
    );
    let net: i64 = sqlx::query_scalar(
        "SELECT net FROM hand_players p JOIN accounts a ON a.id = p.account_id \
         WHERE a.username = $1",
    )
    .bind(leaver_name)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(net < 0, "the leaver folded and lost a blind: {net}");
    // The leaver's whole stack from the end of the hand is back on the balance by the time the
    // table shows the seat empty.
    let me: Value = app
        .get_as(leaver_cookie, "/api/me")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(me["on_tables"], 0, "cashed out: {me}");
    assert_eq!(me["balance"].as_i64().unwrap(), 10_000 + net);
    app.assert_balanced().await;
}

/// Plays `c`'s turns by raising all in (or calling when it cannot raise) until a hand ends.
async fn shove(c: &mut Client, table: &str) {
    let mut acted_at = None;
    loop {
        if let Some(view) = c.view.clone()
            && let Some(legal) = view.legal
            && acted_at != Some(c.seq)
        {
            acted_at = Some(c.seq);
            let action = match legal.raise {
                Ok(bounds) => Action::RaiseTo { to: bounds.max_to },
                Err(_) => Action::Call,
            };
            c.send(&ClientMessage::Act {
                table: table.into(),
                hand: view.hand,
                action,
            })
            .await;
        }
        let Some(msg) = c.recv().await else {
            panic!("closed")
        };
        if let ServerMessage::Events { events, .. } = &msg
            && events
                .iter()
                .any(|e| matches!(e, ViewEvent::Public(Event::HandEnded { .. })))
        {
            return;
        }
    }
}

#[tokio::test]
async fn an_all_in_run_out_shows_every_viewer_each_hands_equity_street_by_street() {
    let HeadsUp {
        app,
        ann,
        mut a,
        mut b,
        ..
    } = heads_up(quick_table("t", Structure::NoLimit), 500).await;
    let mut spectator = connect(&app, None).await;
    spectator.watch("t").await;
    let watching = async {
        let mut seen = Vec::new();
        loop {
            let Some(ServerMessage::Events { events, .. }) = spectator.recv().await else {
                continue;
            };
            let ended = events
                .iter()
                .any(|e| matches!(e, ViewEvent::Public(Event::HandEnded { .. })));
            seen.extend(events);
            if ended {
                return seen;
            }
        }
    };
    let (seen, _, _) = tokio::join!(watching, shove(&mut a, "t"), shove(&mut b, "t"));

    let streets: Vec<_> = seen
        .iter()
        .filter_map(|e| match e {
            ViewEvent::Public(Event::Equity { street, hands }) => Some((*street, hands.clone())),
            _ => None,
        })
        .collect();
    use shared::hand::Street;
    assert_eq!(
        streets.iter().map(|s| s.0).collect::<Vec<_>>(),
        [Street::Preflop, Street::Flop, Street::Turn],
        "{seen:?}"
    );
    for (_, hands) in &streets {
        let seats: Vec<u8> = hands.iter().map(|h| h.seat).collect();
        assert_eq!(seats.len(), 2);
        assert!(seats.contains(&0) && seats.contains(&1));
        let total: u32 = hands.iter().map(|h| h.pot).sum();
        assert!(total.abs_diff(1_000_000) <= 1, "{hands:?}");
    }

    // The hand record keeps them, and a player's history shows them.
    let record = records(&app, "t").await.remove(0);
    let stored = record
        .events
        .iter()
        .filter(|e| matches!(e, Event::Equity { .. }))
        .count();
    assert_eq!(stored, 3);
    assert_eq!(record.format, HandRecord::FORMAT);
    let list: Value = app.get_as(&ann, "/api/hands").await.json().await.unwrap();
    let id = list["hands"][0]["id"].as_str().unwrap().to_string();
    let hand: Value = app
        .get_as(&ann, &format!("/api/hands/{id}"))
        .await
        .json()
        .await
        .unwrap();
    let equity_events = hand["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "equity")
        .count();
    assert_eq!(equity_events, 3);
}

#[tokio::test]
async fn a_shared_hand_opens_for_anyone_as_its_spectators_saw_it_until_unshared() {
    let HeadsUp {
        app,
        ann,
        mut a,
        mut b,
        ..
    } = heads_up(quick_table("t", Structure::NoLimit), 500).await;
    let _ = tokio::join!(play(&mut a, "t", 1), play(&mut b, "t", 1));
    let list: Value = app.get_as(&ann, "/api/hands").await.json().await.unwrap();
    let id = list["hands"][0]["id"].as_str().unwrap().to_string();
    let post = |cookie: &str, method: reqwest::Method| {
        crate::helpers::plain_browser()
            .request(method, app.url(&format!("/api/hands/{id}/share")))
            .header("cookie", cookie.to_string())
            .send()
    };
    let shared: Value = post(&ann, reqwest::Method::POST)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = shared["token"].as_str().unwrap().to_string();
    let again: Value = post(&ann, reqwest::Method::POST)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        again["token"],
        token.as_str(),
        "one link per player and hand"
    );

    // Anyone, logged in or not, reads exactly the spectators' view: no hidden hole card.
    let anyone = crate::helpers::plain_browser();
    let url = app.url(&format!("/api/shared/{token}"));
    let seen: Value = anyone.get(&url).send().await.unwrap().json().await.unwrap();
    let record = records(&app, "t").await.remove(0);
    let spectators =
        serde_json::to_value(record.for_viewer(shared::view::Viewer::Spectator)).unwrap();
    assert_eq!(seen, spectators);
    for dealt in seen["events"].as_array().unwrap() {
        if dealt["event"] == "dealt" {
            assert!(dealt["cards"].is_null(), "{dealt}");
        }
    }
    let stars = anyone
        .get(format!("{url}?format=pokerstars"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!stars.contains("Dealt to"), "{stars}");

    // Someone who did not play it cannot share it; an unknown link opens nothing.
    let cat = register(&app, "cat").await;
    assert_eq!(
        post(&cat, reqwest::Method::POST).await.unwrap().status(),
        404
    );
    let bogus = app.url("/api/shared/not-a-token");
    assert_eq!(anyone.get(&bogus).send().await.unwrap().status(), 404);

    // Unshared, the link is dead.
    assert_eq!(
        post(&ann, reqwest::Method::DELETE).await.unwrap().status(),
        204
    );
    assert_eq!(anyone.get(&url).send().await.unwrap().status(), 404);
}
