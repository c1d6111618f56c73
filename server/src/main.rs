//! The `scoop` binary: the poker room server and its developer tools.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// glibc's allocator took a fifth of the server's CPU under load (most of it in
/// `malloc_consolidate` and its free lists); mimalloc's per-thread free lists do not.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
