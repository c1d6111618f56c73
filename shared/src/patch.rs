//! What changed between two views of a table, so that a message after an action carries the
//! few fields it changed (a seat's stack and bet, whose turn it is) rather than the whole
//! table. The server keeps the last view each audience was sent and sends the difference;
//! the client applies it to the view it holds, and asks for a snapshot when it cannot.

use serde::{Deserialize, Deserializer, Serialize};
use thiserror::Error;

use crate::card::Card;
use crate::hand::{Legal, Street};
use crate::pot::Pot;
use crate::protocol::{HomeView, SeatView, TableView};
use crate::rules::{Chips, Stakes};

/// A field that is present in the message, even as `null`: `Some(None)` is "changed to
/// nothing" (the turn passed to nobody), while an absent field is unchanged.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum PatchError {
    #[error("seat {0} is not at this table")]
    NoSuchSeat(u8),
}

macro_rules! view_patch {
    ($($field:ident: $ty:ty),* $(,)?) => {
        /// The fields of a [`TableView`] that changed; absent ones did not. Seats that
        /// changed are sent whole (`seats`), seats that became empty by number (`emptied`).
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub struct ViewPatch {
            $(
                #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
                pub $field: Option<$ty>,
            )*
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub seats: Vec<SeatView>,
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub emptied: Vec<u8>,
        }

        impl ViewPatch {
            /// What turns `old` into `new`.
            pub fn between(old: &TableView, new: &TableView) -> ViewPatch {
                let mut patch = ViewPatch::default();
                $(
                    if old.$field != new.$field {
                        patch.$field = Some(new.$field.clone());
                    }
                )*
                if old.seats.len() != new.seats.len() {
                    patch.seat_count = Some(new.seat_count);
                }
                for (n, seat) in new.seats.iter().enumerate() {
                    if old.seats.get(n) == Some(seat) {
                        continue;
                    }
                    match seat {
                        Some(seat) => patch.seats.push(seat.clone()),
                        None => patch.emptied.push(u8::try_from(n).unwrap_or(u8::MAX)),
                    }
                }
                patch
            }

            /// Applies this change to `view`, or leaves it as it was and says why not.
            pub fn apply(self, view: &mut TableView) -> Result<(), PatchError> {
                let seat_total = usize::from(self.seat_count.unwrap_or(view.seat_count));
                if let Some(bad) = self
                    .seats
                    .iter()
                    .map(|s| s.seat)
                    .chain(self.emptied.iter().copied())
                    .find(|&n| usize::from(n) >= seat_total)
                {
                    return Err(PatchError::NoSuchSeat(bad));
                }
                $(
                    if let Some(value) = self.$field {
                        view.$field = value;
                    }
                )*
                view.seats.resize(seat_total, None);
                for n in self.emptied {
                    view.seats[usize::from(n)] = None;
                }
                for seat in self.seats {
                    let n = usize::from(seat.seat);
                    view.seats[n] = Some(seat);
                }
                Ok(())
            }

            /// Nothing changed.
            pub fn is_empty(&self) -> bool {
                $(self.$field.is_none() &&)* self.seats.is_empty() && self.emptied.is_empty()
            }
        }
    };
}

view_patch! {
    stakes: Stakes,
    seat_count: u8,
    min_buy_in: Chips,
    max_buy_in: Chips,
    hand: u64,
    hand_running: bool,
    button: Option<u8>,
    small_blind: Option<u8>,
    big_blind: Option<u8>,
    street: Option<Street>,
    board: Vec<Card>,
    pots: Vec<Pot>,
    to_act: Option<u8>,
    you: Option<u8>,
    legal: Option<Legal>,
    name: String,
    home: Option<HomeView>,
    second_board: Vec<Card>,
    run_twice: bool,
    straddle: bool,
    straddling: bool,
    sit_out_at_big_blind: bool,
    show_losing: bool,
    auto_top_up: Option<Chips>,
    can_show: bool,
    waiting: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Deck;
    use crate::hand::Action;
    use crate::table::{PlayerId, Table, TableConfig};
    use crate::view::{Viewer, table_view};

    fn table(players: u8) -> Table {
        let mut t = Table::new(TableConfig::new(Stakes::no_limit(5, 10), 6)).expect("table");
        for seat in 0..players {
            let id = PlayerId(u128::from(seat) + 1);
            t.sit(seat, id, format!("p{seat}"), 1_000, true)
                .expect("sit");
        }
        t
    }

    /// Every view of every viewer along a played hand, in order.
    fn views_along_a_hand(seed: u64) -> Vec<Vec<TableView>> {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut t = table(4);
        let viewers = [
            Viewer::Spectator,
            Viewer::Seat(0),
            Viewer::Seat(1),
            Viewer::Seat(3),
        ];
        let snap = |t: &Table| viewers.map(|v| table_view(t, v, 1)).to_vec();
        let mut views = vec![snap(&t)];
        t.start_hand(Deck::shuffled(&mut rng)).expect("a hand");
        views.push(snap(&t));
        let mut n = 0;
        while let Some(seat) = t.hand().and_then(|h| h.to_act()) {
            // Call or check mostly, raise now and then, fold the odd time.
            let legal = t.hand().and_then(|h| h.legal()).expect("legal");
            let action = match (n % 7, legal.raise) {
                (3, Ok(r)) => Action::RaiseTo { to: r.min_to },
                (5, _) if !legal.can_check => Action::Fold,
                _ if legal.can_check => Action::Check,
                _ => Action::Call,
            };
            t.act(seat, action).expect("a legal action");
            views.push(snap(&t));
            n += 1;
        }
        t.leave(2).expect("a player leaves between hands");
        views.push(snap(&t));
        views
    }

    #[test]
    fn a_patch_turns_each_view_of_a_hand_into_the_next() {
        for seed in 0..20 {
            let views = views_along_a_hand(seed);
            for pair in views.windows(2) {
                for (old, new) in pair[0].iter().zip(&pair[1]) {
                    let patch = ViewPatch::between(old, new);
                    let mut view = old.clone();
                    patch.clone().apply(&mut view).expect("applies");
                    assert_eq!(&view, new, "{patch:?}");
                    // And it survives the wire.
                    let wire = serde_json::to_string(&patch).expect("json");
                    let read: ViewPatch = serde_json::from_str(&wire).expect("reads");
                    assert_eq!(read, patch, "{wire}");
                }
            }
        }
    }

    #[test]
    fn a_patch_after_an_action_is_a_fraction_of_the_view() {
        let views = views_along_a_hand(1);
        let (old, new) = (&views[2][0], &views[3][0]);
        let patch = serde_json::to_string(&ViewPatch::between(old, new)).expect("json");
        let whole = serde_json::to_string(new).expect("json");
        assert!(patch.len() * 3 < whole.len(), "{patch} vs {whole}");
    }

    #[test]
    fn a_field_changed_to_nothing_is_sent_as_null_and_read_back() {
        let views = views_along_a_hand(2);
        let (running, last) = (&views[views.len() - 3][1], &views[views.len() - 2][1]);
        let patch = ViewPatch::between(running, last);
        assert_eq!(patch.to_act, Some(None), "the turn passed to nobody");
        let wire = serde_json::to_string(&patch).expect("json");
        assert!(wire.contains("\"to_act\":null"), "{wire}");
        let read: ViewPatch = serde_json::from_str(&wire).expect("reads");
        assert_eq!(read.to_act, Some(None));
        assert!(ViewPatch::between(last, last).is_empty());
        assert_eq!(serde_json::to_string(&ViewPatch::default()).unwrap(), "{}");
    }

    #[test]
    fn a_patch_naming_a_seat_the_table_lacks_changes_nothing() {
        let views = views_along_a_hand(3);
        let mut view = views[0][0].clone();
        let before = view.clone();
        let patch: ViewPatch = serde_json::from_str(r#"{"hand":9,"emptied":[6]}"#).expect("reads");
        assert_eq!(patch.apply(&mut view), Err(PatchError::NoSuchSeat(6)));
        assert_eq!(view, before);
    }
}
