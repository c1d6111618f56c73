//! The `scoop` binary: the poker room server and its developer tools.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    match cli::run(cli::Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("scoop: {e:#}");
            if e.downcast_ref::<cli::Usage>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
