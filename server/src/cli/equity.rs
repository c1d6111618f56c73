//! `scoop equity`: each hand's share of the pot over the rest of the board.

use std::process::ExitCode;

use serde_json::json;
use shared::card::{Card, format_cards};
use shared::equity::{Computed, Method, Spot, equity};

use super::usage;

/// What a hand argument may say instead of four cards: a hand nobody knows.
const RANDOM: [&str; 2] = ["random", "?"];

pub struct Args<'a> {
    pub hands: &'a [String],
    pub board: Option<&'a str>,
    pub dead: Option<&'a str>,
    pub trials: Option<u32>,
    pub seed: u64,
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let hands = args
        .hands
        .iter()
        .enumerate()
        .map(|(i, text)| {
            if RANDOM.contains(&text.as_str()) {
                return Ok(None);
            }
            Card::parse_exact::<4>(text)
                .map(Some)
                .map_err(|e| usage(format!("hand {}: {e}", i + 1)))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let cards = |what: &str, text: Option<&str>| {
        text.map_or(Ok(Vec::new()), |t| {
            Card::parse_many(t).map_err(|e| usage(format!("{what}: {e}")))
        })
    };
    let spot = Spot {
        hands,
        board: cards("board", args.board)?,
        dead: cards("dead cards", args.dead)?,
    };
    let method = match args.trials {
        Some(trials) => Method::MonteCarlo {
            trials,
            seed: args.seed,
        },
        None => Method::Auto,
    };
    // The tables are built first, so that `micros` is the computation alone (as the browser
    // test measures the calculator's worker, for the wasm-against-native ratio).
    shared::eval::warm_up();
    let started = std::time::Instant::now();
    let result = equity(&spot, method).map_err(usage)?;
    let micros = started.elapsed().as_micros();
    let names: Vec<String> = spot
        .hands
        .iter()
        .map(|h| h.map_or_else(|| "random".to_string(), |h| format_cards(&h)))
        .collect();

    if args.json {
        let players: Vec<_> = names
            .iter()
            .zip(&result.players)
            .map(|(hand, e)| {
                json!({"hand": hand, "pot": e.pot, "scoop": e.scoop, "high": e.high,
                       "low": e.low, "pot_error": e.pot_error})
            })
            .collect();
        let out = json!({
            "board": format_cards(&spot.board),
            "dead": format_cards(&spot.dead),
            "players": players,
            "no_low": result.no_low,
            "computed": result.computed,
            "micros": micros,
        });
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }

    match result.computed {
        Computed::Exact { boards } => println!("Exact, {boards} boards"),
        Computed::MonteCarlo { trials, seed } => {
            println!("Monte Carlo, {trials} trials (seed {seed})")
        }
    }
    println!(
        "{:<12} {:>9} {:>8} {:>8} {:>8}",
        "hand", "pot", "scoop", "high", "low"
    );
    let percent = |p: f64| format!("{:.2}%", 100.0 * p);
    for (hand, e) in names.iter().zip(&result.players) {
        let pot = match result.computed {
            Computed::Exact { .. } => format!("{:.4}%", 100.0 * e.pot),
            Computed::MonteCarlo { .. } => {
                format!("{} ±{:.2}", percent(e.pot), 100.0 * e.pot_error)
            }
        };
        println!(
            "{hand:<12} {pot:>9} {:>8} {:>8} {:>8}",
            percent(e.scoop),
            percent(e.high),
            percent(e.low)
        );
    }
    println!("no low: {}", percent(result.no_low));
    Ok(ExitCode::SUCCESS)
}
