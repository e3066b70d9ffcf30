//! `warden sessions list|show ID|delete ID`: the stored sessions.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;
use warden_i18n::Args;
use warden_journal::{ReplayItem, ReplayStatus, SessionStore, SessionStoreError, SessionSummary};
use warden_permissions::Locations;

use super::pending::age;

#[derive(Debug, clap::Subcommand)]
pub enum SessionsCommand {
    /// List the stored sessions, newest first.
    List(ListArgs),
    /// Show a stored session's conversation and tool calls.
    Show(IdArgs),
    /// Delete a stored session and its answers.
    Delete(IdArgs),
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// One JSON object a line instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct IdArgs {
    /// The session's id, as `warden sessions list` shows it, or the start of it that only
    /// one stored session has.
    id: String,
}

/// What an id, or the start of one, names among the stored sessions.
#[derive(Debug)]
pub enum Found {
    One(Box<SessionSummary>),
    None,
    /// The ids that start with it, when more than one does.
    Many(Vec<String>),
}

/// The stored session `query` names: the one with exactly that id, else the only one
/// whose id starts with it.
pub fn find(store: &SessionStore, query: &str) -> anyhow::Result<Found> {
    let all = store
        .list()
        .with_context(|| format!("cannot read the sessions in {}", store.dir().display()))?;
    if let Some(exact) = all.iter().find(|s| s.id == query) {
        return Ok(Found::One(Box::new(exact.clone())));
    }
    let mut matching: Vec<SessionSummary> = all
        .into_iter()
        .filter(|s| !query.is_empty() && s.id.starts_with(query))
        .collect();
    Ok(match matching.len() {
        0 => Found::None,
        1 => Found::One(Box::new(matching.remove(0))),
        _ => Found::Many(matching.into_iter().map(|s| s.id).collect()),
    })
}

/// The full id `query` names, or the exit code after saying why there is none.
#[allow(clippy::print_stdout)]
fn resolve(store: &SessionStore, query: &str) -> anyhow::Result<Result<String, ExitCode>> {
    let mut out = std::io::stdout().lock();
    match find(store, query)? {
        Found::One(summary) => Ok(Ok(summary.id)),
        Found::None => {
            writeln!(
                out,
                "No stored session has the id {query} (see `warden sessions list`)."
            )?;
            Ok(Err(ExitCode::from(1)))
        }
        Found::Many(ids) => {
            writeln!(out, "{query} starts more than one session's id:")?;
            for id in ids {
                writeln!(out, "  {id}")?;
            }
            Ok(Err(ExitCode::from(2)))
        }
    }
}

pub fn run(cmd: SessionsCommand) -> anyhow::Result<ExitCode> {
    let store = SessionStore::open(Locations::from_env().sessions_dir())?;
    match cmd {
        SessionsCommand::List(args) => list(&store, args.json),
        SessionsCommand::Show(args) => match resolve(&store, &args.id)? {
            Ok(id) => show(&store, &id),
            Err(code) => Ok(code),
        },
        SessionsCommand::Delete(args) => match resolve(&store, &args.id)? {
            Ok(id) => delete(&store, &id),
            Err(code) => Ok(code),
        },
    }
}

#[allow(clippy::print_stdout)]
fn list(store: &SessionStore, json: bool) -> anyhow::Result<ExitCode> {
    let sessions = store
        .list()
        .with_context(|| format!("cannot read the sessions in {}", store.dir().display()))?;
    let mut out = std::io::stdout().lock();
    if json {
        for s in &sessions {
            let line = json!({
                "id": s.id,
                "cwd": s.cwd,
                "title": s.title,
                "created_ms": s.created_ms,
                "updated_ms": s.updated_ms,
                "prompts": s.prompts,
                "waiting": s.waiting,
                "damaged_lines": s.problems,
            });
            writeln!(out, "{line}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if sessions.is_empty() {
        let path = store.dir().display().to_string();
        writeln!(
            out,
            "{}",
            super::words().text(
                "cli-sessions-none",
                &Args::new().with("path", path.as_str())
            )
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:<28} {:>7} {:>7} {:>7} {:<30} TITLE",
        "ID", "UPDATED", "PROMPTS", "WAITING", "CWD"
    )?;
    for s in &sessions {
        writeln!(
            out,
            "{:<28} {:>7} {:>7} {:>7} {:<30} {}",
            s.id,
            age(s.updated_ms),
            s.prompts,
            s.waiting,
            s.cwd.display(),
            s.title.as_deref().unwrap_or("")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::print_stdout)]
fn show(store: &SessionStore, id: &str) -> anyhow::Result<ExitCode> {
    let session = match store.load(id) {
        Ok(s) => s,
        Err(warden_journal::SessionStoreError::NotFound { .. }) => {
            writeln!(
                std::io::stdout().lock(),
                "No stored session has the id {id}."
            )?;
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "session {}", session.header.id)?;
    writeln!(out, "cwd     {}", session.header.cwd.display())?;
    writeln!(out, "created {} ago", age(session.header.created_ms))?;
    writeln!(out, "model   {}", session.model)?;
    writeln!(out, "mode    {}", session.mode)?;
    if let Some(title) = &session.title {
        writeln!(out, "title   {title}")?;
    }
    for p in &session.problems {
        writeln!(out, "! line {} not loaded: {:?}", p.line, p.kind)?;
    }
    writeln!(out)?;
    let waiting: Vec<&str> = session
        .waiting
        .iter()
        .filter(|w| w.asked.is_some())
        .map(|w| w.call.id.as_str())
        .collect();
    for item in &session.replay {
        match item {
            ReplayItem::User { text } => writeln!(out, "> {}", indent(text))?,
            ReplayItem::Agent { text } => writeln!(out, "{}", indent(text))?,
            ReplayItem::ToolCall(call) => {
                let status = if waiting.contains(&call.id.as_str()) {
                    "waiting for approval"
                } else {
                    match call.status {
                        ReplayStatus::Pending => "pending",
                        ReplayStatus::InProgress => "in progress",
                        ReplayStatus::Completed => "completed",
                        ReplayStatus::Failed => "failed",
                    }
                };
                writeln!(out, "[{}] {} ({status})", call.tool, call.title)?;
                if let Some(content) = &call.content {
                    writeln!(out, "    {}", indent(content))?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn indent(text: &str) -> String {
    text.replace('\n', "\n    ")
}

#[allow(clippy::print_stdout)]
fn delete(store: &SessionStore, id: &str) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match store.delete(id) {
        Ok(true) => {
            writeln!(
                out,
                "{}",
                super::words().text("cli-sessions-deleted", &Args::new().with("id", id))
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(false) => {
            writeln!(
                out,
                "{}",
                super::words().text("cli-sessions-unknown-id", &Args::new().with("id", id))
            )?;
            Ok(ExitCode::from(1))
        }
        Err(e @ SessionStoreError::Busy { .. }) => {
            writeln!(
                out,
                "Not deleted: {e}. Close it there (or stop that Warden) first."
            )?;
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(e.into()),
    }
}
