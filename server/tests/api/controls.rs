//! The table controls players expect, over real sockets against a real Postgres: the waiting
//! list (docs/rules.md §7.14), the automatic top-up (§7.15), showing an uncalled winner's
//! cards (§6.4), auto-muck (§6.5) and sitting out at the big blind (§7.13).

use shared::hand::Action;
use shared::protocol::{ClientMessage, ErrorCode, SeatOffer, ServerMessage};
use shared::rules::Structure;
use shared::table::SeatStatus;

use crate::helpers::{TestApp, spawn_tables};
use crate::home::{balance, lobby_rows};
use crate::tables::{quick_table, sit};
use crate::ws::{Client, connect, register};

const TABLE: &str = "duo";

/// A full two-seat table where no hand runs: ann sits out, bob waits alone.
async fn full_table(offer_secs: u32) -> (TestApp, Client, Client) {
    let mut def = quick_table(TABLE, Structure::NoLimit);
    def.seats = 2;
    def.seat_offer_secs = offer_secs;
    let app = spawn_tables(&[def], |_| {}).await;
    let mut a = connect(&app, Some(&register(&app, "ann").await)).await;
    let mut b = connect(&app, Some(&register(&app, "bob").await)).await;
    sit(&mut a, TABLE, 0, 500).await;
    a.send(&ClientMessage::SitOut {
        table: TABLE.into(),
    })
    .await;
    a.until(|m| seat_status(m, 0) == Some(SeatStatus::SittingOut))
        .await;
    sit(&mut b, TABLE, 1, 500).await;
    (app, a, b)
}

fn seat_status(m: &ServerMessage, seat: usize) -> Option<SeatStatus> {
    match m {
        ServerMessage::Events {
            view: Some(view), ..
        }
        | ServerMessage::Snapshot { view, .. } => view.seats.get(seat)?.as_ref().map(|s| s.status),
        _ => None,
    }
}

/// Reads until this client hears a place on the list that `wanted` accepts (earlier notices,
/// sent whenever the line changed, are passed over).
async fn hears(
    c: &mut Client,
    wanted: impl Fn(Option<u32>, Option<&SeatOffer>) -> bool,
) -> (Option<u32>, Option<SeatOffer>) {
    match c
        .until(|m| matches!(m, ServerMessage::Waitlist { position, offer, .. } if wanted(*position, offer.as_ref())))
        .await
    {
        ServerMessage::Waitlist {
            position, offer, ..
        } => (position, offer),
        _ => unreachable!(),
    }
}

async fn place(c: &mut Client, position: Option<u32>) {
    hears(c, |p, o| p == position && o.is_none()).await;
}

async fn offered(c: &mut Client) -> SeatOffer {
    let (_, offer) = hears(c, |p, o| p == Some(1) && o.is_some()).await;
    offer.expect("an offer")
}

async fn leave_table(c: &mut Client) {
    c.send(&ClientMessage::Leave {
        table: TABLE.into(),
        request_id: None,
    })
    .await;
}

async fn pass(c: &mut Client) {
    c.send(&ClientMessage::LeaveWaitlist {
        table: TABLE.into(),
    })
    .await;
}

async fn join(c: &mut Client) {
    c.send(&ClientMessage::JoinWaitlist {
        table: TABLE.into(),
    })
    .await;
}

#[tokio::test]
async fn a_freed_seat_is_held_for_the_first_on_the_waiting_list_who_takes_it() {
    let (app, _a, mut b) = full_table(30).await;
    let mut cat = connect(&app, Some(&register(&app, "cat").await)).await;
    let mut dan = connect(&app, Some(&register(&app, "dan").await)).await;
    join(&mut cat).await;
    place(&mut cat, Some(1)).await;
    join(&mut dan).await;
    place(&mut dan, Some(2)).await;
    // Joining again (a reload) keeps the place.
    join(&mut cat).await;
    place(&mut cat, Some(1)).await;
    let row = lobby_rows(&app).await;
    assert_eq!(row[0]["waiting"], 2, "{row:?}");

    // A seated player cannot join their own table's list.
    join(&mut b).await;
    assert_eq!(b.error().await.0, ErrorCode::Seat);

    leave_table(&mut b).await;
    let offer = offered(&mut cat).await;
    assert_eq!(
        offer.seat, 1,
        "the freed seat is offered to the first in line"
    );
    assert!(offer.expires_in_ms > 25_000 && offer.expires_in_ms <= 30_000);

    // Held: the second in line (and anyone else) is refused it, and no chip moves.
    let dan_before = balance(&app, "dan").await;
    dan.send(&ClientMessage::Sit {
        table: TABLE.into(),
        seat: 1,
        buy_in: 500,
        post_now: false,
        request_id: None,
    })
    .await;
    assert_eq!(dan.error().await.0, ErrorCode::SeatHeld);
    assert_eq!(balance(&app, "dan").await, dan_before);

    // The holder takes it with an ordinary buy-in and leaves the list; dan moves up.
    sit(&mut cat, TABLE, 1, 500).await;
    place(&mut cat, None).await;
    place(&mut dan, Some(1)).await;
    app.assert_balanced().await;
}

#[tokio::test]
async fn an_offer_that_lapses_passes_the_seat_to_the_next_in_line() {
    let (app, _a, mut b) = full_table(1).await;
    let mut cat = connect(&app, Some(&register(&app, "cat").await)).await;
    let mut dan = connect(&app, Some(&register(&app, "dan").await)).await;
    join(&mut cat).await;
    place(&mut cat, Some(1)).await;
    join(&mut dan).await;
    place(&mut dan, Some(2)).await;
    leave_table(&mut b).await;
    offered(&mut cat).await;
    // A second later cat is off the list and dan holds the seat.
    place(&mut cat, None).await;
    assert_eq!(offered(&mut dan).await.seat, 1);
    // Passing leaves the list at once.
    pass(&mut dan).await;
    place(&mut dan, None).await;
    pass(&mut dan).await;
    assert_eq!(dan.error().await.0, ErrorCode::Seat, "not on the list");
}

#[tokio::test]
async fn the_waiting_list_is_for_full_tables_only() {
    let mut def = quick_table(TABLE, Structure::NoLimit);
    def.seats = 3;
    let app = spawn_tables(&[def], |_| {}).await;
    let mut cat = connect(&app, Some(&register(&app, "cat").await)).await;
    join(&mut cat).await;
    let (code, message) = cat.error().await;
    assert_eq!(code, ErrorCode::Seat);
    assert!(message.contains("free"), "{message}");
    assert_eq!(
        lobby_rows(&app).await[0]["waiting"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn an_automatic_top_up_refills_the_stack_through_the_ledger() {
    let (app, mut a, _b) = full_table(30).await;
    let before = balance(&app, "ann").await;
    a.send(&ClientMessage::AutoTopUp {
        table: TABLE.into(),
        to: Some(5),
    })
    .await;
    assert_eq!(
        a.error().await.0,
        ErrorCode::Seat,
        "below the minimum buy-in"
    );
    a.send(&ClientMessage::AutoTopUp {
        table: TABLE.into(),
        to: Some(800),
    })
    .await;
    // Between hands it applies at once.
    a.until(|m| match m {
        ServerMessage::Events {
            view: Some(view), ..
        } => {
            view.auto_top_up == Some(800) && view.seats[0].as_ref().is_some_and(|s| s.stack == 800)
        }
        _ => false,
    })
    .await;
    assert_eq!(balance(&app, "ann").await, before - 300);
    app.assert_balanced().await;
}

#[tokio::test]
async fn the_uncalled_winner_may_show_and_the_others_see_the_cards() {
    let mut def = quick_table(TABLE, Structure::NoLimit);
    // Long enough to show before the next deal.
    def.between_hands_ms = 5_000;
    let app = spawn_tables(&[def], |_| {}).await;
    let mut a = connect(&app, Some(&register(&app, "ann").await)).await;
    let mut b = connect(&app, Some(&register(&app, "bob").await)).await;
    sit(&mut a, TABLE, 0, 500).await;
    sit(&mut b, TABLE, 1, 500).await;
    // Auto-muck off and sitting out at the big blind are kept with the seat and shown to it.
    a.send(&ClientMessage::ShowLosing {
        table: TABLE.into(),
        on: true,
    })
    .await;
    a.until(|m| matches!(m, ServerMessage::Events { view: Some(v), .. } if v.show_losing))
        .await;
    // Heads-up the button acts first: whoever is to act raises, the other folds.
    let mut hand = None;
    while hand.is_none() {
        for c in [&mut a, &mut b] {
            c.drain(std::time::Duration::from_millis(100)).await;
            if let Some(view) = c.view.clone()
                && let Some(legal) = view.legal
                && view.hand_running
            {
                let to = legal.raise.map(|r| r.min_to).unwrap_or(20);
                c.send(&ClientMessage::Act {
                    table: TABLE.into(),
                    hand: view.hand,
                    action: Action::RaiseTo { to },
                })
                .await;
                hand = Some((view.you, view.hand));
                break;
            }
        }
    }
    let (raiser, number) = hand.unwrap();
    let (winner, folder) = if raiser == Some(0) {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    folder
        .until(|m| matches!(m, ServerMessage::Events { view: Some(v), .. } if v.legal.is_some()))
        .await;
    folder
        .send(&ClientMessage::Act {
            table: TABLE.into(),
            hand: number,
            action: Action::Fold,
        })
        .await;
    // The folder may not show; the winner may, once.
    folder
        .send(&ClientMessage::ShowCards {
            table: TABLE.into(),
        })
        .await;
    assert_eq!(folder.error().await.0, ErrorCode::Seat);
    winner
        .until(|m| matches!(m, ServerMessage::Events { view: Some(v), .. } if v.can_show))
        .await;
    let winner_seat = usize::from(raiser.unwrap());
    winner
        .send(&ClientMessage::ShowCards {
            table: TABLE.into(),
        })
        .await;
    folder
        .until(|m| match m {
            ServerMessage::Events { view: Some(v), .. } => {
                v.hand == number
                    && v.seats[winner_seat]
                        .as_ref()
                        .is_some_and(|s| s.cards.is_some())
            }
            _ => false,
        })
        .await;
    app.assert_balanced().await;
}
