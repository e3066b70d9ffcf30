//! `warden grants list` and `warden grants revoke ID`.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum GrantsCommand {
    /// List the stored decisions.
    List,
}

pub fn run(_cmd: GrantsCommand) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warden grants` is not implemented yet")
}
