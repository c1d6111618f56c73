//! The hand's events as they leave the engine: in every message to a browser (protocol
//! version [`crate::protocol::PROTOCOL_VERSION`]) and in every stored hand record
//! ([`crate::history::HandRecord::FORMAT`]). These are formats that outlive one release, so
//! they are their own types, not the engine's: the engine may rename or reshape its
//! `hand::Event` freely, and only the conversions below must follow. The layout of version 1
//! is pinned byte for byte by `shared/tests/fixtures/` (server messages and a hand record).
//! Changing it means a new version, and the old one must still be read.
//!
//! Version 2 added [`Event::Equity`], which the server writes and the engine never does; a
//! version 1 reader drops a message it cannot read, and browsers then resync on the gap in
//! sequence numbers. Everything version 1 wrote reads unchanged.
//!
//! Version 3 added run it twice and the straddle: [`BlindKind::Straddle`],
//! [`Event::SecondRunDealt`], the `second` values of [`Event::Shown`] and the `second_run` mark
//! of [`Event::PotAwarded`]. The new fields are left out when empty, so a hand without either
//! option is written exactly as version 2 wrote it.
//!
//! The values inside (cards, chips, streets, pots, hand values) are plain data whose own
//! serialised forms are pinned by the same fixtures.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::eval::{HighValue, LowValue, Showdown};
use crate::hand::{self, Street};
use crate::pot::{self, Pot};
use crate::rules::Chips;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlindKind {
    Small,
    Big,
    DeadSmall,
    Straddle,
}

/// What a player did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Acted {
    Fold,
    Check,
    /// `amount` is what the call added.
    Call {
        amount: Chips,
    },
    Bet {
        to: Chips,
    },
    Raise {
        to: Chips,
    },
}

/// Which half of a pot an award comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Share {
    Whole,
    High,
    Low,
}

/// One thing that happened in a hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    HandStarted {
        button: u8,
        stacks: Vec<(u8, Chips)>,
    },
    BlindPosted {
        seat: u8,
        blind: BlindKind,
        amount: Chips,
        all_in: bool,
    },
    /// Hole cards: in stored records always; on the wire never (see `protocol::Dealt`).
    HoleCards {
        seat: u8,
        cards: [Card; 4],
    },
    Acted {
        seat: u8,
        action: Acted,
        stack: Chips,
        all_in: bool,
    },
    UncalledBetReturned {
        seat: u8,
        amount: Chips,
    },
    PotsGathered {
        pots: Vec<Pot>,
    },
    BoardDealt {
        street: Street,
        cards: Vec<Card>,
    },
    /// Run it twice: the second run's cards for `street` (version 3).
    SecondRunDealt {
        street: Street,
        cards: Vec<Card>,
    },
    HandsFaceUp {
        hands: Vec<(u8, [Card; 4])>,
    },
    Shown {
        seat: u8,
        cards: [Card; 4],
        high: HighValue,
        low: Option<LowValue>,
        /// The values on the second board of a hand run twice (version 3).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        second: Option<BoardValues>,
    },
    Mucked {
        seat: u8,
    },
    RakeTaken {
        pot: usize,
        amount: Chips,
    },
    PotAwarded {
        pot: usize,
        seat: u8,
        amount: Chips,
        share: Share,
        /// Paid from the half of the pot for the second board (version 3).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        second_run: bool,
    },
    HandEnded {
        stacks: Vec<(u8, Chips)>,
    },
    /// Each face-up hand's equity with the board so far (`street`: the last street dealt),
    /// when every live hand is turned up and the rest of the board runs out. Written by the
    /// server from cards everyone sees (version 2).
    Equity {
        street: Street,
        hands: Vec<HandEquity>,
    },
}

/// A hand's values on one board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardValues {
    pub high: HighValue,
    pub low: Option<LowValue>,
}

impl From<Showdown> for BoardValues {
    fn from(s: Showdown) -> Self {
        BoardValues {
            high: s.high,
            low: s.low,
        }
    }
}

impl From<BoardValues> for Showdown {
    fn from(v: BoardValues) -> Self {
        Showdown {
            high: v.high,
            low: v.low,
        }
    }
}

/// One hand's share of the pot on average over the boards still to come, and its chance to
/// scoop, in millionths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandEquity {
    pub seat: u8,
    pub pot: u32,
    pub scoop: u32,
}

impl HandEquity {
    /// Millionths as a percentage with one decimal, "55.7".
    pub fn percent(millionths: u32) -> String {
        let tenths = (u64::from(millionths) + 500) / 1_000;
        format!("{}.{}", tenths / 10, tenths % 10)
    }
}

/// An event the engine has no counterpart for (the server adds it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("this event is written by the server, not the engine")]
pub struct NotAnEngineEvent;

impl From<hand::BlindKind> for BlindKind {
    fn from(b: hand::BlindKind) -> Self {
        match b {
            hand::BlindKind::Small => BlindKind::Small,
            hand::BlindKind::Big => BlindKind::Big,
            hand::BlindKind::DeadSmall => BlindKind::DeadSmall,
            hand::BlindKind::Straddle => BlindKind::Straddle,
        }
    }
}

impl From<BlindKind> for hand::BlindKind {
    fn from(b: BlindKind) -> Self {
        match b {
            BlindKind::Small => hand::BlindKind::Small,
            BlindKind::Big => hand::BlindKind::Big,
            BlindKind::DeadSmall => hand::BlindKind::DeadSmall,
            BlindKind::Straddle => hand::BlindKind::Straddle,
        }
    }
}

impl From<hand::Acted> for Acted {
    fn from(a: hand::Acted) -> Self {
        match a {
            hand::Acted::Fold => Acted::Fold,
            hand::Acted::Check => Acted::Check,
            hand::Acted::Call { amount } => Acted::Call { amount },
            hand::Acted::Bet { to } => Acted::Bet { to },
            hand::Acted::Raise { to } => Acted::Raise { to },
        }
    }
}

impl From<Acted> for hand::Acted {
    fn from(a: Acted) -> Self {
        match a {
            Acted::Fold => hand::Acted::Fold,
            Acted::Check => hand::Acted::Check,
            Acted::Call { amount } => hand::Acted::Call { amount },
            Acted::Bet { to } => hand::Acted::Bet { to },
            Acted::Raise { to } => hand::Acted::Raise { to },
        }
    }
}

impl From<pot::Share> for Share {
    fn from(s: pot::Share) -> Self {
        match s {
            pot::Share::Whole => Share::Whole,
            pot::Share::High => Share::High,
            pot::Share::Low => Share::Low,
        }
    }
}

impl From<Share> for pot::Share {
    fn from(s: Share) -> Self {
        match s {
            Share::Whole => pot::Share::Whole,
            Share::High => pot::Share::High,
            Share::Low => pot::Share::Low,
        }
    }
}

impl From<&hand::Event> for Event {
    fn from(e: &hand::Event) -> Self {
        use hand::Event as E;
        match e.clone() {
            E::HandStarted { button, stacks } => Event::HandStarted { button, stacks },
            E::BlindPosted {
                seat,
                blind,
                amount,
                all_in,
            } => Event::BlindPosted {
                seat,
                blind: blind.into(),
                amount,
                all_in,
            },
            E::HoleCards { seat, cards } => Event::HoleCards { seat, cards },
            E::Acted {
                seat,
                action,
                stack,
                all_in,
            } => Event::Acted {
                seat,
                action: action.into(),
                stack,
                all_in,
            },
            E::UncalledBetReturned { seat, amount } => Event::UncalledBetReturned { seat, amount },
            E::PotsGathered { pots } => Event::PotsGathered { pots },
            E::BoardDealt { street, cards } => Event::BoardDealt { street, cards },
            E::SecondRunDealt { street, cards } => Event::SecondRunDealt { street, cards },
            E::HandsFaceUp { hands } => Event::HandsFaceUp { hands },
            E::Shown {
                seat,
                cards,
                high,
                low,
                second,
            } => Event::Shown {
                seat,
                cards,
                high,
                low,
                second: second.map(BoardValues::from),
            },
            E::Mucked { seat } => Event::Mucked { seat },
            E::RakeTaken { pot, amount } => Event::RakeTaken { pot, amount },
            E::PotAwarded {
                pot,
                seat,
                amount,
                share,
                second_run,
            } => Event::PotAwarded {
                pot,
                seat,
                amount,
                share: share.into(),
                second_run,
            },
            E::HandEnded { stacks } => Event::HandEnded { stacks },
        }
    }
}

impl From<hand::Event> for Event {
    fn from(e: hand::Event) -> Self {
        Event::from(&e)
    }
}

impl TryFrom<Event> for hand::Event {
    type Error = NotAnEngineEvent;

    fn try_from(e: Event) -> Result<Self, NotAnEngineEvent> {
        use hand::Event as E;
        Ok(match e {
            Event::HandStarted { button, stacks } => E::HandStarted { button, stacks },
            Event::BlindPosted {
                seat,
                blind,
                amount,
                all_in,
            } => E::BlindPosted {
                seat,
                blind: blind.into(),
                amount,
                all_in,
            },
            Event::HoleCards { seat, cards } => E::HoleCards { seat, cards },
            Event::Acted {
                seat,
                action,
                stack,
                all_in,
            } => E::Acted {
                seat,
                action: action.into(),
                stack,
                all_in,
            },
            Event::UncalledBetReturned { seat, amount } => E::UncalledBetReturned { seat, amount },
            Event::PotsGathered { pots } => E::PotsGathered { pots },
            Event::BoardDealt { street, cards } => E::BoardDealt { street, cards },
            Event::SecondRunDealt { street, cards } => E::SecondRunDealt { street, cards },
            Event::HandsFaceUp { hands } => E::HandsFaceUp { hands },
            Event::Shown {
                seat,
                cards,
                high,
                low,
                second,
            } => E::Shown {
                seat,
                cards,
                high,
                low,
                second: second.map(Showdown::from),
            },
            Event::Mucked { seat } => E::Mucked { seat },
            Event::RakeTaken { pot, amount } => E::RakeTaken { pot, amount },
            Event::PotAwarded {
                pot,
                seat,
                amount,
                share,
                second_run,
            } => E::PotAwarded {
                pot,
                seat,
                amount,
                share: share.into(),
                second_run,
            },
            Event::HandEnded { stacks } => E::HandEnded { stacks },
            Event::Equity { .. } => return Err(NotAnEngineEvent),
        })
    }
}
