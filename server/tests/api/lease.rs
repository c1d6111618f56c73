//! Table ownership by lease: one process deals at a table at a time, and a process that lost
//! a table can write nothing for it (fencing), whatever it believes.

use std::process::Command;
use std::time::Duration;

use serde_json::json;
use server::chips::{self, ChipsError, FinalStack, Outcome, audit};
use server::hand_writer::{HandWriter, Settle, Start, Write};
use server::lease::{self, Fence, NodeId};
use server::metrics::Metrics;
use server::tables::def::{self, TableDef};
use shared::hand::Action;
use shared::protocol::{ClientMessage, ServerMessage};
use shared::rules::Structure;
use sqlx::PgPool;
use uuid::Uuid;

use crate::crash::{Running, start, two_players_sitting, wait_healthy};
use crate::helpers::{TestApp, fresh_database};
use crate::ws::connect;

async fn account(pool: &PgPool, name: &str, chips: u64) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await.unwrap();
    chips::create_account(&mut tx, id, name, "x", chips)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    id
}

async fn table(pool: &PgPool, id: &str) {
    def::upsert(pool, &TableDef::new(id, id, Structure::NoLimit, 5, 10))
        .await
        .unwrap();
}

async fn balance(pool: &PgPool, account: Uuid) -> i64 {
    sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1")
        .bind(account)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn hand_status(pool: &PgPool, hand: Uuid) -> Option<String> {
    chips::hand_status(pool, hand).await.unwrap()
}

fn fenced(result: &Result<impl std::fmt::Debug, ChipsError>) -> bool {
    matches!(result, Err(ChipsError::Fenced { .. }))
}

#[tokio::test]
async fn a_lease_has_one_holder_until_it_expires_or_is_taken_over() {
    let (pool, _) = fresh_database().await;
    table(&pool, "t").await;
    let (a, b) = (NodeId::new(), NodeId::new());

    let first = lease::acquire(&pool, "t", a, false).await.unwrap();
    assert_eq!(first.as_ref().map(|f| f.epoch), Some(1));
    assert_eq!(
        lease::acquire(&pool, "t", b, false).await.unwrap(),
        None,
        "a live lease is not taken without a take-over"
    );
    assert!(lease::renew(&pool, a).await.unwrap().contains("t"));
    assert!(lease::renew(&pool, b).await.unwrap().is_empty());

    // A take-over adds one to the epoch, and the old holder's renewal no longer finds it.
    let taken = lease::acquire(&pool, "t", b, true).await.unwrap();
    assert_eq!(taken.as_ref().map(|f| f.epoch), Some(2));
    assert!(lease::renew(&pool, a).await.unwrap().is_empty());
    assert!(lease::renew(&pool, b).await.unwrap().contains("t"));

    // Given back at a clean stop, it is free at once, and its epoch goes on growing.
    assert_eq!(lease::release_all(&pool, b).await.unwrap(), 1);
    let again = lease::acquire(&pool, "t", a, false).await.unwrap();
    assert_eq!(again.map(|f| f.epoch), Some(3));
}

#[tokio::test]
async fn a_stale_epoch_moves_no_chip_and_starts_or_settles_no_hand() {
    let (pool, _) = fresh_database().await;
    table(&pool, "t").await;
    let (old_node, new_node) = (NodeId::new(), NodeId::new());
    let old = lease::acquire(&pool, "t", old_node, false)
        .await
        .unwrap()
        .unwrap();
    let ann = account(&pool, "ann", 1_000).await;
    let bob = account(&pool, "bob", 1_000).await;
    chips::buy_in(&pool, ann, "t", 0, 500, "a", Some(&old))
        .await
        .unwrap();
    chips::buy_in(&pool, bob, "t", 1, 500, "b", Some(&old))
        .await
        .unwrap();
    let writer = HandWriter::spawn(pool.clone(), std::sync::Arc::new(Metrics::default()));
    let start = |hand: Uuid, fence: &Fence| {
        Write::Start(Start {
            id: hand,
            table_id: "t".into(),
            deck_hash: vec![1, 2, 3],
            starting_stacks: json!([[0, 500], [1, 500]]),
            number: 1,
            players: vec![(0, ann), (1, bob)],
            fence: Some(fence.clone()),
        })
    };
    let settle = |hand: Uuid, fence: &Fence| {
        Write::Settle(Settle {
            hand,
            table_id: "t".into(),
            stacks: vec![
                FinalStack {
                    seat: 0,
                    account: ann,
                    stack: 700,
                },
                FinalStack {
                    seat: 1,
                    account: bob,
                    stack: 300,
                },
            ],
            rake: 0,
            history: serde_json::value::to_raw_value(&json!({})).unwrap(),
            fence: Some(fence.clone()),
        })
    };
    let hand = Uuid::new_v4();
    assert_eq!(
        writer.write(start(hand, &old)).await.unwrap(),
        Outcome::Applied(())
    );

    // Another process takes the table over in the middle of the hand.
    let new = lease::acquire(&pool, "t", new_node, true)
        .await
        .unwrap()
        .unwrap();

    // The old owner's settlement is refused: the hand stays running for the new owner to void.
    assert!(fenced(&writer.write(settle(hand, &old)).await));
    assert_eq!(hand_status(&pool, hand).await.as_deref(), Some("running"));
    // Its chip movements are refused whole: balance, seat and ledger unchanged.
    let carol = account(&pool, "carol", 1_000).await;
    assert!(fenced(
        &chips::buy_in(&pool, carol, "t", 2, 400, "c", Some(&old)).await
    ));
    assert!(fenced(
        &chips::top_up(&pool, ann, "t", 100, "d", Some(&old)).await
    ));
    assert!(fenced(
        &chips::cash_out(&pool, bob, "t", "e", Some(&old)).await
    ));
    assert!(fenced(&chips::void_hand(&pool, hand, Some(&old)).await));
    assert_eq!(balance(&pool, carol).await, 1_000);
    assert_eq!(balance(&pool, ann).await, 500);
    assert_eq!(balance(&pool, bob).await, 500);
    assert_eq!(hand_status(&pool, hand).await.as_deref(), Some("running"));

    // Nor can it start another hand, whether or not the writer batches its write with one of
    // the new owner's, which commits.
    let (late, fresh) = (Uuid::new_v4(), Uuid::new_v4());
    chips::void_hand(&pool, hand, Some(&new)).await.unwrap();
    let (refused, accepted) = tokio::join!(
        writer.write(start(late, &old)),
        writer.write(start(fresh, &new))
    );
    assert!(fenced(&refused), "{refused:?}");
    assert_eq!(accepted.unwrap(), Outcome::Applied(()));
    assert_eq!(hand_status(&pool, late).await, None);
    assert_eq!(
        writer.write(settle(fresh, &new)).await.unwrap(),
        Outcome::Applied(())
    );
    assert_eq!(hand_status(&pool, fresh).await.as_deref(), Some("complete"));
    assert!(audit(&pool).await.unwrap().balanced());
}

/// Sends `sig` (`-STOP`, `-CONT`, …) to a server process.
pub fn signal(child: &std::process::Child, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {sig}");
}

/// One number the database answers.
async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

/// A process frozen in the middle of a hand while a second one takes the room over: when it
/// wakes up, the hand it finishes is refused by the fence, it stops dealing there, and the
/// new owner's void stands.
#[tokio::test]
async fn a_frozen_process_that_wakes_after_a_take_over_settles_nothing() {
    let Running {
        child: mut first,
        url,
        app,
        ann,
        mut a,
        mut b,
    } = two_players_sitting(Structure::NoLimit).await;
    let pool = app.pool.clone();
    let running = a.until(|m| matches!(m, ServerMessage::Events { view: Some(v), .. } if v.hand_running && v.to_act.is_some())).await;
    let ServerMessage::Events {
        view: Some(view), ..
    } = running
    else {
        unreachable!()
    };
    let hand: Uuid = sqlx::query_scalar("SELECT id FROM hands WHERE status = 'running'")
        .fetch_one(&pool)
        .await
        .unwrap();

    signal(&first, "-STOP");
    let (mut second, second_addr) = start(&url);
    wait_healthy(second_addr).await;
    assert_eq!(
        hand_status(&pool, hand).await.as_deref(),
        Some("void"),
        "the new owner voided the hand it found running"
    );
    let epoch = count(&pool, "SELECT epoch FROM table_leases WHERE table_id = 't'").await;
    assert_eq!(epoch, 2, "the second process took the table over");

    // The first process wakes up and its player ends the hand at once: the settlement is
    // refused, and the table there stops with a word to its watchers.
    signal(&first, "-CONT");
    let actor = if view.to_act == Some(0) {
        &mut a
    } else {
        &mut b
    };
    actor
        .send(&ClientMessage::Act {
            table: "t".into(),
            hand: view.hand,
            action: Action::Fold,
        })
        .await;
    let moved = a
        .until(|m| matches!(m, ServerMessage::Error { message, .. } if message.contains("moved")))
        .await;
    assert!(matches!(moved, ServerMessage::Error { table: Some(t), .. } if t == "t"));
    // The old process stays up (its other work goes on) but never writes the table again.
    tokio::time::sleep(lease::RENEW_EVERY + Duration::from_millis(500)).await;
    assert_eq!(hand_status(&pool, hand).await.as_deref(), Some("void"));
    let complete = count(
        &pool,
        "SELECT count(*) FROM hands WHERE status = 'complete'",
    )
    .await;
    assert_eq!(
        complete, 0,
        "nothing was settled by the process that lost the table"
    );
    // Without the fence it would have dealt on: both players sit in, in its memory.
    let hands = count(&pool, "SELECT count(*) FROM hands").await;
    assert_eq!(
        hands, 1,
        "the process that lost the table dealt no other hand there"
    );
    let epoch_now = count(&pool, "SELECT epoch FROM table_leases WHERE table_id = 't'").await;
    assert_eq!(
        epoch_now, 2,
        "the first process did not take the table back"
    );
    let report = audit(&pool).await.unwrap();
    assert!(report.balanced(), "{report:?}");

    // The new owner has the table, with both players sat out on their stacks from before.
    let app2 = TestApp {
        addr: second_addr,
        pool: pool.clone(),
        state: None,
    };
    let mut again = connect(&app2, Some(&ann)).await;
    let view = again.watch("t").await;
    assert_eq!(view.you, Some(0));
    assert_eq!(view.seats[0].as_ref().map(|s| s.stack), Some(500));
    for child in [&mut first, &mut second] {
        let _ = child.kill();
        let _ = child.wait();
    }
}
