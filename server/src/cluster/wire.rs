//! What nodes say to each other about tables, and on which NATS subjects.
//!
//! - `scoop.table.<id>.cmd` (request/reply): a socket's command for a table, from the node
//!   holding the socket (its gateway) to the node dealing the table, which answers once the
//!   table has queued it.
//! - `scoop.table.<id>.view.spectators` and `scoop.table.<id>.view.seat<n>`: each change of
//!   the table, projected by the dealing node for one audience (`shared::view`), published
//!   once whatever the number of sockets in it, and only while another node's socket is in
//!   it. A gateway watching the table takes all of them (`view.*`, subscribed before its
//!   first command, so no change is missed) and passes each only to its sockets holding that
//!   view. Only a seat's own subject ever carries its hole cards.
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

/// Every audience's changes of `table`.
pub fn views_subject(table: &str) -> String {
    format!("scoop.table.{table}.view.*")
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

use crate::tables::actor::relay::Holds;

/// What a frame for one socket tells its gateway besides its text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mark {
    /// Nothing: the text is passed on.
    Plain,
    /// A snapshot: the audience the socket now follows, and the `seq` of the view it holds
    /// there (`None`: none a change will start from; the table sends a snapshot next time).
    Holds(Viewer, Option<u64>),
    /// The table let the socket go: nothing more of it is passed on.
    LetGo,
    /// The table forgot the socket, taking its node for gone: the gateway watches it again.
    WatchAgain,
}

impl From<Holds> for Mark {
    fn from(holds: Holds) -> Mark {
        match holds {
            Some((viewer, seq)) => Mark::Holds(viewer, seq),
            None => Mark::Plain,
        }
    }
}

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
/// table id, its mark (1 byte: 0 plain, 1 holds an audience with no `seq`, 2 holds an audience
/// and a `seq`, 3 let go, 4 watch again; after 1 and 2 the audience's byte, a seat or 255 for
/// the spectators, and after 2 the `seq`, 8 bytes), then the frame's text as the socket sends
/// it.
pub fn frame(conn: ConnId, table: &str, mark: Mark, text: &[u8]) -> Vec<u8> {
    let id = &table.as_bytes()[..table.len().min(255)];
    let mut out = Vec::with_capacity(19 + id.len() + text.len());
    out.extend_from_slice(&conn.to_be_bytes());
    out.push(id.len() as u8);
    out.extend_from_slice(id);
    match mark {
        Mark::Plain => out.push(0),
        Mark::Holds(viewer, None) => out.extend_from_slice(&[1, viewer_byte(viewer)]),
        Mark::Holds(viewer, Some(seq)) => {
            out.extend_from_slice(&[2, viewer_byte(viewer)]);
            out.extend_from_slice(&seq.to_be_bytes());
        }
        Mark::LetGo => out.push(3),
        Mark::WatchAgain => out.push(4),
    }
    out.extend_from_slice(text);
    out
}

/// One socket's frame, as [`frame`] lays it out.
#[derive(Debug, PartialEq)]
pub struct SocketFrame<'a> {
    pub conn: ConnId,
    pub table: &'a str,
    pub mark: Mark,
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
    let (mark, at) = match *payload.get(at)? {
        0 => (Mark::Plain, at + 1),
        1 => (
            Mark::Holds(byte_viewer(*payload.get(at + 1)?), None),
            at + 2,
        ),
        2 => (
            Mark::Holds(
                byte_viewer(*payload.get(at + 1)?),
                Some(u64_at(payload, at + 2)?),
            ),
            at + 10,
        ),
        3 => (Mark::LetGo, at + 1),
        4 => (Mark::WatchAgain, at + 1),
        _ => return None,
    };
    let text = std::str::from_utf8(payload.get(at..)?).ok()?;
    Some(SocketFrame {
        conn,
        table,
        mark,
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
        for mark in [
            Mark::Plain,
            Mark::Holds(Viewer::Spectator, None),
            Mark::Holds(Viewer::Seat(3), Some(77)),
            Mark::LetGo,
            Mark::WatchAgain,
        ] {
            let bytes = frame(42, "p-1", mark, br#"{"type":"pong"}"#);
            let read = read_frame(&bytes).expect("reads back");
            assert_eq!(
                read,
                SocketFrame {
                    conn: 42,
                    table: "p-1",
                    mark,
                    text: r#"{"type":"pong"}"#,
                }
            );
        }
        let bytes = frame(42, "p-1", Mark::Holds(Viewer::Seat(0), Some(1)), b"x");
        assert_eq!(read_frame(&bytes[..5]), None);
        assert_eq!(read_frame(&bytes[..14]), None, "a cut seq");
        assert_eq!(read_frame(&[0, 0, 0, 0, 0, 0, 0, 1, 200, b'x']), None);
        assert_eq!(read_frame(&[0, 0, 0, 0, 0, 0, 0, 1, 1, b'x', 9]), None);
        assert_eq!(read_frame(&[0, 0, 0, 0, 0, 0, 0, 1, 1, b'x', 5]), None);
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
