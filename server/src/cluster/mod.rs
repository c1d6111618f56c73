//! Cluster mode (`scoop serve --nats URL`): several processes share the room's tables.
//!
//! Postgres decides who owns what (`crate::lease`: table leases with fencing, and the live
//! nodes over which tables are spread by rendezvous hashing). NATS carries what the nodes tell
//! each other; here, the lobby: each node publishes the rows of the tables it owns on
//! [`LOBBY_SUBJECT`] as they change and again every [`lease::RENEW_EVERY`], and every node
//! shows the rows it heard from the others next to its own, so the lobby is the same whichever
//! node a visitor reaches. A row not heard of for [`lease::LEASE_FOR`] is dropped: its node
//! is gone, and the table shows again once another node deals it.
//!
//! Any node is a gateway: a socket may watch and play any table whichever node it reached.
//! Its commands for a table dealt elsewhere go to the dealing node over NATS (`gateway`), and
//! what the table sends comes back projected per audience, once for every socket in it, or
//! for that socket alone (`owner`, `wire`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use shared::protocol::LobbyTable;
use thiserror::Error;
use tokio::sync::broadcast;
use tokio::time::Instant;
use uuid::Uuid;

use crate::lease::{self, NodeId};
use crate::tables::actor::Command;

mod gateway;
pub mod owner;
pub mod wire;

/// Lobby rows, from every node to every node.
pub const LOBBY_SUBJECT: &str = "scoop.lobby";

#[derive(Debug, Error)]
pub enum ClusterError {
    #[error("connecting to NATS: {0}")]
    Connect(#[from] async_nats::ConnectError),
    #[error("subscribing on NATS: {0}")]
    Subscribe(#[from] async_nats::SubscribeError),
}

/// One lobby row as a node publishes it.
#[derive(Serialize, Deserialize)]
struct LobbyNews {
    node: Uuid,
    row: LobbyTable,
}

pub struct Cluster {
    nats: async_nats::Client,
    node: NodeId,
    /// Rows of the tables other nodes own, with when each was last heard.
    remote: Mutex<HashMap<String, (LobbyTable, Instant)>>,
    /// This node's proxies of tables dealt elsewhere (`gateway`).
    proxies: Mutex<HashMap<String, tokio::sync::mpsc::Sender<Command>>>,
    /// This node's sockets watching tables dealt elsewhere (`gateway`).
    following: Mutex<gateway::Following>,
    /// The live nodes as last read (`None` until then).
    live: Mutex<Option<HashSet<Uuid>>>,
}

impl Cluster {
    /// Connects to NATS (failing at once when it does not answer: a node that cannot reach
    /// the others must not start as if alone). Reconnections later are the client's own.
    pub async fn connect(url: &str, node: NodeId) -> Result<Arc<Cluster>, ClusterError> {
        let nats = async_nats::ConnectOptions::new()
            .name(format!("scoop-{}", node.0))
            .connect(url)
            .await?;
        let cluster = Arc::new(Cluster {
            nats,
            node,
            remote: Mutex::new(HashMap::new()),
            proxies: Mutex::new(HashMap::new()),
            following: Mutex::new(gateway::Following::default()),
            live: Mutex::new(None),
        });
        cluster.receive_frames().await?;
        Ok(cluster)
    }

    pub fn node(&self) -> NodeId {
        self.node
    }

    /// What the NATS client has sent and received so far.
    pub fn statistics(&self) -> Arc<async_nats::Statistics> {
        self.nats.statistics()
    }

    /// The live nodes, as the registry just read them.
    pub fn set_live(&self, nodes: &[NodeId]) {
        if let Ok(mut live) = self.live.lock() {
            *live = Some(nodes.iter().map(|n| n.0).collect());
        }
    }

    /// Whether `node` was among the live nodes last read (yes, until they have been read).
    pub fn is_live(&self, node: Uuid) -> bool {
        self.live
            .lock()
            .ok()
            .and_then(|live| live.as_ref().map(|l| l.contains(&node)))
            .unwrap_or(true)
    }

    /// Listens to the other nodes' lobby rows and passes each on to this node's lobby
    /// watchers (`lobby`), for as long as the cluster lives.
    pub async fn listen(
        self: &Arc<Cluster>,
        lobby: broadcast::Sender<LobbyTable>,
    ) -> Result<(), ClusterError> {
        let mut news = self.nats.subscribe(LOBBY_SUBJECT).await?;
        let cluster = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(message) = news.next().await {
                let Some(cluster) = cluster.upgrade() else {
                    return;
                };
                let Ok(news) = serde_json::from_slice::<LobbyNews>(&message.payload) else {
                    tracing::warn!(subject = %message.subject, "an unreadable lobby row on NATS");
                    continue;
                };
                if news.node == cluster.node.0 {
                    continue;
                }
                if let Ok(mut remote) = cluster.remote.lock() {
                    remote.insert(news.row.id.clone(), (news.row.clone(), Instant::now()));
                }
                let _ = lobby.send(news.row);
            }
        });
        Ok(())
    }

    /// Tells the other nodes about rows of tables this node owns.
    pub async fn publish(&self, rows: impl IntoIterator<Item = LobbyTable>) {
        for row in rows {
            let news = LobbyNews {
                node: self.node.0,
                row,
            };
            let Ok(payload) = serde_json::to_vec(&news) else {
                continue;
            };
            if let Err(e) = self.nats.publish(LOBBY_SUBJECT, Bytes::from(payload)).await {
                tracing::warn!(error = %e, "could not publish a lobby row");
            }
        }
    }

    /// The other nodes' rows heard of lately, less the tables this node owns now (a table
    /// that just moved here).
    pub fn remote_rows(&self, local: &HashSet<&str>) -> Vec<LobbyTable> {
        let Ok(mut remote) = self.remote.lock() else {
            return Vec::new();
        };
        let now = Instant::now();
        remote.retain(|_, (_, heard)| now.duration_since(*heard) < lease::LEASE_FOR);
        remote
            .values()
            .filter(|(row, _)| !local.contains(row.id.as_str()))
            .map(|(row, _)| row.clone())
            .collect()
    }
}
