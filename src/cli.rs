//! Command-line parsing and dispatch. Each subcommand lives in its own module.

mod acp;
mod audit;
mod chat;
mod grants;
mod pending;
mod policy;
mod sessions;
mod trust;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Warden: an ACP agent whose every tool call goes through a permission policy engine.
#[derive(Debug, Parser)]
#[command(name = "warden", version, about)]
pub struct Cli {
    /// Append every protocol line, with its direction, to this file.
    #[arg(long, global = true, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve ACP on stdin/stdout (the default).
    Acp,
    /// A terminal ACP client for Warden's own agent or any other (`--agent`); without a
    /// terminal it reads prompts from `--prompt` or stdin and prints a plain log.
    Chat(chat::ChatArgs),
    /// Inspect the policy.
    #[command(subcommand)]
    Policy(policy::PolicyCommand),
    /// Stored decisions.
    #[command(subcommand)]
    Grants(grants::GrantsCommand),
    /// The audit log.
    #[command(subcommand)]
    Audit(audit::AuditCommand),
    /// Mark a project as trusted, so its own allow rules apply.
    Trust(trust::TrustArgs),
    /// Stored sessions.
    #[command(subcommand)]
    Sessions(sessions::SessionsCommand),
    /// Tool calls waiting for approval in the stored sessions, answered from here.
    #[command(subcommand)]
    Pending(pending::PendingCommand),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    init_logging();
    match cli.command {
        None | Some(Command::Acp) => acp::run(cli.trace.as_deref()),
        Some(Command::Chat(args)) => chat::run(args),
        Some(Command::Policy(cmd)) => policy::run(cmd),
        Some(Command::Grants(cmd)) => grants::run(cmd),
        Some(Command::Audit(cmd)) => audit::run(cmd),
        Some(Command::Trust(args)) => trust::run(args),
        Some(Command::Sessions(cmd)) => sessions::run(cmd),
        Some(Command::Pending(cmd)) => pending::run(cmd),
    }
}

/// Logs go to stderr only (`RUST_LOG`, default `warn`): stdout is the protocol wire.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        )
        .try_init();
}
