//! Scoop's game: everything about Omaha Hi/Lo 8-or-better that does not touch a socket,
//! a database or a clock. The server and the browser both build on it, so they cannot
//! disagree about a rule or a message.
//!
//! Architecture invariant: no I/O, no clock, no global RNG. Randomness comes in as a
//! `CryptoRng` argument, so every hand is replayable from its inputs.

pub mod api;
pub mod card;
pub mod equity;
pub mod eval;
pub mod format;
pub mod hand;
pub mod history;
pub mod patch;
pub mod pot;
pub mod protocol;
pub mod rules;
pub mod table;
pub mod view;

pub use card::{Card, CardError, Deck, Rank, Suit};
pub use hand::{Action, ActionError, Event, Hand, HandSetup, Legal};
pub use rules::{Chips, Stakes, Structure};
