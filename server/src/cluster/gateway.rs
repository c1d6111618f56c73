//! The side of a node holding sockets that watch a table dealt on another node: a proxy task
//! per such table takes the sockets' commands as the table's own task would, sends each to
//! the dealing node (in order), and the frames that come back on this node's subject go to
//! the sockets' queues.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::Cluster;
use super::wire::{self, Remote, RemoteCommand};
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

    /// Passes the frames other nodes' tables send this node's sockets on to them.
    pub(super) async fn receive_frames(self: &Arc<Cluster>) -> Result<(), super::ClusterError> {
        let mut frames = self.nats.subscribe(wire::out_subject(self.node.0)).await?;
        let cluster = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(message) = frames.next().await {
                let Some(cluster) = cluster.upgrade() else {
                    return;
                };
                let Some((conn, table, text)) = wire::read_frame(&message.payload) else {
                    tracing::warn!("an unreadable frame from another node");
                    continue;
                };
                let out = cluster
                    .sockets
                    .lock()
                    .ok()
                    .and_then(|s| s.get(&(conn, table.to_string())).cloned());
                if let Some(out) = out {
                    let _ = out.try_send(Outgoing::Frame(text.to_string().into()));
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
    let mut watchers: HashMap<ConnId, Watcher> = HashMap::new();
    loop {
        let cmd = tokio::select! {
            cmd = rx.recv() => match cmd {
                Some(cmd) => cmd,
                None => break,
            },
            Some(_) = async { moved.as_mut()?.next().await } => {
                // Dealt on another node now: watch it there (each socket gets a snapshot).
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
            } => {
                if let Ok(mut sockets) = cluster.sockets.lock() {
                    sockets.insert((conn, table.clone()), out.clone());
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
                if let Ok(mut sockets) = cluster.sockets.lock() {
                    sockets.remove(&(conn, table.clone()));
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
