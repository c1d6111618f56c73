use std::sync::Arc;

use serde_json::{Value, json};
use server::chips::{
    self, ChipsError, FinalStack, MAX_AMOUNT, Outcome, buy_in, cash_out, settle_hand, top_up,
};
use sqlx::{PgPool, Row};
use uuid::Uuid;

use crate::helpers::{fresh_database, spawn_with};

async fn account(pool: &PgPool, name: &str, grant: u64) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await.unwrap();
    chips::create_account(&mut tx, id, name, "not-a-real-hash", grant)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    id
}

async fn balance(pool: &PgPool, id: Uuid) -> i64 {
    sqlx::query("SELECT balance FROM accounts WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
        .get(0)
}

/// A hand's final stacks from `(seat, account, stack)`.
fn finals(rows: &[(u8, Uuid, u64)]) -> Vec<FinalStack> {
    rows.iter()
        .map(|&(seat, account, stack)| FinalStack {
            seat,
            account,
            stack,
        })
        .collect()
}

async fn assert_balanced(pool: &PgPool) {
    let a = chips::audit(pool).await.unwrap();
    assert!(a.balanced(), "chips created or lost: {a:?}");
}

#[tokio::test]
async fn fifty_concurrent_buy_ins_of_100_against_1000_exactly_ten_succeed() {
    let (pool, _) = fresh_database().await;
    let id = account(&pool, "racer", 1_000).await;
    let pool = Arc::new(pool);
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let pool = pool.clone();
            tokio::spawn(async move {
                buy_in(
                    &pool,
                    id,
                    &format!("table-{i}"),
                    0,
                    100,
                    &format!("key-{i}"),
                    None,
                )
                .await
            })
        })
        .collect();
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(Outcome::Applied(_)) => ok += 1,
            Err(ChipsError::InsufficientBalance { .. }) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(ok, 10);
    assert_eq!(balance(&pool, id).await, 0);
    assert_balanced(&pool).await;
}

#[tokio::test]
async fn twenty_clients_racing_for_one_seat_exactly_one_wins() {
    let (pool, _) = fresh_database().await;
    let mut ids = Vec::new();
    for i in 0..20 {
        ids.push(account(&pool, &format!("p{i}"), 1_000).await);
    }
    let pool = Arc::new(pool);
    let tasks: Vec<_> = ids
        .iter()
        .map(|&id| {
            let pool = pool.clone();
            tokio::spawn(async move { buy_in(&pool, id, "main", 3, 500, "sit", None).await })
        })
        .collect();
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(Outcome::Applied(_)) => won += 1,
            Err(ChipsError::SeatTaken) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(won, 1);
    let seated: i64 = sqlx::query("SELECT count(*) FROM table_seats")
        .fetch_one(&*pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(seated, 1);
    assert_balanced(&pool).await;
}

#[tokio::test]
async fn a_replayed_idempotency_key_applies_once() {
    let (pool, _) = fresh_database().await;
    let id = account(&pool, "retry", 1_000).await;
    assert_eq!(
        buy_in(&pool, id, "t", 0, 300, "k1", None).await.unwrap(),
        Outcome::Applied(700)
    );
    assert_eq!(
        buy_in(&pool, id, "t", 0, 300, "k1", None).await.unwrap(),
        Outcome::Replayed
    );
    assert_eq!(
        top_up(&pool, id, "t", 100, "k2", None).await.unwrap(),
        Outcome::Applied(600)
    );
    assert_eq!(
        top_up(&pool, id, "t", 100, "k2", None).await.unwrap(),
        Outcome::Replayed
    );
    assert_eq!(
        cash_out(&pool, id, "t", "k3", None).await.unwrap(),
        Outcome::Applied(400)
    );
    assert_eq!(
        cash_out(&pool, id, "t", "k3", None).await.unwrap(),
        Outcome::Replayed
    );
    assert_eq!(balance(&pool, id).await, 1_000);
    let rows: i64 = sqlx::query("SELECT count(*) FROM ledger WHERE account_id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 4); // grant, buy-in, top-up, cash-out
    assert_balanced(&pool).await;
}

#[tokio::test]
async fn bad_amounts_and_missing_seats_are_refused_and_change_nothing() {
    let (pool, _) = fresh_database().await;
    let id = account(&pool, "careful", 1_000).await;
    assert!(matches!(
        buy_in(&pool, id, "t", 0, 0, "a", None).await,
        Err(ChipsError::InvalidAmount)
    ));
    assert!(matches!(
        buy_in(&pool, id, "t", 0, MAX_AMOUNT + 1, "b", None).await,
        Err(ChipsError::InvalidAmount)
    ));
    assert!(matches!(
        buy_in(&pool, id, "t", 0, u64::MAX, "c", None).await,
        Err(ChipsError::InvalidAmount)
    ));
    assert!(matches!(
        buy_in(&pool, id, "t", 0, 1_001, "d", None).await,
        Err(ChipsError::InsufficientBalance { balance: 1_000 })
    ));
    assert!(matches!(
        top_up(&pool, id, "t", 10, "e", None).await,
        Err(ChipsError::NotSeated)
    ));
    assert!(matches!(
        cash_out(&pool, id, "t", "f", None).await,
        Err(ChipsError::NotSeated)
    ));
    buy_in(&pool, id, "t", 0, 100, "g", None).await.unwrap();
    assert!(matches!(
        buy_in(&pool, id, "t", 1, 100, "h", None).await,
        Err(ChipsError::AlreadySeated)
    ));
    assert_eq!(balance(&pool, id).await, 900);
    assert_balanced(&pool).await;
}

#[tokio::test]
async fn settling_a_hand_moves_stacks_and_rake_once_and_refuses_to_create_chips() {
    let (pool, _) = fresh_database().await;
    let a = account(&pool, "a", 1_000).await;
    let b = account(&pool, "b", 1_000).await;
    buy_in(&pool, a, "t", 0, 500, "a", None).await.unwrap();
    buy_in(&pool, b, "t", 1, 500, "b", None).await.unwrap();
    let hand = Uuid::new_v4();
    chips::start_hand(
        &pool,
        hand,
        "t",
        &[1, 2, 3],
        &json!([[0, 500], [1, 500]]),
        1,
        &[(0, a), (1, b)],
    )
    .await
    .unwrap();
    let history = serde_json::value::to_raw_value(&json!([])).unwrap();
    let bad = finals(&[(0, a, 700), (1, b, 400)]);
    assert!(matches!(
        settle_hand(&pool, hand, "t", &bad, 0, &history).await,
        Err(ChipsError::Unbalanced(_))
    ));
    // Stacks that add up but name a player who is not in that seat.
    let stranger = finals(&[(0, b, 500), (1, a, 500)]);
    assert!(matches!(
        settle_hand(&pool, hand, "t", &stranger, 0, &history).await,
        Err(ChipsError::Unbalanced(_))
    ));
    let status: String = sqlx::query_scalar("SELECT status FROM hands WHERE id = $1")
        .bind(hand)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(status, "running", "a refused settlement writes nothing");
    let good = finals(&[(0, a, 690), (1, b, 300)]);
    assert_eq!(
        settle_hand(&pool, hand, "t", &good, 10, &history)
            .await
            .unwrap(),
        Outcome::Applied(())
    );
    assert_eq!(
        settle_hand(&pool, hand, "t", &good, 10, &history)
            .await
            .unwrap(),
        Outcome::Replayed
    );
    let stacks: Vec<i64> = sqlx::query_scalar("SELECT stack FROM table_seats ORDER BY seat")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(stacks, vec![690, 300]);
    let nets: Vec<i64> = sqlx::query_scalar("SELECT net FROM hand_players ORDER BY seat")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(nets, vec![190, -200]);
    let audit = chips::audit(&pool).await.unwrap();
    assert_eq!(audit.rake, 10);
    assert_balanced(&pool).await;
}

#[tokio::test]
async fn voiding_a_running_hand_keeps_pre_hand_stacks_and_tells_the_ledger() {
    let (pool, _) = fresh_database().await;
    let a = account(&pool, "a", 1_000).await;
    buy_in(&pool, a, "t", 0, 500, "a", None).await.unwrap();
    let hand = Uuid::new_v4();
    chips::start_hand(&pool, hand, "t", &[9], &json!([[0, 500]]), 1, &[(0, a)])
        .await
        .unwrap();
    assert_eq!(chips::running_hands(&pool).await.unwrap(), vec![hand]);
    assert_eq!(
        chips::void_hand(&pool, hand, None).await.unwrap(),
        Outcome::Applied(())
    );
    assert_eq!(
        chips::void_hand(&pool, hand, None).await.unwrap(),
        Outcome::Replayed
    );
    assert!(chips::running_hands(&pool).await.unwrap().is_empty());
    let kinds: Vec<String> =
        sqlx::query_scalar("SELECT kind FROM ledger WHERE account_id = $1 ORDER BY id")
            .bind(a)
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(kinds, vec!["grant", "buy_in", "void_refund"]);
    let stack: i64 = sqlx::query("SELECT stack FROM table_seats")
        .fetch_one(&pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(stack, 500);
    assert_balanced(&pool).await;
}

#[tokio::test]
async fn free_refill_only_below_the_threshold_and_once_a_day() {
    let app = spawn_with(|c| {
        c.grant = 100;
        c.refill_below = 200;
        c.refill_amount = 1_000;
    })
    .await;
    let c = app.register("poor").await;
    let me: Value = app.get(&c, "/api/me").await.json().await.unwrap();
    assert_eq!(me["can_refill"], true);
    let r = app.post(&c, "/api/refill", &json!({})).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["balance"], 1_100);
    let again = app.post(&c, "/api/refill", &json!({})).await;
    assert_eq!(again.status(), 409);
    // A day later, but now rich: still refused.
    sqlx::query("UPDATE accounts SET last_refill_at = now() - interval '25 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(app.post(&c, "/api/refill", &json!({})).await.status(), 409);
    app.assert_balanced().await;
}

#[tokio::test]
async fn ledger_pages_through_ones_own_rows_only() {
    let app = spawn_with(|c| c.grant = 1_000).await;
    let c = app.register("pager").await;
    let other = app.register("other").await;
    let me: Value = app.get(&c, "/api/me").await.json().await.unwrap();
    let id: Uuid = me["id"].as_str().unwrap().parse().unwrap();
    for i in 0..5 {
        buy_in(
            &app.pool,
            id,
            &format!("t{i}"),
            0,
            10,
            &format!("k{i}"),
            None,
        )
        .await
        .unwrap();
    }
    let page: Value = app
        .get(&c, "/api/ledger?limit=4")
        .await
        .json()
        .await
        .unwrap();
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["kind"], "buy_in");
    assert_eq!(rows[0]["balance_after"], 950);
    let next = page["next_before"].as_i64().unwrap();
    let page: Value = app
        .get(&c, &format!("/api/ledger?limit=4&before={next}"))
        .await
        .json()
        .await
        .unwrap();
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["kind"], "grant");
    assert!(page["next_before"].is_null());
    let theirs: Value = app.get(&other, "/api/ledger").await.json().await.unwrap();
    assert_eq!(theirs["rows"].as_array().unwrap().len(), 1);
    for bad in [
        "/api/ledger?limit=0",
        "/api/ledger?limit=abc",
        "/api/ledger?before=1;DROP",
    ] {
        assert_eq!(app.get(&c, bad).await.status(), 400, "{bad}");
    }
    app.assert_balanced().await;
}

/// Many tables' hand starts and settlements reach the group-commit writer at once: they are
/// committed together in fewer transactions than writes, each table gets its own answer, and
/// a refused write (a hand started twice, a settlement that does not balance) is refused alone
/// while the rest of its batch is written.
#[tokio::test]
async fn the_hand_writer_commits_many_tables_writes_together_and_refuses_only_the_bad_one() {
    use server::hand_writer::{HandWriter, Settle, Start, Write};
    use server::metrics::Metrics;

    let (pool, _) = fresh_database().await;
    let metrics = Arc::new(Metrics::default());
    let writer = HandWriter::spawn(pool.clone(), metrics.clone());
    let tables = 40;
    let mut players = Vec::new();
    for t in 0..tables {
        let a = account(&pool, &format!("a{t}"), 1_000).await;
        let b = account(&pool, &format!("b{t}"), 1_000).await;
        buy_in(&pool, a, &format!("t{t}"), 0, 500, &format!("a{t}"), None)
            .await
            .unwrap();
        buy_in(&pool, b, &format!("t{t}"), 1, 500, &format!("b{t}"), None)
            .await
            .unwrap();
        players.push((a, b, Uuid::new_v4()));
    }
    let start = |t: usize, hand: Uuid, a: Uuid, b: Uuid| {
        Write::Start(Start {
            id: hand,
            table_id: format!("t{t}"),
            deck_hash: vec![1, 2, 3],
            starting_stacks: json!([[0, 500], [1, 500]]),
            number: 1,
            players: vec![(0, a), (1, b)],
            fence: None,
        })
    };
    let starts = players
        .iter()
        .enumerate()
        .map(|(t, &(a, b, hand))| writer.write(start(t, hand, a, b)));
    for started in futures_util::future::join_all(starts).await {
        assert_eq!(started.unwrap(), Outcome::Applied(()));
    }

    // Every table settles at once, table 0's settlement creating chips: refused inside a
    // batch that is otherwise committed.
    let settle = |t: usize, won: u64| {
        let (a, b, hand) = players[t];
        Write::Settle(Settle {
            hand,
            table_id: format!("t{t}"),
            stacks: finals(&[(0, a, won), (1, b, 400)]),
            rake: 10,
            history: serde_json::value::to_raw_value(&json!({"table": t})).unwrap(),
            fence: None,
        })
    };
    let settles = (0..tables).map(|t| writer.write(settle(t, if t == 0 { 900 } else { 590 })));
    let answers = futures_util::future::join_all(settles).await;
    assert!(
        matches!(answers[0], Err(ChipsError::Unbalanced(_))),
        "{:?}",
        answers[0]
    );
    for (t, answer) in answers.iter().enumerate().skip(1) {
        assert_eq!(answer.as_ref().unwrap(), &Outcome::Applied(()), "table {t}");
    }

    // A statement that fails (table 1's hand started again) rolls its batch back; the batch
    // is then written one by one, so table 0's corrected settlement still goes through.
    let (a1, b1, hand1) = players[1];
    let again = futures_util::future::join_all([
        writer.write(start(1, hand1, a1, b1)),
        writer.write(settle(0, 590)),
    ])
    .await;
    assert!(
        matches!(again[0], Err(ChipsError::Database(_))),
        "{:?}",
        again[0]
    );
    assert_eq!(again[1].as_ref().unwrap(), &Outcome::Applied(()));

    // What a batched settlement wrote is what one alone writes: each player's net, the rake.
    let nets: Vec<(i16, i64)> =
        sqlx::query_as("SELECT seat, net FROM hand_players WHERE hand_id = $1 ORDER BY seat")
            .bind(players[2].2)
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(nets, vec![(0, 90), (1, -100)]);
    let rake: i64 =
        sqlx::query_scalar("SELECT amount FROM ledger WHERE kind = 'rake' AND hand_id = $1")
            .bind(players[2].2)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(rake, 10);

    // The same settlement sent twice at once (in one batch or two) is applied once.
    let (a2, b2, _) = players[2];
    let hand2 = Uuid::new_v4();
    assert_eq!(
        writer.write(start(2, hand2, a2, b2)).await.unwrap(),
        Outcome::Applied(())
    );
    let twice = |won| {
        Write::Settle(Settle {
            hand: hand2,
            table_id: "t2".into(),
            stacks: finals(&[(0, a2, won), (1, b2, 300)]),
            rake: 0,
            history: serde_json::value::to_raw_value(&json!({"table": 2, "hand": 2})).unwrap(),
            fence: None,
        })
    };
    let mut answers: Vec<Outcome<()>> =
        futures_util::future::join_all([writer.write(twice(690)), writer.write(twice(690))])
            .await
            .into_iter()
            .map(|a| a.unwrap())
            .collect();
    answers.sort_by_key(|a| matches!(a, Outcome::Replayed));
    assert_eq!(answers, vec![Outcome::Applied(()), Outcome::Replayed]);

    let complete: i64 = sqlx::query_scalar("SELECT count(*) FROM hands WHERE status = 'complete'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(complete, tables as i64 + 1);
    let writes = metrics.hand_writes.get();
    let batches = metrics.hand_write_batches.get();
    assert_eq!(writes, 2 * tables as u64 + 5);
    assert!(
        batches < writes,
        "{writes} writes in {batches} transactions"
    );
    assert_balanced(&pool).await;
}

#[tokio::test]
async fn the_hand_writer_commits_many_seat_moves_together_each_answered_on_its_own() {
    use server::chips::{MoveKind, SeatMove};
    use server::hand_writer::HandWriter;
    use server::metrics::Metrics;

    let (pool, _) = fresh_database().await;
    let metrics = Arc::new(Metrics::default());
    let writer = HandWriter::spawn(pool.clone(), metrics.clone());
    let tables = 30;
    let mut players = Vec::new();
    for t in 0..tables {
        let id = account(&pool, &format!("p{t}"), 1_000).await;
        buy_in(
            &pool,
            id,
            &format!("t{t}"),
            0,
            500,
            &format!("sit{t}"),
            None,
        )
        .await
        .unwrap();
        players.push(id);
    }
    let top_up = |t: usize, chips: u64, key: &str| {
        SeatMove::new(
            MoveKind::TopUp,
            players[t],
            &format!("t{t}"),
            None,
            Some(chips),
            key,
            None,
        )
        .unwrap()
    };
    // Every table tops up at once: table 0 more than its player has, table 1 at a table
    // where its player has no seat; the others 100 each.
    let moves = (0..tables).map(|t| {
        let m = match t {
            0 => top_up(0, 501, "up"),
            1 => SeatMove::new(
                MoveKind::TopUp,
                players[1],
                "elsewhere",
                None,
                Some(100),
                "up",
                None,
            )
            .unwrap(),
            t => top_up(t, 100, "up"),
        };
        writer.seat_move(m)
    });
    let answers = futures_util::future::join_all(moves).await;
    assert!(
        matches!(
            answers[0],
            Err(ChipsError::InsufficientBalance { balance: 500 })
        ),
        "{:?}",
        answers[0]
    );
    assert!(
        matches!(answers[1], Err(ChipsError::NotSeated)),
        "{:?}",
        answers[1]
    );
    for (t, answer) in answers.iter().enumerate().skip(2) {
        assert_eq!(
            answer.as_ref().unwrap(),
            &Outcome::Applied((-100, 400)),
            "table {t}"
        );
    }
    // The same keys again, at once: each is a replay, and nothing moves twice.
    let again = (2..tables).map(|t| writer.seat_move(top_up(t, 100, "up")));
    for answer in futures_util::future::join_all(again).await {
        assert_eq!(answer.unwrap(), Outcome::Replayed);
    }
    // Cash-outs and buy-ins in one batch, the same players moving at two tables each.
    let moves = (2..tables).flat_map(|t| {
        let id = players[t];
        let out = SeatMove::new(
            MoveKind::CashOut,
            id,
            &format!("t{t}"),
            None,
            None,
            "out",
            None,
        );
        let sit = SeatMove::new(
            MoveKind::BuyIn,
            id,
            &format!("other{t}"),
            Some(2),
            Some(50),
            "sit-other",
            None,
        );
        [out.unwrap(), sit.unwrap()].map(|m| writer.seat_move(m))
    });
    let answers = futures_util::future::join_all(moves).await;
    for pair in answers.chunks(2) {
        assert!(
            matches!(pair[0], Ok(Outcome::Applied((600, _)))),
            "{:?}",
            pair[0]
        );
        assert!(
            matches!(pair[1], Ok(Outcome::Applied((-50, _)))),
            "{:?}",
            pair[1]
        );
    }
    for &id in &players[2..] {
        assert_eq!(balance(&pool, id).await, 950);
    }
    assert_eq!(balance(&pool, players[0]).await, 500);
    assert_balanced(&pool).await;
    // Moves queued together were committed together.
    assert!(metrics.hand_write_batches.get() < metrics.hand_writes.get());
}
