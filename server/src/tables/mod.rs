//! The room's tables: one actor task per table, a registry to find them, the lobby.

pub mod actor;
pub mod def;
pub mod home;
pub mod house_bots;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shared::api::{CreatedTable, HostedTable, NewTable};
use shared::protocol::LobbyTable;
use shared::table::{PlayerId, Table};
use sqlx::PgPool;
use tokio::sync::{RwLock, broadcast, mpsc, oneshot};
use uuid::Uuid;

use futures_util::StreamExt;

use crate::chips;
use crate::cluster::Cluster;
use crate::hand_writer::HandWriter;
use crate::lease::{self, Fence, NodeId};
use crate::metrics::Metrics;
use actor::host::HomeParts;
use actor::{ActorParts, Command, TableActor};
use def::{DefError, TableDef};
use home::{Access, Home, HomeError, Limits};

/// Commands waiting for one table; a full queue means the table is overloaded and the
/// sender is told so rather than kept waiting.
pub const COMMAND_QUEUE: usize = 256;

/// Tables loaded at once by one look at the open tables (`Tables::sync`).
const LOADING_AT_ONCE: usize = 8;

struct TableHandle {
    tx: mpsc::Sender<Command>,
    info: Arc<Mutex<LobbyTable>>,
    /// A player's table: who may reach it (everyone, unless it is private).
    access: Option<Arc<Access>>,
    /// Shown in the lobby (every table but a private one).
    listed: bool,
    /// Closed in the database and told to close: it finishes its hand, cashes everyone out
    /// and ends; until then its players can still reach it.
    closing: bool,
    /// Told to hand the table over to another node once its hand is over.
    moving: bool,
}

/// What the operator lets players open, and when an empty player table closes.
#[derive(Clone, Copy, Debug)]
pub struct HomeOptions {
    pub limits: Limits,
    pub idle_close: Duration,
    pub between_hands_ms: u64,
}

impl Default for HomeOptions {
    fn default() -> Self {
        HomeOptions {
            limits: Limits {
                per_host: 2,
                total: 500,
                max_big_blind: 1_000,
            },
            idle_close: Duration::from_secs(30 * 60),
            between_hands_ms: 2_000,
        }
    }
}

pub struct Tables {
    pool: PgPool,
    /// Every table's hand starts and settlements, group-committed.
    writer: HandWriter,
    metrics: Arc<Metrics>,
    tables: RwLock<HashMap<String, TableHandle>>,
    pub lobby: broadcast::Sender<LobbyTable>,
    /// Set (under the `tables` lock) when a shutdown begins: `sync` opens no table after it,
    /// so none can miss the stop.
    stopping: AtomicBool,
    /// Set once every table has been told to stop dealing (`/readyz` then answers 503).
    draining: AtomicBool,
    home: HomeOptions,
    /// A table task that has ended says so here; the registry then forgets it.
    ended: mpsc::UnboundedSender<()>,
    /// Cluster mode: tables that moved to another node, with their watchers here.
    moved: Option<mpsc::UnboundedSender<actor::Moved>>,
    /// One `sync` at a time: the registry's lock is not held while tables are loaded, and two
    /// syncs must not both start the same table.
    syncing: tokio::sync::Mutex<()>,
    /// This process, as the owner of its tables' leases.
    node: NodeId,
    /// Set while the first tables open: this process takes over the whole room, fencing any
    /// process that held it before (one crashed or still stopping), instead of waiting for
    /// its leases to expire. Later tables are taken only when nobody holds them.
    taking_over: AtomicBool,
    /// Set (under its lock) once the leases are given back at a clean stop: no renewal may
    /// take them again after that.
    released: tokio::sync::Mutex<bool>,
    /// Cluster mode: this process is one of several dealing the room's tables.
    cluster: Option<Arc<Cluster>>,
}

impl Tables {
    /// Voids hands a previous process left unfinished, opens the tables of `file` (if any)
    /// and starts every open table. In cluster mode, only the tables this node wins among the
    /// live nodes, and only their hands are voided (the other nodes' hands are in play).
    pub async fn start(
        pool: PgPool,
        metrics: Arc<Metrics>,
        file: Option<&str>,
        home: HomeOptions,
        cluster: Option<Arc<Cluster>>,
    ) -> Result<Arc<Tables>, DefError> {
        if cluster.is_none() {
            for hand in chips::running_hands(&pool).await.map_err(chips_to_def)? {
                chips::void_hand(&pool, hand, None)
                    .await
                    .map_err(chips_to_def)?;
                tracing::warn!(%hand, "voided a hand interrupted by a stop; its chips are back");
            }
        }
        if let Some(path) = file {
            for def in def::load_file(path)? {
                def::upsert(&pool, &def).await?;
            }
        }
        let (lobby, _) = broadcast::channel(4096);
        // Seats left at tables closed before (a cash-out that failed at closing) go home.
        for (table, account) in chips::seats_at_closed_tables(&pool)
            .await
            .map_err(chips_to_def)?
        {
            let key = format!("closed:{table}:{}", Uuid::new_v4());
            match chips::cash_out(&pool, account, &table, &key, None).await {
                // Another node starting at the same moment got there first.
                Ok(_) | Err(chips::ChipsError::NotSeated) => {}
                Err(e) => return Err(chips_to_def(e)),
            }
            tracing::warn!(%table, "cashed out a seat left at a closed table");
        }
        let (ended, mut endings) = mpsc::unbounded_channel();
        let (moved, movings) = match &cluster {
            Some(_) => {
                let (tx, rx) = mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let tables = Arc::new(Tables {
            writer: HandWriter::spawn(pool.clone(), metrics.clone()),
            pool,
            metrics,
            tables: RwLock::new(HashMap::new()),
            lobby,
            stopping: AtomicBool::new(false),
            draining: AtomicBool::new(false),
            home,
            ended,
            moved,
            syncing: tokio::sync::Mutex::new(()),
            node: cluster.as_ref().map_or_else(NodeId::new, |c| c.node()),
            // A cluster's node never takes a table from a live owner.
            taking_over: AtomicBool::new(cluster.is_none()),
            released: tokio::sync::Mutex::new(false),
            cluster,
        });
        if let (Some(cluster), Some(mut movings)) = (tables.cluster.clone(), movings) {
            // A table that moved away: its watchers here watch it on its new node.
            tokio::spawn(async move {
                while let Some(actor::Moved { table, watchers }) = movings.recv().await {
                    let Some(proxy) = cluster.proxy(&table) else {
                        continue;
                    };
                    for actor::Leaving {
                        conn,
                        account,
                        invite,
                        out,
                    } in watchers
                    {
                        let account = account.map(|id| actor::Account {
                            id,
                            name: String::new(),
                        });
                        let watch = Command::Watch {
                            conn,
                            account,
                            invite,
                            out,
                            remote: None,
                        };
                        let _ = proxy.send(watch).await;
                    }
                }
            });
        }
        if let Some(cluster) = &tables.cluster {
            // Counted among the live nodes before the first tables are shared out.
            lease::heartbeat(&tables.pool, tables.node).await?;
            cluster
                .listen(tables.lobby.clone())
                .await
                .map_err(|e| DefError::Cluster(e.to_string()))?;
            tokio::spawn(tell_lobby_changes(
                Arc::downgrade(&tables),
                tables.lobby.subscribe(),
            ));
        }
        let registry = Arc::downgrade(&tables);
        tokio::spawn(async move {
            while endings.recv().await.is_some() {
                let Some(tables) = registry.upgrade() else {
                    return;
                };
                if let Err(e) = tables.sync().await {
                    tracing::warn!(error = %e, "could not forget a closed table yet");
                }
            }
        });
        tables.sync().await?;
        tables.taking_over.store(false, Ordering::Release);
        tokio::spawn(keep_leases(Arc::downgrade(&tables)));
        Ok(tables)
    }

    /// This process's id as a lease holder.
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// Starts tables opened and stops tables closed since the last look (`scoop tables`).
    pub async fn sync(&self) -> Result<(), DefError> {
        let _one_at_a_time = self.syncing.lock().await;
        let open = def::open_tables(&self.pool).await?;
        // Cluster mode: the live nodes, over which the tables are shared out.
        let live = match &self.cluster {
            Some(cluster) => {
                let live = lease::live_nodes(&self.pool).await?;
                cluster.set_live(&live);
                Some(live)
            }
            None => None,
        };
        let mine = |id: &str| {
            live.as_deref()
                .is_none_or(|live| lease::rendezvous(id, live) == Some(self.node))
        };
        let missing: Vec<TableDef> = {
            let tables = self.tables.read().await;
            open.iter()
                .filter(|d| !tables.contains_key(&d.id) && mine(&d.id))
                .cloned()
                .collect()
        };
        // Loaded a few at once and without the registry's lock: a node taking over a dead
        // node's tables must not make the last of them wait for every other one's database
        // round trips, and every other table's lookups go on meanwhile.
        let mut loading = futures_util::stream::iter(missing)
            .map(|d| async move {
                let spawned = match self.stopping.load(Ordering::Acquire) {
                    true => Ok(None),
                    false => self.spawn(&d).await,
                };
                (d, spawned)
            })
            .buffer_unordered(LOADING_AT_ONCE);
        while let Some((d, spawned)) = loading.next().await {
            let handle = match spawned {
                Ok(Some(handle)) => handle,
                Ok(None) => {
                    tracing::debug!(table = %d.id, "another process holds this table");
                    continue;
                }
                Err(e) => {
                    tracing::error!(table = %d.id, error = %e, "could not open table");
                    continue;
                }
            };
            let mut tables = self.tables.write().await;
            if self.stopping.load(Ordering::Acquire) {
                // The shutdown began while it loaded: it must not deal (its `drain` is over).
                // In a cluster it gives its lease straight back, for another node to take it
                // at once rather than when it expires.
                let stop = match self.cluster {
                    Some(_) => Command::HandOver,
                    None => Command::Drain {
                        done: oneshot::channel().0,
                    },
                };
                let _ = handle.tx.try_send(stop);
                continue;
            }
            tables.insert(d.id.clone(), handle);
            self.metrics.tables.inc();
            tracing::info!(table = %d.id, "table open");
        }
        drop(loading);
        let mut tables = self.tables.write().await;
        for (id, handle) in tables.iter_mut() {
            if !handle.closing && !handle.moving && !mine(id) {
                // A node joined that wins this table: it moves there between two hands.
                handle.moving = true;
                let tx = handle.tx.clone();
                tokio::spawn(async move {
                    let _ = tx.send(Command::HandOver).await;
                });
                tracing::info!(table = %id, "table moving to another node");
            }
            if !handle.closing && !open.iter().any(|d| &d.id == id) {
                handle.closing = true;
                let tx = handle.tx.clone();
                // Not awaited under the registry's lock: a table waiting for the database with
                // a full queue must not stall every other table's lookups.
                tokio::spawn(async move {
                    let _ = tx.send(Command::Close).await;
                });
                tracing::info!(table = %id, "table closing");
            }
        }
        // Tables whose task has ended (closed, all cashed out) are forgotten.
        let before = tables.len();
        tables.retain(|_, h| !h.tx.is_closed());
        self.metrics.tables.sub((before - tables.len()) as u64);
        Ok(())
    }

    /// Takes the table's lease and starts its task; `None` when another process holds it.
    async fn spawn(&self, def: &TableDef) -> Result<Option<TableHandle>, DefError> {
        let steal = self.taking_over.load(Ordering::Acquire);
        let Some(fence) = lease::acquire(&self.pool, &def.id, self.node, steal).await? else {
            return Ok(None);
        };
        if self.cluster.is_some() {
            // Its last owner died in the middle of a hand: every chip bet in it goes back.
            for hand in chips::running_hands_of(&self.pool, &def.id)
                .await
                .map_err(chips_to_def)?
            {
                chips::void_hand(&self.pool, hand, Some(&fence))
                    .await
                    .map_err(chips_to_def)?;
                tracing::warn!(table = %def.id, %hand, "took over a table whose node stopped; its hand is void and its chips are back");
            }
        }
        let home = home::load(&self.pool, &def.id).await?;
        let bots = if def.practice {
            house_bots::accounts(&self.pool, &def.id, def.house_bots)
                .await
                .map_err(chips_to_def)?
        } else {
            Vec::new()
        };
        let Restored {
            table,
            hand_number,
            banks,
        } = load_table(&self.pool, def, &bots, Some(&fence)).await?;
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        let info = Arc::new(Mutex::new(LobbyTable {
            id: def.id.clone(),
            name: def.name.clone(),
            stakes: table.config().stakes,
            seats_taken: 0,
            seat_count: table.config().seats,
            average_pot: 0,
            hands_per_hour: 0,
            spectators: 0,
            host: home.as_ref().map(|h| h.host_name.clone()),
            run_twice: table.config().run_twice,
            straddle: table.config().straddle,
            waiting: 0,
            practice: def.practice,
        }));
        let listed = home.as_ref().is_none_or(|h| !h.private);
        let access = home.as_ref().map(|h| Arc::new(Access::new(h)));
        let home = home.zip(access.clone()).map(|(home, access)| HomeParts {
            home,
            access,
            idle_close: self.home.idle_close,
        });
        let actor = TableActor::new(ActorParts {
            id: def.id.clone(),
            def: def.clone(),
            table,
            ledger: Arc::new(actor::ledger::PgLedger::new(
                self.pool.clone(),
                self.writer.clone(),
                Some(fence),
            )),
            rx,
            hand_number,
            banks,
            lobby: self.lobby.clone(),
            lobby_info: info.clone(),
            bots,
            metrics: self.metrics.clone(),
            home,
            ended: self.ended.clone(),
            moved: self.moved.clone(),
        });
        if let Some(cluster) = &self.cluster {
            tokio::spawn(crate::cluster::owner::serve(
                cluster.clone(),
                def.id.clone(),
                tx.clone(),
            ));
        }
        tokio::spawn(actor.run());
        Ok(Some(TableHandle {
            tx,
            info,
            access,
            listed,
            closing: false,
            moving: false,
        }))
    }

    /// Pushes this process's leases forward and stops the tables whose lease another process
    /// took. Returns how many were lost.
    pub async fn renew_leases(&self) -> Result<usize, sqlx::Error> {
        let released = self.released.lock().await;
        if *released {
            return Ok(0);
        }
        let held = lease::renew(&self.pool, self.node).await?;
        drop(released);
        let lost: Vec<(String, mpsc::Sender<Command>)> = {
            let tables = self.tables.read().await;
            tables
                .iter()
                .filter(|(id, h)| !held.contains(*id) && !h.tx.is_closed())
                .map(|(id, h)| (id.clone(), h.tx.clone()))
                .collect()
        };
        for (id, tx) in &lost {
            tracing::warn!(table = %id, "another process took this table; stopping it here");
            let tx = tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(Command::Lost).await;
            });
        }
        Ok(lost.len())
    }

    /// Opens a table a player asked for, with them as its host; refused (nothing created)
    /// past the operator's limits.
    pub async fn create(
        &self,
        new: &NewTable,
        host: Uuid,
        host_name: &str,
    ) -> Result<CreatedTable, HomeError> {
        if self.stopping.load(Ordering::Acquire) {
            return Err(HomeError::Invalid(
                "the room is shutting down; try again in a minute".into(),
            ));
        }
        let id = home::new_id();
        let mut def = home::definition(&id, new, &self.home.limits)?;
        def.between_hands_ms = self.home.between_hands_ms;
        let home = Home {
            host,
            host_name: host_name.to_string(),
            private: new.private,
            invite: new.private.then(home::new_invite),
            spectators: new.spectators,
            seat_approval: new.seat_approval,
            paused: false,
        };
        home::create(&self.pool, &def, &home, &self.home.limits).await?;
        self.sync().await.map_err(|e| match e {
            DefError::Database(e) => HomeError::Database(e),
            other => HomeError::Invalid(other.to_string()),
        })?;
        tracing::info!(table = %id, private = home.private, "player table opened");
        Ok(CreatedTable {
            table: id,
            invite: home.invite,
        })
    }

    /// The table an invite opens now, as the lobby would show it.
    pub async fn invite(&self, token: &str) -> Option<LobbyTable> {
        let tables = self.tables.read().await;
        tables
            .values()
            .find(|h| !h.closing && h.access.as_ref().is_some_and(|a| a.opens(token)))
            .and_then(|h| h.info.lock().ok().map(|i| i.clone()))
    }

    /// The open tables an account hosts, with their invite tokens.
    pub async fn hosted_by(&self, account: Uuid) -> Result<Vec<HostedTable>, sqlx::Error> {
        let rows: Vec<(String, Option<String>)> = sqlx::query_as(
            "SELECT id, invite_token FROM poker_tables              WHERE host_id = $1 AND closed_at IS NULL ORDER BY created_at",
        )
        .bind(account)
        .fetch_all(&self.pool)
        .await?;
        let tables = self.tables.read().await;
        Ok(rows
            .into_iter()
            .filter_map(|(id, invite)| {
                let handle = tables.get(&id)?;
                // Read from the table, which is the first to know of a hand-over.
                if handle.access.as_ref().is_none_or(|a| a.host() != account) {
                    return None;
                }
                let table = handle.info.lock().ok()?.clone();
                Some(HostedTable { table, invite })
            })
            .collect())
    }

    /// The table's queue, if this viewer may reach it: a private table answers only its host,
    /// its seated players and the holders of its current invite, and to anyone else it is a
    /// table that does not exist.
    pub async fn sender_for(
        &self,
        id: &str,
        account: Option<Uuid>,
        invite: Option<&str>,
    ) -> Option<mpsc::Sender<Command>> {
        {
            let tables = self.tables.read().await;
            if let Some(handle) = tables.get(id) {
                let admitted = handle
                    .access
                    .as_ref()
                    .is_none_or(|a| a.admits(account, invite));
                return admitted.then(|| handle.tx.clone());
            }
        }
        // Dealt on another node, if it is open at all: its node checks who may reach it.
        let cluster = self.cluster.as_ref()?;
        if let Some(tx) = cluster.existing_proxy(id) {
            return Some(tx);
        }
        let open: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM poker_tables WHERE id = $1 AND closed_at IS NULL")
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .ok()
                .flatten();
        open.and_then(|_| cluster.proxy(id))
    }

    /// Makes a table's task panic, to test that a panic is survived. Only Rust code can call
    /// this (the API tests); no route reaches it.
    #[doc(hidden)]
    pub async fn inject_panic(&self, id: &str) -> bool {
        match self.sender(id).await {
            Some(tx) => tx.send(Command::InjectPanic).await.is_ok(),
            None => false,
        }
    }

    pub async fn sender(&self, id: &str) -> Option<mpsc::Sender<Command>> {
        if let Some(tx) = self.tables.read().await.get(id).map(|h| h.tx.clone()) {
            return Some(tx);
        }
        self.cluster.as_ref()?.existing_proxy(id)
    }

    /// Every open table as the lobby shows it, in id order.
    pub async fn lobby(&self) -> Vec<LobbyTable> {
        let tables = self.tables.read().await;
        let mut list: Vec<LobbyTable> = tables
            .values()
            .filter(|h| h.listed && !h.closing)
            .filter_map(|h| h.info.lock().ok().map(|i| i.clone()))
            .collect();
        if let Some(cluster) = &self.cluster {
            let local: HashSet<&str> = tables.keys().map(String::as_str).collect();
            list.extend(cluster.remote_rows(&local));
        }
        list.sort_by(|a, b| a.id.cmp(&b.id));
        list
    }

    /// Every table's row, private and closing ones included (the operator's figures).
    pub async fn all_rows(&self) -> Vec<LobbyTable> {
        let tables = self.tables.read().await;
        tables
            .values()
            .filter_map(|h| h.info.lock().ok().map(|i| i.clone()))
            .collect()
    }

    /// Whether a shutdown has told every table to stop dealing.
    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// Stops dealing everywhere and waits (at most `limit`) for running hands to finish.
    pub async fn drain(&self, limit: Duration) {
        let senders: Vec<mpsc::Sender<Command>> = {
            let tables = self.tables.write().await;
            self.stopping.store(true, Ordering::Release);
            tables.values().map(|h| h.tx.clone()).collect()
        };
        // The other nodes stop counting on this one at once, and take each table as soon as
        // its hand is over here.
        if self.cluster.is_some()
            && let Err(e) = lease::leave(&self.pool, self.node).await
        {
            tracing::warn!(error = %e, "could not leave the cluster; the others will notice");
        }
        let mut waits = Vec::new();
        for tx in senders {
            let (done, wait) = oneshot::channel();
            // A table whose queue stays full (it is waiting for the database) must not hold
            // the shutdown past its grace period.
            if tx
                .send_timeout(Command::Drain { done }, limit)
                .await
                .is_ok()
            {
                waits.push(wait);
            }
            // In a cluster each table goes to another node as soon as its hand is over,
            // rather than wait for the slowest table (a rolling upgrade voids nothing).
            if self.cluster.is_some() {
                let _ = tx.send_timeout(Command::HandOver, limit).await;
            }
        }
        // Only now: a caller that sees the flag knows every table queued the stop before
        // anything it sends next.
        self.draining.store(true, Ordering::Release);
        let all = async {
            for w in waits {
                let _ = w.await;
            }
        };
        if tokio::time::timeout(limit, all).await.is_err() {
            tracing::warn!(
                "some hands were still running at shutdown; they will be voided at the next start"
            );
        }
        // No hand deals here any more: the next process may take the tables at once.
        let mut released = self.released.lock().await;
        *released = true;
        if let Err(e) = lease::release_all(&self.pool, self.node).await {
            tracing::warn!(error = %e, "could not release the tables' leases; they will expire");
        }
    }
}

/// Renews the leases every `lease::RENEW_EVERY` for as long as the registry lives.
async fn keep_leases(registry: std::sync::Weak<Tables>) {
    let mut every = tokio::time::interval(lease::RENEW_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let Some(tables) = registry.upgrade() else {
            return;
        };
        if let Some(cluster) = &tables.cluster {
            if !tables.stopping.load(Ordering::Acquire)
                && let Err(e) = lease::heartbeat(&tables.pool, tables.node).await
            {
                tracing::warn!(error = %e, "could not tell the cluster this node is alive");
            }
            // Again every round, so other nodes can tell a live table from a dead node's.
            let rows: Vec<LobbyTable> = {
                let registry = tables.tables.read().await;
                registry
                    .values()
                    .filter(|h| h.listed && !h.closing && !h.tx.is_closed())
                    .filter_map(|h| h.info.lock().ok().map(|i| i.clone()))
                    .collect()
            };
            // Never held up by NATS: the leases below are what keeps the tables here.
            let cluster = cluster.clone();
            tokio::spawn(async move {
                let _ = tokio::time::timeout(lease::RENEW_EVERY, cluster.publish(rows)).await;
            });
        }
        if let Err(e) = tables.renew_leases().await {
            // Nothing to do but try again: past the lease's end another process may take the
            // tables, and then the fence refuses what these ones write.
            tracing::warn!(error = %e, "could not renew the tables' leases");
            tables.metrics.db_errors.inc();
        }
    }
}

/// Cluster mode: passes each change of this node's tables' lobby rows on to the other nodes.
async fn tell_lobby_changes(
    registry: std::sync::Weak<Tables>,
    mut rows: broadcast::Receiver<LobbyTable>,
) {
    loop {
        let row = match rows.recv().await {
            Ok(row) => row,
            // Missed rows are sent again with the next renewal.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(tables) = registry.upgrade() else {
            return;
        };
        // The channel also carries the rows heard from other nodes: only this node's go out.
        let local = tables.tables.read().await.contains_key(&row.id);
        if let (true, Some(cluster)) = (local, &tables.cluster) {
            cluster.publish([row]).await;
        }
    }
}

#[derive(sqlx::FromRow)]
struct SeatedRow {
    seat: i16,
    account_id: Uuid,
    stack: i64,
    username: String,
    time_bank_ms: Option<i32>,
}

/// What a table finds in the database when it (re)starts.
pub struct Restored {
    pub table: Table,
    /// The number of the table's last hand.
    pub hand_number: u64,
    /// What is left of each seated player's time bank, where some of it was used.
    pub banks: Vec<(PlayerId, Duration)>,
}

/// Builds the table as the database holds it: its players sat out with their stacks (after a
/// stop or a panic the hand in play is void, so those are the stacks from before it) and their
/// time banks; a seat the table can no longer hold is cashed out. Used at start-up and after a
/// table's task panicked.
pub async fn load_table(
    pool: &PgPool,
    def: &TableDef,
    bots: &[actor::Account],
    fence: Option<&Fence>,
) -> Result<Restored, DefError> {
    let mut table = Table::new(def.table_config()?).map_err(|e| DefError::Invalid {
        id: def.id.clone(),
        reason: e.to_string(),
    })?;
    let mut banks = Vec::new();
    let rows: Vec<SeatedRow> = sqlx::query_as(
        "SELECT s.seat, s.account_id, s.stack, a.username, s.time_bank_ms FROM table_seats s \
         JOIN accounts a ON a.id = s.account_id WHERE s.table_id = $1 ORDER BY s.seat",
    )
    .bind(&def.id)
    .fetch_all(pool)
    .await?;
    for SeatedRow {
        seat,
        account_id: account,
        stack,
        username,
        time_bank_ms: bank,
    } in rows
    {
        let name = match bots.iter().find(|b| b.id == account) {
            Some(b) => b.name.clone(),
            None => username,
        };
        if let Some(ms) = bank.and_then(|ms| u64::try_from(ms).ok()) {
            banks.push((PlayerId(account.as_u128()), Duration::from_millis(ms)));
        }
        let restored =
            u8::try_from(seat)
                .ok()
                .zip(u64::try_from(stack).ok())
                .map(|(seat, stack)| {
                    table.restore_seat(seat, PlayerId(account.as_u128()), name, stack)
                });
        if !matches!(restored, Some(Ok(()))) {
            // The table changed shape since: the chips go back to the balance.
            let key = format!("restore:{}:{}", def.id, Uuid::new_v4());
            chips::cash_out(pool, account, &def.id, &key, fence)
                .await
                .map_err(chips_to_def)?;
        }
    }
    let number: i64 =
        sqlx::query_scalar("SELECT coalesce(max(number), 0) FROM hands WHERE table_id = $1")
            .bind(&def.id)
            .fetch_one(pool)
            .await?;
    Ok(Restored {
        table,
        hand_number: u64::try_from(number).unwrap_or(0),
        banks,
    })
}

fn chips_to_def(e: chips::ChipsError) -> DefError {
    match e {
        chips::ChipsError::Database(e) => DefError::Database(e),
        chips::ChipsError::Fenced { .. } => DefError::Fenced,
        other => DefError::Invalid {
            id: String::new(),
            reason: other.to_string(),
        },
    }
}
