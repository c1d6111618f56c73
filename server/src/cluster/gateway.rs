//! The side of a node holding sockets that watch a table dealt on another node: a proxy task
//! per such table takes the sockets' commands as the table's own task would and sends each to
//! the dealing node (in order). What comes back goes to the sockets' queues: each change
//! once per audience (the proxy takes all the table's audiences), passed to each socket that
//! holds the view it starts from, as the table's own fan-out does; and what is for one socket
//! alone, on this node's subject. A socket that misses a change watches the table again,
//! which brings it a snapshot.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use futures_util::StreamExt;
use shared::view::Viewer;
use tokio::sync::mpsc;

use super::Cluster;
use super::wire::{self, Mark, Remote, RemoteCommand, SocketFrame};
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
    /// snapshot said (`None` before the first, and once the table let it go).
    held: Option<(Viewer, Option<u64>)>,
    /// It missed a message (its queue was full, or a change never came): it gets a snapshot.
    behind: bool,
    /// A snapshot has been asked for it and has not come yet.
    asked: bool,
}

/// The last change heard for one audience.
struct LastChange {
    since: u64,
    seq: u64,
    text: Utf8Bytes,
}

/// This node's sockets following tables dealt elsewhere.
#[derive(Default)]
pub(super) struct Following {
    tables: HashMap<String, HashMap<ConnId, Follower>>,
    /// Each audience's last change: a snapshot and the change made from it come on different
    /// subjects, which need not be read in order, so a snapshot read after its change is
    /// followed by it.
    last: HashMap<(String, Viewer), LastChange>,
}

impl Following {
    fn watch(&mut self, table: &str, conn: ConnId, out: Outbound) {
        let follower = Follower {
            out,
            held: None,
            behind: false,
            asked: false,
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
                self.last.retain(|(t, _), _| t != table);
            }
        }
    }

    /// The table moved: every socket waits for its new owner's snapshot, and the last owner's
    /// changes (counted from its own `seq`) are forgotten.
    fn reset(&mut self, table: &str) {
        for f in self
            .tables
            .get_mut(table)
            .into_iter()
            .flat_map(|t| t.values_mut())
        {
            f.held = None;
            f.behind = false;
            f.asked = false;
        }
        self.last.retain(|(t, _), _| t != table);
    }

    /// A frame for one socket. Returns whether the socket is to watch the table again (the
    /// table forgot it).
    fn socket_frame(&mut self, frame: SocketFrame<'_>) -> bool {
        let Some(f) = self
            .tables
            .get_mut(frame.table)
            .and_then(|t| t.get_mut(&frame.conn))
        else {
            return false;
        };
        let (viewer, seq) = match frame.mark {
            Mark::WatchAgain => {
                f.held = None;
                f.asked = true;
                return true;
            }
            Mark::LetGo => {
                f.held = None;
                f.behind = false;
                let _ = f.out.try_send(Outgoing::Frame(frame.text.into()));
                return false;
            }
            Mark::Plain => {
                if f.out.try_send(Outgoing::Frame(frame.text.into())).is_err() {
                    f.behind = true;
                }
                return false;
            }
            Mark::Holds(viewer, seq) => (viewer, seq),
        };
        let sent = f.out.try_send(Outgoing::Frame(frame.text.into())).is_ok();
        f.held = Some((viewer, seq));
        f.behind = !sent;
        f.asked = false;
        if let (true, Some(seq), Some(last)) =
            (sent, seq, self.last.get(&(frame.table.to_string(), viewer)))
            && last.since == seq
        {
            match f.out.try_send(Outgoing::Frame(last.text.clone())) {
                Ok(()) => f.held = Some((viewer, Some(last.seq))),
                Err(_) => f.behind = true,
            }
        }
        false
    }

    /// A change for one audience, to each socket in it holding its base. Returns the sockets
    /// that need a snapshot (each asked once until it comes).
    fn change(
        &mut self,
        table: &str,
        viewer: Viewer,
        since: u64,
        seq: u64,
        text: Utf8Bytes,
    ) -> Vec<ConnId> {
        let mut resync = Vec::new();
        let Some(followers) = self.tables.get_mut(table) else {
            return resync;
        };
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
                    if f.out.capacity() > 0 && !f.asked {
                        f.asked = true;
                        resync.push(conn);
                    }
                }
            }
        }
        self.last
            .insert((table.to_string(), viewer), LastChange { since, seq, text });
        resync
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
                let (table, conn) = (frame.table.to_string(), frame.conn);
                let again = match cluster.following.lock() {
                    Ok(mut following) => following.socket_frame(frame),
                    Err(_) => return,
                };
                if again && let Some(proxy) = cluster.existing_proxy(&table) {
                    let _ = proxy.try_send(Command::Resync { conn });
                }
            }
        });
        Ok(())
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
    // Every audience of the table, while a socket here watches it.
    let mut changes: Option<async_nats::Subscriber> = None;
    let mut watchers: HashMap<ConnId, Watcher> = HashMap::new();
    loop {
        let cmd = tokio::select! {
            cmd = rx.recv() => match cmd {
                Some(cmd) => cmd,
                None => break,
            },
            Some(message) = async { changes.as_mut()?.next().await } => {
                let heard = wire::subject_viewer(&message.subject)
                    .zip(wire::read_change(&message.payload));
                let Some((viewer, (since, seq, text))) = heard else {
                    tracing::warn!(%table, "an unreadable change from another node");
                    continue;
                };
                let resync = match cluster.following.lock() {
                    Ok(mut following) => following.change(&table, viewer, since, seq, text.into()),
                    Err(_) => return,
                };
                for conn in resync {
                    watch_again(&cluster, &table, conn, &watchers).await;
                }
                continue;
            }

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
                if changes.is_none() {
                    // Taken before the watch goes out: a change made right after the socket's
                    // snapshot (a seat's first deal) is never missed for want of it.
                    changes = follow(&cluster, &table).await;
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
                if watchers.is_empty() {
                    // Nobody here watches it: its changes stop coming here.
                    changes = None;
                }
            }
            Command::Resync { conn } => watch_again(&cluster, &table, conn, &watchers).await,
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

/// The table's changes for every audience.
async fn follow(cluster: &Cluster, table: &str) -> Option<async_nats::Subscriber> {
    match cluster.nats.subscribe(wire::views_subject(table)).await {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(%table, error = %e, "cannot follow the table's changes");
            None
        }
    }
}

/// Has a socket watch the table again: the dealing node sends it a snapshot, or, if it had
/// forgotten the socket, takes it back (checking its invite again).
async fn watch_again(
    cluster: &Cluster,
    table: &str,
    conn: ConnId,
    watchers: &HashMap<ConnId, Watcher>,
) {
    if let Some(w) = watchers.get(&conn) {
        let watch = Remote::Watch {
            account: w.account.clone(),
            invite: w.invite.clone(),
        };
        send(cluster, table, conn, watch, &w.out).await;
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

    fn frame(f: &mut Following, conn: ConnId, mark: Mark, text: &str) -> bool {
        f.socket_frame(SocketFrame {
            conn,
            table: "t",
            mark,
            text,
        })
    }

    fn snapshot(f: &mut Following, conn: ConnId, viewer: Viewer, seq: u64) {
        let text = format!("snapshot {seq}");
        frame(f, conn, Mark::Holds(viewer, Some(seq)), &text);
    }

    fn change(f: &mut Following, viewer: Viewer, since: u64, seq: u64) -> Vec<ConnId> {
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
    fn a_change_reaches_the_sockets_holding_its_base_and_the_others_ask_for_a_snapshot_once() {
        let mut f = Following::default();
        let (a, mut a_rx) = mpsc::channel(8);
        let (b, mut b_rx) = mpsc::channel(8);
        f.watch("t", 1, a);
        f.watch("t", 2, b);
        snapshot(&mut f, 1, Viewer::Spectator, 5);
        snapshot(&mut f, 2, Viewer::Spectator, 4);
        assert_eq!(change(&mut f, Viewer::Spectator, 5, 6), vec![2]);
        assert_eq!(
            change(&mut f, Viewer::Spectator, 6, 7),
            Vec::<ConnId>::new(),
            "asked once"
        );
        assert_eq!(drain(&mut a_rx), ["snapshot 5", "change 6", "change 7"]);
        assert_eq!(
            drain(&mut b_rx),
            ["snapshot 4"],
            "a gap is not papered over"
        );
        // Its snapshot brings it back in step.
        snapshot(&mut f, 2, Viewer::Spectator, 7);
        assert_eq!(
            change(&mut f, Viewer::Spectator, 7, 8),
            Vec::<ConnId>::new()
        );
        assert_eq!(drain(&mut a_rx), ["change 8"]);
        assert_eq!(drain(&mut b_rx), ["snapshot 7", "change 8"]);
        // A seat's change reaches nobody else.
        assert_eq!(change(&mut f, Viewer::Seat(0), 8, 9), Vec::<ConnId>::new());
        assert!(drain(&mut a_rx).is_empty() && drain(&mut b_rx).is_empty());
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
        assert_eq!(
            change(&mut f, Viewer::Seat(3), 11, 12),
            Vec::<ConnId>::new()
        );
        assert_eq!(
            drain(&mut a_rx),
            ["snapshot 10", "change 11", "snapshot 12"]
        );
        assert_eq!(drain(&mut b_rx), ["change 12"]);
        // The table moves: the last owner's changes are not replayed after the new one's
        // snapshot, whose `seq` counts afresh.
        f.reset("t");
        snapshot(&mut f, 2, Viewer::Seat(3), 11);
        assert_eq!(drain(&mut b_rx), ["snapshot 11"]);
    }

    #[test]
    fn a_full_queue_puts_a_socket_behind_until_it_has_room_for_a_snapshot() {
        let mut f = Following::default();
        let (a, mut a_rx) = mpsc::channel(1);
        f.watch("t", 1, a);
        snapshot(&mut f, 1, Viewer::Spectator, 1);
        assert_eq!(
            change(&mut f, Viewer::Spectator, 1, 2),
            Vec::<ConnId>::new(),
            "no room: no ask"
        );
        assert_eq!(drain(&mut a_rx), ["snapshot 1"]);
        assert_eq!(
            change(&mut f, Viewer::Spectator, 2, 3),
            vec![1],
            "read at last: it asks for the current table"
        );
        // A socket that left takes its table's changes with it.
        f.unwatch("t", 1);
        assert!(f.tables.is_empty() && f.last.is_empty());
    }

    #[test]
    fn a_socket_let_go_hears_nothing_more_and_one_forgotten_watches_again() {
        let mut f = Following::default();
        let (a, mut a_rx) = mpsc::channel(8);
        let (b, mut b_rx) = mpsc::channel(8);
        f.watch("t", 1, a);
        f.watch("t", 2, b);
        snapshot(&mut f, 1, Viewer::Spectator, 1);
        snapshot(&mut f, 2, Viewer::Spectator, 1);
        // The invite was rotated: socket 1 is told, then gets nothing of the table.
        assert!(!frame(&mut f, 1, Mark::LetGo, "no such table"));
        change(&mut f, Viewer::Spectator, 1, 2);
        assert_eq!(drain(&mut a_rx), ["snapshot 1", "no such table"]);
        assert_eq!(drain(&mut b_rx), ["snapshot 1", "change 2"]);
        // The table took this node for gone and forgot socket 2: it watches again.
        assert!(frame(&mut f, 2, Mark::WatchAgain, ""));
        assert!(
            drain(&mut b_rx).is_empty(),
            "nothing of it reaches the socket"
        );
        assert_eq!(
            change(&mut f, Viewer::Spectator, 2, 3),
            Vec::<ConnId>::new()
        );
    }
}
