//! The sessions behind open sockets, checked together: one statement every
//! [`CHECK_EVERY`] for every socket of the process, instead of a commit per socket. A socket in
//! use keeps its session alive, so the same statement moves `last_seen_at` on, but only once
//! it is older than the session's touch interval: most checks write nothing.

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::FutureExt;
use sqlx::PgPool;
use tokio::sync::oneshot;

use super::{Lifetime, token_hash};
use crate::tables::actor::ConnId;

/// How often the sessions of open sockets are checked (a session ended elsewhere, by expiry or
/// by another process, closes its sockets within this).
pub const CHECK_EVERY: Duration = Duration::from_secs(30);

#[derive(Default)]
pub struct Keeper {
    sockets: Mutex<HashMap<ConnId, Socket>>,
}

struct Socket {
    hash: Vec<u8>,
    ended: Option<oneshot::Sender<()>>,
}

/// A socket's place in the keeper; dropping it (the socket closing) takes the place back.
pub struct Kept {
    keeper: Arc<Keeper>,
    conn: ConnId,
    /// Fires when the session has ended.
    pub ended: oneshot::Receiver<()>,
}

impl Drop for Kept {
    fn drop(&mut self) {
        self.keeper.lock().remove(&self.conn);
    }
}

impl Keeper {
    pub fn new() -> Arc<Keeper> {
        Arc::new(Keeper::default())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ConnId, Socket>> {
        // The map is whole after any panic (inserts and removes only).
        self.sockets.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `token`'s session checked for as long as the returned place is held.
    pub fn keep(self: &Arc<Self>, conn: ConnId, token: &str) -> Kept {
        let (tx, ended) = oneshot::channel();
        let socket = Socket {
            hash: token_hash(token),
            ended: Some(tx),
        };
        self.lock().insert(conn, socket);
        Kept {
            keeper: self.clone(),
            conn,
            ended,
        }
    }

    pub fn sockets(&self) -> usize {
        self.lock().len()
    }

    /// Checks every kept session now; ends the sockets of those that are over. Returns how many
    /// sockets were ended.
    pub async fn check(&self, pool: &PgPool, lifetime: Lifetime) -> Result<usize, sqlx::Error> {
        let hashes: Vec<Vec<u8>> = {
            let sockets = self.lock();
            let distinct: HashSet<&Vec<u8>> = sockets.values().map(|s| &s.hash).collect();
            distinct.into_iter().cloned().collect()
        };
        // The lock is not held across the statement, which may take a while.
        if hashes.is_empty() {
            return Ok(0);
        }
        let alive = super::alive(pool, &hashes, lifetime).await?;
        let alive: HashSet<Vec<u8>> = alive.into_iter().map(|s| s.token_hash).collect();
        Ok(self.end_over(&hashes.into_iter().collect(), &alive))
    }

    /// Ends the sockets whose session was `checked` and is not `alive`. A socket kept while
    /// the statement ran was not asked about and is left alone: it used to be ended, so a
    /// crowd that logged in during a check (every bot of a load test, or players after a
    /// restart) was logged out at once.
    fn end_over(&self, checked: &HashSet<Vec<u8>>, alive: &HashSet<Vec<u8>>) -> usize {
        let mut ended = 0;
        for socket in self.lock().values_mut() {
            if checked.contains(&socket.hash)
                && !alive.contains(&socket.hash)
                && let Some(tx) = socket.ended.take()
            {
                let _ = tx.send(());
                ended += 1;
            }
        }
        ended
    }

    /// Checks every [`CHECK_EVERY`] for as long as the process runs. A failed check (the
    /// database away) ends no socket; a panic in one is logged and the next goes ahead.
    pub fn spawn(self: &Arc<Self>, pool: PgPool, lifetime: Lifetime) {
        let keeper = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(CHECK_EVERY);
            every.tick().await;
            loop {
                every.tick().await;
                match AssertUnwindSafe(keeper.check(&pool, lifetime))
                    .catch_unwind()
                    .await
                {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => tracing::warn!(error = %e, "session check failed"),
                    Err(_) => tracing::error!("session check panicked"),
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_kept_while_a_check_runs_is_not_ended_by_it() {
        let keeper = Keeper::new();
        let mut over = keeper.keep(1, "over");
        let mut kept = keeper.keep(2, "kept");
        let checked: HashSet<Vec<u8>> = [token_hash("over"), token_hash("kept")].into();
        // Logged in while the statement ran: not in what was checked.
        let mut newcomer = keeper.keep(3, "newcomer");
        let alive: HashSet<Vec<u8>> = [token_hash("kept")].into();
        assert_eq!(keeper.end_over(&checked, &alive), 1);
        assert!(
            over.ended.try_recv().is_ok(),
            "a session found over ends its socket"
        );
        assert!(kept.ended.try_recv().is_err());
        assert!(newcomer.ended.try_recv().is_err());
    }
}
