//! The money layer: balances, chips on tables and the ledger.
//!
//! Every function here is one Postgres transaction, except `start_hand`, `settle_hand` and
//! `seat_move` (and `start_hands`, `settle_hands` and `seat_moves`, the same for many at
//! once), which run on the executor they are given: the pool (a transaction of their own), or
//! the hand writer's transaction shared by many tables' writes (`crate::hand_writer`). Every
//! change to a balance writes a ledger row in the same transaction; balances can never go
//! negative (a CHECK in the schema backs the check made here). Functions that a client can retry take an idempotency key: the second
//! call with the same key changes nothing and answers [`Outcome::Replayed`].

use serde::Serialize;
use shared::api::LedgerRow;
use shared::rules::Chips;
use sqlx::{PgExecutor, PgPool, Postgres, Transaction};
use thiserror::Error;
use uuid::Uuid;

use crate::lease::{self, Fence};

/// Largest amount accepted anywhere: it must fit Postgres' bigint with room to add.
pub const MAX_AMOUNT: Chips = 1 << 50;

#[derive(Debug, Error)]
pub enum ChipsError {
    #[error("amount must be between 1 and {MAX_AMOUNT}")]
    InvalidAmount,
    #[error("not enough chips: balance is {balance}")]
    InsufficientBalance { balance: i64 },
    #[error("that seat is taken")]
    SeatTaken,
    #[error("you already have a seat at this table")]
    AlreadySeated,
    #[error("you have no seat at this table")]
    NotSeated,
    #[error("no such account")]
    NoAccount,
    #[error("a refill is available when your chips are below {below} and once every {hours} hours")]
    RefillNotEligible { below: u64, hours: u32 },
    #[error("hand {0} does not balance: chips would be created or lost")]
    Unbalanced(Uuid),
    /// The table's lease has a newer epoch: another process owns the table now, and this
    /// write was refused whole (`crate::lease`).
    #[error("table {table} is owned by another process now (epoch {epoch} is over)")]
    Fenced { table: String, epoch: i64 },
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

impl ChipsError {
    /// A failure to reach the database (down, unreachable, pool exhausted), which the same
    /// request may get past later; not a refusal by the database or by the rules.
    pub fn is_transient(&self) -> bool {
        match self {
            ChipsError::Database(
                sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::Protocol(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::WorkerCrashed,
            ) => true,
            // Connection exceptions, too many connections, a server shutting down or failing
            // over, serialization failures and deadlocks: the same request can pass later.
            ChipsError::Database(sqlx::Error::Database(e)) => e.code().is_some_and(|code| {
                code.starts_with("08")
                    || code.starts_with("53")
                    || code.starts_with("57P")
                    || code == "40001"
                    || code == "40P01"
            }),
            _ => false,
        }
    }
}

// Rows are read into these by column name, so a schema change is an error, not a panic.
#[derive(sqlx::FromRow)]
struct VoidedSeat {
    account_id: Uuid,
    seat: i16,
    balance: i64,
}

#[derive(sqlx::FromRow)]
struct RefillCheck {
    on_tables: i64,
    recent: bool,
}

#[derive(sqlx::FromRow)]
struct LedgerDbRow {
    id: i64,
    kind: String,
    amount: i64,
    balance_after: Option<i64>,
    table_id: Option<String>,
    seat: Option<i16>,
    hand_id: Option<Uuid>,
    created_at: String,
}

/// Whether a request was applied now or had been applied before under the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome<T> {
    Applied(T),
    Replayed,
}

fn amount(chips: Chips) -> Result<i64, ChipsError> {
    if chips == 0 || chips > MAX_AMOUNT {
        return Err(ChipsError::InvalidAmount);
    }
    i64::try_from(chips).map_err(|_| ChipsError::InvalidAmount)
}

/// Locks the account row for the rest of the transaction and returns its balance. Every
/// balance change goes through this, so requests of one account apply one at a time.
async fn lock_account(
    tx: &mut Transaction<'_, Postgres>,
    account: Uuid,
) -> Result<i64, ChipsError> {
    sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1 FOR UPDATE")
        .bind(account)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(ChipsError::NoAccount)
}

/// A ledger row about one account.
struct Entry<'a> {
    account: Uuid,
    kind: &'a str,
    amount: i64,
    balance_after: i64,
    table_id: Option<&'a str>,
    seat: Option<i16>,
    hand: Option<Uuid>,
    key: Option<&'a str>,
}

async fn write(tx: &mut Transaction<'_, Postgres>, e: Entry<'_>) -> Result<(), ChipsError> {
    sqlx::query(
        "INSERT INTO ledger (account_id, kind, amount, balance_after, table_id, seat, hand_id, \
         idempotency_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(e.account)
    .bind(e.kind)
    .bind(e.amount)
    .bind(e.balance_after)
    .bind(e.table_id)
    .bind(e.seat)
    .bind(e.hand)
    .bind(e.key)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn set_balance(
    tx: &mut Transaction<'_, Postgres>,
    account: Uuid,
    delta: i64,
) -> Result<i64, ChipsError> {
    Ok(sqlx::query_scalar(
        "UPDATE accounts SET balance = balance + $2 WHERE id = $1 RETURNING balance",
    )
    .bind(account)
    .bind(delta)
    .fetch_one(&mut **tx)
    .await?)
}

/// Which way a seat move takes chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// From the balance to a new seat.
    BuyIn,
    /// From the balance to the account's seat.
    TopUp,
    /// The whole stack back to the balance, freeing the seat.
    CashOut,
}

impl MoveKind {
    fn as_str(self) -> &'static str {
        match self {
            MoveKind::BuyIn => "buy_in",
            MoveKind::TopUp => "top_up",
            MoveKind::CashOut => "cash_out",
        }
    }
}

/// A move of chips between an account's balance and its seat at a table, keyed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatMove {
    pub kind: MoveKind,
    pub account: Uuid,
    pub table_id: String,
    /// The seat a buy-in takes.
    pub seat: Option<u8>,
    /// The chips a buy-in or top-up moves, checked by [`SeatMove::new`]; a cash-out moves the
    /// whole stack.
    chips: Option<i64>,
    pub key: String,
    /// The table's lease, checked in the same transaction.
    pub fence: Option<Fence>,
}

impl SeatMove {
    /// Refuses an amount out of range before anything is sent.
    pub fn new(
        kind: MoveKind,
        account: Uuid,
        table_id: &str,
        seat: Option<u8>,
        chips: Option<Chips>,
        key: &str,
        fence: Option<&Fence>,
    ) -> Result<SeatMove, ChipsError> {
        Ok(SeatMove {
            kind,
            account,
            table_id: table_id.to_string(),
            seat,
            chips: chips.map(amount).transpose()?,
            key: key.to_string(),
            fence: fence.cloned(),
        })
    }

    /// Chips from the balance to the account's seat.
    pub fn top_up(
        account: Uuid,
        table_id: &str,
        chips: Chips,
        key: &str,
        fence: Option<&Fence>,
    ) -> Result<SeatMove, ChipsError> {
        let chips = Some(chips);
        SeatMove::new(MoveKind::TopUp, account, table_id, None, chips, key, fence)
    }

    /// What the move answered, from `seat_move`'s row.
    fn answer(&self, row: SeatMoveRow) -> Result<Moved, ChipsError> {
        match (row.r_outcome.as_str(), row.r_chips, row.r_balance) {
            ("applied", Some(moved), Some(balance)) => Ok(Outcome::Applied((moved, balance))),
            ("replayed", ..) => Ok(Outcome::Replayed),
            ("insufficient", _, Some(balance)) => Err(ChipsError::InsufficientBalance { balance }),
            ("no_account", ..) => Err(ChipsError::NoAccount),
            ("seat_taken", ..) => Err(ChipsError::SeatTaken),
            ("already_seated", ..) => Err(ChipsError::AlreadySeated),
            ("not_seated", ..) => Err(ChipsError::NotSeated),
            ("fenced", ..) => Err(match &self.fence {
                Some(f) => ChipsError::Fenced {
                    table: f.table_id.clone(),
                    epoch: f.epoch,
                },
                None => unexpected_seat_move(&row.r_outcome),
            }),
            _ => Err(unexpected_seat_move(&row.r_outcome)),
        }
    }
}

/// A seat move's chips moved (negative: taken from the balance) and the balance after.
pub type Moved = Outcome<(i64, i64)>;

/// What `seat_move` (migration 0012) answers, and `seat_moves` (0013) for each move.
#[derive(sqlx::FromRow)]
struct SeatMoveRow {
    r_outcome: String,
    r_chips: Option<i64>,
    r_balance: Option<i64>,
}

/// One move: one database function, so one round trip, that checks the lease, locks the
/// account, skips a replayed key, moves the chips and writes the ledger row.
pub async fn seat_move<'e>(db: impl PgExecutor<'e>, m: &SeatMove) -> Result<Moved, ChipsError> {
    let row: SeatMoveRow = sqlx::query_as(
        "SELECT r_outcome, r_chips, r_balance FROM seat_move($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(m.kind.as_str())
    .bind(m.account)
    .bind(&m.table_id)
    .bind(m.seat.map(i16::from))
    .bind(m.chips)
    .bind(&m.key)
    .bind(m.fence.as_ref().map(|f| f.table_id.as_str()))
    .bind(m.fence.as_ref().map(|f| f.epoch))
    .fetch_one(db)
    .await?;
    m.answer(row)
}

/// Many moves, each as [`seat_move`] makes it, in the order given, in one statement on the
/// transaction the caller holds (the hand writer's). Each answers on its own; `Err` when the
/// statement failed (then the caller's transaction is void).
pub async fn seat_moves(
    conn: &mut sqlx::PgConnection,
    moves: &[&SeatMove],
) -> Result<Vec<Result<Moved, ChipsError>>, ChipsError> {
    #[derive(sqlx::FromRow)]
    struct Indexed {
        r_index: i32,
        #[sqlx(flatten)]
        row: SeatMoveRow,
    }
    let fences = moves.iter().map(|m| m.fence.as_ref());
    let rows: Vec<Indexed> = sqlx::query_as(
        "SELECT r_index, r_outcome, r_chips, r_balance \
         FROM seat_moves($1, $2, $3, $4, $5, $6, $7, $8) ORDER BY r_index",
    )
    .bind(moves.iter().map(|m| m.kind.as_str()).collect::<Vec<_>>())
    .bind(moves.iter().map(|m| m.account).collect::<Vec<_>>())
    .bind(
        moves
            .iter()
            .map(|m| m.table_id.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(
        moves
            .iter()
            .map(|m| m.seat.map(i16::from))
            .collect::<Vec<_>>(),
    )
    .bind(moves.iter().map(|m| m.chips).collect::<Vec<_>>())
    .bind(moves.iter().map(|m| m.key.as_str()).collect::<Vec<_>>())
    .bind(
        fences
            .clone()
            .map(|f| f.map(|f| f.table_id.as_str()))
            .collect::<Vec<_>>(),
    )
    .bind(fences.map(|f| f.map(|f| f.epoch)).collect::<Vec<_>>())
    .fetch_all(conn)
    .await?;
    // One row per move, in order: anything else is not an answer to these moves.
    let in_order = rows.len() == moves.len()
        && rows
            .iter()
            .enumerate()
            .all(|(i, r)| usize::try_from(r.r_index) == Ok(i + 1));
    if !in_order {
        return Err(unexpected_seat_move("rows out of order"));
    }
    Ok(rows
        .into_iter()
        .zip(moves)
        .map(|(r, m)| m.answer(r.row))
        .collect())
}

fn unexpected_seat_move(outcome: &str) -> ChipsError {
    ChipsError::Database(sqlx::Error::Protocol(format!(
        "seat_move answered {outcome:?}"
    )))
}

/// Creates an account holding `grant` chips, with its grant ledger row.
pub async fn create_account(
    tx: &mut Transaction<'_, Postgres>,
    id: Uuid,
    username: &str,
    password_hash: &str,
    grant: Chips,
) -> Result<(), sqlx::Error> {
    let grant = i64::try_from(grant.min(MAX_AMOUNT)).unwrap_or(0);
    sqlx::query(
        "INSERT INTO accounts (id, username, username_key, password_hash, balance) \
         VALUES ($1, $2, lower($2), $3, $4)",
    )
    .bind(id)
    .bind(username)
    .bind(password_hash)
    .bind(grant)
    .execute(&mut **tx)
    .await?;
    if grant > 0 {
        sqlx::query(
            "INSERT INTO ledger (account_id, kind, amount, balance_after) VALUES ($1, 'grant', $2, $2)",
        )
        .bind(id)
        .bind(grant)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// Moves `chips` from the balance to a new seat at a table.
pub async fn buy_in(
    pool: &PgPool,
    account: Uuid,
    table_id: &str,
    seat: u8,
    chips: Chips,
    key: &str,
    fence: Option<&Fence>,
) -> Result<Outcome<i64>, ChipsError> {
    let m = SeatMove::new(
        MoveKind::BuyIn,
        account,
        table_id,
        Some(seat),
        Some(chips),
        key,
        fence,
    )?;
    Ok(balance_after(seat_move(pool, &m).await?))
}

/// Adds chips from the balance to the account's seat at a table (between hands: the caller
/// checks that).
pub async fn top_up(
    pool: &PgPool,
    account: Uuid,
    table_id: &str,
    chips: Chips,
    key: &str,
    fence: Option<&Fence>,
) -> Result<Outcome<i64>, ChipsError> {
    let m = SeatMove::top_up(account, table_id, chips, key, fence)?;
    Ok(balance_after(seat_move(pool, &m).await?))
}

/// The balance a buy-in or top-up left.
pub fn balance_after(moved: Moved) -> Outcome<i64> {
    match moved {
        Outcome::Applied((_, balance)) => Outcome::Applied(balance),
        Outcome::Replayed => Outcome::Replayed,
    }
}

/// The stack a cash-out moved back to the balance.
pub fn cashed_out(moved: Moved) -> Outcome<i64> {
    match moved {
        Outcome::Applied((stack, _)) => Outcome::Applied(stack),
        Outcome::Replayed => Outcome::Replayed,
    }
}

/// Frees the account's seat and moves its whole stack back to the balance. Returns the chips
/// moved.
pub async fn cash_out(
    pool: &PgPool,
    account: Uuid,
    table_id: &str,
    key: &str,
    fence: Option<&Fence>,
) -> Result<Outcome<i64>, ChipsError> {
    let m = SeatMove::new(MoveKind::CashOut, account, table_id, None, None, key, fence)?;
    Ok(cashed_out(seat_move(pool, &m).await?))
}

/// Records that a hand has started, with the stacks it started from, the deck's hash and who
/// played it.
pub async fn start_hand<'e>(
    db: impl PgExecutor<'e>,
    hand: Uuid,
    table_id: &str,
    deck_hash: &[u8],
    starting_stacks: &serde_json::Value,
    number: u64,
    players: &[(u8, Uuid)],
) -> Result<(), ChipsError> {
    // One statement, so one round trip: the table waits for it before dealing.
    let (accounts, seats): (Vec<Uuid>, Vec<i16>) = players
        .iter()
        .map(|&(seat, account)| (account, i16::from(seat)))
        .unzip();
    sqlx::query(
        "WITH hand AS ( \
             INSERT INTO hands (id, table_id, status, deck_hash, starting_stacks, number) \
             VALUES ($1, $2, 'running', $3, $4, $5) RETURNING id) \
         INSERT INTO hand_players (hand_id, account_id, seat) \
         SELECT hand.id, p.account_id, p.seat \
         FROM hand, unnest($6::uuid[], $7::smallint[]) AS p(account_id, seat)",
    )
    .bind(hand)
    .bind(table_id)
    .bind(deck_hash)
    .bind(starting_stacks)
    .bind(i64::try_from(number).unwrap_or(i64::MAX))
    .bind(&accounts)
    .bind(&seats)
    .execute(db)
    .await?;
    Ok(())
}

/// A seat's stack at the end of a hand.
#[derive(Debug, Clone, Copy)]
pub struct FinalStack {
    pub seat: u8,
    pub account: Uuid,
    pub stack: Chips,
}

/// Settles a hand in one transaction: the new stacks, the rake and the history. The stacks
/// before and after (plus the rake) must add up, or nothing is written. Settling the same hand
/// twice changes nothing the second time.
pub async fn settle_hand<'e>(
    db: impl PgExecutor<'e>,
    hand: Uuid,
    table_id: &str,
    stacks: &[FinalStack],
    rake: Chips,
    history: &serde_json::value::RawValue,
) -> Result<Outcome<()>, ChipsError> {
    let rake = i64::try_from(rake).map_err(|_| ChipsError::InvalidAmount)?;
    let mut seats = Vec::with_capacity(stacks.len());
    let mut accounts = Vec::with_capacity(stacks.len());
    let mut new_stacks = Vec::with_capacity(stacks.len());
    for s in stacks {
        seats.push(i16::from(s.seat));
        accounts.push(s.account);
        new_stacks.push(i64::try_from(s.stack).map_err(|_| ChipsError::InvalidAmount)?);
    }
    // The checks and writes are one database function (migration 0003): one round trip.
    let outcome: String = sqlx::query_scalar("SELECT settle_hand($1, $2, $3, $4, $5, $6, $7)")
        .bind(hand)
        .bind(table_id)
        .bind(&seats)
        .bind(&accounts)
        .bind(&new_stacks)
        .bind(rake)
        .bind(history)
        .fetch_one(db)
        .await?;
    match outcome.as_str() {
        "applied" => Ok(Outcome::Applied(())),
        "replayed" => Ok(Outcome::Replayed),
        _ => Err(ChipsError::Unbalanced(hand)),
    }
}

/// A hand about to be dealt, as [`start_hands`] records it before anyone sees a card.
pub struct HandStart<'a> {
    pub id: Uuid,
    pub table_id: &'a str,
    pub deck_hash: &'a [u8],
    pub starting_stacks: &'a serde_json::Value,
    pub number: u64,
    pub players: &'a [(u8, Uuid)],
}

/// [`start_hand`] for many hands in one statement: the hand writer's batch, whose round trips
/// each wait for a core when the machine is busy. Fails as a whole (a hand started twice, say).
pub async fn start_hands<'e>(
    db: impl PgExecutor<'e>,
    hands: &[HandStart<'_>],
) -> Result<(), ChipsError> {
    let mut ids = Vec::with_capacity(hands.len());
    let mut tables = Vec::with_capacity(hands.len());
    let mut decks = Vec::with_capacity(hands.len());
    let mut stacks = Vec::with_capacity(hands.len());
    let mut numbers = Vec::with_capacity(hands.len());
    let (mut player_hands, mut accounts, mut seats) = (Vec::new(), Vec::new(), Vec::new());
    for h in hands {
        ids.push(h.id);
        tables.push(h.table_id);
        decks.push(h.deck_hash);
        stacks.push(h.starting_stacks);
        numbers.push(i64::try_from(h.number).unwrap_or(i64::MAX));
        for &(seat, account) in h.players {
            player_hands.push(h.id);
            accounts.push(account);
            seats.push(i16::from(seat));
        }
    }
    sqlx::query(
        "WITH hand AS ( \
             INSERT INTO hands (id, table_id, status, deck_hash, starting_stacks, number) \
             SELECT n.id, n.table_id, 'running', n.deck_hash, n.stacks, n.number \
             FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::jsonb[], $5::bigint[]) \
                  AS n(id, table_id, deck_hash, stacks, number) \
             RETURNING id) \
         INSERT INTO hand_players (hand_id, account_id, seat) \
         SELECT p.hand_id, p.account_id, p.seat \
         FROM unnest($6::uuid[], $7::uuid[], $8::smallint[]) AS p(hand_id, account_id, seat) \
         JOIN hand ON hand.id = p.hand_id",
    )
    .bind(&ids)
    .bind(&tables)
    .bind(&decks)
    .bind(&stacks)
    .bind(&numbers)
    .bind(&player_hands)
    .bind(&accounts)
    .bind(&seats)
    .execute(db)
    .await?;
    Ok(())
}

/// A finished hand, as [`settle_hands`] settles it.
pub struct Settlement<'a> {
    pub hand: Uuid,
    pub table_id: &'a str,
    pub stacks: &'a [FinalStack],
    pub rake: Chips,
    pub history: &'a serde_json::value::RawValue,
}

/// [`settle_hand`] for many hands in one call (migration 0010), each with its own outcome, in
/// order. `Err` only when the call itself fails.
pub async fn settle_hands<'e>(
    db: impl PgExecutor<'e>,
    settlements: &[Settlement<'_>],
) -> Result<Vec<Result<Outcome<()>, ChipsError>>, ChipsError> {
    let mut outcomes: Vec<Result<Outcome<()>, ChipsError>> = Vec::with_capacity(settlements.len());
    let (mut hands, mut tables, mut rakes, mut histories, mut counts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut seats, mut accounts, mut stacks) = (Vec::new(), Vec::new(), Vec::new());
    // Where each sent settlement's outcome goes; one with an amount Postgres cannot hold is
    // refused here and not sent.
    let mut sent = Vec::with_capacity(settlements.len());
    for (i, s) in settlements.iter().enumerate() {
        let amounts: Result<Vec<i64>, _> =
            s.stacks.iter().map(|f| i64::try_from(f.stack)).collect();
        let (Ok(rake), Ok(amounts), Ok(count)) = (
            i64::try_from(s.rake),
            amounts,
            i32::try_from(s.stacks.len()),
        ) else {
            outcomes.push(Err(ChipsError::InvalidAmount));
            continue;
        };
        outcomes.push(Ok(Outcome::Replayed));
        sent.push(i);
        hands.push(s.hand);
        tables.push(s.table_id);
        rakes.push(rake);
        histories.push(sqlx::types::Json(s.history));
        counts.push(count);
        seats.extend(s.stacks.iter().map(|f| i16::from(f.seat)));
        accounts.extend(s.stacks.iter().map(|f| f.account));
        stacks.extend(amounts);
    }
    if sent.is_empty() {
        return Ok(outcomes);
    }
    let answers: Vec<String> =
        sqlx::query_scalar("SELECT settle_hands($1, $2, $3, $4, $5, $6, $7, $8)")
            .bind(&hands)
            .bind(&tables)
            .bind(&rakes)
            .bind(&histories)
            .bind(&counts)
            .bind(&seats)
            .bind(&accounts)
            .bind(&stacks)
            .fetch_one(db)
            .await?;
    if answers.len() != sent.len() {
        return Err(ChipsError::Database(sqlx::Error::Protocol(format!(
            "settle_hands answered {} outcomes for {} settlements",
            answers.len(),
            sent.len()
        ))));
    }
    for (i, answer) in sent.into_iter().zip(answers) {
        outcomes[i] = match answer.as_str() {
            "applied" => Ok(Outcome::Applied(())),
            "replayed" => Ok(Outcome::Replayed),
            _ => Err(ChipsError::Unbalanced(settlements[i].hand)),
        };
    }
    Ok(outcomes)
}

/// Voids a hand that never finished (the server stopped during it). The seats still hold the
/// stacks from before the hand, because only settlement writes them, so every chip bet in it is
/// back where it was; each player's ledger gets a `void_refund` row saying so.
pub async fn void_hand(
    pool: &PgPool,
    hand: Uuid,
    fence: Option<&Fence>,
) -> Result<Outcome<()>, ChipsError> {
    let mut tx = pool.begin().await?;
    if let Some(fence) = fence {
        lease::check(&mut tx, fence).await?;
    }
    let table_id: Option<String> = sqlx::query_scalar(
        "UPDATE hands SET status = 'void', ended_at = now() WHERE id = $1 AND status = 'running' \
         RETURNING table_id",
    )
    .bind(hand)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(table_id) = table_id else {
        return Ok(Outcome::Replayed);
    };
    let seats: Vec<VoidedSeat> = sqlx::query_as(
        "SELECT s.account_id, s.seat, a.balance FROM table_seats s JOIN accounts a \
         ON a.id = s.account_id WHERE s.table_id = $1 ORDER BY s.seat",
    )
    .bind(&table_id)
    .fetch_all(&mut *tx)
    .await?;
    for s in seats {
        write(
            &mut tx,
            Entry {
                account: s.account_id,
                kind: "void_refund",
                amount: 0,
                balance_after: s.balance,
                table_id: Some(&table_id),
                seat: Some(s.seat),
                hand: Some(hand),
                key: None,
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(Outcome::Applied(()))
}

/// Tops a house bot's balance up to `needed` chips: play chips the house grants, written as
/// an `adjustment` ledger row. Only house bot accounts are funded.
pub async fn fund_house_bot(pool: &PgPool, bot: Uuid, needed: Chips) -> Result<(), ChipsError> {
    let needed = i64::try_from(needed).map_err(|_| ChipsError::InvalidAmount)?;
    let mut tx = pool.begin().await?;
    let balance: i64 =
        sqlx::query_scalar("SELECT balance FROM accounts WHERE id = $1 AND house_bot FOR UPDATE")
            .bind(bot)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(ChipsError::NoAccount)?;
    if balance < needed {
        let balance_after = set_balance(&mut tx, bot, needed - balance).await?;
        write(
            &mut tx,
            Entry {
                account: bot,
                kind: "adjustment",
                amount: needed - balance,
                balance_after,
                table_id: None,
                seat: None,
                hand: None,
                key: None,
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Hands left running by a process that stopped.
/// What is left of a seated player's time bank. It only ever goes down while they sit, so
/// writes that arrive out of order cannot give time back.
pub async fn save_time_bank(
    pool: &PgPool,
    table_id: &str,
    account: Uuid,
    left_ms: i32,
) -> Result<(), ChipsError> {
    sqlx::query(
        "UPDATE table_seats SET time_bank_ms = least(coalesce(time_bank_ms, $3), $3) \
         WHERE table_id = $1 AND account_id = $2",
    )
    .bind(table_id)
    .bind(account)
    .bind(left_ms)
    .execute(pool)
    .await?;
    Ok(())
}

/// A hand's status as recorded: `running`, `complete` or `void`.
pub async fn hand_status(pool: &PgPool, hand: Uuid) -> Result<Option<String>, ChipsError> {
    Ok(sqlx::query_scalar("SELECT status FROM hands WHERE id = $1")
        .bind(hand)
        .fetch_optional(pool)
        .await?)
}

/// One player's seat at a table as committed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CommittedSeat {
    pub seat: i16,
    pub stack: i64,
    pub username: String,
}

/// One player's seat at a table as the database holds it.
pub async fn seat_of(
    pool: &PgPool,
    table_id: &str,
    account: Uuid,
) -> Result<Option<CommittedSeat>, ChipsError> {
    Ok(sqlx::query_as(
        "SELECT s.seat, s.stack, a.username FROM table_seats s JOIN accounts a \
         ON a.id = s.account_id WHERE s.table_id = $1 AND s.account_id = $2",
    )
    .bind(table_id)
    .bind(account)
    .fetch_optional(pool)
    .await?)
}

pub async fn running_hands(pool: &PgPool) -> Result<Vec<Uuid>, ChipsError> {
    Ok(
        sqlx::query_scalar("SELECT id FROM hands WHERE status = 'running'")
            .fetch_all(pool)
            .await?,
    )
}

/// Hands of one table left running by the process that owned it before.
pub async fn running_hands_of(pool: &PgPool, table_id: &str) -> Result<Vec<Uuid>, ChipsError> {
    Ok(
        sqlx::query_scalar("SELECT id FROM hands WHERE table_id = $1 AND status = 'running'")
            .bind(table_id)
            .fetch_all(pool)
            .await?,
    )
}

/// Seats still held at tables that are closed: a cash-out at closing that did not go through.
pub async fn seats_at_closed_tables(pool: &PgPool) -> Result<Vec<(String, Uuid)>, ChipsError> {
    Ok(sqlx::query_as(
        "SELECT s.table_id, s.account_id FROM table_seats s \
         JOIN poker_tables t ON t.id = s.table_id WHERE t.closed_at IS NOT NULL",
    )
    .fetch_all(pool)
    .await?)
}

/// Credits a free refill if the account is eligible.
pub async fn refill(
    pool: &PgPool,
    account: Uuid,
    chips: Chips,
    below: Chips,
    hours: u32,
) -> Result<i64, ChipsError> {
    let chips = amount(chips)?;
    let below_i = i64::try_from(below.min(MAX_AMOUNT)).unwrap_or(i64::MAX);
    let mut tx = pool.begin().await?;
    let balance = lock_account(&mut tx, account).await?;
    let RefillCheck { on_tables, recent } = sqlx::query_as(
        "SELECT coalesce((SELECT sum(stack) FROM table_seats WHERE account_id = $1), 0)::bigint \
         AS on_tables, coalesce((SELECT last_refill_at > now() - make_interval(hours => $2) \
         FROM accounts WHERE id = $1), false) AS recent",
    )
    .bind(account)
    .bind(hours as i32)
    .fetch_one(&mut *tx)
    .await?;
    if balance + on_tables >= below_i || recent {
        return Err(ChipsError::RefillNotEligible { below, hours });
    }
    let balance_after = set_balance(&mut tx, account, chips).await?;
    sqlx::query("UPDATE accounts SET last_refill_at = now() WHERE id = $1")
        .bind(account)
        .execute(&mut *tx)
        .await?;
    write(
        &mut tx,
        Entry {
            account,
            kind: "refill",
            amount: chips,
            balance_after,
            table_id: None,
            seat: None,
            hand: None,
            key: None,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(balance_after)
}

/// Whole-room totals: `balances + on_tables + rake` must equal `granted` at all times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Audit {
    pub balances: i64,
    pub on_tables: i64,
    pub rake: i64,
    pub granted: i64,
}

impl Audit {
    pub fn balanced(&self) -> bool {
        self.balances + self.on_tables + self.rake == self.granted
    }
}

pub async fn audit(pool: &PgPool) -> Result<Audit, ChipsError> {
    Ok(sqlx::query_as(
        "SELECT \
           coalesce((SELECT sum(balance) FROM accounts), 0)::bigint AS balances, \
           coalesce((SELECT sum(stack) FROM table_seats), 0)::bigint AS on_tables, \
           coalesce((SELECT sum(amount) FROM ledger WHERE kind = 'rake'), 0)::bigint AS rake, \
           coalesce((SELECT sum(amount) FROM ledger WHERE kind IN ('grant', 'refill', 'adjustment')), 0)::bigint AS granted",
    )
    .fetch_one(pool)
    .await?)
}

/// The account's ledger, newest first, `limit` rows with ids below `before`.
pub async fn ledger_page(
    pool: &PgPool,
    account: Uuid,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<LedgerRow>, ChipsError> {
    let rows: Vec<LedgerDbRow> = sqlx::query_as(
        "SELECT id, kind, amount, balance_after, table_id, seat, hand_id, \
         to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS created_at \
         FROM ledger WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) \
         ORDER BY id DESC LIMIT $3",
    )
    .bind(account)
    .bind(before)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| LedgerRow {
            id: r.id,
            kind: r.kind,
            amount: r.amount,
            balance_after: r.balance_after,
            table_id: r.table_id,
            seat: r.seat,
            hand_id: r.hand_id.map(|id| id.to_string()),
            created_at: r.created_at,
        })
        .collect())
}
