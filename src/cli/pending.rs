//! `warden pending list|approve ID|deny ID [--note TEXT]`: the tool calls waiting for
//! approval in every stored session, answered from another terminal.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;
use warden_audit::{AuditEvent, AuditLog, Outcome};
use warden_permissions::{Decision, Locations};
use warden_session::{AnsweredBy, ClaimResult, Lookup, PendingCall, SessionStore, now_ms};

#[derive(Debug, clap::Subcommand)]
pub enum PendingCommand {
    /// List the calls waiting for approval.
    List(ListArgs),
    /// Allow a waiting call once.
    Approve(AnswerArgs),
    /// Deny a waiting call once.
    Deny(AnswerArgs),
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// One JSON object a line instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct AnswerArgs {
    /// The call's id as `warden pending list` shows it (`<session>/<call>`), or a
    /// prefix of it that only one waiting call has.
    id: String,
    /// A note for the model, sent with the answer.
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,
}

pub fn run(cmd: PendingCommand) -> anyhow::Result<ExitCode> {
    let locations = Locations::from_env();
    let store = SessionStore::open(locations.sessions_dir())?;
    match cmd {
        PendingCommand::List(args) => list(&store, args.json),
        PendingCommand::Approve(args) => answer(&store, &locations, &args, true),
        PendingCommand::Deny(args) => answer(&store, &locations, &args, false),
    }
}

/// An age for people: `42s`, `5m`, `3h`, `2d`.
pub fn age(since_ms: u64) -> String {
    let secs = now_ms().saturating_sub(since_ms) / 1000;
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

fn risk_word(call: &PendingCall) -> String {
    serde_json::to_value(call.call.risk)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[allow(clippy::print_stdout)]
fn list(store: &SessionStore, json: bool) -> anyhow::Result<ExitCode> {
    let pending = store
        .pending()
        .with_context(|| format!("cannot read the sessions in {}", store.dir().display()))?;
    let mut out = std::io::stdout().lock();
    if json {
        for p in &pending {
            let line = json!({
                "id": p.id(),
                "question": p.question,
                "session": p.session,
                "cwd": p.cwd,
                "tool": p.call.tool,
                "title": p.call.title,
                "risk": p.call.risk,
                "reason": p.call.reason,
                "args": p.call.args,
                "since_ms": p.call.at_ms,
            });
            writeln!(out, "{line}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if pending.is_empty() {
        writeln!(out, "No tool call is waiting for approval.")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:<40} {:<28} {:<30} {:<12} {:<8} {:>5} TITLE",
        "ID", "SESSION", "CWD", "TOOL", "RISK", "AGE"
    )?;
    for p in &pending {
        writeln!(
            out,
            "{:<40} {:<28} {:<30} {:<12} {:<8} {:>5} {}",
            p.id(),
            p.session,
            p.cwd.display(),
            p.call.tool,
            risk_word(p),
            age(p.call.at_ms),
            one_line(&p.call.title),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A title on one line, without the control characters a model could put in it.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[allow(clippy::print_stdout)]
fn answer(
    store: &SessionStore,
    locations: &Locations,
    args: &AnswerArgs,
    allow: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let (call, result) = match store.find_pending(&args.id)? {
        Lookup::Found(call) => {
            let result = store.answer_pending(&call, allow, args.note.clone())?;
            (call, result)
        }
        // Answered before and no longer waiting: refused and audited exactly like an
        // answer the claim refuses.
        Lookup::Answered { call, first } => (call, ClaimResult::Taken(Some(first))),
        Lookup::NotFound => {
            writeln!(
                out,
                "No tool call waiting for approval has the id {} (see `warden pending list`).",
                args.id
            )?;
            return Ok(ExitCode::from(1));
        }
        Lookup::Ambiguous(ids) => {
            writeln!(out, "{} names more than one waiting call:", args.id)?;
            for id in ids {
                writeln!(out, "  {id}")?;
            }
            return Ok(ExitCode::from(2));
        }
    };
    let audit = AuditLog::open(locations.audit_log());
    if let Err(e) = &audit {
        tracing::warn!(error = %e, "cannot open the audit log");
    }
    let by = json!({"answered_by": warden_session::answerer(AnsweredBy::Pending)});
    let event = |outcome| {
        AuditEvent::outcome(&call.session, &call.call.id, &call.call.tool, outcome)
            .with_decided_by(by.clone())
    };
    let code = match result {
        ClaimResult::Won => {
            let option_id = if allow { "allow-once" } else { "reject-once" };
            let note = args.note.clone().filter(|n| !n.trim().is_empty());
            let (outcome, decision) = if allow {
                let o = Outcome::Granted {
                    option_id: option_id.into(),
                    grant_id: None,
                    note,
                };
                (o, Decision::Allow)
            } else {
                let o = Outcome::Denied {
                    option_id: option_id.into(),
                    grant_id: None,
                    note,
                };
                (o, Decision::Deny)
            };
            if let Ok(log) = &audit {
                log.record(event(outcome).with_decision(decision));
            }
            writeln!(
                out,
                "{} {}: {}. A running Warden applies it within a second; otherwise it applies when the session is loaded.",
                if allow { "Approved" } else { "Denied" },
                call.id(),
                one_line(&call.call.title)
            )?;
            ExitCode::SUCCESS
        }
        ClaimResult::Taken(first) => {
            // Warden closed the question as it asked the call again (after a restart):
            // the question this answer was for is no longer open.
            let closed = first.as_ref().is_some_and(|c| c.by == AnsweredBy::Warden);
            let first = first.map_or("an answer that cannot be read".to_owned(), |c| {
                format!("{} by {}", c.option, c.by.as_words())
            });
            let reason = if closed {
                "the question was no longer open: Warden asked the call again".to_owned()
            } else {
                format!("a second answer was refused; the call was answered before ({first})")
            };
            if let Ok(log) = &audit {
                log.record(event(Outcome::Error { reason }));
            }
            if closed {
                writeln!(
                    out,
                    "{}: the question this answer was for is no longer open (Warden asked the call again); see `warden pending list`.",
                    call.id()
                )?;
            } else {
                writeln!(
                    out,
                    "{} was answered before ({first}); a question takes one answer, so this one is refused.",
                    call.id()
                )?;
            }
            ExitCode::from(1)
        }
    };
    if let Ok(log) = &audit
        && let Err(e) = log.flush()
    {
        tracing::warn!(error = %e, "cannot write the audit log");
    }
    Ok(code)
}
