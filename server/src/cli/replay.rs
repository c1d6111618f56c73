//! `scoop replay`: PHH hand histories through the engine.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;
use shared::history::phh;

pub fn run(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
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
