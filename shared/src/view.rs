//! The one place where game state becomes what a client may see (docs/rules.md §10).
//!
//! Architecture invariant: every card that leaves the server passes through [`project`] or
//! [`table_view`]. A player sees their own hole cards and cards turned face up; a spectator
//! sees only cards turned face up.

use crate::format::Event;
use crate::protocol::{Dealt, SeatView, TableView, ViewEvent};
use crate::table::Table;

/// Who is looking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    Seat(u8),
    Spectator,
}

impl Viewer {
    fn owns(self, seat: u8) -> bool {
        self == Viewer::Seat(seat)
    }
}

/// One event as `viewer` may see it (engine events convert with `Event::from`).
pub fn project(event: &Event, viewer: Viewer) -> ViewEvent {
    match event {
        Event::HoleCards { seat, cards } => ViewEvent::Dealt(Dealt {
            seat: *seat,
            cards: viewer.owns(*seat).then_some(*cards),
        }),
        // Listed one by one so that a new event kind must be judged here before it compiles.
        Event::HandStarted { .. }
        | Event::BlindPosted { .. }
        | Event::Acted { .. }
        | Event::UncalledBetReturned { .. }
        | Event::PotsGathered { .. }
        | Event::BoardDealt { .. }
        | Event::SecondRunDealt { .. }
        | Event::HandsFaceUp { .. }
        | Event::Shown { .. }
        | Event::Mucked { .. }
        | Event::RakeTaken { .. }
        | Event::PotAwarded { .. }
        | Event::HandEnded { .. }
        | Event::Equity { .. } => ViewEvent::Public(event.clone()),
    }
}

/// The whole table as `viewer` may see it. `hand_number` is the table's count of hands dealt.
pub fn table_view(table: &Table, viewer: Viewer, hand_number: u64) -> TableView {
    let config = table.config();
    let hand = table.hand();
    let running = table.hand_running();
    let positions = table.positions();
    let seats = (0..config.seats)
        .map(|i| {
            let s = table.seat(i)?;
            // The cards in a seat are its occupant's only if they were dealt them: a newcomer
            // to a seat between hands must not see (or be shown with) the last one's.
            let in_hand = table.dealt_in(i) && hand.and_then(|h| h.hole_cards(i)).is_some();
            let live = in_hand && hand.is_some_and(|h| h.is_live(i));
            let (stack, bet) = match hand {
                Some(h) if running && in_hand => (h.stack(i).unwrap_or(0), h.bet(i).unwrap_or(0)),
                _ => (s.stack, 0),
            };
            let visible = viewer.owns(i) || hand.is_some_and(|h| h.is_shown(i));
            Some(SeatView {
                seat: i,
                name: s.name.clone(),
                stack,
                bet,
                status: s.status,
                live,
                all_in: live && running && stack == 0,
                cards: hand
                    .filter(|_| visible && in_hand)
                    .and_then(|h| h.hole_cards(i)),
                missed_big: s.missed_big,
                missed_small: s.missed_small,
            })
        })
        .collect();
    let you = match viewer {
        Viewer::Seat(s) if table.seat(s).is_some() => Some(s),
        _ => None,
    };
    let legal = hand.and_then(|h| h.legal()).filter(|l| you == Some(l.seat));
    let mine = you.and_then(|s| table.seat(s));
    TableView {
        stakes: config.stakes,
        seat_count: config.seats,
        min_buy_in: config.min_buy_in,
        max_buy_in: config.max_buy_in,
        hand: hand_number,
        hand_running: running,
        seats,
        button: positions.map(|p| p.button),
        small_blind: positions.map(|p| p.small_blind),
        big_blind: positions.map(|p| p.big_blind),
        street: hand.map(|h| h.street()),
        board: hand.map(|h| h.board().to_vec()).unwrap_or_default(),
        pots: if running {
            hand.map(|h| h.pots()).unwrap_or_default()
        } else {
            Vec::new()
        },
        to_act: hand.and_then(|h| h.to_act()),
        you,
        legal,
        name: String::new(),
        home: None,
        second_board: hand.and_then(|h| h.second_board()).unwrap_or_default(),
        run_twice: config.run_twice,
        straddle: config.straddle,
        straddling: mine.is_some_and(|s| s.straddle),
        sit_out_at_big_blind: mine.is_some_and(|s| s.sit_out_at_big_blind),
        show_losing: mine.is_some_and(|s| s.show_losing),
        auto_top_up: mine.and_then(|s| s.auto_top_up),
        can_show: you.is_some_and(|s| {
            !running && table.dealt_in(s) && hand.is_some_and(|h| h.may_show_uncalled(s))
        }),
        waiting: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Deck;
    use crate::hand::Action;
    use crate::rules::Stakes;
    use crate::table::{PlayerId, TableConfig};

    fn two_player_table() -> (Table, Vec<Event>) {
        let mut t = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).unwrap();
        t.sit(0, PlayerId(1), "ann".into(), 500, false).unwrap();
        t.sit(3, PlayerId(2), "bob".into(), 500, false).unwrap();
        let events = t
            .start_hand(Deck::ordered())
            .unwrap()
            .iter()
            .map(Event::from)
            .collect();
        (t, events)
    }

    fn cards_in(json: &str, t: &Table, seat: u8) -> bool {
        t.hand()
            .and_then(|h| h.hole_cards(seat))
            .is_some_and(|cards| cards.iter().any(|c| json.contains(&format!("\"{c}\""))))
    }

    #[test]
    fn rule_10_spectators_and_opponents_never_receive_hidden_hole_cards() {
        let (t, events) = two_player_table();
        for viewer in [Viewer::Spectator, Viewer::Seat(3)] {
            let json: String = events
                .iter()
                .map(|e| serde_json::to_string(&project(e, viewer)).unwrap())
                .collect();
            let view = serde_json::to_string(&table_view(&t, viewer, 1)).unwrap();
            assert!(
                !cards_in(&json, &t, 0),
                "{viewer:?} saw seat 0's cards in events"
            );
            assert!(
                !cards_in(&view, &t, 0),
                "{viewer:?} saw seat 0's cards in the view"
            );
        }
        let own = serde_json::to_string(&table_view(&t, Viewer::Seat(0), 1)).unwrap();
        assert!(cards_in(&own, &t, 0));
    }

    #[test]
    fn rule_10_cards_turned_up_at_all_in_are_visible_to_everyone() {
        let (mut t, _) = two_player_table();
        let seat = t.hand().unwrap().to_act().unwrap();
        t.act(seat, Action::RaiseTo { to: 500 }).unwrap();
        let other = if seat == 0 { 3 } else { 0 };
        t.act(other, Action::Call).unwrap();
        let view = table_view(&t, Viewer::Spectator, 1);
        assert!(view.seats.iter().flatten().all(|s| s.cards.is_some()));
    }

    #[test]
    fn rule_10_legal_actions_go_only_to_the_player_to_act() {
        let (t, _) = two_player_table();
        let seat = t.hand().unwrap().to_act().unwrap();
        assert!(table_view(&t, Viewer::Seat(seat), 1).legal.is_some());
        assert!(table_view(&t, Viewer::Spectator, 1).legal.is_none());
    }
}
