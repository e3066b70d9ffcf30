//! `warden audit tail` and `warden audit verify`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::Value;
use warden_audit::{AuditKind, AuditRecord, Outcome, TailLine, tail, verify};
use warden_permissions::Locations;

#[derive(Debug, clap::Subcommand)]
pub enum AuditCommand {
    /// Print the last entries: time, session, tool, risk, decision and what decided.
    Tail(TailArgs),
    /// Check the hash chain. Exits 0 when it is intact, 1 when it is broken.
    Verify(VerifyArgs),
}

#[derive(Debug, clap::Args)]
pub struct TailArgs {
    /// How many entries to print.
    #[arg(short = 'n', long = "lines", value_name = "N", default_value_t = 20)]
    lines: usize,
    /// Print the raw JSON lines.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    file: FileArg,
}

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    file: FileArg,
}

#[derive(Debug, clap::Args)]
struct FileArg {
    /// The audit log to read (default: `audit.jsonl` in `$WARDEN_HOME` or the XDG
    /// state folder).
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
}

impl FileArg {
    fn path(&self) -> PathBuf {
        self.file
            .clone()
            .unwrap_or_else(|| Locations::from_env().audit_log())
    }
}

pub fn run(cmd: AuditCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        AuditCommand::Tail(args) => run_tail(&args),
        AuditCommand::Verify(args) => run_verify(&args),
    }
}

#[allow(clippy::print_stdout)]
fn run_tail(args: &TailArgs) -> anyhow::Result<ExitCode> {
    let path = args.file.path();
    let lines = tail(&path, args.lines)?;
    let mut out = String::new();
    for line in &lines {
        if args.json {
            out.push_str(&line.raw);
        } else {
            out.push_str(&human(line));
        }
        out.push('\n');
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::print_stdout)]
fn run_verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let report = verify(&args.file.path())?;
    print!("{report}");
    Ok(if report.is_intact() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// One entry as a line for people:
/// `time  session  tool  risk  decision  decided-by`.
fn human(line: &TailLine) -> String {
    let Some(record) = &line.record else {
        let what = if line.terminated {
            "not an audit record"
        } else {
            "torn line"
        };
        return format!("({what}) {}", cut(&line.raw, 120));
    };
    let body = &record.body;
    let dash = |s: Option<&str>| s.unwrap_or("-").to_string();
    let by = match body.kind {
        AuditKind::Dropped => format!("{} records lost", body.dropped.unwrap_or(0)),
        AuditKind::Outcome => {
            let mut by = body.outcome.as_ref().map_or_else(String::new, outcome);
            // Who answered: the editor, `warden pending`, ...
            if let Some(who) = body
                .decided_by
                .as_ref()
                .and_then(|d| d.get("answered_by"))
                .and_then(Value::as_str)
            {
                let _ = write!(by, " (answered by {who})");
            }
            by
        }
        AuditKind::Evaluation => body.decided_by.as_ref().map_or_else(String::new, summary),
        AuditKind::Revocation => body
            .decided_by
            .as_ref()
            .map_or_else(|| "grant revoked".to_owned(), revocation),
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "{}  {}  {}  {}  {}  {}",
        body.time,
        dash(body.session_id.as_deref()),
        dash(body.tool.as_deref()),
        dash(body.risk.map(|r| r.as_str())),
        decision(record),
        by,
    );
    // What the call was: the beginning of its (redacted) arguments, the command of a
    // `terminal` call among them.
    if let Some(args) = &body.args {
        let _ = write!(out, "  {}", cut(&args.preview, 100));
    }
    out.trim_end().to_string()
}

/// A revocation's line: "revoked grant g-1 (allow `npm test …`, project) by warden
/// grants revoke".
fn revocation(by: &Value) -> String {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("?").to_owned();
    let grant = by.get("grant");
    let mut out = format!("revoked grant {}", text(by.get("grant_id")));
    if let Some(grant) = grant.filter(|g| g.is_object()) {
        let _ = write!(
            out,
            " ({} {}, {})",
            text(grant.get("effect")),
            text(grant.get("what")),
            text(grant.get("scope"))
        );
    }
    let _ = write!(out, " by {}", text(by.get("revoked_by")));
    out
}

fn decision(record: &AuditRecord) -> String {
    match (record.body.kind, record.body.decision) {
        (AuditKind::Dropped, _) => "DROPPED".to_string(),
        (AuditKind::Revocation, _) => "REVOKED".to_string(),
        (_, Some(d)) => d.to_string(),
        (_, None) => "-".to_string(),
    }
}

fn outcome(outcome: &Outcome) -> String {
    let note = |n: &Option<String>| n.as_ref().map(|n| format!(": {n}")).unwrap_or_default();
    match outcome {
        Outcome::Granted {
            option_id, note: n, ..
        } => format!("user granted {option_id}{}", note(n)),
        Outcome::Denied {
            option_id, note: n, ..
        } => format!("user denied {option_id}{}", note(n)),
        Outcome::Cancelled => "cancelled".to_string(),
        Outcome::TimedOut { .. } => "timed out".to_string(),
        Outcome::Error { reason } => format!("bad answer, denied: {reason}"),
        Outcome::Auto { decision } => format!("policy ({decision}) without asking"),
    }
}

/// `decided_by` as `key=value` pairs, nested keys joined with dots.
fn summary(value: &Value) -> String {
    fn walk(prefix: &str, value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    let key = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    walk(&key, item, out);
                }
            }
            Value::String(s) if prefix.is_empty() => out.push(s.clone()),
            Value::String(s) => out.push(format!("{prefix}={s}")),
            Value::Null => {}
            other if prefix.is_empty() => out.push(other.to_string()),
            other => out.push(format!("{prefix}={other}")),
        }
    }
    let mut parts = Vec::new();
    walk("", value, &mut parts);
    parts.join(" ")
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
