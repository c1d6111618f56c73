//! Table ownership by lease, with fencing (migration 0008).
//!
//! A node (one `scoop serve` process) deals at a table only while it holds the table's lease
//! row. Taking a lease adds one to its epoch; the table's task keeps the epoch it got as its
//! [`Fence`], and every write it makes checks the fence inside its own transaction
//! ([`check`]). A node that lost a table (it was paused past its lease, or another process
//! took the room over) is refused by Postgres whatever it believes, so a hand can never be
//! settled by two owners.
//!
//! The owner renews all its leases with one statement every [`RENEW_EVERY`]; the renewal
//! answers which tables are still its own, and a table missing from the answer is told it was
//! lost.

use std::collections::HashSet;
use std::time::Duration;

use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::chips::ChipsError;

/// How often a node pushes its leases forward.
pub const RENEW_EVERY: Duration = Duration::from_secs(2);
/// How long a lease lasts without renewal: three renewals may fail before another node can
/// take the table.
pub const LEASE_FOR: Duration = Duration::from_secs(6);

/// One process of the room. A new id at every start: a restarted process is a new owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId(pub Uuid);

impl NodeId {
    pub fn new() -> NodeId {
        NodeId(Uuid::new_v4())
    }
}

impl Default for NodeId {
    fn default() -> Self {
        NodeId::new()
    }
}

/// What a table's writes carry: the table and the epoch its owner took it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    pub table_id: String,
    pub epoch: i64,
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Takes the table's lease for `node`: when nobody holds it, when its holder let it expire,
/// or, with `steal`, whoever holds it (the holder is fenced from then on). Returns the fence
/// to write with, or `None` when another node holds a live lease.
pub async fn acquire(
    pool: &PgPool,
    table_id: &str,
    node: NodeId,
    steal: bool,
) -> Result<Option<Fence>, sqlx::Error> {
    let epoch: Option<i64> = sqlx::query_scalar(
        "INSERT INTO table_leases (table_id, node, epoch, expires_at) \
         VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond') \
         ON CONFLICT (table_id) DO UPDATE \
            SET node = EXCLUDED.node, epoch = table_leases.epoch + 1, \
                expires_at = EXCLUDED.expires_at \
          WHERE $4 OR table_leases.expires_at < now() OR table_leases.node = EXCLUDED.node \
         RETURNING epoch",
    )
    .bind(table_id)
    .bind(node.0)
    .bind(millis(LEASE_FOR))
    .bind(steal)
    .fetch_optional(pool)
    .await?;
    Ok(epoch.map(|epoch| Fence {
        table_id: table_id.to_string(),
        epoch,
    }))
}

/// Pushes every lease of `node` forward; returns the tables it still holds. The rows are
/// locked in table order, the order writes lock them in (`check_all`), so a renewal and a
/// batch of writes cannot deadlock.
pub async fn renew(pool: &PgPool, node: NodeId) -> Result<HashSet<String>, sqlx::Error> {
    let held: Vec<String> = sqlx::query_scalar(
        "UPDATE table_leases SET expires_at = now() + $2 * interval '1 millisecond' \
         WHERE table_id IN (SELECT table_id FROM table_leases WHERE node = $1 \
                            ORDER BY table_id FOR UPDATE) \
         RETURNING table_id",
    )
    .bind(node.0)
    .bind(millis(LEASE_FOR))
    .fetch_all(pool)
    .await?;
    Ok(held.into_iter().collect())
}

/// Lets the node's leases go at once (a clean stop), so the next process need not wait for
/// them to expire. The epochs stay: whoever takes a table next still fences this node out.
pub async fn release_all(pool: &PgPool, node: NodeId) -> Result<u64, sqlx::Error> {
    let done = sqlx::query("UPDATE table_leases SET expires_at = now() WHERE node = $1")
        .bind(node.0)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}

/// Refuses the write unless `fence` is still the table's lease. Run first in the write's
/// transaction: the shared row lock it takes holds any take-over back until the write commits.
pub async fn check(conn: &mut PgConnection, fence: &Fence) -> Result<(), ChipsError> {
    match check_all(conn, std::iter::once(fence)).await?.pop() {
        None => Ok(()),
        Some(stale) => Err(ChipsError::Fenced {
            table: stale.table_id,
            epoch: stale.epoch,
        }),
    }
}

/// [`check`] for many writes in one transaction, with one statement: the fences among
/// `fences` that no longer hold.
pub async fn check_all<'a>(
    conn: &mut PgConnection,
    fences: impl Iterator<Item = &'a Fence>,
) -> Result<Vec<Fence>, sqlx::Error> {
    let fences: Vec<&Fence> = fences.collect();
    if fences.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<&str> = fences.iter().map(|f| f.table_id.as_str()).collect();
    let current: Vec<(String, i64)> = sqlx::query_as(
        "SELECT table_id, epoch FROM table_leases WHERE table_id = ANY($1) \
         ORDER BY table_id FOR SHARE",
    )
    .bind(&ids)
    .fetch_all(conn)
    .await?;
    Ok(fences
        .into_iter()
        .filter(|f| {
            !current
                .iter()
                .any(|(t, e)| *t == f.table_id && *e == f.epoch)
        })
        .cloned()
        .collect())
}

/// Gives one table's lease back (a hand-over between hands), if `fence` still holds it. The
/// lease goes to nobody (the nil node), so the node's renewals no longer push it forward.
pub async fn release(pool: &PgPool, fence: &Fence) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE table_leases SET expires_at = now(), node = '00000000-0000-0000-0000-000000000000' \
         WHERE table_id = $1 AND epoch = $2",
    )
    .bind(&fence.table_id)
    .bind(fence.epoch)
    .execute(pool)
    .await?;
    Ok(())
}

/// Says the node is alive (cluster mode) for another [`LEASE_FOR`].
pub async fn heartbeat(pool: &PgPool, node: NodeId) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO cluster_nodes (node, expires_at) \
         VALUES ($1, now() + $2 * interval '1 millisecond') \
         ON CONFLICT (node) DO UPDATE SET expires_at = EXCLUDED.expires_at",
    )
    .bind(node.0)
    .bind(millis(LEASE_FOR))
    .execute(pool)
    .await?;
    Ok(())
}

/// The nodes alive now, in a stable order.
pub async fn live_nodes(pool: &PgPool) -> Result<Vec<NodeId>, sqlx::Error> {
    let nodes: Vec<Uuid> =
        sqlx::query_scalar("SELECT node FROM cluster_nodes WHERE expires_at > now() ORDER BY node")
            .fetch_all(pool)
            .await?;
    Ok(nodes.into_iter().map(NodeId).collect())
}

/// Leaves the cluster at a clean stop: the others stop counting on this node at once.
pub async fn leave(pool: &PgPool, node: NodeId) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM cluster_nodes WHERE node = $1")
        .bind(node.0)
        .execute(pool)
        .await?;
    Ok(())
}

/// The node that should own `table` among `nodes` (rendezvous hashing): each node scores the
/// table and the highest wins, so a node joining or leaving moves only the tables it wins or
/// held, and every node agrees without talking.
pub fn rendezvous(table: &str, nodes: &[NodeId]) -> Option<NodeId> {
    nodes.iter().copied().max_by_key(|node| {
        let digest = Sha256::new()
            .chain_update(node.0.as_bytes())
            .chain_update(table.as_bytes())
            .finalize();
        let mut score = [0u8; 8];
        score.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(score), node.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendezvous_moves_only_the_tables_a_new_node_wins() {
        let nodes: Vec<NodeId> = (1..=3u128).map(|n| NodeId(Uuid::from_u128(n))).collect();
        let tables: Vec<String> = (0..300).map(|i| format!("t{i}")).collect();
        let before: Vec<NodeId> = tables
            .iter()
            .filter_map(|t| rendezvous(t, &nodes[..2]))
            .collect();
        let after: Vec<NodeId> = tables
            .iter()
            .filter_map(|t| rendezvous(t, &nodes))
            .collect();
        let moved = before.iter().zip(&after).filter(|(b, a)| b != a).count();
        // Every table that moved went to the new node, and it got about a third.
        assert!(
            before
                .iter()
                .zip(&after)
                .all(|(b, a)| b == a || *a == nodes[2])
        );
        assert!((70..=130).contains(&moved), "{moved} of 300 moved");
        for node in &nodes {
            let share = after.iter().filter(|n| *n == node).count();
            assert!((70..=130).contains(&share), "{share} of 300");
        }
        assert_eq!(rendezvous("t", &[]), None);
    }
}
