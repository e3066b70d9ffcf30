//! Command-line parsing and dispatch. Each subcommand lives in its own module.

mod acp;
mod audit;
mod audit_log;
mod chat;
mod doctor;
mod evaluate;
mod grants;
mod hook;
mod pending;
mod policy;
pub mod sandbox;
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

impl Cli {
    /// What clap parses `warden` with no arguments into: ACP on stdio, without a trace.
    /// No argument of this tree reads the environment or has a default that would
    /// change that; the test below holds the two equal.
    pub fn without_arguments() -> Cli {
        Cli {
            trace: None,
            command: None,
        }
    }
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
    /// What this system supports for confining commands, and what Warden does with it.
    Doctor,
    /// Answer another agent's pre-tool-use hook: reads its payload on stdin, prints
    /// Warden's verdict in that agent's format, always exits 0.
    Hook(hook::HookArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // The interactive chat owns the terminal: its logs go to a file, not over the screen.
    let log_file = match &cli.command {
        Some(Command::Chat(args)) if chat::is_interactive(args) => Some(chat::log_file()),
        _ => None,
    };
    init_logging(log_file);
    match cli.command {
        None | Some(Command::Acp) => acp::run(cli.trace.as_deref()),
        Some(Command::Chat(args)) => chat::run(args),
        Some(Command::Policy(cmd)) => policy::run(cmd),
        Some(Command::Grants(cmd)) => grants::run(cmd),
        Some(Command::Audit(cmd)) => audit::run(cmd),
        Some(Command::Trust(args)) => trust::run(args),
        Some(Command::Sessions(cmd)) => sessions::run(cmd),
        Some(Command::Pending(cmd)) => pending::run(cmd),
        Some(Command::Doctor) => doctor::run(),
        Some(Command::Hook(args)) => Ok(hook::run(&args)),
    }
}

/// Logs go to stderr only (`RUST_LOG`, default `warn`): stdout is the protocol wire.
/// With `file` (the interactive chat), they are appended to that file instead.
fn init_logging(file: Option<PathBuf>) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    if let Some(path) = file {
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let opened = private_log(&path);
        match opened {
            Ok(file) => {
                let _ = tracing_subscriber::fmt()
                    .with_env_filter(filter)
                    .with_writer(std::sync::Mutex::new(file))
                    .with_ansi(false)
                    .try_init();
                return;
            }
            // Not fatal: the logs then go to stderr, as everywhere else.
            Err(err) => init_logging_to_stderr(filter, Some((path, err))),
        }
        return;
    }
    init_logging_to_stderr(filter, None);
}

fn init_logging_to_stderr(
    filter: tracing_subscriber::EnvFilter,
    failed: Option<(PathBuf, std::io::Error)>,
) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        )
        .try_init();
    if let Some((path, err)) = failed {
        tracing::warn!(path = %path.display(), %err, "cannot open the chat's log file; logging to stderr");
    }
}

/// The language a person reads the commands' words in: `language` in the user's
/// `config.toml` (a file that cannot be read is left to the agent to report), else the
/// locale of the environment, else English.
pub fn language() -> warden_permissions::Language {
    let path = warden_permissions::Locations::from_env().user_config();
    let configured = warden_session::read_user_config(&path)
        .ok()
        .and_then(|config| config.language);
    warden_permissions::Language::from_process_env(configured.as_deref())
}

/// The commands' own messages (`cli.ftl`) in the reader's language.
pub fn words() -> &'static warden_i18n::Catalog {
    warden_i18n::catalog(language())
}

/// `text` padded with spaces to `width` columns as a terminal shows them (a Chinese
/// character takes two); `width` 0 leaves it as it is.
pub fn pad(text: &str, width: usize) -> String {
    let shown = unicode_width::UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(width.saturating_sub(shown)))
}

/// Opens a log file to append to, readable by the user only (0600, like everything else
/// Warden keeps): a chat's log holds what the agent and the user said.
pub fn private_log(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    // A file created before (0644) is made private too.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory as _, Parser as _};

    use super::Cli;

    /// `main` skips clap when there are no arguments; what it uses instead must be what
    /// clap would have parsed, or `warden` alone would behave differently from before.
    #[test]
    fn no_arguments_are_what_clap_parses_from_no_arguments() {
        let parsed = Cli::try_parse_from(["warden"]).expect("no arguments parse");
        assert_eq!(
            format!("{parsed:?}"),
            format!("{:?}", Cli::without_arguments())
        );
    }

    #[test]
    fn the_command_tree_is_consistent() {
        Cli::command().debug_assert();
    }
}
