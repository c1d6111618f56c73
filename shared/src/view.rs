//! The one place where game state becomes what a client may see (docs/rules.md §10).
//!
//! Architecture invariant: every card that leaves the server passes through [`project`] or
//! [`table_view`]. A player sees their own hole cards and cards turned face up; a spectator
//! sees only cards turned face up.

use crate::card::Card;
use crate::format::Event;
use crate::hand::Legal;
use crate::patch::ViewPatch;
use crate::protocol::{Dealt, SeatView, TableView, ViewEvent};
use crate::rules::Chips;
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
    if let Viewer::Seat(seat) = viewer
        && let Some(own) = Personal::of(table, seat)
    {
        own.apply(view);
    }
}

/// What a seat's view adds to the public one: its own cards and its own settings.
struct Personal {
    seat: u8,
    /// The seat's hole cards, when it was dealt in.
    cards: Option<Option<[Card; 4]>>,
    legal: Option<Legal>,
    straddling: bool,
    sit_out_at_big_blind: bool,
    show_losing: bool,
    auto_top_up: Option<Chips>,
    can_show: bool,
}

impl Personal {
    /// `None` for an empty seat, whose view is the public one.
    fn of(table: &Table, seat: u8) -> Option<Personal> {
        let mine = table.seat(seat)?;
        let hand = table.hand();
        let running = table.hand_running();
        Some(Personal {
            seat,
            cards: in_hand(table, seat).then(|| hand.and_then(|h| h.hole_cards(seat))),
            // Only the seat to act has any (and working them out is not free).
            legal: hand
                .filter(|h| h.to_act() == Some(seat))
                .and_then(|h| h.legal()),
            straddling: mine.straddle,
            sit_out_at_big_blind: mine.sit_out_at_big_blind,
            show_losing: mine.show_losing,
            auto_top_up: mine.auto_top_up,
            can_show: !running
                && table.dealt_in(seat)
                && hand.is_some_and(|h| h.may_show_uncalled(seat)),
        })
    }

    fn apply(self, view: &mut TableView) {
        if let Some(cards) = self.cards
            && let Some(Some(own)) = view.seats.get_mut(usize::from(self.seat))
        {
            own.cards = cards;
        }
        view.you = Some(self.seat);
        view.legal = self.legal;
        view.straddling = self.straddling;
        view.sit_out_at_big_blind = self.sit_out_at_big_blind;
        view.show_losing = self.show_losing;
        view.auto_top_up = self.auto_top_up;
        view.can_show = self.can_show;
    }

    /// The seat as this viewer sees it in `public`.
    fn own_seat(&self, public: &TableView) -> Option<SeatView> {
        let mut own = public.seats.get(usize::from(self.seat))?.clone()?;
        if let Some(cards) = self.cards {
            own.cards = cards;
        }
        Some(own)
    }
}

/// What changed in a seat's view, worked out from what changed in the public view rather
/// than by building the seat's whole view and comparing it: the fan-out does this for every
/// seat at every change. `old` must be the seat's view built (by [`view_for`]) on the public
/// view that `public` starts from, and `new_public` the one it ends at; the result is then
/// `ViewPatch::between(old, &view_for(new_public, table, Viewer::Seat(seat)))`.
pub fn seat_patch(
    public: &ViewPatch,
    new_public: &TableView,
    old: &TableView,
    table: &Table,
    seat: u8,
) -> ViewPatch {
    let Some(mine) = Personal::of(table, seat) else {
        // An empty seat's view is the public one.
        return ViewPatch::between(old, new_public);
    };
    let mut patch = public.clone();
    // The seat's own entry: as it sees it, or none if that did not change for it. Where the
    // public entry did not change, only the seat's cards can have (dealt, or a new hand).
    let at = usize::from(seat);
    let public_unchanged = patch.seat_count.is_none()
        && !patch.seats.iter().any(|s| s.seat == seat)
        && !patch.emptied.contains(&seat);
    let own = match (old.seats.get(at), new_public.seats.get(at)) {
        // Past the end of the new seats: the seat count says it.
        (_, None) => None,
        (Some(Some(old)), Some(Some(new)))
            if public_unchanged && old.cards == mine.cards.unwrap_or(new.cards) =>
        {
            None
        }
        (old, Some(_)) => {
            let own = mine.own_seat(new_public);
            (old != Some(&own)).then_some(own)
        }
    };
    patch.seats.retain(|s| s.seat != seat);
    patch.emptied.retain(|&n| n != seat);
    match own {
        Some(Some(own)) => {
            let at = patch.seats.partition_point(|s| s.seat < seat);
            patch.seats.insert(at, own);
        }
        Some(None) => {
            let at = patch.emptied.partition_point(|&n| n < seat);
            patch.emptied.insert(at, seat);
        }
        None => {}
    }
    patch.you = changed(&old.you, Some(seat));
    patch.legal = changed(&old.legal, mine.legal);
    patch.straddling = changed(&old.straddling, mine.straddling);
    patch.sit_out_at_big_blind = changed(&old.sit_out_at_big_blind, mine.sit_out_at_big_blind);
    patch.show_losing = changed(&old.show_losing, mine.show_losing);
    patch.auto_top_up = changed(&old.auto_top_up, mine.auto_top_up);
    patch.can_show = changed(&old.can_show, mine.can_show);
    patch
}

/// `new`, if it differs from `old`: a patch's field.
fn changed<T: PartialEq>(old: &T, new: T) -> Option<T> {
    (*old != new).then_some(new)
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

    /// Plays hands at a six-seat table with players coming, going and changing their settings
    /// between hands, and calls `step` with the table after every change.
    fn a_busy_table(seed: u64, mut step: impl FnMut(&Table)) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut t = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).unwrap();
        for seat in [0, 2, 3, 5] {
            let id = PlayerId(u128::from(seat) + 1);
            t.sit(seat, id, format!("p{seat}"), 300, true).unwrap();
        }
        step(&t);
        for hand in 0..12u128 {
            if t.start_hand(Deck::shuffled(&mut rng)).is_ok() {
                step(&t);
            }
            while let Some(legal) = t.hand().and_then(|h| h.legal()) {
                let action = match (rng.random_range(0..10), legal.raise) {
                    (0, _) if !legal.can_check => Action::Fold,
                    (1 | 2, Ok(r)) => Action::RaiseTo {
                        to: r.max_to.min(r.min_to * 2),
                    },
                    (3, Ok(r)) => Action::RaiseTo { to: r.max_to },
                    _ if legal.can_check => Action::Check,
                    _ => Action::Call,
                };
                t.act(legal.seat, action).unwrap();
                step(&t);
            }
            // Between hands: someone changes a setting, shows, leaves or sits down.
            let seat = rng.random_range(0..6u8);
            let changed = match rng.random_range(0..7) {
                0 => t.set_straddle(seat, true).is_ok(),
                1 => t.set_show_losing(seat, true).is_ok(),
                2 => t.set_auto_top_up(seat, Some(300)).is_ok(),
                3 => t.set_sit_out_at_big_blind(seat, hand % 2 == 0).is_ok(),
                4 => t.show_cards(seat).is_ok(),
                5 => t.leave(seat).is_ok(),
                _ => t
                    .sit(seat, PlayerId(100 + hand), format!("n{hand}"), 200, true)
                    .is_ok(),
            };
            if changed {
                step(&t);
            }
            for seat in 0..6 {
                if t.seat(seat).is_some_and(|s| s.stack == 0) {
                    let _ = t.top_up(seat, 300);
                }
            }
            step(&t);
        }
    }

    #[test]
    fn a_seats_change_worked_out_from_the_public_change_is_the_change_in_its_view() {
        for seed in 0..30 {
            let mut before: Option<(TableView, Vec<TableView>)> = None;
            let mut compared = 0;
            a_busy_table(seed, |t| {
                let public = public_view(t, 1);
                let seats: Vec<TableView> = (0..6)
                    .map(|s| view_for(&public, t, Viewer::Seat(s)))
                    .collect();
                if let Some((old_public, old_seats)) = &before {
                    let public_patch = ViewPatch::between(old_public, &public);
                    for seat in 0..6u8 {
                        let old = &old_seats[usize::from(seat)];
                        let new = &seats[usize::from(seat)];
                        assert_eq!(
                            seat_patch(&public_patch, &public, old, t, seat),
                            ViewPatch::between(old, new),
                            "seed {seed}, seat {seat}"
                        );
                        compared += 1;
                    }
                }
                before = Some((public, seats));
            });
            assert!(compared > 100, "seed {seed}: only {compared} changes");
        }
    }

    #[test]
    fn rule_10_legal_actions_go_only_to_the_player_to_act() {
        let (t, _) = two_player_table();
        let seat = t.hand().unwrap().to_act().unwrap();
        assert!(table_view(&t, Viewer::Seat(seat), 1).legal.is_some());
        assert!(table_view(&t, Viewer::Spectator, 1).legal.is_none());
    }
}
