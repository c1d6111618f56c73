//! Group commit: the hand starts and settlements of every table, written by one task in shared
//! transactions.
//!
//! Each table still waits for its own write to commit before it deals or shows a result; what
//! changes is that one commit (a WAL flush, a pooled connection, the transaction's round trips)
//! serves every write that arrived while the previous commit was in flight. Nothing waits on
//! purpose: at low load a batch is one write and costs what it did alone; under load batches
//! grow by themselves, and the delay a write can see is bounded by one batch's commit. A batch
//! is a few statements whatever its size (the fences, all its hand starts, all its
//! settlements: `chips::start_hands`, `chips::settle_hands`), because on a busy machine each
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

use crate::chips::{self, ChipsError, FinalStack, Outcome};
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

type Written = Result<Outcome<()>, ChipsError>;

struct Job {
    write: Write,
    reply: oneshot::Sender<Written>,
}

#[derive(Clone)]
pub struct HandWriter {
    jobs: mpsc::Sender<Job>,
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
            .send(Job { write, reply })
            .await
            .map_err(|_| writer_gone())?;
        answer.await.map_err(|_| writer_gone())?
    }
}

/// One writer: takes what is queued (waiting its turn while another writer takes), writes it,
/// and comes back for more.
async fn run(pool: PgPool, rx: Arc<Mutex<mpsc::Receiver<Job>>>, metrics: Arc<Metrics>) {
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

async fn write_batch(pool: &PgPool, jobs: Vec<Job>) {
    if jobs.len() > 1 {
        match together(pool, &jobs).await {
            Ok(outcomes) => {
                for (job, outcome) in jobs.into_iter().zip(outcomes) {
                    let _ = job.reply.send(outcome);
                }
                return;
            }
            Err(e) => tracing::debug!(error = %e, writes = jobs.len(), "batch failed; one by one"),
        }
    }
    for job in jobs {
        let outcome = alone(pool, &job.write).await;
        let _ = job.reply.send(outcome);
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

/// Every write in one transaction, with at most three statements whatever the batch's size:
/// the fences, the hand starts, the settlements. `Err` when a statement failed or the commit
/// did (then nothing of the batch was written). A write whose table has a new owner is refused
/// and the others go on.
async fn together(pool: &PgPool, jobs: &[Job]) -> Result<Vec<Written>, ChipsError> {
    let mut tx = pool.begin().await?;
    let fenced = lease::check_all(&mut tx, jobs.iter().filter_map(|j| j.write.fence())).await?;
    let mut outcomes: Vec<Option<Written>> = Vec::with_capacity(jobs.len());
    // The batch's starts and settlements, and where each one's answer goes.
    let (mut starts, mut started) = (Vec::new(), Vec::new());
    let (mut settles, mut settled) = (Vec::new(), Vec::new());
    for (i, job) in jobs.iter().enumerate() {
        if let Some(f) = job.write.fence().filter(|f| fenced.contains(f)) {
            outcomes.push(Some(Err(ChipsError::Fenced {
                table: f.table_id.clone(),
                epoch: f.epoch,
            })));
            continue;
        }
        outcomes.push(None);
        match &job.write {
            Write::Start(s) => {
                started.push(i);
                starts.push(s.record());
            }
            Write::Settle(s) => {
                settled.push(i);
                settles.push(s.record());
            }
        }
    }
    if !starts.is_empty() {
        chips::start_hands(&mut *tx, &starts).await?;
        for &i in &started {
            outcomes[i] = Some(Ok(Outcome::Applied(())));
        }
    }
    if !settles.is_empty() {
        let answers = chips::settle_hands(&mut *tx, &settles).await?;
        for (&i, answer) in settled.iter().zip(answers) {
            outcomes[i] = Some(answer);
        }
    }
    tx.commit().await?;
    // Every write was answered above: fenced, started, or settled.
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Err(writer_gone())))
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
