//! `fs_read`, `fs_write` and `fs_edit`: through the editor when it offers `fs/*`, so it sees
//! unsaved buffers and tracks the edit, and on the local filesystem otherwise.

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::json;

use super::{ExecContext, ToolOutput};
use crate::call::{FsEditArgs, FsReadArgs, FsWriteArgs};
use crate::content::Content;
use crate::paths::{display, resolve};

/// A readable description of an I/O error, without Rust's "(os error N)" noise for the common
/// cases.
pub(crate) fn io_message(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "does not exist".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::IsADirectory => "is a directory".to_owned(),
        io::ErrorKind::NotADirectory => "a parent is not a directory".to_owned(),
        io::ErrorKind::InvalidData => "is not UTF-8 text".to_owned(),
        _ => err.to_string(),
    }
}

/// Runs blocking filesystem work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(err) => Err(io::Error::other(format!(
            "the filesystem task failed: {err}"
        ))),
    }
}

/// Text cut to a byte budget at a line boundary.
struct Selected {
    text: String,
    lines: u32,
    /// The line to continue from when the text was cut.
    next_line: Option<u32>,
}

/// Cuts `text` (which starts at line `first`) to at most `max` bytes, at the end of a line
/// when possible so the model can continue with `line`.
fn cut(text: String, first: u32, max: usize) -> Selected {
    let total_lines = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
    if text.len() <= max {
        return Selected {
            text,
            lines: total_lines,
            next_line: None,
        };
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    // Prefer ending after a newline; a single line longer than the budget is cut mid-line.
    if let Some(newline) = text[..end].rfind('\n') {
        end = newline + 1;
    }
    let mut text = text;
    text.truncate(end);
    let lines = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
    Selected {
        text,
        lines,
        next_line: Some(first.saturating_add(lines)),
    }
}

/// Reads lines `[line, line + limit)` of a local file, stopping once `max` bytes are over the
/// budget so a huge file is never read whole.
fn read_local(path: &Path, line: u32, limit: Option<u32>, max: usize) -> io::Result<String> {
    // Opening a FIFO would block until a writer comes; check the type before opening.
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(io::Error::from(io::ErrorKind::IsADirectory));
    }
    if !meta.is_file() {
        return Err(io::Error::other("is not a regular file"));
    }
    let file = std::fs::File::open(path)?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut skipped = 1;
    let mut scratch = Vec::new();
    while skipped < line {
        scratch.clear();
        if reader.read_until(b'\n', &mut scratch)? == 0 {
            break;
        }
        skipped += 1;
    }
    // One byte past the budget tells `cut` that the text was longer than allowed.
    let cap = max.saturating_add(1) as u64;
    match limit {
        None => {
            reader.take(cap).read_to_end(&mut buf)?;
        }
        Some(limit) => {
            for _ in 0..limit {
                if buf.len() > max || reader.read_until(b'\n', &mut buf)? == 0 {
                    break;
                }
            }
            buf.truncate(max.saturating_add(1));
        }
    }
    String::from_utf8(buf).or_else(|err| {
        // The byte cap may split a character; only a real encoding error is an error.
        let valid = err.utf8_error().valid_up_to();
        let bytes = err.into_bytes();
        if bytes.len() > max && bytes.len() - valid < 4 {
            Ok(String::from_utf8_lossy(&bytes[..valid]).into_owned())
        } else {
            Err(io::Error::from(io::ErrorKind::InvalidData))
        }
    })
}

pub(crate) async fn read(args: &FsReadArgs, cx: &ExecContext<'_>) -> ToolOutput {
    const TOOL: &str = "fs_read";
    let path = resolve(cx.cwd, cx.home, &args.path);
    let shown = display(cx.cwd, cx.home, &path);
    let first = args.line.unwrap_or(1);
    let max = cx.limits.read_bytes;
    let text = match &cx.editor {
        Some(editor) if editor.can_read() => {
            match editor.read_text_file(&path, args.line, args.limit).await {
                Ok(text) => text,
                Err(err) => return ToolOutput::failed(TOOL, format!("{shown}: {err}")),
            }
        }
        _ => {
            let local = path.clone();
            let limit = args.limit;
            match blocking(move || read_local(&local, first, limit, max)).await {
                Ok(text) => text,
                Err(err) => {
                    let hint = if err.kind() == io::ErrorKind::IsADirectory {
                        "; use fs_list for directories"
                    } else {
                        ""
                    };
                    return ToolOutput::failed(TOOL, format!("{shown} {}{hint}", io_message(&err)));
                }
            }
        }
    };
    let selected = cut(text, first, max);
    let raw = json!({
        "path": path,
        "line": first,
        "lines": selected.lines,
        "bytes": selected.text.len(),
        "truncated": selected.next_line.is_some(),
    });
    let mut for_model = selected.text;
    if for_model.is_empty() {
        for_model = if first > 1 {
            format!("({shown} has no lines from line {first} on)")
        } else {
            format!("({shown} is empty)")
        };
    }
    if let Some(next) = selected.next_line {
        if !for_model.ends_with('\n') {
            for_model.push('\n');
        }
        for_model.push_str(&format!(
            "[fs_read: cut at the {max}-byte limit; continue with line {next}]"
        ));
    }
    ToolOutput::completed(for_model, raw)
}

/// Why a file tool could not read or store a file; shown to the model after the path.
#[derive(Debug, thiserror::Error)]
enum FileError {
    #[error("{}", io_message(.0))]
    Io(#[from] io::Error),
    #[error("{0}")]
    Editor(#[source] crate::EditorError),
    /// The editor offers reads but failed one: editing the disk copy instead could lose
    /// the user's unsaved changes.
    #[error("could not be read through the editor ({0})")]
    EditorRead(#[source] crate::EditorError),
}

/// The current text of a file for a diff or an edit: the editor's buffer when it offers reads,
/// the file on disk otherwise. `Ok(None)` means the file does not exist.
async fn current_text(
    path: &Path,
    cx: &ExecContext<'_>,
    prefer_editor: bool,
) -> Result<Option<String>, FileError> {
    // A file that does not exist yet is a new file: the editor is not asked about it,
    // because some editors report the read as an error to the user and others answer
    // `""`, which would make it an existing empty file.
    if prefer_editor
        && let Some(editor) = &cx.editor
        && editor.can_read()
        && exists(path).await
    {
        match editor.read_text_file(path, None, None).await {
            Ok(text) => return Ok(Some(text)),
            // The file went away, or the editor cannot read it; the local check below tells
            // "new file" from a real failure.
            Err(err) => tracing::debug!(path = %path.display(), %err, "editor read failed"),
        }
    }
    let local: PathBuf = path.to_path_buf();
    let max = cx.limits.edit_bytes;
    blocking(move || {
        let meta = match std::fs::metadata(&local) {
            Ok(meta) => meta,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(err),
        };
        if meta.is_dir() {
            return Err(io::Error::from(io::ErrorKind::IsADirectory));
        }
        if meta.len() > max as u64 {
            return Err(io::Error::other(format!(
                "is {} bytes, over the {max}-byte limit for edits",
                meta.len()
            )));
        }
        let bytes = std::fs::read(&local)?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidData))
    })
    .await
    .map_err(FileError::Io)
}

/// Whether anything is at `path` (a dangling symlink counts), checked off the runtime's
/// thread.
async fn exists(path: &Path) -> bool {
    let local = path.to_path_buf();
    blocking(move || std::fs::symlink_metadata(&local).map(|_| ()))
        .await
        .is_ok()
}

async fn store(path: &Path, content: &str, cx: &ExecContext<'_>) -> Result<(), FileError> {
    if let Some(editor) = &cx.editor
        && editor.can_write()
    {
        return editor
            .write_text_file(path, content)
            .await
            .map_err(FileError::Editor);
    }
    let local = path.to_path_buf();
    let content = content.to_owned();
    blocking(move || {
        if let Some(parent) = local.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&local, content)
    })
    .await
    .map_err(FileError::Io)
}

fn diff_output(path: PathBuf, old: Option<String>, new: String, for_model: String) -> ToolOutput {
    let raw = json!({
        "path": path,
        "created": old.is_none(),
        "old_bytes": old.as_ref().map(String::len),
        "new_bytes": new.len(),
    });
    ToolOutput {
        ok: true,
        timed_out: false,
        content: vec![Content::Diff {
            path,
            old_text: old,
            new_text: new,
        }],
        raw_output: raw,
        for_model,
    }
}

pub(crate) async fn write(args: &FsWriteArgs, cx: &ExecContext<'_>) -> ToolOutput {
    const TOOL: &str = "fs_write";
    let path = resolve(cx.cwd, cx.home, &args.path);
    let shown = display(cx.cwd, cx.home, &path);
    // The old text is only for the diff; when it cannot be read (too large, not text) the write
    // still happens and the diff shows the new text alone.
    let old = match current_text(&path, cx, true).await {
        Ok(old) => old,
        Err(FileError::Io(err)) if err.kind() == io::ErrorKind::IsADirectory => {
            return ToolOutput::failed(TOOL, format!("{shown} is a directory"));
        }
        Err(err) => {
            tracing::debug!(path = %path.display(), %err, "no old text for the diff");
            None
        }
    };
    if let Err(message) = store(&path, &args.content, cx).await {
        return ToolOutput::failed(TOOL, format!("{shown}: {message}"));
    }
    let what = match &old {
        None => "new file".to_owned(),
        Some(old) => format!("replaced {}", crate::describe::bytes(old.len())),
    };
    let for_model = format!(
        "Wrote {} to {shown} ({what}).",
        crate::describe::bytes(args.content.len())
    );
    diff_output(path, old, args.content.clone(), for_model)
}

/// The 1-based lines where each occurrence of `needle` starts, overlapping ones included.
fn occurrences(text: &str, needle: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(needle) {
        let at = from + found;
        lines.push(text[..at].matches('\n').count() + 1);
        // Step one character, not the needle's length, so overlapping matches count too.
        from = at + text[at..].chars().next().map_or(1, char::len_utf8);
        if from >= text.len() {
            break;
        }
    }
    lines
}

pub(crate) async fn edit(args: &FsEditArgs, cx: &ExecContext<'_>) -> ToolOutput {
    const TOOL: &str = "fs_edit";
    let path = resolve(cx.cwd, cx.home, &args.path);
    let shown = display(cx.cwd, cx.home, &path);
    let old = match editor_or_local_text(&path, cx).await {
        Ok(Some(old)) => old,
        Ok(None) => {
            return ToolOutput::failed(
                TOOL,
                format!("{shown} does not exist; use fs_write to create it"),
            );
        }
        Err(message) => return ToolOutput::failed(TOOL, format!("{shown} {message}")),
    };
    let found = occurrences(&old, &args.old_text);
    match found.len() {
        0 => {
            return ToolOutput::failed(
                TOOL,
                format!(
                    "`old_text` was not found in {shown}; nothing was changed. Read the file and copy the text exactly, whitespace included."
                ),
            );
        }
        1 => {}
        n => {
            let lines: Vec<String> = found.iter().take(10).map(usize::to_string).collect();
            return ToolOutput::failed(
                TOOL,
                format!(
                    "`old_text` occurs {n} times in {shown} (at lines {}); nothing was changed. Include more surrounding text so it occurs once.",
                    lines.join(", ")
                ),
            );
        }
    }
    let new = old.replacen(&args.old_text, &args.new_text, 1);
    if let Err(message) = store(&path, &new, cx).await {
        return ToolOutput::failed(TOOL, format!("{shown}: {message}"));
    }
    let line = found[0];
    let for_model = format!("Edited {shown}: replaced 1 occurrence at line {line}.");
    let mut out = diff_output(path, Some(old), new, for_model);
    out.raw_output["line"] = json!(line);
    out
}

/// The text to edit: the editor's buffer when it offers reads (an editor error is then an
/// error: editing a stale disk copy would lose the user's unsaved changes), the disk otherwise.
async fn editor_or_local_text(
    path: &Path,
    cx: &ExecContext<'_>,
) -> Result<Option<String>, FileError> {
    if let Some(editor) = &cx.editor
        && editor.can_read()
    {
        if !exists(path).await {
            return Ok(None);
        }
        return editor
            .read_text_file(path, None, None)
            .await
            .map(Some)
            .map_err(FileError::EditorRead);
    }
    current_text(path, cx, false).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occurrences_counts_overlaps_and_reports_lines() {
        assert_eq!(occurrences("a\nfoo\nbar foo\n", "foo"), vec![2, 3]);
        assert_eq!(occurrences("aaa", "aa"), vec![1, 1]);
        assert_eq!(occurrences("héllo", "l"), vec![1, 1]);
        assert_eq!(occurrences("abc", "x"), Vec::<usize>::new());
    }

    #[test]
    fn cut_ends_at_a_line_boundary_and_says_where_to_continue() {
        let s = cut("one\ntwo\nthree\n".to_owned(), 5, 10);
        assert_eq!(
            (s.text.as_str(), s.lines, s.next_line),
            ("one\ntwo\n", 2, Some(7))
        );
        let s = cut("short\n".to_owned(), 1, 10);
        assert_eq!(
            (s.text.as_str(), s.lines, s.next_line),
            ("short\n", 1, None)
        );
        let s = cut("éééééé".to_owned(), 1, 5);
        assert_eq!((s.text.as_str(), s.next_line), ("éé", Some(2)));
    }
}
