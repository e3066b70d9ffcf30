//! `fs_list`, `fs_delete` and `fs_move`: always on the local filesystem (ACP has no requests for
//! them).

use std::io;
use std::path::Path;

use serde_json::json;

use super::fs_file::{blocking, io_message};
use super::{ExecContext, ToolOutput};
use crate::call::{FsDeleteArgs, FsListArgs, FsMoveArgs};
use crate::paths::{display, resolve};

pub(crate) async fn list(args: &FsListArgs, cx: &ExecContext<'_>) -> ToolOutput {
    const TOOL: &str = "fs_list";
    let path = resolve(cx.cwd, cx.home, &args.path);
    let shown = display(cx.cwd, cx.home, &path);
    let dir = path.clone();
    let entries = blocking(move || {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let (kind, size) = if kind.is_dir() {
                ("dir", None)
            } else if kind.is_symlink() {
                ("symlink", None)
            } else {
                ("file", entry.metadata().ok().map(|m| m.len()))
            };
            entries.push((name, kind, size));
        }
        entries.sort();
        Ok(entries)
    })
    .await;
    let entries = match entries {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotADirectory => {
            return ToolOutput::failed(
                TOOL,
                format!("{shown} is not a directory; use fs_read for files"),
            );
        }
        Err(err) => return ToolOutput::failed(TOOL, format!("{shown} {}", io_message(&err))),
    };
    let total = entries.len();
    let shown_entries = &entries[..total.min(cx.limits.list_entries)];
    let mut text = String::new();
    for (name, kind, _) in shown_entries {
        text.push_str(name);
        match *kind {
            "dir" => text.push('/'),
            "symlink" => text.push('@'),
            _ => {}
        }
        text.push('\n');
    }
    if total == 0 {
        text = format!("({shown} is empty)");
    } else if total > shown_entries.len() {
        text.push_str(&format!(
            "[fs_list: showing {} of {total} entries]",
            shown_entries.len()
        ));
    }
    let raw_entries: Vec<_> = shown_entries
        .iter()
        .map(|(name, kind, size)| json!({ "name": name, "type": kind, "size": size }))
        .collect();
    let raw = json!({
        "path": path,
        "entries": raw_entries,
        "total": total,
        "truncated": total > shown_entries.len(),
    });
    ToolOutput::completed(text, raw)
}

/// Whether deleting or moving `path` would take the session's working directory with it.
fn contains_cwd(path: &Path, cx: &ExecContext<'_>) -> bool {
    resolve(cx.cwd, cx.home, Path::new("")).starts_with(path)
}

pub(crate) async fn delete(args: &FsDeleteArgs, cx: &ExecContext<'_>) -> ToolOutput {
    const TOOL: &str = "fs_delete";
    let path = resolve(cx.cwd, cx.home, &args.path);
    let shown = display(cx.cwd, cx.home, &path);
    // A safety net under the policy engine: deleting the workspace itself (or the root, or a
    // parent of the workspace) is never what a coding task needs.
    if contains_cwd(&path, cx) {
        return ToolOutput::failed(
            TOOL,
            format!(
                "refusing to delete {} because it contains the working directory",
                path.display()
            ),
        );
    }
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(err) => return ToolOutput::failed(TOOL, format!("{shown} {}", io_message(&err))),
    };
    let is_dir = meta.is_dir();
    if is_dir && !args.recursive {
        return ToolOutput::failed(
            TOOL,
            format!(
                "{shown} is a directory; nothing was deleted. Pass `recursive: true` to delete it and everything in it."
            ),
        );
    }
    let target = path.clone();
    // `remove_dir_all` does not follow symbolic links, and a link itself is removed as a file,
    // so a link never leads the deletion outside the given path.
    let result = blocking(move || {
        if is_dir {
            std::fs::remove_dir_all(&target)
        } else {
            std::fs::remove_file(&target)
        }
    })
    .await;
    match result {
        Ok(()) => {
            let what = if is_dir { "directory " } else { "" };
            ToolOutput::completed(
                format!("Deleted {what}{shown}."),
                json!({ "path": path, "directory": is_dir }),
            )
        }
        Err(err) => ToolOutput::failed(TOOL, format!("{shown} {}", io_message(&err))),
    }
}

/// Renames without ever replacing an existing target: atomically with `renameat2`'s
/// `RENAME_NOREPLACE` where the filesystem supports it, with a check first elsewhere.
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
            if std::fs::symlink_metadata(to).is_ok() {
                return Err(io::Error::from(io::ErrorKind::AlreadyExists));
            }
            std::fs::rename(from, to)
        }
        Err(errno) => Err(errno.into()),
    }
}

pub(crate) async fn rename(args: &FsMoveArgs, cx: &ExecContext<'_>) -> ToolOutput {
    const TOOL: &str = "fs_move";
    let from = resolve(cx.cwd, cx.home, &args.from);
    let to = resolve(cx.cwd, cx.home, &args.to);
    let (from_shown, to_shown) = (
        display(cx.cwd, cx.home, &from),
        display(cx.cwd, cx.home, &to),
    );
    if contains_cwd(&from, cx) {
        return ToolOutput::failed(
            TOOL,
            format!(
                "refusing to move {} because it contains the working directory",
                from.display()
            ),
        );
    }
    if let Err(err) = std::fs::symlink_metadata(&from) {
        return ToolOutput::failed(TOOL, format!("{from_shown} {}", io_message(&err)));
    }
    if std::fs::symlink_metadata(&to).is_ok() {
        return ToolOutput::failed(
            TOOL,
            format!(
                "{to_shown} already exists; nothing was moved. fs_move never overwrites: delete the target first or pick another name."
            ),
        );
    }
    let (src, dst) = (from.clone(), to.clone());
    let result = blocking(move || {
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent)?;
        }
        rename_no_replace(&src, &dst)
    })
    .await;
    match result {
        Ok(()) => ToolOutput::completed(
            format!("Moved {from_shown} to {to_shown}."),
            json!({ "from": from, "to": to }),
        ),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => ToolOutput::failed(
            TOOL,
            format!("{to_shown} already exists; nothing was moved. fs_move never overwrites."),
        ),
        Err(err) if err.kind() == io::ErrorKind::CrossesDevices => ToolOutput::failed(
            TOOL,
            format!("cannot move {from_shown} to {to_shown}: they are on different filesystems"),
        ),
        Err(err) => ToolOutput::failed(
            TOOL,
            format!("moving {from_shown} to {to_shown}: {}", io_message(&err)),
        ),
    }
}
