//! `scoop tables`: the operator's tables in the database.

use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use server::db;

use server::config::DbArgs;

use super::usage;

#[derive(Subcommand)]
pub enum TablesAction {
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
pub struct AddTable {
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
    /// Run it twice when all-in (docs/rules.md §3.8).
    #[arg(long)]
    run_twice: bool,
    /// Players may straddle (docs/rules.md §4.8).
    #[arg(long)]
    straddle: bool,
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
    #[arg(long)]
    run_out_street_ms: Option<u64>,
    /// Seconds a freed seat is held for the first player on the waiting list (§7.14).
    #[arg(long)]
    seat_offer_secs: Option<u32>,
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

pub async fn run(db_args: &DbArgs, action: TablesAction) -> anyhow::Result<ExitCode> {
    use server::tables::def::{self, TableDef};
    let pool = db::connect(&db_args.database_url)
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
                run_twice,
                straddle,
                practice,
                house_bots,
                sit_out_hands,
                sit_out_minutes,
                between_hands_ms,
                run_out_street_ms,
                seat_offer_secs,
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
            t.run_twice = run_twice;
            t.straddle = straddle;
            t.practice = practice;
            t.house_bots = house_bots.unwrap_or(t.house_bots);
            t.sit_out_hands = sit_out_hands.unwrap_or(t.sit_out_hands);
            t.sit_out_minutes = sit_out_minutes.unwrap_or(t.sit_out_minutes);
            t.between_hands_ms = between_hands_ms.unwrap_or(t.between_hands_ms);
            t.run_out_street_ms = run_out_street_ms.unwrap_or(t.run_out_street_ms);
            t.seat_offer_secs = seat_offer_secs.unwrap_or(t.seat_offer_secs);
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
