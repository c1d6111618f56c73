//! The table task's ordering rules, driven step by step against the in-memory ledger: what is
//! committed before what is shown, and what a refused request leaves behind.

use std::sync::{Arc, Mutex};

use shared::hand::Action;
use shared::protocol::{ErrorCode, LobbyTable, RequestId, ServerMessage};
use shared::rules::{Stakes, Structure};
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use super::ledger::memory::MemoryLedger;
use super::*;

const ANN: Uuid = Uuid::from_u128(1);
const BOB: Uuid = Uuid::from_u128(2);
const CAT: Uuid = Uuid::from_u128(3);

fn account(id: Uuid) -> Account {
    let name = match id {
        ANN => "ann",
        BOB => "bob",
        _ => "cat",
    };
    Account {
        id,
        name: name.into(),
    }
}

/// A table with ann in seat 0 and bob in seat 1 (500 each, as the ledger holds them), cat
/// with 1,000 chips not seated, and one spectator whose frames are returned.
fn actor() -> (
    TableActor,
    Arc<MemoryLedger>,
    mpsc::Receiver<Outgoing>,
    Outbound,
) {
    let def = TableDef::new("t", "t", Structure::NoLimit, 5, 10);
    let mut table = Table::new(def.table_config().expect("config")).expect("table");
    let ledger = Arc::new(MemoryLedger::default());
    {
        let mut s = ledger.state();
        for (seat, id) in [(0u8, ANN), (1, BOB)] {
            table
                .sit(seat, player_id(id), account(id).name, 500, true)
                .expect("sit");
            s.seats.insert(id, (seat, 500));
            s.names.insert(id, account(id).name);
            s.balances.insert(id, 0);
        }
        s.balances.insert(CAT, 1_000);
        s.names.insert(CAT, "cat".into());
    }
    let (_, rx) = mpsc::channel(8);
    let (lobby, _) = broadcast::channel(8);
    let info = LobbyTable {
        id: "t".into(),
        name: "t".into(),
        stakes: Stakes::no_limit(5, 10),
        seats_taken: 0,
        seat_count: 6,
        average_pot: 0,
        hands_per_hour: 0,
        spectators: 0,
        host: None,
        run_twice: false,
        straddle: false,
        waiting: 0,
        practice: false,
    };
    let mut actor = TableActor::new(ActorParts {
        banks: Vec::new(),
        id: "t".into(),
        def,
        table,
        ledger: ledger.clone(),
        rx,
        hand_number: 0,
        lobby,
        lobby_info: Arc::new(Mutex::new(info)),
        bots: Vec::new(),
        metrics: Arc::new(Metrics::default()),
        home: None,
        ended: mpsc::unbounded_channel().0,
        moved: None,
    });
    let (out, frames) = mpsc::channel(1024);
    actor.watchers.add(99, None, None, out.clone(), None);
    (actor, ledger, frames, out)
}

fn drain(rx: &mut mpsc::Receiver<Outgoing>) -> Vec<String> {
    let mut got = Vec::new();
    while let Ok(o) = rx.try_recv() {
        match o {
            Outgoing::Frame(t) => got.push(t.to_string()),
            Outgoing::Refused(r) => got.push(format!("refused: {}", r.error)),
            other => got.push(format!("{other:?}")),
        }
    }
    got
}

/// Records, at each commit, how many frames the spectator had been sent by then.
fn count_frames_at_commits(
    ledger: &MemoryLedger,
    spectator: mpsc::Sender<Outgoing>,
) -> Arc<Mutex<Vec<(String, usize)>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    ledger.state().on_commit = Some(Box::new(move |entry: &str| {
        let queued = spectator.max_capacity() - spectator.capacity();
        if let Ok(mut r) = record.lock() {
            r.push((entry.to_string(), queued));
        }
    }));
    seen
}

fn to_act(actor: &TableActor) -> (u8, Uuid) {
    let seat = actor
        .table
        .hand()
        .and_then(|h| h.to_act())
        .expect("someone to act");
    (seat, if seat == 0 { ANN } else { BOB })
}

#[tokio::test]
async fn a_hand_that_ends_while_the_database_is_down_is_shown_only_once_settled() {
    let (mut actor, ledger, mut frames, spectator) = actor();
    let commits = count_frames_at_commits(&ledger, spectator);
    actor.try_start_hand().await;
    assert_eq!(actor.hand_number, 1);
    drain(&mut frames);
    ledger.set_down(true);
    let back = ledger.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        back.set_down(false);
    });
    let (seat, who) = to_act(&actor);
    let started = Instant::now();
    actor
        .player_request(
            &account(who),
            Request::Act {
                hand: 1,
                action: Action::Fold,
            },
        )
        .await
        .expect("a fold");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "the table held the hand while the database was down"
    );
    let shown = drain(&mut frames);
    let notice = shown
        .iter()
        .position(|f| f.contains("waiting for the database"))
        .expect("the pause is said");
    let result = shown
        .iter()
        .position(|f| f.contains("pot_awarded"))
        .expect("the result, once settled");
    let settled_at = commits
        .lock()
        .expect("log")
        .iter()
        .find(|(entry, _)| entry == "settle_hand")
        .map(|(_, n)| *n)
        .expect("settled, not voided");
    assert!(
        notice < settled_at && settled_at <= result,
        "notice {notice}, settled after {settled_at} frames, result {result}"
    );
    // Settled, not voided: the winner has the blinds.
    let stacks: Vec<i64> = [ANN, BOB]
        .iter()
        .map(|a| ledger.state().seats[a].1)
        .collect();
    assert_eq!(stacks.iter().sum::<i64>(), 1000);
    assert_ne!(stacks[usize::from(seat)], 500, "the folder lost a blind");
    assert_eq!(
        actor.table.seat(seat).map(|s| s.stack),
        Some(u64::try_from(stacks[usize::from(seat)]).expect("chips"))
    );
}

#[tokio::test]
async fn leaving_on_ones_turn_settles_then_cashes_out_then_shows_the_seat_empty() {
    let (mut actor, ledger, mut frames, spectator) = actor();
    let commits = count_frames_at_commits(&ledger, spectator);
    actor.try_start_hand().await;
    drain(&mut frames);
    let (seat, who) = to_act(&actor);
    actor
        .player_request(&account(who), Request::Leave { request_id: None })
        .await
        .expect("a leave");
    let log: Vec<String> = commits
        .lock()
        .expect("log")
        .iter()
        .map(|c| c.0.clone())
        .collect();
    let settle = log
        .iter()
        .position(|e| e == "settle_hand")
        .expect("settled");
    let cash_out = log
        .iter()
        .position(|e| e.starts_with(&format!("cash_out {seat}")))
        .expect("cashed out");
    assert!(settle < cash_out, "{log:?}");
    let queued_at_cash_out = commits.lock().expect("log")[cash_out].1;
    let shown = drain(&mut frames);
    assert_eq!(
        queued_at_cash_out, 0,
        "nothing shown before the money moved: {shown:?}"
    );
    assert!(shown.iter().any(|f| f.contains("pot_awarded")));
    assert!(actor.table.seat(seat).is_none());
    assert!(!ledger.state().seats.contains_key(&who));
    assert_eq!(
        ledger.state().balances[&who],
        495,
        "the stack less the small blind is back"
    );
}

#[tokio::test]
async fn a_buy_in_the_database_does_not_answer_changes_nothing_and_says_try_again() {
    let (mut actor, ledger, _frames, _) = actor();
    ledger.set_down(true);
    let refused = actor
        .player_request(
            &account(CAT),
            Request::Sit {
                seat: 3,
                buy_in: 400,
                post_now: true,
                request_id: None,
            },
        )
        .await
        .expect_err("refused");
    assert_eq!(refused.code(), ErrorCode::DatabaseUnavailable);
    assert!(actor.table.seat(3).is_none());
    // The answer may have been lost after a commit: the seat is read back before dealing.
    assert!(actor.unsure.contains(&CAT));
    ledger.set_down(false);
    actor.try_start_hand().await;
    assert!(actor.unsure.is_empty());
    assert!(actor.table.seat(3).is_none());
    assert_eq!(ledger.state().balances[&CAT], 1_000);
}

#[tokio::test]
async fn the_same_sit_sent_twice_buys_in_once() {
    let (mut actor, ledger, _frames, _) = actor();
    let id: RequestId = serde_json::from_str("\"click-1\"").expect("a request id");
    let sit = || Request::Sit {
        seat: 3,
        buy_in: 400,
        post_now: true,
        request_id: Some(id.clone()),
    };
    actor
        .player_request(&account(CAT), sit())
        .await
        .expect("seated");
    let again = actor
        .player_request(&account(CAT), sit())
        .await
        .expect_err("once");
    assert!(matches!(again, RequestError::AlreadyDone), "{again}");
    assert_eq!(ledger.state().balances[&CAT], 600);
    assert_eq!(actor.table.seat(3).map(|s| s.stack), Some(400));
}

#[tokio::test]
async fn a_lost_answer_to_a_buy_in_is_recovered_from_the_ledger_on_retry() {
    let (mut actor, ledger, _frames, _) = actor();
    let id: RequestId = serde_json::from_str("\"click-2\"").expect("a request id");
    // The buy-in committed but its answer never came back: the ledger has it, the table not.
    let _ = ledger
        .buy_in(CAT, "t", 3, 400, &format!("sit:t:{CAT}:click-2"))
        .await
        .expect("committed");
    actor
        .player_request(
            &account(CAT),
            Request::Sit {
                seat: 3,
                buy_in: 400,
                post_now: true,
                request_id: Some(id),
            },
        )
        .await
        .expect("the retry finds the seat");
    assert_eq!(actor.table.seat(3).map(|s| s.stack), Some(400));
    assert_eq!(ledger.state().balances[&CAT], 600, "one buy-in");
}

#[tokio::test]
async fn a_refused_request_reaches_only_its_sender_as_a_typed_error() {
    let (mut actor, _ledger, mut frames, _) = actor();
    let (out, mut mine) = mpsc::channel(8);
    actor
        .handle(Command::Player {
            account: account(CAT),
            invite: None,
            out,
            request: Request::Act {
                hand: 1,
                action: Action::Check,
            },
        })
        .await;
    match mine.try_recv() {
        Ok(Outgoing::Refused(r)) => {
            assert_eq!(r.table, "t");
            assert!(matches!(r.error, RequestError::NotSeated));
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(drain(&mut frames).is_empty(), "watchers hear nothing of it");
}

#[tokio::test]
async fn chat_goes_to_every_watcher_once_with_the_speakers_seat_name() {
    let (mut actor, _ledger, mut frames, _) = actor();
    actor
        .player_request(
            &account(ANN),
            Request::Chat {
                text: "gl all".into(),
            },
        )
        .await
        .expect("chat");
    let shown = drain(&mut frames);
    assert_eq!(shown.len(), 1);
    let msg: ServerMessage = serde_json::from_str(&shown[0]).expect("json");
    assert!(
        matches!(msg, ServerMessage::Chat { ref from, ref text, .. } if from == "ann" && text == "gl all"),
        "{msg:?}"
    );
}

/// The same table as `actor()`, a player's table hosted by ann.
fn home_actor() -> (TableActor, Arc<MemoryLedger>, mpsc::Receiver<Outgoing>) {
    let (mut actor, ledger, frames, _) = actor();
    let home = crate::tables::home::Home {
        host: ANN,
        host_name: "ann".into(),
        private: true,
        invite: Some("invite".into()),
        spectators: true,
        seat_approval: true,
        paused: false,
    };
    actor.home = Some(host::HomeGame::new(host::HomeParts {
        access: Arc::new(crate::tables::home::Access::new(&home)),
        home,
        idle_close: Duration::from_secs(60),
    }));
    (actor, ledger, frames)
}

#[tokio::test]
async fn a_host_change_the_database_does_not_take_changes_nothing() {
    let (mut actor, ledger, _frames) = home_actor();
    ledger.set_down(true);
    let refused = actor
        .host_request(&account(ANN), shared::protocol::HostAction::Pause)
        .await;
    assert!(matches!(refused, Err(RequestError::DatabaseUnavailable)));
    assert!(!actor.is_paused());
    let refused = actor
        .host_request(&account(ANN), shared::protocol::HostAction::RotateInvite)
        .await;
    assert!(matches!(refused, Err(RequestError::DatabaseUnavailable)));
    let invite = actor.home.as_ref().and_then(|g| g.home.invite.clone());
    assert_eq!(
        invite.as_deref(),
        Some("invite"),
        "the old link still works"
    );
    ledger.set_down(false);
    actor
        .host_request(&account(ANN), shared::protocol::HostAction::Pause)
        .await
        .expect("paused");
    assert!(actor.is_paused());
}

#[tokio::test]
async fn a_seat_waiting_for_the_host_moves_no_chip_and_only_the_host_decides() {
    let (mut actor, ledger, _frames) = home_actor();
    let (out, mut answers) = mpsc::channel(8);
    let sit = Request::Sit {
        seat: 3,
        buy_in: 500,
        post_now: true,
        request_id: None,
    };
    let held = actor.gate_seat(&account(CAT), sit, &out);
    assert!(matches!(held, Err(RequestError::AwaitingApproval)));
    assert!(
        ledger.log().is_empty(),
        "nothing committed: {:?}",
        ledger.log()
    );
    let by_bob = actor
        .host_request(
            &account(BOB),
            shared::protocol::HostAction::Approve { seat: 3 },
        )
        .await;
    assert!(matches!(by_bob, Err(RequestError::NotHost)));
    assert_eq!(actor.seat_of(CAT), None);
    actor
        .host_request(
            &account(ANN),
            shared::protocol::HostAction::Approve { seat: 3 },
        )
        .await
        .expect("approved");
    assert_eq!(actor.seat_of(CAT), Some(3));
    assert_eq!(ledger.state().balances.get(&CAT), Some(&500));
    assert!(
        answers.try_recv().is_err(),
        "no refusal for an approved seat"
    );
}

#[tokio::test]
async fn a_request_from_a_socket_that_has_gone_is_not_shown_to_the_host() {
    let (mut actor, _ledger, _frames) = home_actor();
    let (out, answers) = mpsc::channel(8);
    let sit = Request::Sit {
        seat: 3,
        buy_in: 500,
        post_now: true,
        request_id: None,
    };
    let _ = actor.gate_seat(&account(CAT), sit, &out);
    drop((out, answers));
    let approved = actor
        .host_request(
            &account(ANN),
            shared::protocol::HostAction::Approve { seat: 3 },
        )
        .await;
    assert!(matches!(approved, Err(RequestError::NoRequest(3))));
    assert_eq!(actor.seat_of(CAT), None);
}
