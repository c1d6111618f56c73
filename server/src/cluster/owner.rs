//! The dealing node's side of a table watched from other nodes: it takes their sockets'
//! commands off `scoop.table.<id>.cmd`, and publishes what the table relays for them: each
//! change once per audience (`scoop.table.<id>.view.…`), and what is for one socket alone to
//! that socket's gateway. Sockets of a gateway that left the cluster are let go.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use shared::protocol::ServerMessage;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::Cluster;
use super::wire::{self, Mark, Remote, RemoteCommand};
use crate::lease;
use crate::tables::actor::relay::{Relay, Relayed, RemoteSocket};
use crate::tables::actor::{Command, ConnId, Outbound, Outgoing, command::new_conn_id, encode};

/// The answers to one remote socket's requests, on their way to its gateway.
const ANSWERS_QUEUE: usize = 16;

/// What the table relays to other nodes, on its way to NATS. A full relay marks the remote
/// sockets behind, as a full queue does a local socket.
const RELAY_QUEUE: usize = 1024;

/// Each remote socket, by (gateway, its id there): its id here and the queue of its answers.
type Remotes = HashMap<(Uuid, ConnId), (ConnId, Outbound)>;

/// Serves table `table` to the other nodes' sockets for as long as its task runs (`tx`).
pub async fn serve(cluster: Arc<Cluster>, table: String, tx: mpsc::Sender<Command>) {
    let mut commands = match cluster.nats.subscribe(wire::command_subject(&table)).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(%table, error = %e, "cannot take commands from other nodes");
            return;
        }
    };
    let (relay, relayed) = mpsc::channel(RELAY_QUEUE);
    tokio::spawn(publish_relayed(cluster.clone(), table.clone(), relayed));
    // Gateways watching it elsewhere watch it here now.
    let _ = cluster
        .nats
        .publish(wire::owner_subject(&table), Bytes::new())
        .await;
    let mut remote = Remotes::new();
    let mut check_gateways = tokio::time::interval(lease::RENEW_EVERY);
    loop {
        let message = tokio::select! {
            m = commands.next() => match m {
                Some(m) => m,
                None => break,
            },
            _ = tx.closed() => break,
            _ = check_gateways.tick() => {
                for ((gateway, theirs), here) in gone(&cluster, &mut remote) {
                    let _ = tx.send(Command::Unwatch { conn: here }).await;
                    // Should the node be alive after all (it was paused, or slow to beat),
                    // its socket watches the table again rather than hear nothing more.
                    let again = wire::frame(theirs, &table, Mark::WatchAgain, &[]);
                    let _ = cluster.nats.publish(wire::out_subject(gateway), again.into()).await;
                }
                continue;
            }
        };
        let answer = match serde_json::from_slice::<RemoteCommand>(&message.payload) {
            Ok(command) => match translate(&cluster, &table, &relay, &mut remote, command) {
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

/// The remote sockets whose gateway is no longer among the live nodes (it died: no socket of
/// it will ever say goodbye), forgotten here: each as (gateway, its id there) and its id here.
fn gone(cluster: &Cluster, remote: &mut Remotes) -> Vec<((Uuid, ConnId), ConnId)> {
    let mut gone = Vec::new();
    remote.retain(|&key, (conn, _)| {
        let live = cluster.is_live(key.0);
        if !live {
            gone.push((key, *conn));
        }
        live
    });
    if !gone.is_empty() {
        tracing::info!(
            sockets = gone.len(),
            "let go of the sockets of a node that left"
        );
    }
    gone
}

/// The table command for a remote one, with the socket's queue (made at its first watch).
fn translate(
    cluster: &Arc<Cluster>,
    table: &str,
    relay: &Relay,
    remote: &mut Remotes,
    RemoteCommand {
        node,
        conn,
        command,
    }: RemoteCommand,
) -> Option<Command> {
    let key = (node, conn);
    let queue = |remote: &mut Remotes| {
        remote
            .entry(key)
            .or_insert_with(|| {
                let (out, rx) = mpsc::channel(ANSWERS_QUEUE);
                tokio::spawn(publish_answers(
                    cluster.clone(),
                    node,
                    conn,
                    table.to_string(),
                    rx,
                ));
                (new_conn_id(), out)
            })
            .clone()
    };
    Some(match command {
        Remote::Watch { account, invite } => {
            let (here, out) = queue(remote);
            Command::Watch {
                conn: here,
                account,
                invite,
                out,
                remote: Some(RemoteSocket {
                    gateway: node,
                    conn,
                    relay: relay.clone(),
                }),
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

/// Publishes what the table relays to other nodes' sockets, in the order it relayed it.
async fn publish_relayed(cluster: Arc<Cluster>, table: String, mut rx: mpsc::Receiver<Relayed>) {
    while let Some(item) = rx.recv().await {
        let (subject, payload) = match item {
            Relayed::Socket {
                gateway,
                conn,
                holds,
                text,
            } => (
                wire::out_subject(gateway),
                wire::frame(conn, &table, holds.into(), text.as_str().as_bytes()),
            ),
            Relayed::LetGo {
                gateway,
                conn,
                text,
            } => (
                wire::out_subject(gateway),
                wire::frame(conn, &table, Mark::LetGo, text.as_str().as_bytes()),
            ),
            Relayed::Audience {
                viewer,
                since,
                seq,
                text,
            } => (
                wire::view_subject(&table, viewer),
                wire::change(since, seq, text.as_str().as_bytes()),
            ),
        };
        if let Err(e) = cluster.nats.publish(subject, payload.into()).await {
            tracing::warn!(%table, error = %e, "could not send a frame to another node");
        }
    }
}

/// Sends the answers to one remote socket's requests (a refusal, a waiting-list place) to
/// that socket's gateway.
async fn publish_answers(
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
        let payload = wire::frame(conn, &table, Mark::Plain, text.as_str().as_bytes());
        if let Err(e) = cluster.nats.publish(subject.clone(), payload.into()).await {
            tracing::warn!(%table, error = %e, "could not send a frame to another node");
        }
    }
}
