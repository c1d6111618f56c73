//! Group commit: the hand starts, settlements and seat moves (the tables send their top-ups)
//! of every table, written by one task in shared transactions.
//!
//! Each table still waits for its own write to commit before it deals or shows a result; what
//! changes is that one commit (a WAL flush, a pooled connection, the transaction's round trips)
//! serves every write that arrived while the previous commit was in flight. Nothing waits on
//! purpose: at low load a batch is one write and costs what it did alone; under load batches
//! grow by themselves, and the delay a write can see is bounded by one batch's commit. A batch
//! is a few statements whatever its size (the fences, all its hand starts, all its
//! settlements, all its seat moves: `chips::start_hands`, `chips::settle_hands`,
//! `chips::seat_moves`), because on a busy machine each
//! round trip waits for a core, and a statement per write made a batch of 120 take most of a
//! second at 20,000 players.
//!
//! A batch in which a statement fails is rolled back and its writes are made again one by one,
//! each in its own transaction, so a write that is refused (a duplicate hand, say) never takes
//! the others with it.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgConnection, PgPool};
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use crate::chips::{self, ChipsError, FinalStack, Moved, Outcome, SeatMove};
use crate::db;
use crate::lease::{self, Fence};
use crate::metrics::Metrics;

/// Writes waiting for the writer; a table past this waits to queue (back-pressure).
const QUEUE: usize = 4096;
/// Writes in one transaction at most.
const MAX_BATCH: usize = 128;
/// Transactions in flight at once: one writer would make every table wait on the round trips
/// of one connection; a few keep the pool busy while each still groups what queued meanwhile.
const WRITERS: usize = 2;

/// A hand start, owned so that it can wait in the queue.
pub struct Start {
    pub id: Uuid,
    pub table_id: String,
    pub deck_hash: Vec<u8>,
    pub starting_stacks: serde_json::Value,
    pub number: u64,
    pub players: Vec<(u8, Uuid)>,
    pub fence: Option<Fence>,
}

pub struct Settle {
    pub hand: Uuid,
    pub table_id: String,
    pub stacks: Vec<FinalStack>,
    pub rake: shared::rules::Chips,
    pub history: Box<serde_json::value::RawValue>,
    pub fence: Option<Fence>,
}

impl Start {
    fn record(&self) -> chips::HandStart<'_> {
        chips::HandStart {
            id: self.id,
            table_id: &self.table_id,
            deck_hash: &self.deck_hash,
            starting_stacks: &self.starting_stacks,
            number: self.number,
            players: &self.players,
        }
    }
}

impl Settle {
    fn record(&self) -> chips::Settlement<'_> {
        chips::Settlement {
            hand: self.hand,
            table_id: &self.table_id,
            stacks: &self.stacks,
            rake: self.rake,
            history: &self.history,
        }
    }
}

pub enum Write {
    Start(Start),
    Settle(Settle),
}

impl Write {
    fn fence(&self) -> Option<&Fence> {
        match self {
            Write::Start(s) => s.fence.as_ref(),
            Write::Settle(s) => s.fence.as_ref(),
        }
    }
}

/// What the writer takes: a hand write, or a seat move, which answers the chips it moved.
enum Task {
    Hand(Write, oneshot::Sender<Written>),
    Move(SeatMove, oneshot::Sender<MoveWritten>),
}

impl Task {
    fn fence(&self) -> Option<&Fence> {
        match self {
            Task::Hand(write, _) => write.fence(),
            Task::Move(m, _) => m.fence.as_ref(),
        }
    }

    /// Answers the table with `outcome`, which must be of this task's kind.
    fn reply(self, outcome: Answer) {
        match (self, outcome) {
            (Task::Hand(_, reply), Answer::Hand(o)) => drop(reply.send(o)),
            (Task::Move(_, reply), Answer::Move(o)) => drop(reply.send(o)),
            (task, _) => task.fail(writer_gone()),
        }
    }

    fn fail(self, e: ChipsError) {
        match self {
            Task::Hand(_, reply) => drop(reply.send(Err(e))),
            Task::Move(_, reply) => drop(reply.send(Err(e))),
        }
    }

    async fn alone(&self, pool: &PgPool) -> Answer {
        match self {
            Task::Hand(write, _) => Answer::Hand(alone(pool, write).await),
            // The function checks the fence itself: one round trip.
            Task::Move(m, _) => Answer::Move(chips::seat_move(pool, m).await),
        }
    }
}

type Written = Result<Outcome<()>, ChipsError>;
type MoveWritten = Result<Moved, ChipsError>;

enum Answer {
    Hand(Written),
    Move(MoveWritten),
}

impl Answer {
    fn refused(task: &Task, e: ChipsError) -> Answer {
        match task {
            Task::Hand(..) => Answer::Hand(Err(e)),
            Task::Move(..) => Answer::Move(Err(e)),
        }
    }
}

#[derive(Clone)]
pub struct HandWriter {
    jobs: mpsc::Sender<Task>,
}

/// The writer's task has stopped (it never should): a failure the table may retry.
fn writer_gone() -> ChipsError {
    ChipsError::Database(sqlx::Error::WorkerCrashed)
}

impl HandWriter {
    /// Starts the writers on connections of their own, opened like `pool`'s: hand writes are
    /// every table's critical path, and in the shared pool they queued behind buy-ins and
    /// top-ups for seconds at 20,000 players.
    pub fn spawn(pool: PgPool, metrics: Arc<Metrics>) -> HandWriter {
        let pool = PgPoolOptions::new()
            .max_connections(WRITERS as u32)
            .acquire_timeout(db::ACQUIRE_TIMEOUT)
            .connect_lazy_with(pool.connect_options().as_ref().clone());
        let (jobs, rx) = mpsc::channel(QUEUE);
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..WRITERS {
            tokio::spawn(run(pool.clone(), rx.clone(), metrics.clone()));
        }
        HandWriter { jobs }
    }

    /// Commits `write` (with whatever else is waiting) and answers once it has committed.
    pub async fn write(&self, write: Write) -> Written {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Task::Hand(write, reply))
            .await
            .map_err(|_| writer_gone())?;
        answer.await.map_err(|_| writer_gone())?
    }

    /// Commits a seat move (with whatever else is waiting) and answers once it has committed.
    pub async fn seat_move(&self, m: SeatMove) -> MoveWritten {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Task::Move(m, reply))
            .await
            .map_err(|_| writer_gone())?;
        answer.await.map_err(|_| writer_gone())?
    }
}

/// One writer: takes what is queued (waiting its turn while another writer takes), writes it,
/// and comes back for more.
async fn run(pool: PgPool, rx: Arc<Mutex<mpsc::Receiver<Task>>>, metrics: Arc<Metrics>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.lock().await.recv_many(&mut batch, MAX_BATCH).await > 0 {
        metrics.hand_write_batches.inc();
        metrics.hand_writes.add(batch.len() as u64);
        let jobs = std::mem::take(&mut batch);
        // A panic drops this batch's replies (its tables see a failure they retry); the writer
        // goes on with the next batch.
        if AssertUnwindSafe(write_batch(&pool, jobs))
            .catch_unwind()
            .await
            .is_err()
        {
            tracing::error!("the hand writer panicked on a batch");
        }
    }
}

async fn write_batch(pool: &PgPool, jobs: Vec<Task>) {
    if jobs.len() > 1 {
        match together(pool, &jobs).await {
            Ok(outcomes) => {
                for (job, outcome) in jobs.into_iter().zip(outcomes) {
                    job.reply(outcome);
                }
                return;
            }
            Err(e) => tracing::debug!(error = %e, writes = jobs.len(), "batch failed; one by one"),
        }
    }
    for job in jobs {
        let outcome = job.alone(pool).await;
        job.reply(outcome);
    }
}

/// One write alone: a statement of its own, or, behind a fence, a transaction that checks
/// the fence first.
async fn alone(pool: &PgPool, write: &Write) -> Written {
    let Some(fence) = write.fence() else {
        return apply(&mut *pool.acquire().await?, write).await;
    };
    let mut tx = pool.begin().await?;
    lease::check(&mut tx, fence).await?;
    let outcome = apply(&mut tx, write).await?;
    tx.commit().await?;
    Ok(outcome)
}

/// Every write in one transaction, with at most four statements whatever the batch's size:
/// the fences, the hand starts, the settlements, the seat moves. `Err` when a statement failed
/// or the commit did (then nothing of the batch was written). A write whose table has a new
/// owner is refused and the others go on.
async fn together(pool: &PgPool, jobs: &[Task]) -> Result<Vec<Answer>, ChipsError> {
    let mut tx = pool.begin().await?;
    let fenced = lease::check_all(&mut tx, jobs.iter().filter_map(Task::fence)).await?;
    let mut outcomes: Vec<Option<Answer>> = Vec::with_capacity(jobs.len());
    // The batch's starts, settlements and moves, and where each one's answer goes.
    let (mut starts, mut started) = (Vec::new(), Vec::new());
    let (mut settles, mut settled) = (Vec::new(), Vec::new());
    let mut moved = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        if let Some(f) = job.fence().filter(|f| fenced.contains(f)) {
            let refusal = ChipsError::Fenced {
                table: f.table_id.clone(),
                epoch: f.epoch,
            };
            outcomes.push(Some(Answer::refused(job, refusal)));
            continue;
        }
        outcomes.push(None);
        match job {
            Task::Hand(Write::Start(s), _) => {
                started.push(i);
                starts.push(s.record());
            }
            Task::Hand(Write::Settle(s), _) => {
                settled.push(i);
                settles.push(s.record());
            }
            Task::Move(m, _) => moved.push((i, m)),
        }
    }
    if !starts.is_empty() {
        chips::start_hands(&mut *tx, &starts).await?;
        for &i in &started {
            outcomes[i] = Some(Answer::Hand(Ok(Outcome::Applied(()))));
        }
    }
    if !settles.is_empty() {
        let answers = chips::settle_hands(&mut *tx, &settles).await?;
        for (&i, answer) in settled.iter().zip(answers) {
            outcomes[i] = Some(Answer::Hand(answer));
        }
    }
    if !moved.is_empty() {
        // Accounts locked in one order by every batch, so two batches moving the same
        // players' chips (a player at two tables) wait for each other instead of deadlocking.
        moved.sort_by_key(|(_, m)| m.account);
        let moves: Vec<&SeatMove> = moved.iter().map(|(_, m)| *m).collect();
        let answers = chips::seat_moves(&mut tx, &moves).await?;
        for ((i, _), answer) in moved.iter().zip(answers) {
            outcomes[*i] = Some(Answer::Move(answer));
        }
    }
    tx.commit().await?;
    // Every write was answered above: fenced, started, settled or moved.
    Ok(jobs
        .iter()
        .zip(outcomes)
        .map(|(job, o)| o.unwrap_or_else(|| Answer::refused(job, writer_gone())))
        .collect())
}

async fn apply(conn: &mut PgConnection, write: &Write) -> Written {
    match write {
        Write::Start(s) => chips::start_hand(
            &mut *conn,
            s.id,
            &s.table_id,
            &s.deck_hash,
            &s.starting_stacks,
            s.number,
            &s.players,
        )
        .await
        .map(Outcome::Applied),
        Write::Settle(s) => {
            chips::settle_hand(
                &mut *conn,
                s.hand,
                &s.table_id,
                &s.stacks,
                s.rake,
                &s.history,
            )
            .await
        }
    }
}
