//! `fs_search`: a regex over the lines of text files, walking with ripgrep's `ignore` crate so
//! `.gitignore`d trees (build output, dependencies) are skipped. Files that hold secrets
//! (as the session's [`SecretFiles`](crate::SecretFiles) says, which is the policy engine's
//! classification: `.env` files, keys, credentials) are left out unless the search was
//! pointed at one, which the user was asked about: a search judged by its folder cannot
//! print what a read of the file would ask for.

use std::path::{Path, PathBuf};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::fs_file::{blocking, io_message};
use super::{ExecContext, ToolOutput};
use crate::call::FsSearchArgs;
use crate::exec::SecretFiles;
use crate::paths::{display, resolve};

/// The longest line shown in a match, in characters; minified files have very long lines.
const MAX_LINE_CHARS: usize = 300;

#[derive(Debug, Default)]
struct Found {
    matches: Vec<(PathBuf, usize, String)>,
    files_searched: usize,
    /// Files that hold secrets, left out of the search.
    withheld: usize,
    truncated: bool,
    cancelled: bool,
}

fn walk(
    root: &Path,
    regex: &regex::Regex,
    max_matches: usize,
    max_file_bytes: u64,
    cancel: &CancellationToken,
    secret: &SecretFiles,
) -> std::io::Result<Found> {
    std::fs::symlink_metadata(root)?;
    let mut found = Found::default();
    // A search pointed at a secret place itself was asked about as a read of it.
    let allowed = secret(root);
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    for entry in walker {
        if cancel.is_cancelled() {
            found.cancelled = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if entry.metadata().map_or(true, |m| m.len() > max_file_bytes) {
            continue;
        }
        if !allowed && secret(entry.path()) {
            found.withheld += 1;
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        // The same test as grep's: a NUL byte near the start means a binary file.
        if bytes[..bytes.len().min(8192)].contains(&0) {
            continue;
        }
        found.files_searched += 1;
        let text = String::from_utf8_lossy(&bytes);
        for (index, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if found.matches.len() == max_matches {
                    found.truncated = true;
                    return Ok(found);
                }
                let shown: String = line.chars().take(MAX_LINE_CHARS).collect();
                found
                    .matches
                    .push((entry.path().to_path_buf(), index + 1, shown));
            }
        }
    }
    Ok(found)
}

pub(crate) async fn search(args: &FsSearchArgs, cx: &ExecContext<'_>) -> ToolOutput {
    const TOOL: &str = "fs_search";
    let root = resolve(
        cx.cwd,
        cx.home,
        args.path.as_deref().unwrap_or(Path::new("")),
    );
    let shown_root = display(cx.cwd, cx.home, &root);
    let regex = match regex::Regex::new(&args.pattern) {
        Ok(regex) => regex,
        Err(err) => {
            return ToolOutput::failed(TOOL, format!("`pattern` is not a valid regex: {err}"));
        }
    };
    let (max_matches, max_file_bytes) = (cx.limits.search_matches, cx.limits.search_file_bytes);
    let cancel = cx.cancel.clone();
    let walk_root = root.clone();
    let secret = cx.secret_files.clone();
    let found = blocking(move || {
        walk(
            &walk_root,
            &regex,
            max_matches,
            max_file_bytes,
            &cancel,
            &secret,
        )
    })
    .await;
    let found = match found {
        Ok(found) if found.cancelled => return ToolOutput::cancelled(TOOL),
        Ok(found) => found,
        Err(err) => return ToolOutput::failed(TOOL, format!("{shown_root} {}", io_message(&err))),
    };
    let mut text = String::new();
    for (path, line, content) in &found.matches {
        text.push_str(&format!(
            "{}:{line}: {content}\n",
            display(cx.cwd, cx.home, path)
        ));
    }
    if found.matches.is_empty() {
        text = format!(
            "No matches for `{}` in {shown_root} ({} files searched).",
            args.pattern, found.files_searched
        );
    } else if found.truncated {
        text.push_str(&format!(
            "[fs_search: stopped at {max_matches} matches; narrow the pattern or the path]"
        ));
    }
    if found.withheld > 0 {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "[fs_search: {} files that hold secrets (.env files, keys, credentials) were not searched; read one with fs_read, which asks the user]",
            found.withheld
        ));
    }
    let raw = json!({
        "path": root,
        "matches": found.matches.len(),
        "files_searched": found.files_searched,
        "truncated": found.truncated,
        "withheld": found.withheld,
    });
    ToolOutput::completed(text, raw)
}
