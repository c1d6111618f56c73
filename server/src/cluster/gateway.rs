//! The side of a node holding sockets that watch a table dealt on another node: a proxy task
//! per such table takes the sockets' commands as the table's own task would and sends each to
//! the dealing node (in order). What comes back goes to the sockets' queues: a change once
//! per audience this node's sockets are in (subscribed while one of them is), passed to each
//! socket that holds the view it starts from, as the table's own fan-out does; and what is
//! for one socket alone, on this node's subject. A socket that misses a change asks the
//! dealing node for a snapshot.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use futures_util::StreamExt;
use shared::view::Viewer;
use tokio::sync::mpsc;

use super::Cluster;
use super::wire::{self, Holds, Remote, RemoteCommand, SocketFrame};
use crate::tables::COMMAND_QUEUE;
use crate::tables::actor::{Account, Command, ConnId, Outbound, Outgoing, RequestError};

/// How long a command may wait for the dealing node's answer before its socket is told the
/// table is moving.
const ANSWER_WITHIN: Duration = Duration::from_secs(3);

struct Watcher {
    account: Option<Account>,
    invite: Option<String>,
    out: Outbound,
}

/// A socket of this node following a table dealt elsewhere.
struct Follower {
    out: Outbound,
    /// The audience it follows and the `seq` of the view it holds there, as its last
    /// snapshot said (`None` before the first).
    held: Holds,
    /// It missed a message (its queue was full, or a change never came): it gets a snapshot.
    behind: bool,
}

/// The last change heard for one audience.
struct LastChange {
    since: u64,
    seq: u64,
    text: Utf8Bytes,
}

/// This node's sockets following tables dealt elsewhere, and the audiences subscribed to.
#[derive(Default)]
pub(super) struct Following {
    tables: HashMap<String, HashMap<ConnId, Follower>>,
    /// Each audience subscribed to, with the last change heard there: a snapshot and the
    /// change made from it come on different subjects, which need not be read in order, so
    /// a snapshot read after its change is followed by it.
    audiences: HashMap<(String, Viewer), Option<LastChange>>,
}

impl Following {
    fn watch(&mut self, table: &str, conn: ConnId, out: Outbound) {
        let follower = Follower {
            out,
            held: None,
            behind: false,
        };
        self.tables
            .entry(table.to_string())
            .or_default()
            .insert(conn, follower);
    }

    fn unwatch(&mut self, table: &str, conn: ConnId) {
        if let Some(followers) = self.tables.get_mut(table) {
            followers.remove(&conn);
            if followers.is_empty() {
                self.tables.remove(table);
            }
        }
    }

    /// The table moved: every socket waits for its new owner's snapshot.
    fn reset(&mut self, table: &str) {
        for f in self
            .tables
            .get_mut(table)
            .into_iter()
            .flat_map(|t| t.values_mut())
        {
            f.held = None;
            f.behind = false;
        }
    }

    /// A frame for one socket. Returns the audience to subscribe to, when a snapshot puts
    /// the socket in one nobody here followed.
    fn socket_frame(&mut self, frame: SocketFrame<'_>) -> Option<Viewer> {
        let f = self.tables.get_mut(frame.table)?.get_mut(&frame.conn)?;
        let sent = f.out.try_send(Outgoing::Frame(frame.text.into())).is_ok();
        let Some((viewer, seq)) = frame.holds else {
            f.behind |= !sent;
            return None;
        };
        f.held = Some((viewer, seq));
        f.behind = !sent;
        let key = (frame.table.to_string(), viewer);
        match self.audiences.get(&key) {
            None => {
                self.audiences.insert(key, None);
                Some(viewer)
            }
            Some(last) => {
                if let (true, Some(seq), Some(last)) = (sent, seq, last)
                    && last.since == seq
                {
                    match f.out.try_send(Outgoing::Frame(last.text.clone())) {
                        Ok(()) => f.held = Some((viewer, Some(last.seq))),
                        Err(_) => f.behind = true,
                    }
                }
                None
            }
        }
    }

    /// A change for one audience, to each socket in it holding its base. Returns the sockets
    /// that need a snapshot, or `None` when no socket here is in the audience any more (its
    /// subscription ends).
    fn change(
        &mut self,
        table: &str,
        viewer: Viewer,
        since: u64,
        seq: u64,
        text: Utf8Bytes,
    ) -> Option<Vec<ConnId>> {
        let key = (table.to_string(), viewer);
        let followers = self
            .tables
            .get_mut(table)
            .filter(|t| t.values().any(|f| f.held.is_some_and(|(v, _)| v == viewer)));
        let Some(followers) = followers else {
            self.audiences.remove(&key);
            return None;
        };
        let mut resync = Vec::new();
        for (&conn, f) in followers.iter_mut() {
            let Some((v, held)) = f.held else { continue };
            if v != viewer {
                continue;
            }
            match (f.behind, held) {
                // Its snapshot came after this change.
                (false, Some(h)) if h >= seq => {}
                (false, Some(h)) if h == since => {
                    match f.out.try_send(Outgoing::Frame(text.clone())) {
                        Ok(()) => f.held = Some((v, Some(seq))),
                        Err(_) => f.behind = true,
                    }
                }
                // The dealing node sends it a snapshot with its next change.
                (false, None) => {}
                _ => {
                    f.behind = true;
                    if f.out.capacity() > 0 {
                        resync.push(conn);
                    }
                }
            }
        }
        self.audiences
            .insert(key, Some(LastChange { since, seq, text }));
        Some(resync)
    }
}

impl Cluster {
    /// The queue of the proxy for `table`, started on first use.
    pub fn proxy(self: &Arc<Cluster>, table: &str) -> Option<mpsc::Sender<Command>> {
        let mut proxies = self.proxies.lock().ok()?;
        if let Some(tx) = proxies.get(table).filter(|tx| !tx.is_closed()) {
            return Some(tx.clone());
        }
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        tokio::spawn(run(self.clone(), table.to_string(), rx));
        proxies.insert(table.to_string(), tx.clone());
        Some(tx)
    }

    /// The proxy of `table`, if one runs.
    pub fn existing_proxy(&self, table: &str) -> Option<mpsc::Sender<Command>> {
        self.proxies.lock().ok()?.get(table).cloned()
    }

    /// Passes the frames other nodes' tables send one of this node's sockets on to it.
    pub(super) async fn receive_frames(self: &Arc<Cluster>) -> Result<(), super::ClusterError> {
        let mut frames = self.nats.subscribe(wire::out_subject(self.node.0)).await?;
        let cluster = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(message) = frames.next().await {
                let Some(cluster) = cluster.upgrade() else {
                    return;
                };
                let Some(frame) = wire::read_frame(&message.payload) else {
                    tracing::warn!("an unreadable frame from another node");
                    continue;
                };
                let table = frame.table.to_string();
                let subscribe = match cluster.following.lock() {
                    Ok(mut following) => following.socket_frame(frame),
                    Err(_) => return,
                };
                if let Some(viewer) = subscribe {
                    tokio::spawn(follow_audience(cluster.clone(), table, viewer));
                }
            }
        });
        Ok(())
    }
}

/// Takes one audience's changes of a table to this node's sockets in it, until none is.
async fn follow_audience(cluster: Arc<Cluster>, table: String, viewer: Viewer) {
    let mut changes = match cluster
        .nats
        .subscribe(wire::view_subject(&table, viewer))
        .await
    {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(%table, error = %e, "cannot follow the table's changes");
            forget_audience(&cluster, &table, viewer);
            return;
        }
    };
    while let Some(message) = changes.next().await {
        let Some((since, seq, text)) = wire::read_change(&message.payload) else {
            tracing::warn!(%table, "an unreadable change from another node");
            continue;
        };
        let resync = match cluster.following.lock() {
            Ok(mut following) => following.change(&table, viewer, since, seq, text.into()),
            Err(_) => return,
        };
        let Some(resync) = resync else {
            // Nobody here follows it any more (forgotten under the lock, so a socket that
            // joins it now subscribes afresh).
            let _ = changes.unsubscribe().await;
            return;
        };
        if let Some(proxy) = cluster.existing_proxy(&table) {
            for conn in resync {
                let _ = proxy.try_send(Command::Resync { conn });
            }
        }
    }
    // NATS ended the subscription: the next snapshot subscribes again.
    forget_audience(&cluster, &table, viewer);
}

fn forget_audience(cluster: &Cluster, table: &str, viewer: Viewer) {
    if let Ok(mut following) = cluster.following.lock() {
        following.audiences.remove(&(table.to_string(), viewer));
    }
}

async fn run(cluster: Arc<Cluster>, table: String, mut rx: mpsc::Receiver<Command>) {
    let mut moved = match cluster.nats.subscribe(wire::owner_subject(&table)).await {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(%table, error = %e, "cannot hear when the table moves");
            None
        }
    };
    let mut watchers: HashMap<ConnId, Watcher> = HashMap::new();
    loop {
        let cmd = tokio::select! {
            cmd = rx.recv() => match cmd {
                Some(cmd) => cmd,
                None => break,
            },
            Some(_) = async { moved.as_mut()?.next().await } => {
                // Dealt on another node now: watch it there (each socket gets a snapshot).
                if let Ok(mut following) = cluster.following.lock() {
                    following.reset(&table);
                }
                for (&conn, w) in &watchers {
                    let watch = Remote::Watch {
                        account: w.account.clone(),
                        invite: w.invite.clone(),
                    };
                    send(&cluster, &table, conn, watch, &w.out).await;
                }
                continue;
            }
        };
        let conn_of = |out: &Outbound, watchers: &HashMap<ConnId, Watcher>| {
            watchers
                .iter()
                .find(|(_, w)| w.out.same_channel(out))
                .map(|(&conn, _)| conn)
        };
        match cmd {
            Command::Watch {
                conn,
                account,
                invite,
                out,
                ..
            } => {
                if let Ok(mut following) = cluster.following.lock() {
                    following.watch(&table, conn, out.clone());
                }
                let watch = Remote::Watch {
                    account: account.clone(),
                    invite: invite.clone(),
                };
                send(&cluster, &table, conn, watch, &out).await;
                watchers.insert(
                    conn,
                    Watcher {
                        account,
                        invite,
                        out,
                    },
                );
            }
            Command::Unwatch { conn } => {
                if let Ok(mut following) = cluster.following.lock() {
                    following.unwatch(&table, conn);
                }
                if let Some(w) = watchers.remove(&conn) {
                    send(&cluster, &table, conn, Remote::Unwatch, &w.out).await;
                }
            }
            Command::Resync { conn } => {
                if let Some(out) = watchers.get(&conn).map(|w| w.out.clone()) {
                    send(&cluster, &table, conn, Remote::Resync, &out).await;
                }
            }
            Command::Player {
                account,
                invite,
                out,
                request,
            } => {
                // The socket watches the table before it plays there (`ws`).
                let Some(conn) = conn_of(&out, &watchers) else {
                    continue;
                };
                let player = Remote::Player {
                    account,
                    invite,
                    request,
                };
                send(&cluster, &table, conn, player, &out).await;
            }
            Command::Host {
                account,
                out,
                action,
            } => {
                let Some(conn) = conn_of(&out, &watchers) else {
                    continue;
                };
                send(
                    &cluster,
                    &table,
                    conn,
                    Remote::Host { account, action },
                    &out,
                )
                .await;
            }
            // The registry's own commands never reach a proxy.
            Command::Drain { .. }
            | Command::Close
            | Command::InjectPanic
            | Command::Lost
            | Command::HandOver => {}
        }
    }
}

/// Sends one command to the node dealing the table; when none answers (the table is between
/// two nodes), the socket is told so and may try again.
async fn send(cluster: &Cluster, table: &str, conn: ConnId, command: Remote, out: &Outbound) {
    let Ok(payload) = serde_json::to_vec(&RemoteCommand {
        node: cluster.node.0,
        conn,
        command,
    }) else {
        return;
    };
    let asked = tokio::time::timeout(
        ANSWER_WITHIN,
        cluster
            .nats
            .request(wire::command_subject(table), payload.into()),
    )
    .await;
    let queued = matches!(&asked, Ok(Ok(answer)) if answer.payload.as_ref() == wire::QUEUED);
    if !queued {
        let _ = out.try_send(Outgoing::refused(
            table.to_string(),
            RequestError::TableMoved,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(f: &mut Following, conn: ConnId, viewer: Viewer, seq: u64) -> Option<Viewer> {
        let text = format!("snapshot {seq}");
        f.socket_frame(SocketFrame {
            conn,
            table: "t",
            holds: Some((viewer, Some(seq))),
            text: &text,
        })
    }

    fn change(f: &mut Following, viewer: Viewer, since: u64, seq: u64) -> Option<Vec<ConnId>> {
        f.change("t", viewer, since, seq, format!("change {seq}").into())
    }

    fn drain(rx: &mut mpsc::Receiver<Outgoing>) -> Vec<String> {
        let mut got = Vec::new();
        while let Ok(Outgoing::Frame(text)) = rx.try_recv() {
            got.push(text.to_string());
        }
        got
    }

    #[test]
    fn a_change_reaches_the_sockets_holding_its_base_and_the_others_ask_for_a_snapshot() {
        let mut f = Following::default();
        let (a, mut a_rx) = mpsc::channel(8);
        let (b, mut b_rx) = mpsc::channel(8);
        f.watch("t", 1, a);
        f.watch("t", 2, b);
        assert_eq!(
            snapshot(&mut f, 1, Viewer::Spectator, 5),
            Some(Viewer::Spectator),
            "the first socket in an audience subscribes to it"
        );
        assert_eq!(snapshot(&mut f, 2, Viewer::Spectator, 4), None);
        assert_eq!(change(&mut f, Viewer::Spectator, 5, 6), Some(vec![2]));
        assert_eq!(drain(&mut a_rx), ["snapshot 5", "change 6"]);
        assert_eq!(
            drain(&mut b_rx),
            ["snapshot 4"],
            "a gap is not papered over"
        );
        // Its snapshot brings it back in step.
        snapshot(&mut f, 2, Viewer::Spectator, 6);
        assert_eq!(change(&mut f, Viewer::Spectator, 6, 7), Some(vec![]));
        assert_eq!(drain(&mut a_rx), ["change 7"]);
        assert_eq!(drain(&mut b_rx), ["snapshot 6", "change 7"]);
        // A seat's change reaches nobody else.
        assert_eq!(
            change(&mut f, Viewer::Seat(0), 6, 7),
            None,
            "nobody here holds it"
        );
        assert!(drain(&mut a_rx).is_empty());
    }

    #[test]
    fn a_snapshot_read_after_the_change_made_from_it_is_followed_by_that_change() {
        let mut f = Following::default();
        let (a, mut a_rx) = mpsc::channel(8);
        let (b, mut b_rx) = mpsc::channel(8);
        f.watch("t", 1, a);
        f.watch("t", 2, b);
        snapshot(&mut f, 1, Viewer::Seat(3), 10);
        change(&mut f, Viewer::Seat(3), 10, 11);
        // Socket 2's snapshot at 10 was published before change 11 but read after it.
        snapshot(&mut f, 2, Viewer::Seat(3), 10);
        assert_eq!(drain(&mut b_rx), ["snapshot 10", "change 11"]);
        // And a snapshot newer than a change it then reads skips that change.
        snapshot(&mut f, 1, Viewer::Seat(3), 12);
        assert_eq!(change(&mut f, Viewer::Seat(3), 11, 12), Some(vec![]));
        assert_eq!(
            drain(&mut a_rx),
            ["snapshot 10", "change 11", "snapshot 12"]
        );
        assert_eq!(drain(&mut b_rx), ["change 12"]);
    }

    #[test]
    fn a_full_queue_puts_a_socket_behind_until_it_has_room_for_a_snapshot() {
        let mut f = Following::default();
        let (a, mut a_rx) = mpsc::channel(1);
        f.watch("t", 1, a);
        snapshot(&mut f, 1, Viewer::Spectator, 1);
        assert_eq!(
            change(&mut f, Viewer::Spectator, 1, 2),
            Some(vec![]),
            "no room: no ask"
        );
        assert_eq!(drain(&mut a_rx), ["snapshot 1"]);
        assert_eq!(
            change(&mut f, Viewer::Spectator, 2, 3),
            Some(vec![1]),
            "read at last: it asks for the current table"
        );
        // A socket that left takes its audience's subscription with it.
        f.unwatch("t", 1);
        assert_eq!(change(&mut f, Viewer::Spectator, 3, 4), None);
        assert!(f.audiences.is_empty());
    }
}
