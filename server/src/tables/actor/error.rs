//! Why a table refused a player's request. Typed inside the server; the socket turns it into
//! a protocol `Error` message (`ErrorCode` plus this text).

use shared::hand::ActionError;
use shared::protocol::{ErrorCode, MAX_CHAT_CHARS};
use shared::table::TableError;
use thiserror::Error;

use crate::chips::ChipsError;

#[derive(Debug, Error)]
pub enum RequestError {
    #[error("you are not seated at this table")]
    NotSeated,
    #[error("this table is closing")]
    Closing,
    #[error("{0}")]
    Seat(#[from] TableError),
    #[error("hand {0} is not the hand in play")]
    StaleHand(u64),
    #[error("{0}")]
    Illegal(#[from] ActionError),
    #[error("only players can chat")]
    ChatNotSeated,
    #[error("a chat line has 1 to {MAX_CHAT_CHARS} characters")]
    ChatLength,
    #[error("you are chatting too fast")]
    ChatTooFast,
    /// The same request id again: the first one was carried out.
    #[error("that request was already carried out")]
    AlreadyDone,
    #[error("{0}")]
    InvalidAmount(String),
    #[error("not enough chips: balance is {balance}")]
    InsufficientBalance { balance: i64 },
    /// Refused by the money layer for a reason the player can act on.
    #[error("{0}")]
    Money(String),
    #[error("the database did not answer; try again in a moment")]
    DatabaseUnavailable,
    #[error(
        "the host has been asked to seat you; nothing is taken from your balance until they do"
    )]
    AwaitingApproval,
    #[error("someone else has asked the host for that seat")]
    SeatAsked,
    #[error("the host did not seat you")]
    SeatRefused,
    #[error("the host removed you from this table")]
    Removed,
    #[error("only the table's host can do that")]
    NotHost,
    #[error("this table has no host")]
    NoHost,
    #[error("a public table has no invite link")]
    NoInvite,
    #[error("seat {0} has no other player")]
    NoPlayer(u8),
    #[error("nobody is asking for seat {0}")]
    NoRequest(u8),
    /// A private table to someone it does not let in: the words of a table that does not exist.
    #[error("no table `{0}`")]
    NoTable(String),
    #[error("seat {0} is held for the next player on the waiting list")]
    SeatHeld(u8),
    #[error("a seat is free at this table: take it rather than wait")]
    SeatFree,
    #[error("you are seated at this table")]
    SeatedHere,
    #[error("you are not on this table's waiting list")]
    NotWaiting,
    #[error("this table moved to another server; reconnect to go on")]
    TableMoved,
    #[error("internal error; nothing was changed")]
    Internal,
}

impl RequestError {
    pub fn code(&self) -> ErrorCode {
        match self {
            RequestError::NotSeated | RequestError::Closing | RequestError::Seat(_) => {
                ErrorCode::Seat
            }
            RequestError::StaleHand(_) => ErrorCode::StaleHand,
            RequestError::Illegal(_) => ErrorCode::IllegalAction,
            RequestError::ChatNotSeated | RequestError::ChatLength => ErrorCode::ChatRejected,
            RequestError::ChatTooFast => ErrorCode::RateLimited,
            RequestError::AlreadyDone => ErrorCode::AlreadyDone,
            RequestError::InvalidAmount(_) => ErrorCode::BadMessage,
            RequestError::InsufficientBalance { .. } => ErrorCode::InsufficientBalance,
            RequestError::Money(_) => ErrorCode::Seat,
            RequestError::DatabaseUnavailable => ErrorCode::DatabaseUnavailable,
            RequestError::AwaitingApproval => ErrorCode::AwaitingApproval,
            RequestError::SeatRefused | RequestError::Removed => ErrorCode::SeatRefused,
            RequestError::NotHost | RequestError::NoHost => ErrorCode::NotHost,
            RequestError::NoTable(_) => ErrorCode::NoSuchTable,
            RequestError::SeatAsked
            | RequestError::NoInvite
            | RequestError::NoPlayer(_)
            | RequestError::NoRequest(_) => ErrorCode::Seat,
            RequestError::SeatHeld(_) => ErrorCode::SeatHeld,
            RequestError::SeatFree | RequestError::SeatedHere | RequestError::NotWaiting => {
                ErrorCode::Seat
            }
            RequestError::TableMoved => ErrorCode::DatabaseUnavailable,
            RequestError::Internal => ErrorCode::Internal,
        }
    }

    /// The player's view of a failed chip movement: what they can act on, or "try again" when
    /// the database did not answer. Other failures are logged by the caller, not shown.
    pub fn from_chips(e: &ChipsError) -> RequestError {
        match e {
            ChipsError::InsufficientBalance { balance } => {
                RequestError::InsufficientBalance { balance: *balance }
            }
            ChipsError::InvalidAmount => RequestError::InvalidAmount(e.to_string()),
            ChipsError::SeatTaken | ChipsError::AlreadySeated | ChipsError::NotSeated => {
                RequestError::Money(e.to_string())
            }
            ChipsError::Fenced { .. } => RequestError::TableMoved,
            other if other.is_transient() => RequestError::DatabaseUnavailable,
            _ => RequestError::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_database_is_retryable_and_says_so() {
        let e = RequestError::from_chips(&ChipsError::Database(sqlx::Error::PoolTimedOut));
        assert_eq!(e.code(), ErrorCode::DatabaseUnavailable);
        assert!(e.to_string().contains("try again"), "{e}");
    }

    #[test]
    fn internal_failures_do_not_leak_their_details() {
        let e = RequestError::from_chips(&ChipsError::Unbalanced(uuid::Uuid::nil()));
        assert_eq!(e.code(), ErrorCode::Internal);
        assert!(!e.to_string().contains("balance"), "{e}");
    }

    #[test]
    fn a_refused_buy_in_keeps_its_reason() {
        let e = RequestError::from_chips(&ChipsError::InsufficientBalance { balance: 40 });
        assert_eq!(e.code(), ErrorCode::InsufficientBalance);
        assert_eq!(e.to_string(), "not enough chips: balance is 40");
        let e = RequestError::from_chips(&ChipsError::SeatTaken);
        assert_eq!(e.code(), ErrorCode::Seat);
    }
}
