//! `warden trust [DIR]`.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use warden_permissions::{Locations, TrustStore};

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// The project folder (default: the current folder).
    pub dir: Option<PathBuf>,
}

#[allow(clippy::print_stdout)]
pub fn run(args: TrustArgs) -> anyhow::Result<ExitCode> {
    let dir = match args.dir {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let store = TrustStore::new(Locations::from_env().trusted_projects());
    let canonical = store
        .trust(&dir)
        .with_context(|| format!("cannot trust {}", dir.display()))?;
    writeln!(
        std::io::stdout().lock(),
        "Trusted {}: its own allow rules now apply.",
        canonical.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
