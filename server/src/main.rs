//! The `scoop` binary: the poker room server and its developer tools.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use serde_json::json;
use server::config::Config;
use server::{app, chips, db};
use shared::card::{Card, format_cards};
use shared::eval::best_hands;
use shared::history::phh;

#[derive(Parser)]
#[command(
    name = "scoop",
    version,
    about = "Scoop: Omaha Hi/Lo 8-or-better poker room"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the poker room (applies pending migrations first).
    Serve(Config),
    /// Apply pending database migrations and exit.
    Migrate {
        #[arg(
            long,
            env = "DATABASE_URL",
            hide_env_values = true,
            default_value = "postgres://postgres@127.0.0.1:5432/scoop"
        )]
        database_url: String,
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
        #[arg(
            long,
            env = "DATABASE_URL",
            hide_env_values = true,
            default_value = "postgres://postgres@127.0.0.1:5432/scoop"
        )]
        database_url: String,
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
    },
    /// Check that balances + chips on tables + rake collected = chips granted.
    Audit {
        #[arg(
            long,
            env = "DATABASE_URL",
            hide_env_values = true,
            default_value = "postgres://postgres@127.0.0.1:5432/scoop"
        )]
        database_url: String,
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
    /// Replay PHH hand histories through the engine; prints one JSON line per hand.
    ///
    /// Reads `.phh` files (one hand) and `.phhs` files (tables [1], [2], ... each one hand).
    /// Supported subset of the PHH spec: variant FO/8 (fixed-limit Omaha hi/lo 8 or better),
    /// and PO/8 and NO/8 (pot limit and no limit; Scoop's extension codes); small and big
    /// blind only (no antes or straddles); integer amounts. Seats as in the spec: p1 is first
    /// left of the button and the last player is the button; heads-up p1 is the big blind
    /// and p2 the button and small blind. Actions: `d dh pN CARDS` (`????` hidden), `d db
    /// CARDS`, `pN f`, `pN cc`, `pN cbr AMOUNT` (to AMOUNT this street), `pN sm ...` (read,
    /// not checked: the engine decides who shows). Exits 1 if any hand is illegal,
    /// unfinished, or ends with stacks different from its `finishing_stacks`.
    Replay {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Subcommand)]
enum TablesAction {
    /// Open tables, one line each.
    List,
    /// Open a table (or update and reopen one with this id), from flags or from a tables file
    /// (`--file`, `[[table]]` entries as in tables.toml). Unset fields take their defaults.
    Add(Box<AddTable>),
    /// Close a table: no more hands; players are cashed out after the current one.
    Close { id: String },
}

/// `scoop tables add`: a table from flags, or every table of a file.
#[derive(clap::Args)]
struct AddTable {
    /// A tables file: open every table in it (instead of the flags below).
    #[arg(long, conflicts_with_all = ["id", "name", "structure", "big_blind"])]
    file: Option<String>,
    #[arg(long, required_unless_present = "file")]
    id: Option<String>,
    #[arg(long, required_unless_present = "file")]
    name: Option<String>,
    /// fixed-limit, pot-limit or no-limit
    #[arg(long, value_parser = parse_structure, required_unless_present = "file")]
    structure: Option<shared::rules::Structure>,
    /// Big blind; in fixed limit also the small bet unless --small-bet says otherwise.
    #[arg(long, required_unless_present = "file")]
    big_blind: Option<u64>,
    /// Small blind (default: half the big blind).
    #[arg(long)]
    small_blind: Option<u64>,
    /// Fixed limit: the small bet (the big bet is twice it).
    #[arg(long)]
    small_bet: Option<u64>,
    #[arg(long)]
    seats: Option<u8>,
    #[arg(long)]
    min_buy_in: Option<u64>,
    #[arg(long)]
    max_buy_in: Option<u64>,
    #[arg(long)]
    clock_secs: Option<u32>,
    #[arg(long)]
    time_bank_secs: Option<u32>,
    /// Rake per pot in basis points (500 = 5%).
    #[arg(long)]
    rake_basis_points: Option<u32>,
    /// Rake cap per hand.
    #[arg(long)]
    rake_cap: Option<u64>,
    #[arg(long)]
    uncapped_heads_up: bool,
    #[arg(long)]
    practice: bool,
    #[arg(long)]
    house_bots: Option<u8>,
    #[arg(long)]
    sit_out_hands: Option<u32>,
    #[arg(long)]
    sit_out_minutes: Option<u32>,
    #[arg(long)]
    between_hands_ms: Option<u64>,
}

fn parse_structure(s: &str) -> Result<shared::rules::Structure, String> {
    use shared::rules::Structure;
    match s {
        "fixed-limit" | "fl" | "FL" => Ok(Structure::FixedLimit),
        "pot-limit" | "pl" | "PL" => Ok(Structure::PotLimit),
        "no-limit" | "nl" | "NL" => Ok(Structure::NoLimit),
        _ => Err("expected fixed-limit, pot-limit or no-limit".into()),
    }
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
struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

fn usage(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(Usage(e.to_string()))
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("scoop: {e:#}");
            if e.downcast_ref::<Usage>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Eval { hole, board, json } => eval(&hole, &board, json),
        Command::Replay { files } => replay_files(&files),
        Command::Serve(config) => runtime()?.block_on(serve(config)),
        Command::Migrate { database_url } => runtime()?.block_on(async {
            let pool = db::connect(&database_url)
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
        Command::Tables {
            database_url,
            action,
        } => runtime()?.block_on(tables(&database_url, action)),
        Command::Bots {
            url,
            tables,
            per_table,
            seconds,
            warmup,
            think_ms,
            spectators,
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
            })
            .await?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            Ok(ExitCode::SUCCESS)
        }),
        Command::Audit { database_url } => runtime()?.block_on(async {
            let pool = db::connect(&database_url)
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

async fn tables(database_url: &str, action: TablesAction) -> anyhow::Result<ExitCode> {
    use server::tables::def::{self, TableDef};
    let pool = db::connect(database_url)
        .await
        .context("connecting to the database")?;
    db::migrate(&pool).await.context("migrating")?;
    match action {
        TablesAction::List => {
            for t in def::open_tables(&pool).await? {
                let stakes = t.stakes()?;
                println!(
                    "{}\t{}\t{} {}/{}\t{} seats{}",
                    t.id,
                    t.name,
                    stakes.structure.code(),
                    stakes.small_blind,
                    stakes.big_blind,
                    t.seats,
                    if t.practice { "\tpractice" } else { "" }
                );
            }
        }
        TablesAction::Add(add) => {
            if let Some(file) = &add.file {
                for t in def::load_file(file)? {
                    def::upsert(&pool, &t).await?;
                    println!("table {} open", t.id);
                }
                return Ok(ExitCode::SUCCESS);
            }
            let AddTable {
                id,
                name,
                structure,
                big_blind,
                small_blind,
                small_bet,
                seats,
                min_buy_in,
                max_buy_in,
                clock_secs,
                time_bank_secs,
                rake_basis_points,
                rake_cap,
                uncapped_heads_up,
                practice,
                house_bots,
                sit_out_hands,
                sit_out_minutes,
                between_hands_ms,
                ..
            } = *add;
            // clap requires these without --file.
            let (Some(id), Some(name), Some(structure), Some(big_blind)) =
                (id, name, structure, big_blind)
            else {
                return Err(usage(
                    "--id, --name, --structure and --big-blind are required without --file",
                ));
            };
            let mut t = TableDef::new(
                &id,
                &name,
                structure,
                small_blind.unwrap_or(big_blind / 2),
                big_blind,
            );
            if small_bet.is_some() {
                t.small_bet = small_bet;
            }
            t.min_buy_in = min_buy_in;
            t.max_buy_in = max_buy_in;
            t.seats = seats.unwrap_or(t.seats);
            t.clock_secs = clock_secs.unwrap_or(t.clock_secs);
            t.time_bank_secs = time_bank_secs.unwrap_or(t.time_bank_secs);
            t.rake_basis_points = rake_basis_points.unwrap_or(t.rake_basis_points);
            t.rake_cap = rake_cap.unwrap_or(t.rake_cap);
            t.uncapped_heads_up = uncapped_heads_up;
            t.practice = practice;
            t.house_bots = house_bots.unwrap_or(t.house_bots);
            t.sit_out_hands = sit_out_hands.unwrap_or(t.sit_out_hands);
            t.sit_out_minutes = sit_out_minutes.unwrap_or(t.sit_out_minutes);
            t.between_hands_ms = between_hands_ms.unwrap_or(t.between_hands_ms);
            def::upsert(&pool, &t).await?;
            println!("table {id} open");
        }
        TablesAction::Close { id } => {
            if def::close(&pool, &id).await? {
                println!("table {id} closing");
            } else {
                anyhow::bail!("no open table `{id}`");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

fn init_logs(json: bool) {
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

async fn serve(config: Config) -> anyhow::Result<ExitCode> {
    init_logs(config.log_json);
    let pool = db::connect(&config.database_url)
        .await
        .context("connecting to the database")?;
    db::migrate(&pool).await.context("migrating the database")?;
    let bind = config.bind;
    let grace = Duration::from_secs(config.shutdown_grace_secs);
    let state = app::AppState::start(pool, config).await?;
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("binding {bind}"))?;
    // The address actually bound: with port 0 the system picks one, and tests read it here.
    let addr = listener.local_addr().context("reading the bound address")?;
    tracing::info!(%addr, "scoop listening");

    // Tables opened or closed with `scoop tables` are picked up within seconds.
    let tables = state.tables.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        loop {
            every.tick().await;
            if let Err(e) = tables.sync().await {
                tracing::warn!(error = %e, "could not refresh the table list");
            }
        }
    });

    let tables = state.tables.clone();
    axum::serve(
        listener,
        app::router(state).into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown_signal().await;
        // Stop dealing, let running hands finish, then close the sockets.
        tables.drain(grace).await;
        tracing::info!("hands finished; closing connections");
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}

fn eval(hole: &str, board: &str, as_json: bool) -> anyhow::Result<ExitCode> {
    let hole = Card::parse_exact::<4>(hole).map_err(|e| usage(format!("hole cards: {e}")))?;
    let board = Card::parse_exact::<5>(board).map_err(|e| usage(format!("board: {e}")))?;
    if let Some(c) = hole.iter().find(|c| board.contains(c)) {
        return Err(usage(format!(
            "card {c} is both in the hand and on the board"
        )));
    }
    let (high, low) = best_hands(&hole, &board);
    if as_json {
        let low = low.map(|l| json!({"cards": format_cards(&l.cards), "label": l.value.label()}));
        let out = json!({
            "high": {"cards": format_cards(&high.cards), "label": high.value.label()},
            "low": low,
        });
        println!("{out}");
    } else {
        println!(
            "High: {} ({})",
            high.value.label(),
            format_cards(&high.cards)
        );
        match low {
            Some(l) => println!("Low:  {} ({})", l.value.label(), format_cards(&l.cards)),
            None => println!("Low:  no low"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn replay_files(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut failed = false;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for path in files {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let hands = match phh::parse_file(&text, &file_name) {
            Ok(hands) => hands,
            Err(e) => {
                failed = true;
                writeln!(
                    out,
                    "{}",
                    json!({"file": file_name, "error": e.to_string()})
                )?;
                continue;
            }
        };
        for (name, hand) in hands {
            let label = match name.parse::<u64>() {
                Ok(i) => json!(i),
                Err(_) => json!(name),
            };
            let line = match hand {
                Err(e) => {
                    failed = true;
                    json!({"hand": label, "file": file_name, "error": e.to_string()})
                }
                Ok(hand) => match phh::replay(&hand) {
                    Err(e) => {
                        failed = true;
                        json!({"hand": label, "file": file_name, "error": e.to_string()})
                    }
                    Ok(stacks) => match &hand.finishing_stacks {
                        Some(expected) if *expected != stacks => {
                            failed = true;
                            json!({
                                "hand": label,
                                "finishing_stacks": stacks,
                                "mismatch": {"file_finishing_stacks": expected},
                            })
                        }
                        _ => json!({"hand": label, "finishing_stacks": stacks}),
                    },
                },
            };
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
