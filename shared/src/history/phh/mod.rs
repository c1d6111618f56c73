//! PHH, the Poker Hand History format, in both directions: [`to_phh`] writes a hand as one
//! viewer may see it, [`parse_file`] reads the Omaha Hi/Lo subset back, and [`replay`] plays a
//! read hand through the engine to its final stacks (`scoop replay`, the pokerkit differential
//! test and the house-rule fixtures).

mod read;
mod replay;
mod write;

pub use read::{Move, NamedHand, PhhError, PhhHand, PlayerAction, parse_file};
pub use replay::{ReplayError, replay};
pub use write::{ExportError, Unsupported, to_phh};
