//! The `scoop` command line: one module per subcommand; `anyhow` lives only here and in
//! main.rs.

mod equity;
mod eval;
mod replay;
mod serve;
mod tables;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use server::config::{Config, DbArgs};
use server::{chips, db};

use tables::TablesAction;

#[derive(Parser)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the poker room (applies pending migrations first).
    Serve(Box<Config>),
    /// Apply pending database migrations and exit.
    Migrate {
        #[command(flatten)]
        db: DbArgs,
    },
    /// Measure the money layer: login password checks per second and buy-in transactions
    /// per second, on a scratch database created (and dropped) through DATABASE_URL.
    BenchMoney {
        #[arg(
            long,
            env = "DATABASE_URL",
            hide_env_values = true,
            default_value = "postgres://postgres@127.0.0.1:5432/postgres"
        )]
        database_url: String,
        #[arg(long, default_value_t = 200)]
        logins: usize,
        #[arg(long, default_value_t = 20_000)]
        buy_ins: usize,
        #[arg(long, default_value_t = 2)]
        hash_concurrency: usize,
    },
    /// Operator's tables: list, add, close (a running server picks changes up in seconds).
    Tables {
        #[command(flatten)]
        db: DbArgs,
        #[command(subcommand)]
        action: TablesAction,
    },
    /// Load test: WebSocket bots that register, buy in and play; prints a JSON report with
    /// hands per second and action-to-broadcast latency.
    Bots {
        /// Server base URL.
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        url: String,
        /// Comma-separated table ids (default: every table in the lobby).
        #[arg(long, value_delimiter = ',')]
        tables: Vec<String>,
        #[arg(long, default_value_t = 6)]
        per_table: usize,
        /// How long to measure, in seconds (after the warm-up).
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Seconds played before measuring: at first every table deals at the same moment.
        #[arg(long, default_value_t = 0)]
        warmup: u64,
        /// Thinking time before each action, in milliseconds, drawn uniformly from MIN-MAX
        /// (e.g. 300-1000). 0 = act at once, which saturates the machine.
        #[arg(long, default_value = "0", value_parser = parse_think)]
        think_ms: (u64, u64),
        /// Also open this many sockets that watch the first table and never read what it
        /// sends (a crowd of stalled spectators).
        #[arg(long, default_value_t = 0)]
        spectators: usize,
        /// Also open this many sockets that send nothing and only answer pings (pages
        /// left open on the lobby).
        #[arg(long, default_value_t = 0)]
        idle: usize,
        /// When a bot's connection is lost, it connects again, to the next of `--url` and
        /// these (other nodes of a cluster), and plays on in its seat. Without any, a lost
        /// connection stops the bot and counts as an error.
        #[arg(long)]
        reconnect_to: Vec<String>,
    },
    /// Check that balances + chips on tables + rake collected = chips granted.
    Audit {
        #[command(flatten)]
        db: DbArgs,
    },
    /// Best high and 8-or-better low of four hole cards on a five-card board
    /// (exactly two hole cards and three board cards each).
    ///
    /// Example: scoop eval AhKd2c3s 2h3h4h5h6h
    Eval {
        /// Four hole cards, e.g. AhKd2c3s
        hole: String,
        /// Five board cards, e.g. 2h3h4h5h6h
        board: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Each hand's equity: its average share of the pot over every way the board can finish
    /// (hi/lo split as the house rules split a pot), with its chances to scoop and to win or
    /// tie the high and the low. Exact when every hand is known, else Monte Carlo.
    ///
    /// Example: scoop equity Ac2c3c4d KsKhQsJs --board 2h7dTs
    Equity {
        /// Two to ten hands of four cards, e.g. AcKd2c3s; `random` for a hand nobody knows.
        #[arg(required = true, num_args = 2..=10)]
        hands: Vec<String>,
        /// The board so far: 0, 3 or 4 cards (5: the river, one showdown).
        #[arg(long)]
        board: Option<String>,
        /// Cards known to be out of play.
        #[arg(long)]
        dead: Option<String>,
        /// Sample this many boards (Monte Carlo) instead of enumerating them.
        #[arg(long)]
        trials: Option<u32>,
        /// Seed of the Monte Carlo generator (same seed, same result).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Replay PHH hand histories through the engine; prints one JSON line per hand.
    ///
    /// Reads `.phh` files (one hand) and `.phhs` files (tables [1], [2], ... each one hand).
    /// Supported subset of the PHH spec: variant FO/8 (fixed-limit Omaha hi/lo 8 or better),
    /// and PO/8 and NO/8 (pot limit and no limit; Scoop's extension codes); a small and a big
    /// blind, and maybe a straddle of two big blinds by p3 (no antes); a hand run twice
    /// carries its second run's cards in `_second_run`; integer amounts. Seats as in the
    /// spec: p1 is first left of the button and the last player is the button; heads-up p1 is
    /// the big blind and p2 the button and small blind. Actions: `d dh pN CARDS` (`????` hidden), `d db
    /// CARDS`, `pN f`, `pN cc`, `pN cbr AMOUNT` (to AMOUNT this street), `pN sm ...` (read,
    /// not checked: the engine decides who shows). Exits 1 if any hand is illegal,
    /// unfinished, or ends with stacks different from its `finishing_stacks`.
    Replay {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// `N` or `MIN-MAX` milliseconds.
fn parse_think(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("expected milliseconds as N or MIN-MAX, got {s:?}");
    let (min, max) = match s.split_once('-') {
        Some((a, b)) => (a.trim().parse(), b.trim().parse()),
        None => (s.trim().parse(), s.trim().parse()),
    };
    match (min, max) {
        (Ok(min), Ok(max)) if min <= max => Ok((min, max)),
        _ => Err(bad()),
    }
}

/// Input the command cannot use (malformed cards, missing flags): exit code 2, as clap's own
/// usage errors. Anything else that fails at run time exits 1.
#[derive(Debug)]
pub struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

pub fn usage(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(Usage(e.to_string()))
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Eval { hole, board, json } => eval::run(&hole, &board, json),
        Command::Equity {
            hands,
            board,
            dead,
            trials,
            seed,
            json,
        } => equity::run(equity::Args {
            hands: &hands,
            board: board.as_deref(),
            dead: dead.as_deref(),
            trials,
            seed,
            json,
        }),
        Command::Replay { files } => replay::run(&files),
        Command::Serve(config) => runtime()?.block_on(serve::run(*config)),
        Command::Migrate { db: args } => runtime()?.block_on(async {
            let pool = db::connect(&args.database_url)
                .await
                .context("connecting to the database")?;
            db::migrate(&pool).await.context("migrating")?;
            println!("migrations applied");
            Ok(ExitCode::SUCCESS)
        }),
        Command::BenchMoney {
            database_url,
            logins,
            buy_ins,
            hash_concurrency,
        } => runtime()?.block_on(async {
            let figures =
                server::bench::money(&database_url, logins, buy_ins, hash_concurrency).await?;
            println!("{}", serde_json::to_string_pretty(&figures)?);
            Ok(ExitCode::SUCCESS)
        }),
        Command::Tables { db: args, action } => runtime()?.block_on(tables::run(&args, action)),
        Command::Bots {
            url,
            tables,
            per_table,
            seconds,
            warmup,
            think_ms,
            spectators,
            idle,
            reconnect_to,
        } => runtime()?.block_on(async {
            init_logs(false);
            let report = server::bots::client::run(server::bots::client::Options {
                url,
                tables,
                per_table,
                duration: Duration::from_secs(seconds),
                think: Duration::from_millis(think_ms.0)..=Duration::from_millis(think_ms.1),
                warmup: Duration::from_secs(warmup),
                spectators,
                idle,
                reconnect_to,
            })
            .await?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(ExitCode::SUCCESS)
        }),
        Command::Audit { db: args } => runtime()?.block_on(async {
            let pool = db::connect(&args.database_url)
                .await
                .context("connecting to the database")?;
            let audit = chips::audit(&pool).await?;
            println!("{}", serde_json::to_string(&audit)?);
            Ok(if audit.balanced() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }),
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

pub fn init_logs(json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tower_http=info,sqlx=warn"));
    // Logs go to stderr: stdout carries the reports of `bots`, `audit` and `eval`.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}

#[cfg(test)]
mod tests {
    use super::parse_think;

    #[test]
    fn think_time_is_one_value_or_an_ordered_range() {
        assert_eq!(parse_think("0"), Ok((0, 0)));
        assert_eq!(parse_think("300-1000"), Ok((300, 1000)));
        assert!(parse_think("1000-300").is_err());
        assert!(parse_think("fast").is_err());
        assert!(parse_think("-5").is_err());
    }
}
