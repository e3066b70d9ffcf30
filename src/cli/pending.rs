//! `warden pending list|show ID|approve ID|deny ID [--note TEXT]`: the tool calls waiting
//! for approval in every stored session, shown whole and answered from another terminal.
//! Approving a High or Critical call takes its full id and a confirmation (`--yes` when
//! there is no terminal to confirm on).

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;
use warden_audit::{AuditEvent, Outcome};
use warden_i18n::Args;
use warden_journal::{AnsweredBy, ClaimResult, Lookup, PendingCall, SessionStore, now_ms};
use warden_permissions::{
    Context, Decision, Engine, Language, Locations, Risk, SessionGrants, ToolCall,
};

#[derive(Debug, clap::Subcommand)]
pub enum PendingCommand {
    /// List the calls waiting for approval.
    List(ListArgs),
    /// Show a waiting call whole: its arguments, the diff of a write, its risk.
    Show(ShowArgs),
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
pub struct ShowArgs {
    /// The call's id as `warden pending list` shows it, or a prefix of it that only one
    /// waiting call has.
    id: String,
}

#[derive(Debug, clap::Args)]
pub struct AnswerArgs {
    /// The call's id as `warden pending list` shows it (`<session>/<call>`), or a
    /// prefix of it that only one waiting call has.
    id: String,
    /// A note for the model, sent with the answer.
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,
    /// Approve a High or Critical call without asking to confirm (for scripts: without a
    /// terminal there is no one to ask). Its full id is still needed.
    #[arg(long)]
    yes: bool,
}

pub fn run(cmd: PendingCommand) -> anyhow::Result<ExitCode> {
    let locations = Locations::from_env();
    let store = SessionStore::open(locations.sessions_dir())?;
    match cmd {
        PendingCommand::List(args) => list(&store, args.json),
        PendingCommand::Show(args) => show(&store, &args.id),
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
                "reason": risk_sentence(p),
                "args": p.call.args,
                "since_ms": p.call.at_ms,
            });
            writeln!(out, "{line}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if pending.is_empty() {
        writeln!(out, "{}", super::words().plain("cli-pending-none"))?;
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

/// The audited outcome of an answer that won its claim: approved or denied once, with
/// the note when it says something.
fn answered(allow: bool, note: Option<String>) -> (Outcome, Decision) {
    let note = note.filter(|n| !n.trim().is_empty());
    if allow {
        let o = Outcome::Granted {
            option_id: "allow-once".into(),
            grant_id: None,
            note,
        };
        (o, Decision::Allow)
    } else {
        let o = Outcome::Denied {
            option_id: "reject-once".into(),
            grant_id: None,
            note,
        };
        (o, Decision::Deny)
    }
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
            if allow && let Some(code) = confirmed(&call, args, &mut out)? {
                return Ok(code);
            }
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
    let audit = super::audit_log::open(locations);
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
            let (outcome, decision) = answered(allow, args.note.clone());
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

/// `low` as `Low`, as a risk reads at the start of a sentence.
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The call's risk in words, as its permission request says it
/// (`Critical: recursively deletes /root, the home folder`). The journal keeps the risk
/// and what the call does; the sentence of why it has that risk is the engine's, for the
/// same call in the same folder, whenever it rates the call as the session did
/// (otherwise the journal's words stand).
/// In English, for `--json`.
fn risk_sentence(p: &PendingCall) -> String {
    let word = capitalised(p.call.risk.as_str());
    match fresh_risk_reason(p, Language::English) {
        Some(reason) => format!("{word}: {reason}"),
        None => format!("{word}: {}", p.call.reason),
    }
}

/// [`risk_sentence`] in the reader's language, for people.
fn risk_line(p: &PendingCall) -> String {
    let language = super::language();
    let reason = fresh_risk_reason(p, language).unwrap_or_else(|| p.call.reason.clone());
    super::words().text(
        "cli-pending-risk",
        &Args::new()
            .with("risk", p.call.risk.as_str())
            .with("reason", reason),
    )
}

fn fresh_risk_reason(p: &PendingCall, language: Language) -> Option<String> {
    let locations = Locations::from_env();
    let engine = Engine::load(&locations, &p.cwd);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let ctx = Context::for_session(&p.cwd, home.as_deref(), &[], &locations);
    let call = ToolCall::from_model(p.call.tool.clone(), p.call.args.clone()).ok()?;
    let evaluation = engine.evaluate(
        &call,
        &ctx,
        engine.settings().mode,
        &SessionGrants::new("warden-pending"),
    );
    (evaluation.risk == p.call.risk && !evaluation.risk_reason.is_empty())
        .then(|| evaluation.risk_reason.render(language))
}

/// Everything a person needs to decide on a waiting call, in lines.
fn details(p: &PendingCall) -> Vec<String> {
    let words = super::words();
    // Labels padded to one column as a terminal shows them (a Chinese label is wider).
    let label = |id: &str| super::pad(&words.plain(id), 10);
    let cwd = p.cwd.display().to_string();
    let session = words.text(
        "cli-pending-session-in",
        &Args::new()
            .with("session", p.session.as_str())
            .with("cwd", cwd.as_str()),
    );
    let mut lines = vec![
        format!("{}{}", label("cli-pending-label-call"), p.id()),
        format!("{}{session}", label("cli-pending-label-session")),
        format!("{}{}", label("cli-pending-label-tool"), p.call.tool),
        format!(
            "{}{}",
            label("cli-pending-label-title"),
            one_line(&p.call.title)
        ),
        format!(
            "{}{}",
            label("cli-pending-label-risk"),
            one_line(&risk_line(p))
        ),
        format!(
            "{}{}",
            label("cli-pending-label-waiting"),
            age(p.call.at_ms)
        ),
    ];
    if let Some(command) = p.call.args.get("command").and_then(|c| c.as_str()) {
        lines.push("Command".to_owned());
        for (i, line) in command.lines().enumerate() {
            let mark = if i == 0 { "$" } else { " " };
            lines.push(format!("  {mark} {}", warden_chat::clean(line)));
        }
    }
    lines.push("Arguments".to_owned());
    let pretty = serde_json::to_string_pretty(&p.call.args).unwrap_or_default();
    lines.extend(
        pretty
            .lines()
            .map(|line| format!("  {}", warden_chat::clean(line))),
    );
    if let Some(diff) = diff_of(p) {
        lines.push("Diff".to_owned());
        lines.extend(diff);
    }
    lines
}

/// The largest file `pending show` reads to diff a write against.
const DIFF_READ_LIMIT: u64 = 1 << 20;

/// What a write or an edit would change, against the file as it is now.
fn diff_of(p: &PendingCall) -> Option<Vec<String>> {
    let arg = |name: &str| p.call.args.get(name).and_then(|v| v.as_str());
    let path = p.cwd.join(arg("path")?);
    let current = read_small(&path);
    let (old, new) = match (p.call.tool.as_str(), current) {
        ("fs_write", Ok(old)) => (old, arg("content")?.to_owned()),
        ("fs_edit", Ok(Some(old))) => {
            let new = old.replacen(arg("old_text")?, arg("new_text")?, 1);
            (Some(old), new)
        }
        ("fs_write" | "fs_edit", Err(problem)) => {
            return Some(vec![format!("  (no diff: {problem})")]);
        }
        _ => return None,
    };
    let diff = warden_acp_transport::schema::Diff::new(path, new).old_text(old);
    let words = warden_i18n::catalog(warden_i18n::Language::English);
    Some(warden_chat::whole_diff(
        warden_chat::Style::PLAIN,
        words,
        &diff,
    ))
}

/// A file's text; `None` when it does not exist (a new file).
fn read_small(path: &Path) -> Result<Option<String>, String> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{} cannot be read: {e}", path.display())),
        Ok(meta) if meta.len() > DIFF_READ_LIMIT => {
            return Err(format!("{} is larger than 1 MiB", path.display()));
        }
        Ok(_) => {}
    }
    std::fs::read_to_string(path)
        .map(Some)
        .map_err(|e| format!("{} cannot be read as text: {e}", path.display()))
}

#[allow(clippy::print_stdout)]
fn show(store: &SessionStore, id: &str) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match store.find_pending(id)? {
        Lookup::Found(call) => {
            for line in details(&call) {
                writeln!(out, "{line}")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Lookup::Answered { call, first } => {
            writeln!(
                out,
                "{} is no longer waiting: it was answered ({} by {}).",
                call.id(),
                first.option,
                first.by.as_words()
            )?;
            Ok(ExitCode::from(1))
        }
        Lookup::NotFound => {
            writeln!(
                out,
                "No tool call waiting for approval has the id {id} (see `warden pending list`)."
            )?;
            Ok(ExitCode::from(1))
        }
        Lookup::Ambiguous(ids) => {
            writeln!(out, "{id} names more than one waiting call:")?;
            for id in ids {
                writeln!(out, "  {id}")?;
            }
            Ok(ExitCode::from(2))
        }
    }
}

/// For a High or Critical call: its full id, then a confirmation at the terminal, or
/// `--yes`. `Some(code)` when the approval does not go ahead (and why was printed).
fn confirmed(
    call: &PendingCall,
    args: &AnswerArgs,
    out: &mut impl std::io::Write,
) -> anyhow::Result<Option<ExitCode>> {
    if call.call.risk < Risk::High {
        return Ok(None);
    }
    let risk = capitalised(call.call.risk.as_str());
    if args.id != call.id() {
        writeln!(
            out,
            "{} is a {risk} call: approve it by its full id, after reading it with `warden pending show {}`.",
            call.id(),
            call.id()
        )?;
        return Ok(Some(ExitCode::from(2)));
    }
    if args.yes {
        return Ok(None);
    }
    if !std::io::stdin().is_terminal() {
        writeln!(
            out,
            "{} is a {risk} call: without a terminal to confirm on, approve it with --yes.",
            call.id()
        )?;
        return Ok(Some(ExitCode::from(2)));
    }
    for line in details(call) {
        writeln!(out, "{line}")?;
    }
    write!(out, "Approve this {risk} call? [y/N] ")?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    // Only a yes approves; Enter, "n", anything else or the end of input refuses.
    if matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") {
        return Ok(None);
    }
    writeln!(out, "Not approved; {} is still waiting.", call.id())?;
    Ok(Some(ExitCode::from(1)))
}
