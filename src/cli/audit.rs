//! `warden audit tail` and `warden audit verify`.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum AuditCommand {
    /// Print the last entries.
    Tail,
}

pub fn run(_cmd: AuditCommand) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warden audit` is not implemented yet")
}
