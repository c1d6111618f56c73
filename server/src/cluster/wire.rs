//! What nodes say to each other about tables, and on which NATS subjects.
//!
//! - `scoop.table.<id>.cmd` (request/reply): a socket's command for a table, from the node
//!   holding the socket (its gateway) to the node dealing the table, which answers once the
//!   table has queued it.
//! - `scoop.node.<node>.out`: what a table sends one of that node's sockets, already projected
//!   for that socket's viewer by the dealing node (`shared::view`), so only the gateway that
//!   holds the socket receives it.
//! - `scoop.table.<id>.owner`: a node just started dealing the table; gateways watching it
//!   there watch it again, and their sockets get a fresh snapshot.

use serde::{Deserialize, Serialize};
use shared::protocol::HostAction;
use uuid::Uuid;

use crate::tables::actor::{Account, ConnId, Request};

pub fn command_subject(table: &str) -> String {
    format!("scoop.table.{table}.cmd")
}

pub fn owner_subject(table: &str) -> String {
    format!("scoop.table.{table}.owner")
}

pub fn out_subject(node: Uuid) -> String {
    format!("scoop.node.{node}.out")
}

/// A socket's command for a table dealt on another node.
#[derive(Debug, Serialize, Deserialize)]
pub struct RemoteCommand {
    /// The gateway node and its socket.
    pub node: Uuid,
    pub conn: ConnId,
    pub command: Remote,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum Remote {
    Watch {
        account: Option<Account>,
        invite: Option<String>,
    },
    Unwatch,
    Resync,
    Player {
        account: Account,
        invite: Option<String>,
        request: Request,
    },
    Host {
        account: Account,
        action: HostAction,
    },
}

/// The owner's answer to a command: queued, or the table is not dealt here (any more).
pub const QUEUED: &[u8] = b"queued";
pub const NOT_HERE: &[u8] = b"not_here";

/// A frame for one socket: `conn` (8 bytes, big-endian), the table id's length (1 byte), the
/// table id, then the frame's text as the socket sends it.
pub fn frame(conn: ConnId, table: &str, text: &[u8]) -> Vec<u8> {
    let id = &table.as_bytes()[..table.len().min(255)];
    let mut out = Vec::with_capacity(9 + id.len() + text.len());
    out.extend_from_slice(&conn.to_be_bytes());
    out.push(id.len() as u8);
    out.extend_from_slice(id);
    out.extend_from_slice(text);
    out
}

/// Reads [`frame`]'s layout back: `(conn, table, text)`.
pub fn read_frame(payload: &[u8]) -> Option<(ConnId, &str, &str)> {
    let conn = ConnId::from_be_bytes(payload.get(..8)?.try_into().ok()?);
    let len = usize::from(*payload.get(8)?);
    let table = std::str::from_utf8(payload.get(9..9 + len)?).ok()?;
    let text = std::str::from_utf8(payload.get(9 + len..)?).ok()?;
    Some((conn, table, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_and_garbage_is_refused() {
        let bytes = frame(42, "p-1", br#"{"type":"pong"}"#);
        assert_eq!(read_frame(&bytes), Some((42, "p-1", r#"{"type":"pong"}"#)));
        assert_eq!(read_frame(&bytes[..5]), None);
        assert_eq!(read_frame(&[0, 0, 0, 0, 0, 0, 0, 1, 200, b'x']), None);
    }
}
