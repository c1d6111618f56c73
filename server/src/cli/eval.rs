//! `scoop eval`: best high and low of a hand on a board.

use std::process::ExitCode;

use serde_json::json;
use shared::card::{Card, format_cards};
use shared::eval::best_hands;

use super::usage;

pub fn run(hole: &str, board: &str, as_json: bool) -> anyhow::Result<ExitCode> {
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
