//! The dealing node's side of a table watched from other nodes: it takes their sockets'
//! commands off `scoop.table.<id>.cmd`, gives each remote socket a queue of its own like a
//! local socket's, and publishes what the table puts in that queue to the socket's gateway.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use shared::protocol::ServerMessage;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::Cluster;
use super::wire::{self, Remote, RemoteCommand};
use crate::tables::actor::{Command, ConnId, Outbound, Outgoing, command::new_conn_id, encode};

/// A remote socket's queue: as deep as a local socket's, and a full one marks it behind the
/// same way (it gets a snapshot later).
const REMOTE_QUEUE: usize = 256;

/// Serves table `table` to the other nodes' sockets for as long as its task runs (`tx`).
pub async fn serve(cluster: Arc<Cluster>, table: String, tx: mpsc::Sender<Command>) {
    let mut commands = match cluster.nats.subscribe(wire::command_subject(&table)).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(%table, error = %e, "cannot take commands from other nodes");
            return;
        }
    };
    // Gateways watching it elsewhere watch it here now.
    let _ = cluster
        .nats
        .publish(wire::owner_subject(&table), Bytes::new())
        .await;
    // Each remote socket, by (gateway, its id there): its id here and its queue.
    let mut remote: HashMap<(Uuid, ConnId), (ConnId, Outbound)> = HashMap::new();
    loop {
        let message = tokio::select! {
            m = commands.next() => match m {
                Some(m) => m,
                None => break,
            },
            _ = tx.closed() => break,
        };
        let answer = match serde_json::from_slice::<RemoteCommand>(&message.payload) {
            Ok(command) => match translate(&cluster, &table, &mut remote, command) {
                Some(cmd) => match tx.try_send(cmd) {
                    Ok(()) => wire::QUEUED,
                    Err(_) => wire::NOT_HERE,
                },
                None => wire::QUEUED,
            },
            Err(e) => {
                tracing::warn!(%table, error = %e, "an unreadable command from another node");
                wire::QUEUED
            }
        };
        if let Some(reply) = message.reply {
            let _ = cluster
                .nats
                .publish(reply, Bytes::from_static(answer))
                .await;
        }
    }
    // The table stopped here (moved, closed): its remote sockets will watch its next owner.
    let _ = commands.unsubscribe().await;
}

/// The table command for a remote one, with the socket's queue (made at its first watch).
fn translate(
    cluster: &Arc<Cluster>,
    table: &str,
    remote: &mut HashMap<(Uuid, ConnId), (ConnId, Outbound)>,
    RemoteCommand {
        node,
        conn,
        command,
    }: RemoteCommand,
) -> Option<Command> {
    let key = (node, conn);
    let queue = |remote: &mut HashMap<(Uuid, ConnId), (ConnId, Outbound)>| {
        remote
            .entry(key)
            .or_insert_with(|| {
                let (out, rx) = mpsc::channel(REMOTE_QUEUE);
                tokio::spawn(publish(cluster.clone(), node, conn, table.to_string(), rx));
                (new_conn_id(), out)
            })
            .clone()
    };
    Some(match command {
        Remote::Watch { account, invite } => {
            let (conn, out) = queue(remote);
            Command::Watch {
                conn,
                account,
                invite,
                out,
            }
        }
        Remote::Unwatch => {
            let (conn, _) = remote.remove(&key)?;
            Command::Unwatch { conn }
        }
        Remote::Resync => Command::Resync {
            conn: remote.get(&key)?.0,
        },
        Remote::Player {
            account,
            invite,
            request,
        } => Command::Player {
            account,
            invite,
            out: queue(remote).1,
            request,
        },
        Remote::Host { account, action } => Command::Host {
            account,
            out: queue(remote).1,
            action,
        },
    })
}

/// Sends what the table queues for one remote socket to that socket's gateway.
async fn publish(
    cluster: Arc<Cluster>,
    node: Uuid,
    conn: ConnId,
    table: String,
    mut rx: mpsc::Receiver<Outgoing>,
) {
    let subject = wire::out_subject(node);
    while let Some(item) = rx.recv().await {
        let text = match item {
            Outgoing::Frame(text) => text,
            Outgoing::Refused(refusal) => encode(&ServerMessage::Error {
                code: refusal.error.code(),
                message: refusal.error.to_string(),
                table: Some(refusal.table),
            }),
            // Pings and closes are the gateway's own business with its socket.
            Outgoing::Ping | Outgoing::Close { .. } => continue,
        };
        let payload = wire::frame(conn, &table, text.as_str().as_bytes());
        if let Err(e) = cluster.nats.publish(subject.clone(), payload.into()).await {
            tracing::warn!(%table, error = %e, "could not send a frame to another node");
        }
    }
}
