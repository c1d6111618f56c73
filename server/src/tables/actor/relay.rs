//! Cluster mode: what a table sends the sockets that watch it from other nodes, on its way to
//! NATS (`cluster::owner` publishes it). A change is relayed once per audience, whatever the
//! number of remote sockets in it; what is for one socket only (a snapshot, a chat line, a
//! notice) is relayed to that socket.

use axum::extract::ws::Utf8Bytes;
use shared::view::Viewer;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::command::ConnId;

pub type Relay = mpsc::Sender<Relayed>;

/// What a snapshot gives a socket: the audience it now follows, and the `seq` of the view it
/// holds there (`None`: none a change will start from, so the table sends it a snapshot next
/// time).
pub type Holds = Option<(Viewer, Option<u64>)>;

pub enum Relayed {
    /// For one socket of `gateway`; a snapshot says what it `holds` after it.
    Socket {
        gateway: Uuid,
        conn: ConnId,
        holds: Holds,
        text: Utf8Bytes,
    },
    /// The table let the socket go (its invite no longer admits it): `text` tells it, and
    /// its gateway passes nothing more of the table to it.
    LetGo {
        gateway: Uuid,
        conn: ConnId,
        text: Utf8Bytes,
    },
    /// A change for every remote socket holding `viewer`'s view at `since`.
    Audience {
        viewer: Viewer,
        since: u64,
        seq: u64,
        text: Utf8Bytes,
    },
}

/// A socket on another node watching the table: its gateway, its id there, and the table's
/// relay.
#[derive(Clone)]
pub struct RemoteSocket {
    pub gateway: Uuid,
    pub conn: ConnId,
    pub relay: Relay,
}
