//! `warden chat`: parses the flags and runs the chat client (`warden-chat`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use std::sync::Arc;

use warden_acp_transport::{ServeOptions, serve};
use warden_chat::{AgentSpec, Approve, ChatOptions, InProcess, Prompts, split_command};
use warden_i18n::Language;
use warden_permissions::Locations;
use warden_session::WardenAgent;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ApproveArg {
    /// Ask the person; without a terminal, deny.
    Ask,
    /// Allow once, except calls the agent marks Critical (denied).
    All,
    /// Deny.
    None,
}

#[derive(Debug, Args)]
pub struct ChatArgs {
    /// Run this ACP agent ("CMD ARGS", split like a shell would, no shell run) instead of
    /// Warden's own.
    #[arg(long, value_name = "CMD ARGS")]
    pub agent: Option<String>,
    /// The session's folder (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// How permission requests are answered.
    #[arg(long, value_enum, default_value = "ask")]
    pub approve: ApproveArg,
    /// Send this prompt and exit; without it, prompts are read at the terminal (or line
    /// by line from stdin when it is not one).
    #[arg(long, value_name = "TEXT")]
    pub prompt: Option<String>,
    /// Load this session (`session/load`) instead of starting a new one, where the agent
    /// offers it.
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// MCP servers for the session, in the `mcpServers` JSON other clients use, on top
    /// of the `[[mcp_server]]` entries of the user's config.toml.
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,
}

/// Whether the chat will be interactive: no `--prompt`, and a terminal on both ends.
pub fn is_interactive(args: &ChatArgs) -> bool {
    args.prompt.is_none() && std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Where the interactive chat's own logs go (`chat.log` next to Warden's other state).
pub fn log_file() -> PathBuf {
    Locations::from_env().audit_log().with_file_name("chat.log")
}

/// What the chat takes from the user's `config.toml`, read in this one place: the
/// `[[mcp_server]]` entries, then those of `--mcp-config`, and the `language` of the
/// chat's own words (else the locale's). A config.toml that cannot be read is said and
/// skipped (Warden's agent says why too); a `--mcp-config` file that cannot be used stops
/// the chat.
fn settings(
    file: Option<&std::path::Path>,
) -> anyhow::Result<(Vec<warden_chat::McpServer>, Language)> {
    let path = Locations::from_env().user_config();
    let (mut servers, language) = match warden_session::read_user_config(&path) {
        Ok(config) => {
            let entries = config.mcp_servers.into_iter().map(server_entry).collect();
            (warden_chat::from_entries(entries, &path)?, config.language)
        }
        Err(err) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("warden chat: {err}; its MCP servers are not used");
            }
            (Vec::new(), None)
        }
    };
    if let Some(file) = file {
        servers.extend(warden_chat::from_json_file(file)?);
    }
    Ok((servers, Language::from_process_env(language.as_deref())))
}

/// A `[[mcp_server]]` entry as the chat takes it.
fn server_entry(e: warden_session::McpServerEntry) -> warden_chat::ServerEntry {
    warden_chat::ServerEntry {
        name: e.name,
        command: e.command,
        args: e.args,
        env: e.env.into_iter().collect(),
        url: e.url,
        headers: e.headers.into_iter().collect(),
    }
}

/// Warden's own agent, served in this process on the far end of a pipe whose near end
/// goes to the chat. Runs inside the chat's runtime.
fn own_agent(config: warden_session::AgentConfig) -> InProcess {
    let agent = Arc::new(WardenAgent::new(config));
    let (chat_end, agent_end) = tokio::io::duplex(256 * 1024);
    let (agent_in, agent_out) = tokio::io::split(agent_end);
    let serving = tokio::spawn({
        let agent = agent.clone();
        async move {
            // The chat handles the signals; the agent stops when its input ends.
            let options = ServeOptions::default();
            if let Err(err) = serve(agent, agent_in, agent_out, options).await {
                tracing::warn!(%err, "Warden's agent stopped with an error");
            }
        }
    });
    InProcess {
        stream: chat_end,
        serving,
        stopped: Box::new(move || agent.flush()),
    }
}

/// The stored session `query` names (its id, or a start of it only one id has) and its
/// folder; an error in one line when there is none.
fn stored_session(query: &str) -> anyhow::Result<(String, PathBuf)> {
    let store = warden_journal::SessionStore::open(Locations::from_env().sessions_dir())?;
    match super::sessions::find(&store, query)? {
        super::sessions::Found::One(summary) => Ok((summary.id, summary.cwd)),
        super::sessions::Found::None => {
            anyhow::bail!("no stored session has the id {query} (see `warden sessions list`)")
        }
        super::sessions::Found::Many(ids) => anyhow::bail!(
            "{query} starts more than one session's id ({}); give more of it",
            ids.join(", ")
        ),
    }
}

pub fn run(args: ChatArgs) -> anyhow::Result<ExitCode> {
    let interactive = is_interactive(&args);
    let given_cwd = args.cwd.is_some();
    let cwd = match args.cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let mut cwd = std::fs::canonicalize(&cwd)
        .with_context(|| format!("the folder {} cannot be used", cwd.display()))?;
    let mut resume = args.resume.clone();
    // Warden's own sessions are in its store: a unique start of an id names one, and the
    // session is resumed in its own folder.
    if let (Some(query), None) = (&args.resume, &args.agent) {
        let (id, folder) = stored_session(query)?;
        if folder != cwd {
            if given_cwd {
                anyhow::bail!(
                    "session {id} belongs to {}, not to {} (--cwd); leave --cwd out to resume it there",
                    folder.display(),
                    cwd.display()
                );
            }
            #[allow(clippy::print_stderr)]
            {
                eprintln!(
                    "Resuming session {id} in its own folder {} (not in {}).",
                    folder.display(),
                    cwd.display()
                );
            }
            cwd = folder;
        }
        resume = Some(id);
    }
    let prompts = match args.prompt {
        Some(text) => Prompts::One(text),
        // A person at a terminal: both ends of it, or the screen would go to a file.
        None if interactive => Prompts::Terminal,
        None => Prompts::Lines(Box::new(tokio::io::BufReader::new(tokio::io::stdin()))),
    };
    let approve = match args.approve {
        ApproveArg::Ask => Approve::Ask,
        ApproveArg::All => Approve::All,
        ApproveArg::None => Approve::None,
    };
    let (mcp_servers, language) = settings(args.mcp_config.as_deref())?;
    let words = warden_i18n::catalog(language);
    let (own, agent_log) = match &args.agent {
        Some(line) => (
            Err(split_command(line).map_err(|err| anyhow::anyhow!(err.describe(words)))?),
            // The agent's stderr goes next to Warden's other state, never over the screen.
            Some(
                Locations::from_env()
                    .audit_log()
                    .with_file_name("chat-agent.log"),
            ),
        ),
        None => {
            super::acp::protect_own_environment();
            (Ok(Box::new(super::acp::agent_config())), None)
        }
    };
    let history = matches!(prompts, Prompts::Terminal).then(|| {
        Locations::from_env()
            .audit_log()
            .with_file_name("chat-history")
    });
    // One thread, as for `warden acp` (decision 0004): the agent, the client and the
    // transcript share it; blocking work goes to the blocking pool.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(async move {
        let agent = match own {
            Ok(config) => AgentSpec::InProcess(own_agent(*config)),
            Err(argv) => AgentSpec::Command(argv),
        };
        let options = ChatOptions {
            agent,
            cwd,
            approve,
            prompts,
            agent_log,
            resume,
            history,
            mcp_servers,
            language,
        };
        warden_chat::run(options, Box::new(std::io::stdout())).await
    });
    // Do not wait for the stdin reader, which may sit in a blocking read.
    runtime.shutdown_background();
    let exit = result.map_err(|err| anyhow::anyhow!(err.describe(words)))?;
    Ok(ExitCode::from(exit.code()))
}
