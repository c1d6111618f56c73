//! What nodes say to each other about tables, and on which NATS subjects.
//!
//! - `scoop.table.<id>.cmd` (request/reply): a socket's command for a table, from the node
//!   holding the socket (its gateway) to the node dealing the table, which answers once the
//!   table has queued it.
//! - `scoop.table.<id>.view.spectators` and `scoop.table.<id>.view.seat<n>`: each change of
//!   the table, projected by the dealing node for one audience (`shared::view`), published
//!   once whatever the number of sockets in it; a gateway subscribes to the audiences its
//!   sockets are in. Only a seat's own subject ever carries its hole cards.
//! - `scoop.node.<node>.out`: what a table sends one of that node's sockets alone (a
//!   snapshot, a chat line, an answer), already projected for that socket's viewer, so only
//!   the gateway that holds the socket receives it.
//! - `scoop.table.<id>.owner`: a node just started dealing the table; gateways watching it
//!   there watch it again, and their sockets get a fresh snapshot.

use serde::{Deserialize, Serialize};
use shared::protocol::HostAction;
use shared::view::Viewer;
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

pub fn view_subject(table: &str, viewer: Viewer) -> String {
    match viewer {
        Viewer::Spectator => format!("scoop.table.{table}.view.spectators"),
        Viewer::Seat(n) => format!("scoop.table.{table}.view.seat{n}"),
    }
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

pub use crate::tables::actor::relay::Holds;

const SPECTATORS: u8 = u8::MAX;

fn viewer_byte(viewer: Viewer) -> u8 {
    match viewer {
        Viewer::Seat(n) => n,
        Viewer::Spectator => SPECTATORS,
    }
}

fn byte_viewer(b: u8) -> Viewer {
    match b {
        SPECTATORS => Viewer::Spectator,
        n => Viewer::Seat(n),
    }
}

/// A frame for one socket: `conn` (8 bytes, big-endian), the table id's length (1 byte), the
/// table id, what it holds after it (1 byte: 0 nothing said, 1 an audience with no `seq`, 2
/// an audience and its `seq`; then the audience's byte, seat or 255 for the spectators, and
/// the `seq`, 8 bytes), then the frame's text as the socket sends it.
pub fn frame(conn: ConnId, table: &str, holds: Holds, text: &[u8]) -> Vec<u8> {
    let id = &table.as_bytes()[..table.len().min(255)];
    let mut out = Vec::with_capacity(19 + id.len() + text.len());
    out.extend_from_slice(&conn.to_be_bytes());
    out.push(id.len() as u8);
    out.extend_from_slice(id);
    match holds {
        None => out.push(0),
        Some((viewer, None)) => out.extend_from_slice(&[1, viewer_byte(viewer)]),
        Some((viewer, Some(seq))) => {
            out.extend_from_slice(&[2, viewer_byte(viewer)]);
            out.extend_from_slice(&seq.to_be_bytes());
        }
    }
    out.extend_from_slice(text);
    out
}

/// One socket's frame, as [`frame`] lays it out.
#[derive(Debug, PartialEq)]
pub struct SocketFrame<'a> {
    pub conn: ConnId,
    pub table: &'a str,
    pub holds: Holds,
    pub text: &'a str,
}

fn u64_at(payload: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(
        payload.get(at..at + 8)?.try_into().ok()?,
    ))
}

pub fn read_frame(payload: &[u8]) -> Option<SocketFrame<'_>> {
    let conn = u64_at(payload, 0)?;
    let len = usize::from(*payload.get(8)?);
    let table = std::str::from_utf8(payload.get(9..9 + len)?).ok()?;
    let at = 9 + len;
    let (holds, at) = match *payload.get(at)? {
        0 => (None, at + 1),
        1 => (Some((byte_viewer(*payload.get(at + 1)?), None)), at + 2),
        2 => (
            Some((
                byte_viewer(*payload.get(at + 1)?),
                Some(u64_at(payload, at + 2)?),
            )),
            at + 10,
        ),
        _ => return None,
    };
    let text = std::str::from_utf8(payload.get(at..)?).ok()?;
    Some(SocketFrame {
        conn,
        table,
        holds,
        text,
    })
}

/// A change for one audience: the `seq` of the view it starts from (8 bytes), its own `seq`
/// (8 bytes), then the text every socket in the audience is sent.
pub fn change(since: u64, seq: u64, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + text.len());
    out.extend_from_slice(&since.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(text);
    out
}

/// [`change`]'s layout back: `(since, seq, text)`.
pub fn read_change(payload: &[u8]) -> Option<(u64, u64, &str)> {
    let text = std::str::from_utf8(payload.get(16..)?).ok()?;
    Some((u64_at(payload, 0)?, u64_at(payload, 8)?, text))
}

/// The audience a view subject names (the subject's last token).
pub fn subject_viewer(subject: &str) -> Option<Viewer> {
    match subject.rsplit('.').next()? {
        "spectators" => Some(Viewer::Spectator),
        seat => seat.strip_prefix("seat")?.parse().ok().map(Viewer::Seat),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_and_garbage_is_refused() {
        for holds in [
            None,
            Some((Viewer::Spectator, None)),
            Some((Viewer::Seat(3), Some(77))),
        ] {
            let bytes = frame(42, "p-1", holds, br#"{"type":"pong"}"#);
            let read = read_frame(&bytes).expect("reads back");
            assert_eq!(
                read,
                SocketFrame {
                    conn: 42,
                    table: "p-1",
                    holds,
                    text: r#"{"type":"pong"}"#,
                }
            );
        }
        let bytes = frame(42, "p-1", Some((Viewer::Seat(0), Some(1))), b"x");
        assert_eq!(read_frame(&bytes[..5]), None);
        assert_eq!(read_frame(&bytes[..14]), None, "a cut seq");
        assert_eq!(read_frame(&[0, 0, 0, 0, 0, 0, 0, 1, 200, b'x']), None);
        assert_eq!(read_frame(&[0, 0, 0, 0, 0, 0, 0, 1, 1, b'x', 9]), None);
    }

    #[test]
    fn a_change_and_its_audience_read_back() {
        let bytes = change(5, 7, b"{}");
        assert_eq!(read_change(&bytes), Some((5, 7, "{}")));
        assert_eq!(read_change(&bytes[..10]), None);
        for viewer in [Viewer::Spectator, Viewer::Seat(0), Viewer::Seat(9)] {
            assert_eq!(subject_viewer(&view_subject("p-1", viewer)), Some(viewer));
        }
        assert_eq!(subject_viewer("scoop.table.t.view.seatx"), None);
    }
}
