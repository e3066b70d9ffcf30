//! `warden policy check` and `warden policy lint`.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum PolicyCommand {
    /// Evaluate one call and print the evaluation as JSON.
    Check,
    /// Report parse errors, shadowed, duplicate and dead rules.
    Lint,
}

pub fn run(_cmd: PolicyCommand) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warden policy` is not implemented yet")
}
