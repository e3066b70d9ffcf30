//! `warden grants list`, `warden grants revoke ID`, `warden grants expire` and
//! `warden grants repair`.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::Context as _;
use warden_audit::AuditEvent;
use warden_i18n::{Args, Catalog};
use warden_permissions::grant::time;
use warden_permissions::{Effect, Grant, GrantStore, Locations};

#[derive(Debug, clap::Subcommand)]
pub enum GrantsCommand {
    /// List the stored decisions.
    List(ListArgs),
    /// Revoke a stored decision by its id.
    Revoke(RevokeArgs),
    /// Drop expired and revoked grants from the file.
    Expire,
    /// Keep the lines of the file that cannot be read aside, in
    /// grants.jsonl.corrupt-<time>, and rewrite the file with the others.
    Repair,
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// One JSON object a line instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct RevokeArgs {
    /// The grant's id, as `warden grants list` shows it.
    id: String,
}

pub fn run(cmd: GrantsCommand) -> anyhow::Result<ExitCode> {
    let store = GrantStore::new(Locations::from_env().grants());
    match cmd {
        GrantsCommand::List(args) => list(&store, args.json),
        GrantsCommand::Revoke(args) => revoke(&store, &args.id),
        GrantsCommand::Expire => expire(&store),
        GrantsCommand::Repair => repair(&store),
    }
}

#[allow(clippy::print_stdout)]
fn list(store: &GrantStore, json: bool) -> anyhow::Result<ExitCode> {
    let loaded = store
        .load_checked()
        .with_context(|| format!("cannot read {}", store.path().display()))?;
    let grants = &loaded.grants;
    let mut out = std::io::stdout().lock();
    if json {
        for g in grants {
            writeln!(out, "{}", serde_json::to_string(g)?)?;
        }
        // Standard output holds only grants, one a line.
        if let Some(damage) = loaded.damage() {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("{damage}.");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let words = super::words();
    if grants.is_empty() {
        let path = store.path().display().to_string();
        writeln!(
            out,
            "{}",
            words.text("cli-grants-none", &Args::new().with("path", path.as_str()))
        )?;
    } else {
        table(&mut out, grants, words)?;
    }
    if let Some(damage) = loaded.damage() {
        let damage = damage.to_string();
        writeln!(
            out,
            "{}",
            words.text(
                "cli-grants-damage",
                &Args::new().with("damage", damage.as_str())
            )
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The table's columns: their catalog ids and widths (the last one is not padded).
const COLUMNS: [(&str, usize); 7] = [
    ("cli-grants-column-id", 18),
    ("cli-grants-column-effect", 6),
    ("cli-grants-column-scope", 8),
    ("cli-grants-column-created", 20),
    ("cli-grants-column-client", 12),
    ("cli-grants-column-status", 8),
    ("cli-grants-column-what", 0),
];

fn table(out: &mut impl std::io::Write, grants: &[Grant], words: &Catalog) -> anyhow::Result<()> {
    let now = SystemTime::now();
    let heading: Vec<String> = COLUMNS
        .iter()
        .map(|(id, width)| super::pad(&words.plain(id), *width))
        .collect();
    writeln!(out, "{}", heading.join(" ").trim_end())?;
    for g in grants {
        let effect = match g.effect {
            Effect::Allow => "allow",
            Effect::Deny => "deny",
        };
        let scope = serde_json::to_value(g.scope)?
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let status = words.plain(match g.expires_at {
            Some(t) if t <= now => "cli-grants-status-expired",
            Some(_) => "cli-grants-status-expires",
            None => "cli-grants-status-active",
        });
        // What it covers (tool names, commands and paths as they are), where, and until
        // when, in one message so that a translation can order them.
        let project = g.project.as_ref().map(|p| p.display().to_string());
        let until = g.expires_at.map(time::format);
        let what = words.text(
            "cli-grants-what",
            &Args::new()
                .with("what", g.subject())
                .with("project", project.as_deref().unwrap_or("-"))
                .with("until", until.as_deref().unwrap_or("-"))
                .with("scoped", if project.is_some() { "yes" } else { "no" })
                .with("expires", if until.is_some() { "yes" } else { "no" }),
        );
        let cells = [
            g.id.clone(),
            effect.to_owned(),
            scope,
            time::format(g.created_at),
            g.client.clone(),
            status,
        ];
        let row: Vec<String> = cells
            .iter()
            .zip(COLUMNS)
            .map(|(cell, (_, width))| super::pad(cell, width))
            .collect();
        writeln!(out, "{} {what}", row.join(" "))?;
    }
    Ok(())
}

#[allow(clippy::print_stdout)]
fn revoke(store: &GrantStore, id: &str) -> anyhow::Result<ExitCode> {
    // What the grant covered, for the audit line: read before it is revoked. A file
    // that cannot be read still lets the revocation through (it is appended).
    let grant = store
        .load_checked()
        .ok()
        .and_then(|loaded| loaded.grants.into_iter().find(|g| g.id == id));
    let found = store
        .revoke(id)
        .with_context(|| format!("cannot revoke in {}", store.path().display()))?;
    let mut out = std::io::stdout().lock();
    if found {
        audit_revocation(id, grant.as_ref());
        writeln!(
            out,
            "{}",
            super::words().text("cli-grants-revoked", &Args::new().with("id", id))
        )?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(
            out,
            "{}",
            super::words().text("cli-grants-unknown-id", &Args::new().with("id", id))
        )?;
        Ok(ExitCode::from(1))
    }
}

/// Writes the revocation's line to the audit log: which grant, what it covered, and
/// that `warden grants revoke` revoked it. A log that cannot be written is reported,
/// not fatal: the grant is revoked either way.
fn audit_revocation(id: &str, grant: Option<&Grant>) {
    let what = grant.map_or(serde_json::Value::Null, |g| {
        serde_json::json!({
            "effect": g.effect,
            "scope": g.scope,
            "what": g.subject(),
            "project": g.project,
        })
    });
    let event = AuditEvent::revocation(id, what, "warden grants revoke");
    match super::audit_log::open(&Locations::from_env()) {
        Ok(log) => {
            log.record(event);
            if let Err(err) = log.flush() {
                tracing::warn!(error = %err, "cannot write the revocation to the audit log");
            }
        }
        Err(err) => tracing::warn!(error = %err, "cannot open the audit log"),
    }
}

#[allow(clippy::print_stdout)]
fn expire(store: &GrantStore) -> anyhow::Result<ExitCode> {
    let dropped = store
        .expire(SystemTime::now())
        .with_context(|| format!("cannot compact {}", store.path().display()))?;
    let count = u64::try_from(dropped).unwrap_or(u64::MAX);
    writeln!(
        std::io::stdout().lock(),
        "{}",
        super::words().text("cli-grants-expired", &Args::new().with("count", count))
    )?;
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::print_stdout)]
fn repair(store: &GrantStore) -> anyhow::Result<ExitCode> {
    let repair = store
        .repair(SystemTime::now())
        .with_context(|| format!("cannot repair {}", store.path().display()))?;
    let mut out = std::io::stdout().lock();
    let Some(aside) = &repair.aside else {
        writeln!(
            out,
            "Nothing to repair: every line of {} can be read ({} line(s)).",
            store.path().display(),
            repair.kept
        )?;
        return Ok(ExitCode::SUCCESS);
    };
    let mut moved = format!("{} unreadable line(s)", repair.unreadable);
    if repair.torn {
        moved.push_str(" and an unfinished last line");
    }
    writeln!(
        out,
        "Moved {moved} to {}; rewrote {} with the {} line(s) that can be read.",
        aside.display(),
        store.path().display(),
        repair.kept
    )?;
    if repair.unreadable > 0 {
        writeln!(
            out,
            "Look at them: a revocation or an \"always reject\" among them no longer applies; \
             `warden grants revoke ID` revokes a grant again."
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
