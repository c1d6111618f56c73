//! What reaches a table task, and what it sends back to one connection.

use axum::extract::ws::Utf8Bytes;

use shared::hand::Action;
use shared::protocol::{HostAction, PreAction, RequestId};
use shared::rules::Chips;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::error::RequestError;

pub type ConnId = u64;

static NEXT_CONN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A new connection's id, unique in this process (sockets, and in cluster mode the other
/// nodes' sockets watching a table here).
pub fn new_conn_id() -> ConnId {
    NEXT_CONN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// One message for one connection. Table frames come serialised (a spectator frame is built
/// once and shared); a refused request comes as its typed error, which the socket serialises.
#[derive(Debug)]
pub enum Outgoing {
    Frame(Utf8Bytes),
    /// Boxed: a refusal is rare, and every slot of every socket's queue is as large as the
    /// largest variant (64 bytes with it inline, a frame and its tag without).
    Refused(Box<Refusal>),
    /// A WebSocket ping (the socket checks its peer is alive).
    Ping,
    /// Close the socket with this close code and reason.
    Close {
        code: u16,
        reason: &'static str,
    },
}

#[derive(Debug)]
pub struct Refusal {
    pub table: String,
    pub error: RequestError,
}

impl Outgoing {
    pub fn refused(table: String, error: RequestError) -> Outgoing {
        Outgoing::Refused(Box::new(Refusal { table, error }))
    }
}

pub type Outbound = mpsc::Sender<Outgoing>;

/// A logged-in account behind a connection.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Account {
    pub id: Uuid,
    pub name: String,
}

pub enum Command {
    Watch {
        conn: ConnId,
        account: Option<Account>,
        /// The invite the watcher came with (a private table checks it again).
        invite: Option<String>,
        out: Outbound,
        /// Cluster mode: a socket on another node, whose table frames go through the
        /// table's relay (`out` takes the answers to its requests).
        remote: Option<super::relay::RemoteSocket>,
    },
    Unwatch {
        conn: ConnId,
    },
    Resync {
        conn: ConnId,
    },
    Player {
        account: Account,
        invite: Option<String>,
        out: Outbound,
        request: Request,
    },
    /// The host's controls at a player's table.
    Host {
        account: Account,
        out: Outbound,
        action: HostAction,
    },
    /// Stop dealing; answer once no hand is running.
    Drain {
        done: oneshot::Sender<()>,
    },
    /// The operator closed the table: finish the hand, cash everyone out, stop.
    Close,
    /// Panic, to test that the table survives it (`Tables::inject_panic`).
    InjectPanic,
    /// The table's lease is gone (another process took it): stop at once, writing nothing.
    Lost,
    /// Cluster mode: another node is to deal here (it joined, or this one is stopping).
    /// Deal no more, and once no hand is running, give the lease back and stop; the players
    /// keep their seats and chips for the next owner.
    HandOver,
}

/// What a seated (or sitting-down) player asks for. Serde: in cluster mode it travels from
/// the node holding the socket to the node dealing the table.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Request {
    Sit {
        seat: u8,
        buy_in: Chips,
        post_now: bool,
        request_id: Option<RequestId>,
    },
    Act {
        hand: u64,
        action: Action,
    },
    PreSelect(Option<PreAction>),
    SitOut,
    /// Straddle whenever first left of the big blind, or stop (docs/rules.md §4.8).
    Straddle {
        on: bool,
    },
    SitIn {
        post_now: bool,
    },
    TopUp {
        amount: Chips,
        request_id: Option<RequestId>,
    },
    Leave {
        request_id: Option<RequestId>,
    },
    Chat {
        text: String,
    },
    /// docs/rules.md §7.13.
    SitOutAtBigBlind {
        on: bool,
    },
    /// Auto-muck off (`on`) or back on (docs/rules.md §6.5).
    ShowLosing {
        on: bool,
    },
    /// The uncalled winner turns their cards up (docs/rules.md §6.4).
    ShowCards,
    /// docs/rules.md §7.15.
    AutoTopUp {
        to: Option<Chips>,
    },
    /// docs/rules.md §7.14.
    JoinWaitlist,
    LeaveWaitlist,
}

/// The engine knows players by number; an account's is its id.
pub fn player_id(account: Uuid) -> shared::table::PlayerId {
    shared::table::PlayerId(account.as_u128())
}

pub fn account_of(player: shared::table::PlayerId) -> Uuid {
    Uuid::from_u128(player.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_queued_message_takes_no_more_than_a_frame_and_its_tag() {
        // Each socket's queue holds blocks of these: keep the rare variants out of line.
        let frame = std::mem::size_of::<axum::extract::ws::Utf8Bytes>();
        assert!(std::mem::size_of::<super::Outgoing>() <= frame + 8);
    }
}
