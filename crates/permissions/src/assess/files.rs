//! The file tools: `fs_read`, `fs_list`, `fs_search`, `fs_write`, `fs_edit`,
//! `fs_delete`, `fs_move`.

use super::args::{ArgError, Args};
use super::{Assessment, Unit, UnitPath};
use crate::paths::{self, FileOp, ResolvedPath};
use crate::{Context, Risk, Sentence, ToolCall};

/// A path as people read it: relative to the cwd when it lies below it.
fn shown(p: &ResolvedPath, ctx: &Context) -> String {
    p.lexical
        .display()
        .to_string()
        .replace(&format!("{}/", ctx.cwd.display()), "")
}

/// A byte count as its length in bytes, for the catalog's plural forms.
fn bytes(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A unit of a file tool: its text is the English form of what the call does.
fn file_unit(
    reason_of_call: &Sentence,
    risk: Risk,
    reason: Sentence,
    paths: Vec<UnitPath>,
) -> Unit {
    Unit {
        text: reason_of_call.to_string(),
        risk,
        own_risk: None,
        reason,
        argv: Vec::new(),
        paths,
        reads: Vec::new(),
        reads_below: false,
        writes_files: false,
        opaque: false,
        env: Vec::new(),
    }
}

/// `fs_read {path, line?, limit?}`, `fs_list {path}`, `fs_search {pattern, path?}`.
pub(super) fn read(call: &ToolCall, ctx: &Context) -> Result<Assessment, ArgError> {
    let (raw, id) = match call.tool.as_str() {
        "fs_read" => {
            let args = Args::new(&call.args, &["path", "line", "limit"])?;
            args.opt_u64("line")?;
            args.opt_u64("limit")?;
            (args.string("path")?.to_owned(), "engine-call-read")
        }
        "fs_list" => {
            let args = Args::new(&call.args, &["path"])?;
            (args.string("path")?.to_owned(), "engine-call-list")
        }
        _ => {
            let args = Args::new(&call.args, &["pattern", "path"])?;
            let pattern = args.string("pattern")?;
            let path = args.opt_string("path")?.unwrap_or(".");
            if path.is_empty() {
                return Err(ArgError::Empty("path"));
            }
            let resolved = paths::resolve(path, ctx);
            let (mut risk, mut why) = paths::path_risk(FileOp::Read, &resolved);
            // A search reads every file below its folder: one that holds the home
            // folder's secrets (`~`, `/home`, `/`) is a read of them. Files that hold
            // secrets inside a workspace are left out by the tool itself.
            if risk < Risk::High
                && let Some(kind) = [&resolved.lexical, &resolved.real]
                    .into_iter()
                    .find_map(|p| paths::sensitive_below(p, ctx, false))
                    .filter(|k| k.read_is_sensitive())
            {
                risk = Risk::High;
                why = Sentence::new("engine-search-holds-sensitive")
                    .text("path", resolved.lexical.display().to_string())
                    .sentence("what", Sentence::new(kind.message_id()));
            }
            let reason = Sentence::new("engine-call-search")
                .text("pattern", pattern)
                .text("path", resolved.lexical.display().to_string());
            let searched = vec![UnitPath::from(&resolved)];
            let unit = Unit {
                reads: searched.clone(),
                reads_below: true,
                ..file_unit(&reason, risk, why, searched)
            };
            return Ok(Assessment {
                reason,
                ..Assessment::single(unit)
            });
        }
    };
    let resolved = paths::resolve(&raw, ctx);
    let (risk, why) = paths::path_risk(FileOp::Read, &resolved);
    let reason = Sentence::new(id).text("path", resolved.lexical.display().to_string());
    let read = vec![UnitPath::from(&resolved)];
    let unit = Unit {
        reads: read.clone(),
        ..file_unit(&reason, risk, why, read)
    };
    Ok(Assessment {
        reason,
        ..Assessment::single(unit)
    })
}

/// `fs_write {path, content}` and `fs_edit {path, old_text, new_text}`.
pub(super) fn write(call: &ToolCall, ctx: &Context) -> Result<Assessment, ArgError> {
    let (raw, reason) = if call.tool == "fs_write" {
        let args = Args::new(&call.args, &["path", "content"])?;
        let raw = args.string("path")?;
        let content = args.text("content")?;
        (
            raw,
            Sentence::new("engine-call-write")
                .number("bytes", bytes(content.len()))
                .text("path", raw),
        )
    } else {
        let args = Args::new(&call.args, &["path", "old_text", "new_text"])?;
        let raw = args.string("path")?;
        let old = args.text("old_text")?;
        let new = args.text("new_text")?;
        (
            raw,
            Sentence::new("engine-call-edit")
                .text("path", raw)
                .number("old", bytes(old.len()))
                .number("new", bytes(new.len())),
        )
    };
    let resolved = paths::resolve(raw, ctx);
    let (risk, why) = paths::path_risk(FileOp::Write, &resolved);
    let target = vec![UnitPath::from(&resolved)];
    // An edit reads the file first (its diff shows the old text); a write does not.
    let reads = if call.tool == "fs_edit" {
        target.clone()
    } else {
        Vec::new()
    };
    let unit = Unit {
        reads,
        ..file_unit(&reason, risk, why, target)
    };
    Ok(Assessment {
        reason,
        edit_inside_workspace: resolved.inside_workspace && resolved.sensitive.is_none(),
        ..Assessment::single(unit)
    })
}

/// `fs_delete {path, recursive?}`.
pub(super) fn delete(call: &ToolCall, ctx: &Context) -> Result<Assessment, ArgError> {
    let args = Args::new(&call.args, &["path", "recursive"])?;
    let raw = args.string("path")?;
    let recursive = args.opt_bool("recursive")?.unwrap_or(false);
    let resolved = paths::resolve(raw, ctx);
    let (mut risk, mut why) = paths::path_risk(FileOp::Delete, &resolved);
    if recursive && paths::is_precious(&resolved, ctx) {
        risk = Risk::Critical;
        why = Sentence::new("engine-delete-root-folder")
            .text("path", resolved.lexical.display().to_string());
    }
    let reason = Sentence::new(if recursive {
        "engine-call-delete-recursive"
    } else {
        "engine-call-delete"
    })
    .text("path", shown(&resolved, ctx));
    let unit = file_unit(&reason, risk, why, vec![UnitPath::from(&resolved)]);
    Ok(Assessment {
        reason,
        ..Assessment::single(unit)
    })
}

/// `fs_move {from, to}`: removing `from` is judged like a delete, creating `to` like
/// a write; the stricter decides.
pub(super) fn move_(call: &ToolCall, ctx: &Context) -> Result<Assessment, ArgError> {
    let args = Args::new(&call.args, &["from", "to"])?;
    let from = paths::resolve(args.string("from")?, ctx);
    let to = paths::resolve(args.string("to")?, ctx);
    let (mut from_risk, mut from_why) = paths::path_risk(FileOp::Delete, &from);
    let (mut to_risk, mut to_why) = paths::path_risk(FileOp::Write, &to);
    // A folder moved as a whole carries what is below it: moving one to where the
    // user's configuration folder (or `.git/hooks`, ...) would be creates every file
    // there, and moving that folder away removes them and puts their secrets where
    // reads are Low.
    if let Some(kind) = [&to.lexical, &to.real]
        .into_iter()
        .find_map(|p| paths::sensitive_below(p, ctx, true))
    {
        to_risk = Risk::Critical;
        to_why = Sentence::new("engine-move-creates-sensitive")
            .text("path", to.lexical.display().to_string())
            .sentence("what", Sentence::new(kind.message_id()));
    }
    if let Some(kind) = [&from.lexical, &from.real]
        .into_iter()
        .find_map(|p| paths::sensitive_below(p, ctx, true))
    {
        from_risk = Risk::Critical;
        from_why = Sentence::new("engine-move-removes-sensitive")
            .text("path", from.lexical.display().to_string())
            .sentence("what", Sentence::new(kind.message_id()));
    }
    let (risk, why) = if to_risk > from_risk {
        (to_risk, to_why)
    } else {
        (from_risk, from_why)
    };
    let reason = Sentence::new("engine-call-move")
        .text("from", shown(&from, ctx))
        .text("to", shown(&to, ctx));
    // Moving a file carries its content elsewhere: the source counts as read.
    let unit = Unit {
        reads: vec![UnitPath::from(&from)],
        ..file_unit(
            &reason,
            risk,
            why,
            vec![UnitPath::from(&from), UnitPath::from(&to)],
        )
    };
    Ok(Assessment {
        reason,
        ..Assessment::single(unit)
    })
}
