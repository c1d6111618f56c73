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
    let mut view = public_view(table, hand_number);
    personalise(&mut view, table, viewer);
    view
}

/// `public` (what [`public_view`] gave for this table as it stands) as `viewer` sees it: a
/// broadcast builds the public view once and each seat's from it, rather than projecting the
/// whole table again for every seat.
pub fn view_for(public: &TableView, table: &Table, viewer: Viewer) -> TableView {
    let mut view = public.clone();
    personalise(&mut view, table, viewer);
    view
}

/// The cards in a seat are its occupant's only if they were dealt them: a newcomer to a seat
/// between hands must not see (or be shown with) the last one's.
fn in_hand(table: &Table, seat: u8) -> bool {
    table.dealt_in(seat) && table.hand().and_then(|h| h.hole_cards(seat)).is_some()
}

/// The table as a spectator sees it: only cards turned face up, nobody's own controls.
pub fn public_view(table: &Table, hand_number: u64) -> TableView {
    let config = table.config();
    let hand = table.hand();
    let running = table.hand_running();
    let positions = table.positions();
    let seats = (0..config.seats)
        .map(|i| {
            let s = table.seat(i)?;
            let in_hand = in_hand(table, i);
            let live = in_hand && hand.is_some_and(|h| h.is_live(i));
            let (stack, bet) = match hand {
                Some(h) if running && in_hand => (h.stack(i).unwrap_or(0), h.bet(i).unwrap_or(0)),
                _ => (s.stack, 0),
            };
            let shown = hand.is_some_and(|h| h.is_shown(i));
            Some(SeatView {
                seat: i,
                name: s.name.clone(),
                stack,
                bet,
                status: s.status,
                live,
                all_in: live && running && stack == 0,
                cards: hand
                    .filter(|_| shown && in_hand)
                    .and_then(|h| h.hole_cards(i)),
                missed_big: s.missed_big,
                missed_small: s.missed_small,
            })
        })
        .collect();
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
        you: None,
        legal: None,
        name: String::new(),
        home: None,
        second_board: hand.and_then(|h| h.second_board()).unwrap_or_default(),
        run_twice: config.run_twice,
        straddle: config.straddle,
        straddling: false,
        sit_out_at_big_blind: false,
        show_losing: false,
        auto_top_up: None,
        can_show: false,
        waiting: 0,
    }
}

/// What a seated viewer sees besides the public view: their own hole cards, their legal
/// actions when it is their turn, and their seat's settings.
fn personalise(view: &mut TableView, table: &Table, viewer: Viewer) {
    let Viewer::Seat(seat) = viewer else {
        return;
    };
    let Some(mine) = table.seat(seat) else {
        return;
    };
    let hand = table.hand();
    let running = table.hand_running();
    if in_hand(table, seat)
        && let Some(Some(own)) = view.seats.get_mut(usize::from(seat))
    {
        own.cards = hand.and_then(|h| h.hole_cards(seat));
    }
    view.you = Some(seat);
    view.legal = hand.and_then(|h| h.legal()).filter(|l| l.seat == seat);
    view.straddling = mine.straddle;
    view.sit_out_at_big_blind = mine.sit_out_at_big_blind;
    view.show_losing = mine.show_losing;
    view.auto_top_up = mine.auto_top_up;
    view.can_show =
        !running && table.dealt_in(seat) && hand.is_some_and(|h| h.may_show_uncalled(seat));
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
    fn rule_10_a_seat_view_built_from_the_public_view_adds_only_that_seats_cards_and_controls() {
        let (t, _) = two_player_table();
        let public = public_view(&t, 1);
        assert_eq!(public, table_view(&t, Viewer::Spectator, 1));
        let to_act = t.hand().unwrap().to_act().unwrap();
        for seat in [0, 3] {
            let own = view_for(&public, &t, Viewer::Seat(seat));
            assert_eq!(own, table_view(&t, Viewer::Seat(seat), 1));
            let json = serde_json::to_string(&own).unwrap();
            assert!(cards_in(&json, &t, seat));
            let other = if seat == 0 { 3 } else { 0 };
            assert!(
                !cards_in(&json, &t, other),
                "seat {seat} saw seat {other}'s cards"
            );
            assert_eq!(own.you, Some(seat));
            assert_eq!(own.legal.is_some(), seat == to_act);
        }
        // An empty seat's viewer is a spectator.
        assert_eq!(view_for(&public, &t, Viewer::Seat(1)), public);
    }

    #[test]
    fn rule_10_legal_actions_go_only_to_the_player_to_act() {
        let (t, _) = two_player_table();
        let seat = t.hand().unwrap().to_act().unwrap();
        assert!(table_view(&t, Viewer::Seat(seat), 1).legal.is_some());
        assert!(table_view(&t, Viewer::Spectator, 1).legal.is_none());
    }
}
