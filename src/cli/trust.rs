//! `warden trust [DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// The project folder (default: the current folder).
    pub dir: Option<PathBuf>,
}

pub fn run(_args: TrustArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`warden trust` is not implemented yet")
}
