//! A finished hand as stored in the hand history, and what one viewer may see of it.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::hand::Event;
use crate::protocol::ViewEvent;
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
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
    /// What `viewer` may see: events through the one projection, no deck.
    pub fn for_viewer(&self, viewer: Viewer) -> HandView {
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
            events: self.events.iter().map(|e| project(e, viewer)).collect(),
        }
    }
}
