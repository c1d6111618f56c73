//! The table's view of the money layer: every chip movement a table makes, as one trait, so
//! the order in which the table commits and shows things is tested without Postgres. The
//! room uses [`PgLedger`], which is `crate::chips` (hand writes through `crate::hand_writer`).

use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::future::BoxFuture;
use shared::rules::Chips;
use sqlx::PgPool;
use uuid::Uuid;

use super::command::Account;
use crate::chips::{self, ChipsError, CommittedSeat, Outcome, SeatMove};
use crate::hand_writer::{self, HandWriter, Write};
use crate::lease::Fence;
use crate::tables::def::{DefError, TableDef};
use crate::tables::home::{self, Home};
use crate::tables::{Restored, load_table};

/// A hand about to be dealt, as recorded before anyone sees a card; a finished hand to settle.
/// The money layer's own records of them, which the hand writer batches.
pub use crate::chips::{HandStart, Settlement};

pub trait Ledger: Send + Sync + 'static {
    fn buy_in<'a>(
        &'a self,
        account: Uuid,
        table_id: &'a str,
        seat: u8,
        chips: Chips,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>>;

    fn top_up<'a>(
        &'a self,
        account: Uuid,
        table_id: &'a str,
        chips: Chips,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>>;

    fn cash_out<'a>(
        &'a self,
        account: Uuid,
        table_id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>>;

    fn start_hand<'a>(&'a self, start: HandStart<'a>) -> BoxFuture<'a, Result<(), ChipsError>>;

    fn settle_hand<'a>(
        &'a self,
        settlement: Settlement<'a>,
    ) -> BoxFuture<'a, Result<Outcome<()>, ChipsError>>;

    fn void_hand(&self, hand: Uuid) -> BoxFuture<'_, Result<Outcome<()>, ChipsError>>;

    fn hand_status(&self, hand: Uuid) -> BoxFuture<'_, Result<Option<String>, ChipsError>>;

    /// `(seat, stack, username)` of the account's seat, as committed.
    fn seat_of<'a>(
        &'a self,
        table_id: &'a str,
        account: Uuid,
    ) -> BoxFuture<'a, Result<Option<CommittedSeat>, ChipsError>>;

    fn save_time_bank<'a>(
        &'a self,
        table_id: &'a str,
        account: Uuid,
        left_ms: i32,
    ) -> BoxFuture<'a, Result<(), ChipsError>>;

    /// Tops a house bot's balance up to `needed` (play chips the house grants).
    fn fund_house_bot(&self, bot: Uuid, needed: Chips) -> BoxFuture<'_, Result<(), ChipsError>>;

    /// The table as committed, to start again from after a panic.
    fn reload<'a>(
        &'a self,
        def: &'a TableDef,
        bots: &'a [Account],
    ) -> BoxFuture<'a, Result<Restored, DefError>>;

    /// A player's table: what its host changed (no chips move).
    fn save_home<'a>(
        &'a self,
        table_id: &'a str,
        home: &'a Home,
    ) -> BoxFuture<'a, Result<(), ChipsError>>;

    /// Marks the table closed, so that no restart opens it again.
    fn close_table<'a>(&'a self, table_id: &'a str) -> BoxFuture<'a, Result<(), ChipsError>>;

    /// Whether a write was refused because another process owns the table now: the table
    /// must stop (`crate::lease`).
    fn fenced(&self) -> bool {
        false
    }

    /// Gives the table's lease back, for another node to take at once.
    fn release_lease(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// The room's ledger: Postgres, with hand starts and settlements group-committed by the
/// [`HandWriter`].
pub struct PgLedger {
    pub pool: PgPool,
    pub writer: HandWriter,
    /// The table's lease, which every write of the table checks (`crate::lease`).
    pub fence: Option<Fence>,
    /// Set by the first write refused by the fence.
    pub fenced: AtomicBool,
}

impl PgLedger {
    pub fn new(pool: PgPool, writer: HandWriter, fence: Option<Fence>) -> PgLedger {
        PgLedger {
            pool,
            writer,
            fence,
            fenced: AtomicBool::new(false),
        }
    }

    /// Notes a refusal by the fence on its way back to the table.
    fn watch<T>(&self, result: Result<T, ChipsError>) -> Result<T, ChipsError> {
        if let Err(ChipsError::Fenced { .. }) = &result {
            self.fenced.store(true, Ordering::Release);
        }
        result
    }
}

impl Ledger for PgLedger {
    fn buy_in<'a>(
        &'a self,
        account: Uuid,
        table_id: &'a str,
        seat: u8,
        chips: Chips,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>> {
        Box::pin(async move {
            self.watch(
                chips::buy_in(
                    &self.pool,
                    account,
                    table_id,
                    seat,
                    chips,
                    key,
                    self.fence.as_ref(),
                )
                .await,
            )
        })
    }

    fn top_up<'a>(
        &'a self,
        account: Uuid,
        table_id: &'a str,
        chips: Chips,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>> {
        // Top-ups come with hands (about one a hand flat out, players' and automatic ones)
        // and are spread like the hands' own writes: batched with them by the hand writer, one
        // commit for many tables. Sit-downs and leaves come in crowds (every player of every
        // table after a restart, a closing table's) and stay one call each on the shared pool:
        // as long batches they held the tables' leases while the crowd's sockets waited.
        Box::pin(async move {
            let m = SeatMove::top_up(account, table_id, chips, key, self.fence.as_ref())?;
            self.watch(self.writer.seat_move(m).await)
                .map(chips::balance_after)
        })
    }

    fn cash_out<'a>(
        &'a self,
        account: Uuid,
        table_id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>> {
        Box::pin(async move {
            self.watch(
                chips::cash_out(&self.pool, account, table_id, key, self.fence.as_ref()).await,
            )
        })
    }

    fn start_hand<'a>(&'a self, s: HandStart<'a>) -> BoxFuture<'a, Result<(), ChipsError>> {
        let write = Write::Start(hand_writer::Start {
            id: s.id,
            table_id: s.table_id.to_string(),
            deck_hash: s.deck_hash.to_vec(),
            starting_stacks: s.starting_stacks.clone(),
            number: s.number,
            players: s.players.to_vec(),
            fence: self.fence.clone(),
        });
        Box::pin(async move { self.watch(self.writer.write(write).await.map(drop)) })
    }

    fn settle_hand<'a>(
        &'a self,
        s: Settlement<'a>,
    ) -> BoxFuture<'a, Result<Outcome<()>, ChipsError>> {
        let write = Write::Settle(hand_writer::Settle {
            hand: s.hand,
            table_id: s.table_id.to_string(),
            stacks: s.stacks.to_vec(),
            rake: s.rake,
            history: s.history.to_owned(),
            fence: self.fence.clone(),
        });
        Box::pin(async move { self.watch(self.writer.write(write).await) })
    }

    fn void_hand(&self, hand: Uuid) -> BoxFuture<'_, Result<Outcome<()>, ChipsError>> {
        Box::pin(async move {
            self.watch(chips::void_hand(&self.pool, hand, self.fence.as_ref()).await)
        })
    }

    fn hand_status(&self, hand: Uuid) -> BoxFuture<'_, Result<Option<String>, ChipsError>> {
        Box::pin(chips::hand_status(&self.pool, hand))
    }

    fn seat_of<'a>(
        &'a self,
        table_id: &'a str,
        account: Uuid,
    ) -> BoxFuture<'a, Result<Option<CommittedSeat>, ChipsError>> {
        Box::pin(chips::seat_of(&self.pool, table_id, account))
    }

    fn save_time_bank<'a>(
        &'a self,
        table_id: &'a str,
        account: Uuid,
        left_ms: i32,
    ) -> BoxFuture<'a, Result<(), ChipsError>> {
        Box::pin(chips::save_time_bank(
            &self.pool, table_id, account, left_ms,
        ))
    }

    fn fund_house_bot(&self, bot: Uuid, needed: Chips) -> BoxFuture<'_, Result<(), ChipsError>> {
        Box::pin(chips::fund_house_bot(&self.pool, bot, needed))
    }

    fn reload<'a>(
        &'a self,
        def: &'a TableDef,
        bots: &'a [Account],
    ) -> BoxFuture<'a, Result<Restored, DefError>> {
        Box::pin(async move {
            let restored = load_table(&self.pool, def, bots, self.fence.as_ref()).await;
            if let Err(DefError::Fenced) = &restored {
                self.fenced.store(true, Ordering::Release);
            }
            restored
        })
    }

    fn save_home<'a>(
        &'a self,
        table_id: &'a str,
        home: &'a Home,
    ) -> BoxFuture<'a, Result<(), ChipsError>> {
        Box::pin(async move { Ok(home::save(&self.pool, table_id, home).await?) })
    }

    fn close_table<'a>(&'a self, table_id: &'a str) -> BoxFuture<'a, Result<(), ChipsError>> {
        Box::pin(async move {
            sqlx::query(
                "UPDATE poker_tables SET closed_at = now() WHERE id = $1 AND closed_at IS NULL",
            )
            .bind(table_id)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
    }

    fn fenced(&self) -> bool {
        self.fenced.load(Ordering::Acquire)
    }

    fn release_lease(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(fence) = &self.fence
                && let Err(e) = crate::lease::release(&self.pool, fence).await
            {
                tracing::warn!(table = %fence.table_id, error = %e, "could not give the lease back; it will expire");
            }
        })
    }
}

/// An in-memory ledger for the table's unit tests: balances, seats and hands with the same
/// rules as `chips` (keys apply once, a seat is one account's), a switch that makes every
/// call fail as an unreachable database does, and a log of what was committed, in order.
#[cfg(test)]
pub mod memory {
    use std::collections::{HashMap, HashSet};
    use std::sync::Mutex;

    use shared::table::Table;

    use super::*;
    use crate::tables::actor::command::player_id;

    pub type CommitHook = Box<dyn Fn(&str) + Send>;

    #[derive(Default)]
    pub struct State {
        pub down: bool,
        pub balances: HashMap<Uuid, i64>,
        /// account → (seat, stack)
        pub seats: HashMap<Uuid, (u8, i64)>,
        pub names: HashMap<Uuid, String>,
        pub keys: HashSet<String>,
        pub hands: HashMap<Uuid, &'static str>,
        pub log: Vec<String>,
        /// Called with the log entry as each commit happens (to look at the table's
        /// watchers at that moment).
        pub on_commit: Option<CommitHook>,
    }

    #[derive(Default)]
    pub struct MemoryLedger(pub Mutex<State>);

    fn down() -> ChipsError {
        ChipsError::Database(sqlx::Error::PoolTimedOut)
    }

    impl MemoryLedger {
        pub fn state(&self) -> std::sync::MutexGuard<'_, State> {
            match self.0.lock() {
                Ok(s) => s,
                Err(p) => p.into_inner(),
            }
        }

        pub fn set_down(&self, down: bool) {
            self.state().down = down;
        }

        pub fn log(&self) -> Vec<String> {
            self.state().log.clone()
        }

        /// Runs `f` on the state unless the database is "down"; a fresh key or none.
        fn apply<T>(
            &self,
            key: Option<&str>,
            f: impl FnOnce(&mut State) -> Result<(T, String), ChipsError>,
        ) -> Result<Outcome<T>, ChipsError> {
            let mut s = self.state();
            if s.down {
                return Err(down());
            }
            if let Some(k) = key
                && s.keys.contains(k)
            {
                return Ok(Outcome::Replayed);
            }
            let (value, entry) = f(&mut s)?;
            if let Some(k) = key {
                s.keys.insert(k.to_string());
            }
            if let Some(hook) = &s.on_commit {
                hook(&entry);
            }
            s.log.push(entry);
            Ok(Outcome::Applied(value))
        }
    }

    impl Ledger for MemoryLedger {
        fn buy_in<'a>(
            &'a self,
            account: Uuid,
            _table_id: &'a str,
            seat: u8,
            chips: Chips,
            key: &'a str,
        ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>> {
            let r = self.apply(Some(key), |s| {
                let chips = i64::try_from(chips).map_err(|_| ChipsError::InvalidAmount)?;
                let balance = s.balances.get(&account).copied().unwrap_or(0);
                if balance < chips {
                    return Err(ChipsError::InsufficientBalance { balance });
                }
                if s.seats.contains_key(&account) {
                    return Err(ChipsError::AlreadySeated);
                }
                if s.seats.values().any(|(taken, _)| *taken == seat) {
                    return Err(ChipsError::SeatTaken);
                }
                s.balances.insert(account, balance - chips);
                s.seats.insert(account, (seat, chips));
                Ok((balance - chips, format!("buy_in {seat} {chips}")))
            });
            Box::pin(async move { r })
        }

        fn top_up<'a>(
            &'a self,
            account: Uuid,
            _table_id: &'a str,
            chips: Chips,
            key: &'a str,
        ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>> {
            let r = self.apply(Some(key), |s| {
                let chips = i64::try_from(chips).map_err(|_| ChipsError::InvalidAmount)?;
                let balance = s.balances.get(&account).copied().unwrap_or(0);
                if balance < chips {
                    return Err(ChipsError::InsufficientBalance { balance });
                }
                let seat = s.seats.get_mut(&account).ok_or(ChipsError::NotSeated)?;
                seat.1 += chips;
                let entry = format!("top_up {} {chips}", seat.0);
                s.balances.insert(account, balance - chips);
                Ok((balance - chips, entry))
            });
            Box::pin(async move { r })
        }

        fn cash_out<'a>(
            &'a self,
            account: Uuid,
            _table_id: &'a str,
            key: &'a str,
        ) -> BoxFuture<'a, Result<Outcome<i64>, ChipsError>> {
            let r = self.apply(Some(key), |s| {
                let (seat, stack) = s.seats.remove(&account).ok_or(ChipsError::NotSeated)?;
                *s.balances.entry(account).or_insert(0) += stack;
                Ok((stack, format!("cash_out {seat} {stack}")))
            });
            Box::pin(async move { r })
        }

        fn start_hand<'a>(&'a self, start: HandStart<'a>) -> BoxFuture<'a, Result<(), ChipsError>> {
            let r = self
                .apply(None, |s| {
                    s.hands.insert(start.id, "running");
                    Ok(((), format!("start_hand {}", start.number)))
                })
                .map(|_| ());
            Box::pin(async move { r })
        }

        fn settle_hand<'a>(
            &'a self,
            settlement: Settlement<'a>,
        ) -> BoxFuture<'a, Result<Outcome<()>, ChipsError>> {
            let r = self.apply(None, |s| {
                if s.hands.get(&settlement.hand) != Some(&"running") {
                    return Err(ChipsError::Unbalanced(settlement.hand));
                }
                // The stacks of the hand's players before it, plus nothing, must equal the
                // stacks after it plus the rake.
                let before: i64 = settlement
                    .stacks
                    .iter()
                    .filter_map(|f| s.seats.get(&f.account).map(|v| v.1))
                    .sum();
                let after: i64 = settlement
                    .stacks
                    .iter()
                    .map(|f| i64::try_from(f.stack).unwrap_or(i64::MAX))
                    .sum::<i64>()
                    + i64::try_from(settlement.rake).unwrap_or(i64::MAX);
                if before != after {
                    return Err(ChipsError::Unbalanced(settlement.hand));
                }
                let mut seats = s.seats.clone();
                for f in settlement.stacks {
                    if let Some(seat) = seats.get_mut(&f.account) {
                        seat.1 = i64::try_from(f.stack).unwrap_or(i64::MAX);
                    }
                }
                s.seats = seats;
                s.hands.insert(settlement.hand, "complete");
                Ok(((), "settle_hand".to_string()))
            });
            Box::pin(async move { r })
        }

        fn void_hand(&self, hand: Uuid) -> BoxFuture<'_, Result<Outcome<()>, ChipsError>> {
            let r = self.apply(None, |s| {
                s.hands.insert(hand, "void");
                Ok(((), "void_hand".to_string()))
            });
            Box::pin(async move { r })
        }

        fn hand_status(&self, hand: Uuid) -> BoxFuture<'_, Result<Option<String>, ChipsError>> {
            let s = self.state();
            let r = if s.down {
                Err(down())
            } else {
                Ok(s.hands.get(&hand).map(|h| h.to_string()))
            };
            Box::pin(async move { r })
        }

        fn seat_of<'a>(
            &'a self,
            _table_id: &'a str,
            account: Uuid,
        ) -> BoxFuture<'a, Result<Option<CommittedSeat>, ChipsError>> {
            let s = self.state();
            let r = if s.down {
                Err(down())
            } else {
                Ok(s.seats.get(&account).map(|&(seat, stack)| CommittedSeat {
                    seat: i16::from(seat),
                    stack,
                    username: s.names.get(&account).cloned().unwrap_or_default(),
                }))
            };
            Box::pin(async move { r })
        }

        fn save_time_bank<'a>(
            &'a self,
            _table_id: &'a str,
            _account: Uuid,
            _left_ms: i32,
        ) -> BoxFuture<'a, Result<(), ChipsError>> {
            Box::pin(async { Ok(()) })
        }

        fn fund_house_bot(
            &self,
            bot: Uuid,
            needed: Chips,
        ) -> BoxFuture<'_, Result<(), ChipsError>> {
            let r = self
                .apply(None, |s| {
                    let needed = i64::try_from(needed).map_err(|_| ChipsError::InvalidAmount)?;
                    let balance = s.balances.entry(bot).or_insert(0);
                    *balance = (*balance).max(needed);
                    Ok(((), "fund_house_bot".to_string()))
                })
                .map(|_| ());
            Box::pin(async move { r })
        }

        fn reload<'a>(
            &'a self,
            def: &'a TableDef,
            _bots: &'a [Account],
        ) -> BoxFuture<'a, Result<Restored, DefError>> {
            let s = self.state();
            let r = (|| {
                let mut table = Table::new(def.table_config()?).map_err(|e| DefError::Invalid {
                    id: def.id.clone(),
                    reason: e.to_string(),
                })?;
                for (&account, &(seat, stack)) in &s.seats {
                    let name = s.names.get(&account).cloned().unwrap_or_default();
                    let stack = u64::try_from(stack).unwrap_or(0);
                    let _ = table.restore_seat(seat, player_id(account), name, stack);
                }
                Ok(Restored {
                    table,
                    hand_number: 0,
                    banks: Vec::new(),
                })
            })();
            Box::pin(async move { r })
        }

        fn save_home<'a>(
            &'a self,
            _table_id: &'a str,
            home: &'a Home,
        ) -> BoxFuture<'a, Result<(), ChipsError>> {
            let entry = format!(
                "home host={} paused={} spectators={} approval={}",
                home.host, home.paused, home.spectators, home.seat_approval
            );
            let r = self.apply(None, |_| Ok(((), entry))).map(|_| ());
            Box::pin(async move { r })
        }

        fn close_table<'a>(&'a self, _table_id: &'a str) -> BoxFuture<'a, Result<(), ChipsError>> {
            let r = self
                .apply(None, |_| Ok(((), "close_table".to_string())))
                .map(|_| ());
            Box::pin(async move { r })
        }
    }
}
