//! The file tools: `fs_read`, `fs_list`, `fs_search`, `fs_write`, `fs_edit`,
//! `fs_delete`, `fs_move`.

use super::args::{ArgError, Args};
use super::{Assessment, Unit, UnitPath};
use crate::paths::{self, FileOp, ResolvedPath};
use crate::{Context, Risk, ToolCall};

/// A path as people read it: relative to the cwd when it lies below it.
fn shown(p: &ResolvedPath, ctx: &Context) -> String {
    p.lexical
        .display()
        .to_string()
        .replace(&format!("{}/", ctx.cwd.display()), "")
}

/// "1 byte", "120 bytes".
fn bytes(n: usize) -> String {
    if n == 1 {
        "1 byte".to_owned()
    } else {
        format!("{n} bytes")
    }
}

fn file_unit(text: String, risk: Risk, reason: String, paths: Vec<UnitPath>) -> Unit {
    Unit {
        text,
        risk,
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
    let (raw, verb) = match call.tool.as_str() {
        "fs_read" => {
            let args = Args::new(&call.args, &["path", "line", "limit"])?;
            args.opt_u64("line")?;
            args.opt_u64("limit")?;
            (args.string("path")?.to_owned(), "Read file at")
        }
        "fs_list" => {
            let args = Args::new(&call.args, &["path"])?;
            (args.string("path")?.to_owned(), "List folder")
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
                why = format!(
                    "Searches {}, a folder that holds something that is {}.",
                    resolved.lexical.display(),
                    kind.description()
                );
            }
            let reason = format!("Search for `{pattern}` in {}", resolved.lexical.display());
            let searched = vec![UnitPath::from(&resolved)];
            let unit = Unit {
                reads: searched.clone(),
                reads_below: true,
                ..file_unit(reason.clone(), risk, why, searched)
            };
            return Ok(Assessment {
                reason,
                ..Assessment::single(unit)
            });
        }
    };
    let resolved = paths::resolve(&raw, ctx);
    let (risk, why) = paths::path_risk(FileOp::Read, &resolved);
    let reason = format!("{verb} {}", resolved.lexical.display());
    let read = vec![UnitPath::from(&resolved)];
    let unit = Unit {
        reads: read.clone(),
        ..file_unit(reason.clone(), risk, why, read)
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
        (raw, format!("Write {} to {raw}", bytes(content.len())))
    } else {
        let args = Args::new(&call.args, &["path", "old_text", "new_text"])?;
        let raw = args.string("path")?;
        let old = args.text("old_text")?;
        let new = args.text("new_text")?;
        (
            raw,
            format!(
                "Edit {raw}: replace {} with {}",
                bytes(old.len()),
                bytes(new.len())
            ),
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
        ..file_unit(reason.clone(), risk, why, target)
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
        why = format!(
            "deleting {} recursively would remove a root folder",
            resolved.lexical.display()
        );
    }
    let reason = if recursive {
        format!("Delete {} and everything in it", shown(&resolved, ctx))
    } else {
        format!("Delete {}", shown(&resolved, ctx))
    };
    let unit = file_unit(reason.clone(), risk, why, vec![UnitPath::from(&resolved)]);
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
        to_why = format!(
            "Creates {}, a folder that holds something that is {}.",
            to.lexical.display(),
            kind.description()
        );
    }
    if let Some(kind) = [&from.lexical, &from.real]
        .into_iter()
        .find_map(|p| paths::sensitive_below(p, ctx, true))
    {
        from_risk = Risk::Critical;
        from_why = format!(
            "Moves away {}, a folder that holds something that is {}.",
            from.lexical.display(),
            kind.description()
        );
    }
    let (risk, why) = if to_risk > from_risk {
        (to_risk, to_why)
    } else {
        (from_risk, from_why)
    };
    let reason = format!("Move {} to {}", shown(&from, ctx), shown(&to, ctx));
    // Moving a file carries its content elsewhere: the source counts as read.
    let unit = Unit {
        reads: vec![UnitPath::from(&from)],
        ..file_unit(
            reason.clone(),
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
