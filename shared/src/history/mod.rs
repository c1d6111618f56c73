//! A finished hand as stored in the hand history, and what one viewer may see of it.
//!
//! A [`HandView`] can be written out for other tools: [`to_phh`] (the Poker Hand History
//! format, which `scoop replay` and pokerkit read back) and [`to_pokerstars`] (PokerStars'
//! text layout, which hand trackers import). Both write only what is in the view, so a view
//! taken for a spectator exports no hidden hole card.

pub mod phh;
mod pokerstars;

pub use phh::{ExportError, Unsupported, to_phh};
pub use pokerstars::to_pokerstars;

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::format::Event;
use crate::protocol::{Dealt, ViewEvent};
use crate::rules::{Chips, Stakes};
use crate::view::{Viewer, project};

/// A player dealt into the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistorySeat {
    pub seat: u8,
    pub name: String,
    pub starting_stack: Chips,
}

/// The operator's complete record of one hand: every event, all hole cards included, and the
/// deck. Never sent to a client as is: [`HandRecord::for_viewer`] is what leaves the server.
///
/// Stored hand histories outlive releases: `format` says which layout a record has (records
/// written before it existed are format 1), and `shared/tests/fixtures/hand_record_v1.json`
/// pins format 1 byte for byte. A change to the layout is a new format, and the old one must
/// still be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    #[serde(default = "HandRecord::first_format")]
    pub format: u32,
    pub id: String,
    pub table_id: String,
    pub table_name: String,
    /// Hand number at this table.
    pub number: u64,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub stakes: Stakes,
    pub seat_count: u8,
    pub button: u8,
    pub seats: Vec<HistorySeat>,
    pub events: Vec<Event>,
    /// The deck in dealing order (burns included), for audits.
    pub deck: Vec<Card>,
}

/// A hand as one viewer may see it: their own hole cards and the cards shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandView {
    pub id: String,
    pub table_id: String,
    pub table_name: String,
    pub number: u64,
    pub started_at: String,
    pub stakes: Stakes,
    pub seat_count: u8,
    pub button: u8,
    pub seats: Vec<HistorySeat>,
    pub events: Vec<ViewEvent>,
}

impl HandRecord {
    /// The format this code writes: 3 since the straddle and run it twice (the events of
    /// `format` version 3); `shared/tests/fixtures/hand_record_v3.json` pins it.
    pub const FORMAT: u32 = 3;

    fn first_format() -> u32 {
        1
    }

    /// What `viewer` may see: events through the one projection, no deck.
    pub fn for_viewer(&self, viewer: Viewer) -> HandView {
        self.view_with(|e| project(e, viewer))
    }

    /// The whole hand with every hole card face up, mucked hands included.
    ///
    /// Operator only (audits, disputes, replaying a hand through `scoop replay`): it bypasses
    /// the per-viewer projection, so it must never be sent to, or exported for, a player or a
    /// spectator (docs/rules.md §10).
    pub fn complete(&self) -> HandView {
        self.view_with(|e| match e {
            Event::HoleCards { seat, cards } => ViewEvent::Dealt(Dealt {
                seat: *seat,
                cards: Some(*cards),
            }),
            _ => ViewEvent::Public(e.clone()),
        })
    }

    fn view_with(&self, show: impl Fn(&Event) -> ViewEvent) -> HandView {
        HandView {
            id: self.id.clone(),
            table_id: self.table_id.clone(),
            table_name: self.table_name.clone(),
            number: self.number,
            started_at: self.started_at.clone(),
            stakes: self.stakes,
            seat_count: self.seat_count,
            button: self.button,
            seats: self.seats.clone(),
            events: self.events.iter().map(show).collect(),
        }
    }
}

impl HandView {
    /// The events with nothing hidden in them.
    fn public_events(&self) -> impl Iterator<Item = &Event> {
        self.events.iter().filter_map(|e| match e {
            ViewEvent::Public(event) => Some(event),
            ViewEvent::Dealt(_) => None,
        })
    }

    fn seat(&self, seat: u8) -> Option<&HistorySeat> {
        self.seats.iter().find(|s| s.seat == seat)
    }
}
