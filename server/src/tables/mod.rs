//! The room's tables: one actor task per table, a registry to find them, the lobby.

pub mod actor;
pub mod def;
pub mod house_bots;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shared::protocol::LobbyTable;
use shared::table::{PlayerId, Table};
use sqlx::PgPool;
use tokio::sync::{RwLock, broadcast, mpsc, oneshot};
use uuid::Uuid;

use crate::chips;
use crate::hand_writer::HandWriter;
use crate::metrics::Metrics;
use actor::{ActorParts, Command, TableActor};
use def::{DefError, TableDef};

/// Commands waiting for one table; a full queue means the table is overloaded and the
/// sender is told so rather than kept waiting.
pub const COMMAND_QUEUE: usize = 256;

struct TableHandle {
    tx: mpsc::Sender<Command>,
    info: Arc<Mutex<LobbyTable>>,
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
}

impl Tables {
    /// Voids hands a previous process left unfinished, opens the tables of `file` (if any)
    /// and starts every open table.
    pub async fn start(
        pool: PgPool,
        metrics: Arc<Metrics>,
        file: Option<&str>,
    ) -> Result<Arc<Tables>, DefError> {
        for hand in chips::running_hands(&pool).await.map_err(chips_to_def)? {
            chips::void_hand(&pool, hand).await.map_err(chips_to_def)?;
            tracing::warn!(%hand, "voided a hand interrupted by a stop; its chips are back");
        }
        if let Some(path) = file {
            for def in def::load_file(path)? {
                def::upsert(&pool, &def).await?;
            }
        }
        let (lobby, _) = broadcast::channel(4096);
        let tables = Arc::new(Tables {
            writer: HandWriter::spawn(pool.clone(), metrics.clone()),
            pool,
            metrics,
            tables: RwLock::new(HashMap::new()),
            lobby,
            stopping: AtomicBool::new(false),
            draining: AtomicBool::new(false),
        });
        tables.sync().await?;
        Ok(tables)
    }

    /// Starts tables opened and stops tables closed since the last look (`scoop tables`).
    pub async fn sync(&self) -> Result<(), DefError> {
        let open = def::open_tables(&self.pool).await?;
        let mut tables = self.tables.write().await;
        if self.stopping.load(Ordering::Acquire) {
            return Ok(());
        }
        for d in &open {
            if !tables.contains_key(&d.id) {
                match self.spawn(d).await {
                    Ok(handle) => {
                        tables.insert(d.id.clone(), handle);
                        self.metrics.tables.inc();
                        tracing::info!(table = %d.id, "table open");
                    }
                    Err(e) => tracing::error!(table = %d.id, error = %e, "could not open table"),
                }
            }
        }
        let closed: Vec<String> = tables
            .keys()
            .filter(|id| !open.iter().any(|d| &d.id == *id))
            .cloned()
            .collect();
        for id in closed {
            if let Some(handle) = tables.remove(&id) {
                // Not awaited under the registry's lock: a table waiting for the database with
                // a full queue must not stall every other table's lookups.
                tokio::spawn(async move {
                    let _ = handle.tx.send(Command::Close).await;
                });
                self.metrics.tables.sub(1);
                tracing::info!(table = %id, "table closing");
            }
        }
        Ok(())
    }

    async fn spawn(&self, def: &TableDef) -> Result<TableHandle, DefError> {
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
        } = load_table(&self.pool, def, &bots).await?;
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
        }));
        let actor = TableActor::new(ActorParts {
            id: def.id.clone(),
            def: def.clone(),
            table,
            ledger: Arc::new(actor::ledger::PgLedger {
                pool: self.pool.clone(),
                writer: self.writer.clone(),
            }),
            rx,
            hand_number,
            banks,
            lobby: self.lobby.clone(),
            lobby_info: info.clone(),
            bots,
            metrics: self.metrics.clone(),
        });
        tokio::spawn(actor.run());
        Ok(TableHandle { tx, info })
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
        self.tables.read().await.get(id).map(|h| h.tx.clone())
    }

    /// Every open table as the lobby shows it, in id order.
    pub async fn lobby(&self) -> Vec<LobbyTable> {
        let tables = self.tables.read().await;
        let mut list: Vec<LobbyTable> = tables
            .values()
            .filter_map(|h| h.info.lock().ok().map(|i| i.clone()))
            .collect();
        list.sort_by(|a, b| a.id.cmp(&b.id));
        list
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
            chips::cash_out(pool, account, &def.id, &key)
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
        other => DefError::Invalid {
            id: String::new(),
            reason: other.to_string(),
        },
    }
}
