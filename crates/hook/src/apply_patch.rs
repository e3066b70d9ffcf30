//! Codex's `apply_patch` body, read file by file: each file it adds, changes, moves or
//! deletes is judged as the Warden call that does the same (`fs_write`, `fs_edit`,
//! `fs_delete`).
//!
//! The grammar (Codex's `apply_patch` tool instructions): `*** Begin Patch`, then per
//! file `*** Add File: <path>` and `+` lines, `*** Delete File: <path>`, or `*** Update
//! File: <path>` with an optional `*** Move to: <path>` and hunks (`@@ …` headers, and
//! lines that start with ` `, `-` or `+`), then `*** End Patch`.

use serde_json::json;

/// One file operation of a patch, as the Warden tool and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct FileCall {
    pub tool: &'static str,
    pub args: serde_json::Value,
}

/// Why a patch body cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("the patch does not start with `*** Begin Patch`")]
    NoBegin,
    #[error("the patch does not end with `*** End Patch`")]
    NoEnd,
    #[error("the patch changes no file")]
    Empty,
    #[error("line {line} of the patch cannot be read: `{text}`")]
    Unexpected { line: usize, text: String },
}

/// A file section being read.
enum Section {
    Add { path: String, content: String },
    Update(Update),
}

struct Update {
    path: String,
    to: Option<String>,
    old: String,
    new: String,
}

/// Reads a patch body into one call per file operation, in the patch's order.
pub fn parse(patch: &str) -> Result<Vec<FileCall>, PatchError> {
    let mut lines = patch.lines().enumerate().map(|(i, l)| (i + 1, l));
    let first = lines.by_ref().find(|(_, l)| !l.trim().is_empty());
    if first.map(|(_, l)| l.trim()) != Some("*** Begin Patch") {
        return Err(PatchError::NoBegin);
    }
    let mut calls = Vec::new();
    let mut open: Option<Section> = None;
    let mut ended = false;
    for (n, line) in lines {
        if ended {
            if line.trim().is_empty() {
                continue;
            }
            return Err(unexpected(n, line));
        }
        if line.trim() == "*** End Patch" {
            close(open.take(), &mut calls);
            ended = true;
        } else if let Some(path) = line.strip_prefix("*** Add File: ") {
            close(open.take(), &mut calls);
            open = Some(Section::Add {
                path: path.trim().to_owned(),
                content: String::new(),
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            close(open.take(), &mut calls);
            calls.push(FileCall {
                tool: "fs_delete",
                args: json!({ "path": path.trim() }),
            });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            close(open.take(), &mut calls);
            open = Some(Section::Update(Update {
                path: path.trim().to_owned(),
                to: None,
                old: String::new(),
                new: String::new(),
            }));
        } else {
            body_line(open.as_mut(), n, line)?;
        }
    }
    if !ended {
        return Err(PatchError::NoEnd);
    }
    if calls.is_empty() {
        return Err(PatchError::Empty);
    }
    Ok(calls)
}

fn unexpected(line: usize, text: &str) -> PatchError {
    PatchError::Unexpected {
        line,
        text: text.chars().take(80).collect(),
    }
}

/// A line inside a file's section.
fn body_line(open: Option<&mut Section>, n: usize, line: &str) -> Result<(), PatchError> {
    match open {
        Some(Section::Add { content, .. }) => {
            let added = line.strip_prefix('+').ok_or_else(|| unexpected(n, line))?;
            content.push_str(added);
            content.push('\n');
        }
        Some(Section::Update(update)) => {
            if let Some(to) = line.strip_prefix("*** Move to: ") {
                update.to = Some(to.trim().to_owned());
            } else if line.starts_with("@@") || line.trim() == "*** End of File" {
                // A hunk's header or the end-of-file marker: no text of the file.
            } else if let Some(old) = line.strip_prefix('-') {
                push_line(&mut update.old, old);
            } else if let Some(new) = line.strip_prefix('+') {
                push_line(&mut update.new, new);
            } else {
                // A context line (` text`, or an empty line in an empty context).
                let kept = line.strip_prefix(' ').unwrap_or(line);
                push_line(&mut update.old, kept);
                push_line(&mut update.new, kept);
            }
        }
        None => return Err(unexpected(n, line)),
    }
    Ok(())
}

fn push_line(text: &mut String, line: &str) {
    text.push_str(line);
    text.push('\n');
}

fn close(section: Option<Section>, calls: &mut Vec<FileCall>) {
    match section {
        None => {}
        Some(Section::Add { path, content }) => calls.push(FileCall {
            tool: "fs_write",
            args: json!({ "path": path, "content": content }),
        }),
        Some(Section::Update(update)) => {
            calls.push(FileCall {
                tool: "fs_edit",
                args: json!({
                    "path": update.path,
                    "old_text": update.old,
                    "new_text": update.new,
                }),
            });
            // A move writes the new file and deletes the old one.
            if let Some(to) = update.to {
                calls.push(FileCall {
                    tool: "fs_write",
                    args: json!({ "path": to, "content": update.new }),
                });
                calls.push(FileCall {
                    tool: "fs_delete",
                    args: json!({ "path": update.path }),
                });
            }
        }
    }
}
