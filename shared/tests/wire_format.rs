//! The wire protocol, pinned: one example of every server and client message, written by the
//! code and compared byte for byte with `tests/fixtures/server_messages_v6.jsonl`,
//! `client_messages_v6.jsonl` and
//! `events_v3.jsonl`, then read back. Browsers
//! still running the previous bundle talk to a new server during an upgrade, so a change here
//! must be a deliberate new version, never an accident; and every earlier version's files
//! must still read.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a failed unwrap is a failed test

mod common;

use serde::Serialize;
use serde::de::DeserializeOwned;
use shared::patch::ViewPatch;
use shared::protocol::{
    ClientMessage, Clock, ErrorCode, HomeView, HostAction, LobbyTable, PreAction, RequestId,
    SeatOffer, SeatRequest, ServerMessage,
};
use shared::table::{PlayerId, Table, TableConfig};
use shared::view::{Viewer, project, table_view};
use shared::{Action, Deck, Stakes};

/// One JSON line per message; each line must read back to the same message.
fn lines<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(messages: &[T]) -> String {
    let mut text = String::new();
    for m in messages {
        let line = serde_json::to_string(m).unwrap();
        let back: T = serde_json::from_str(&line).unwrap();
        assert_eq!(&back, m, "{line}");
        text.push_str(&line);
        text.push('\n');
    }
    text
}

fn lobby_table() -> LobbyTable {
    LobbyTable {
        id: "lyon".into(),
        name: "Lyon".into(),
        stakes: Stakes::pot_limit(5, 10),
        seats_taken: 3,
        seat_count: 6,
        average_pot: 240,
        hands_per_hour: 85,
        spectators: 2,
        host: None,
        run_twice: false,
        straddle: false,
        waiting: 0,
        practice: false,
    }
}

#[test]
fn every_server_message_keeps_its_wire_format() {
    let mut table = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).unwrap();
    table.sit(0, PlayerId(1), "ann".into(), 500, true).unwrap();
    table.sit(3, PlayerId(2), "bob".into(), 500, true).unwrap();
    let mut events = table.start_hand(Deck::ordered()).unwrap();
    let before = table_view(&table, Viewer::Spectator, 12);
    let to_act = table.hand().and_then(|h| h.to_act()).unwrap();
    let raised = table.act(to_act, Action::RaiseTo { to: 30 }).unwrap();
    let after = table_view(&table, Viewer::Spectator, 12);
    events.extend(raised);
    let clock = Some(Clock {
        seat: 3,
        remaining_ms: 19_500,
        time_bank_ms: 60_000,
        in_time_bank: false,
    });
    let messages = vec![
        ServerMessage::Lobby {
            tables: vec![lobby_table()],
        },
        ServerMessage::LobbyUpdate {
            table: lobby_table(),
        },
        ServerMessage::Snapshot {
            table: "lyon".into(),
            seq: 7,
            view: Box::new(table_view(&table, Viewer::Seat(0), 12)),
            clock,
            log: Vec::new(),
        },
        ServerMessage::Events {
            table: "lyon".into(),
            seq: 8,
            events: events
                .iter()
                .map(|e| project(&e.into(), Viewer::Spectator))
                .collect(),
            view: None,
            since: Some(7),
            patch: Some(Box::new(ViewPatch::between(&before, &after))),
            clock,
        },
        ServerMessage::Chat {
            table: "lyon".into(),
            seq: 9,
            from: "ann".into(),
            text: "nice hand".into(),
            at: None,
        },
        ServerMessage::Error {
            code: ErrorCode::DatabaseUnavailable,
            message: "waiting for the database".into(),
            table: Some("lyon".into()),
        },
        ServerMessage::Error {
            code: ErrorCode::BadMessage,
            message: "could not read that message".into(),
            table: None,
        },
        ServerMessage::Snapshot {
            table: "p-3f9a0c21d4e7".into(),
            seq: 2,
            view: Box::new(shared::protocol::TableView {
                name: "Friday game".into(),
                home: Some(HomeView {
                    host: "ann".into(),
                    paused: true,
                    private: true,
                    spectators: false,
                    seat_approval: true,
                }),
                ..table_view(&table, Viewer::Seat(3), 12)
            }),
            clock: None,
            log: Vec::new(),
        },
        ServerMessage::LobbyUpdate {
            table: LobbyTable {
                id: "p-3f9a0c21d4e7".into(),
                host: Some("ann".into()),
                ..lobby_table()
            },
        },
        ServerMessage::HostPanel {
            table: "p-3f9a0c21d4e7".into(),
            invite: Some("arJm8qepu-JzLXdAUd1QiNOABzupKgslWLl5atHVy8g".into()),
            pending: vec![SeatRequest {
                seat: 4,
                name: "cat".into(),
                buy_in: 200,
            }],
        },
        ServerMessage::HostPanel {
            table: "p-3f9a0c21d4e7".into(),
            invite: None,
            pending: Vec::new(),
        },
        ServerMessage::Error {
            code: ErrorCode::NotHost,
            message: "only the table's host can do that".into(),
            table: Some("p-3f9a0c21d4e7".into()),
        },
        ServerMessage::Error {
            code: ErrorCode::AwaitingApproval,
            message: "the host has been asked to seat you".into(),
            table: Some("p-3f9a0c21d4e7".into()),
        },
        ServerMessage::Error {
            code: ErrorCode::SeatRefused,
            message: "the host did not seat you".into(),
            table: Some("p-3f9a0c21d4e7".into()),
        },
        ServerMessage::Snapshot {
            table: "p-3f9a0c21d4e7".into(),
            seq: 3,
            view: Box::new(shared::protocol::TableView {
                second_board: shared::Card::parse_many("2c4h6sJdQh").unwrap(),
                run_twice: true,
                straddle: true,
                straddling: true,
                ..table_view(&table, Viewer::Seat(3), 12)
            }),
            clock: None,
            log: Vec::new(),
        },
        ServerMessage::LobbyUpdate {
            table: LobbyTable {
                run_twice: true,
                straddle: true,
                waiting: 0,
                practice: false,
                ..lobby_table()
            },
        },
        // The hand so far with a snapshot, as seat 0 sees it (its own cards only).
        ServerMessage::Snapshot {
            table: "lyon".into(),
            seq: 10,
            view: Box::new(table_view(&table, Viewer::Seat(0), 12)),
            clock,
            log: events
                .iter()
                .map(|e| project(&e.into(), Viewer::Seat(0)))
                .collect(),
        },
        ServerMessage::Chat {
            table: "lyon".into(),
            seq: 11,
            from: "ann".into(),
            text: "gl".into(),
            at: Some(1_796_212_800_000),
        },
        // A seat that missed both blinds sitting out.
        ServerMessage::Snapshot {
            table: "lyon".into(),
            seq: 12,
            view: Box::new({
                let mut view = table_view(&table, Viewer::Spectator, 12);
                if let Some(Some(seat)) = view.seats.iter_mut().find(|s| s.is_some()) {
                    seat.missed_big = true;
                    seat.missed_small = true;
                }
                view
            }),
            clock: None,
            log: Vec::new(),
        },
        ServerMessage::SessionEnded,
        ServerMessage::Pong,
        // Version 6: the table controls players expect.
        ServerMessage::Waitlist {
            table: "lyon".into(),
            position: Some(2),
            offer: None,
        },
        ServerMessage::Waitlist {
            table: "lyon".into(),
            position: Some(1),
            offer: Some(SeatOffer {
                seat: 4,
                expires_in_ms: 29_998,
            }),
        },
        ServerMessage::Waitlist {
            table: "lyon".into(),
            position: None,
            offer: None,
        },
        ServerMessage::Error {
            code: ErrorCode::SeatHeld,
            message: "seat 4 is held for the next player on the waiting list".into(),
            table: Some("lyon".into()),
        },
        ServerMessage::LobbyUpdate {
            table: LobbyTable {
                seats_taken: 6,
                waiting: 3,
                practice: true,
                ..lobby_table()
            },
        },
        ServerMessage::Snapshot {
            table: "lyon".into(),
            seq: 14,
            view: Box::new(shared::protocol::TableView {
                sit_out_at_big_blind: true,
                show_losing: true,
                auto_top_up: Some(500),
                can_show: true,
                waiting: 2,
                ..table_view(&table, Viewer::Seat(3), 12)
            }),
            clock: None,
            log: Vec::new(),
        },
    ];
    common::golden("server_messages_v6.jsonl", &lines(&messages));
}

#[test]
fn every_client_message_keeps_its_wire_format() {
    let id = RequestId::try_from("k3x9-2".to_string()).ok();
    let t = || "lyon".to_string();
    let messages = vec![
        ClientMessage::SubscribeLobby,
        ClientMessage::UnsubscribeLobby,
        ClientMessage::Watch {
            table: t(),
            invite: None,
        },
        ClientMessage::Unwatch { table: t() },
        ClientMessage::Sit {
            table: t(),
            seat: 2,
            buy_in: 400,
            post_now: true,
            request_id: id.clone(),
        },
        ClientMessage::Sit {
            table: t(),
            seat: 2,
            buy_in: 400,
            post_now: false,
            request_id: None,
        },
        ClientMessage::Act {
            table: t(),
            hand: 12,
            action: Action::RaiseTo { to: 60 },
        },
        ClientMessage::Act {
            table: t(),
            hand: 12,
            action: Action::Fold,
        },
        ClientMessage::PreSelect {
            table: t(),
            pre: Some(PreAction::CheckFold),
        },
        ClientMessage::PreSelect {
            table: t(),
            pre: None,
        },
        ClientMessage::SitOut { table: t() },
        ClientMessage::SitIn {
            table: t(),
            post_now: true,
        },
        ClientMessage::TopUp {
            table: t(),
            amount: 100,
            request_id: id.clone(),
        },
        ClientMessage::Leave {
            table: t(),
            request_id: id,
        },
        ClientMessage::Chat {
            table: t(),
            text: "gl".into(),
        },
        ClientMessage::Resync { table: t() },
        ClientMessage::Watch {
            table: "p-3f9a0c21d4e7".into(),
            invite: Some("arJm8qepu-JzLXdAUd1QiNOABzupKgslWLl5atHVy8g".into()),
        },
    ];
    let mut messages = messages;
    for action in [
        HostAction::Pause,
        HostAction::Resume,
        HostAction::Remove { seat: 2 },
        HostAction::Approve { seat: 4 },
        HostAction::Refuse { seat: 4 },
        HostAction::HandOver { seat: 1 },
        HostAction::Close,
        HostAction::RotateInvite,
        HostAction::SetSpectators { allowed: false },
        HostAction::SetSeatApproval { on: true },
    ] {
        messages.push(ClientMessage::Host {
            table: "p-3f9a0c21d4e7".into(),
            action,
        });
    }
    messages.push(ClientMessage::Straddle {
        table: "p-3f9a0c21d4e7".into(),
        on: true,
    });
    messages.push(ClientMessage::Ping);
    // Version 6.
    messages.extend([
        ClientMessage::SitOutAtBigBlind {
            table: t(),
            on: true,
        },
        ClientMessage::ShowLosing {
            table: t(),
            on: true,
        },
        ClientMessage::ShowCards { table: t() },
        ClientMessage::AutoTopUp {
            table: t(),
            to: Some(1_000),
        },
        ClientMessage::AutoTopUp {
            table: t(),
            to: None,
        },
        ClientMessage::JoinWaitlist { table: t() },
        ClientMessage::LeaveWaitlist { table: t() },
    ]);
    common::golden("client_messages_v6.jsonl", &lines(&messages));
}

/// Every kind of hand event, as browsers receive it (inside `events` messages) and as hand
/// records store it. Written from `shared::format`, not the engine, so an engine change cannot
/// reach these bytes without a conversion saying so.
#[test]
fn every_hand_event_keeps_its_format() {
    use shared::format::{Acted, BlindKind, BoardValues, Event, HandEquity, Share};
    use shared::hand::Street;
    use shared::pot::Pot;
    let cards = |text: &str| -> [shared::Card; 4] { shared::Card::parse_exact(text).unwrap() };
    let high = serde_json::from_str("1609").unwrap();
    let low = serde_json::from_str("47").unwrap();
    let events = vec![
        Event::HandStarted {
            button: 0,
            stacks: vec![(3, 500), (0, 500)],
        },
        Event::BlindPosted {
            seat: 3,
            blind: BlindKind::Small,
            amount: 5,
            all_in: false,
        },
        Event::BlindPosted {
            seat: 0,
            blind: BlindKind::Big,
            amount: 10,
            all_in: false,
        },
        Event::BlindPosted {
            seat: 5,
            blind: BlindKind::DeadSmall,
            amount: 5,
            all_in: false,
        },
        Event::BlindPosted {
            seat: 1,
            blind: BlindKind::Straddle,
            amount: 20,
            all_in: false,
        },
        Event::HoleCards {
            seat: 3,
            cards: cards("Ah2h3d4c"),
        },
        Event::Acted {
            seat: 3,
            action: Acted::Fold,
            stack: 495,
            all_in: false,
        },
        Event::Acted {
            seat: 3,
            action: Acted::Check,
            stack: 495,
            all_in: false,
        },
        Event::Acted {
            seat: 3,
            action: Acted::Call { amount: 5 },
            stack: 490,
            all_in: false,
        },
        Event::Acted {
            seat: 0,
            action: Acted::Bet { to: 20 },
            stack: 470,
            all_in: false,
        },
        Event::Acted {
            seat: 3,
            action: Acted::Raise { to: 490 },
            stack: 0,
            all_in: true,
        },
        Event::UncalledBetReturned {
            seat: 3,
            amount: 20,
        },
        Event::PotsGathered {
            pots: vec![Pot {
                amount: 60,
                eligible: vec![3, 0],
            }],
        },
        Event::BoardDealt {
            street: Street::Flop,
            cards: shared::Card::parse_many("5s6s9d").unwrap(),
        },
        Event::SecondRunDealt {
            street: Street::Turn,
            cards: shared::Card::parse_many("Kh").unwrap(),
        },
        Event::HandsFaceUp {
            hands: vec![(3, cards("Ah2h3d4c")), (0, cards("KsKdQcJc"))],
        },
        Event::Shown {
            seat: 3,
            cards: cards("Ah2h3d4c"),
            high,
            low: Some(low),
            second: None,
        },
        Event::Shown {
            seat: 0,
            cards: cards("KsKdQcJc"),
            high,
            low: None,
            second: None,
        },
        Event::Shown {
            seat: 3,
            cards: cards("Ah2h3d4c"),
            high,
            low: Some(low),
            second: Some(BoardValues {
                high,
                low: Some(low),
            }),
        },
        Event::Mucked { seat: 0 },
        Event::RakeTaken { pot: 0, amount: 3 },
        Event::PotAwarded {
            pot: 0,
            seat: 3,
            amount: 29,
            share: Share::High,
            second_run: false,
        },
        Event::PotAwarded {
            pot: 0,
            seat: 3,
            amount: 28,
            share: Share::Low,
            second_run: false,
        },
        Event::PotAwarded {
            pot: 1,
            seat: 0,
            amount: 10,
            share: Share::Whole,
            second_run: false,
        },
        Event::PotAwarded {
            pot: 1,
            seat: 0,
            amount: 10,
            share: Share::Whole,
            second_run: true,
        },
        Event::HandEnded {
            stacks: vec![(3, 527), (0, 470)],
        },
        Event::Equity {
            street: Street::Flop,
            hands: vec![
                HandEquity {
                    seat: 3,
                    pot: 556_850,
                    scoop: 419_024,
                },
                HandEquity {
                    seat: 0,
                    pot: 443_150,
                    scoop: 305_302,
                },
            ],
        },
    ];
    common::golden("events_v3.jsonl", &lines(&events));
}

/// The engine's events convert to the format and back without loss, for every kind a real
/// hand produces.
#[test]
fn engine_events_round_trip_through_the_format() {
    let mut table = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).unwrap();
    table.sit(0, PlayerId(1), "ann".into(), 500, true).unwrap();
    table.sit(3, PlayerId(2), "bob".into(), 500, true).unwrap();
    let mut events = table.start_hand(Deck::ordered()).unwrap();
    while let Some(seat) = table.hand().and_then(|h| h.to_act()) {
        events.extend(
            table
                .act(seat, Action::Call)
                .or_else(|_| table.act(seat, Action::Check))
                .unwrap(),
        );
    }
    for e in events {
        let stored = shared::format::Event::from(&e);
        assert_eq!(shared::hand::Event::try_from(stored), Ok(e));
    }
}

/// Version 1 (before `Event::Equity`): every line of its files still reads, and writes back
/// byte for byte, since version 2 only added to it.
#[test]
fn version_1_messages_and_events_still_read_unchanged() {
    fn same<T: Serialize + DeserializeOwned>(name: &str) {
        for line in common::read_fixture(name).lines() {
            let read: T =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: {e}: {line}"));
            assert_eq!(serde_json::to_string(&read).unwrap(), line, "{name}");
        }
    }
    same::<ServerMessage>("server_messages_v1.jsonl");
    same::<ClientMessage>("client_messages_v1.jsonl");
    same::<shared::format::Event>("events_v1.jsonl");
}

/// Versions 2 (before home games), 3 (before run it twice and the straddle), 4 (events
/// with the whole view) and 5 (before the waiting list and the other table controls): every
/// line still reads and writes back byte for byte, since later versions only added optional
/// fields, messages, events and codes (version 5 made the events' whole view optional,
/// beside the change that replaces it).
#[test]
fn versions_2_to_5_messages_and_events_still_read_unchanged() {
    let events = |l: &str| {
        serde_json::from_str::<shared::format::Event>(l).map(|m| serde_json::to_string(&m))
    };
    for (name, read) in [
        (
            "server_messages_v2.jsonl",
            (|l: &str| serde_json::from_str::<ServerMessage>(l).map(|m| serde_json::to_string(&m)))
                as fn(&str) -> serde_json::Result<serde_json::Result<String>>,
        ),
        ("client_messages_v2.jsonl", |l: &str| {
            serde_json::from_str::<ClientMessage>(l).map(|m| serde_json::to_string(&m))
        }),
        ("events_v2.jsonl", events),
        ("server_messages_v3.jsonl", |l: &str| {
            serde_json::from_str::<ServerMessage>(l).map(|m| serde_json::to_string(&m))
        }),
        ("client_messages_v3.jsonl", |l: &str| {
            serde_json::from_str::<ClientMessage>(l).map(|m| serde_json::to_string(&m))
        }),
        ("server_messages_v4.jsonl", |l: &str| {
            serde_json::from_str::<ServerMessage>(l).map(|m| serde_json::to_string(&m))
        }),
        ("client_messages_v4.jsonl", |l: &str| {
            serde_json::from_str::<ClientMessage>(l).map(|m| serde_json::to_string(&m))
        }),
        ("server_messages_v5.jsonl", |l: &str| {
            serde_json::from_str::<ServerMessage>(l).map(|m| serde_json::to_string(&m))
        }),
    ] {
        for line in common::read_fixture(name).lines() {
            let back = read(line).unwrap().unwrap();
            assert_eq!(back, line, "{name}");
        }
    }
}

#[test]
fn the_server_written_equity_event_has_no_engine_counterpart() {
    let equity = shared::format::Event::Equity {
        street: shared::hand::Street::Turn,
        hands: Vec::new(),
    };
    assert!(shared::hand::Event::try_from(equity).is_err());
}
