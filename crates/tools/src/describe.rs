//! What a call does, for people: its title and the paths it touches.

use std::path::{Path, PathBuf};

use crate::call::{HttpMethod, ParsedCall};
use crate::paths::{display, resolve};

/// The longest command or pattern shown in a title, in characters.
const MAX_SHOWN: usize = 80;

/// A short sentence that says what the call does, e.g. "Read src/main.rs", "Run `npm test`",
/// "Write 120 bytes to src/lib.rs", "Fetch https://docs.rs/". Paths inside `cwd` are shown
/// relative to it.
pub fn title(call: &ParsedCall, cwd: &Path, home: Option<&Path>) -> String {
    match call {
        ParsedCall::FsRead(a) => {
            let path = display(cwd, home, &a.path);
            match (a.line, a.limit) {
                (None, None) => format!("Read {path}"),
                (Some(line), None) => format!("Read {path} from line {line}"),
                (line, Some(limit)) => {
                    let first = line.unwrap_or(1);
                    let last = first.saturating_add(limit - 1);
                    format!("Read {path} (lines {first}-{last})")
                }
            }
        }
        ParsedCall::FsList(a) => format!("List {}", display(cwd, home, &a.path)),
        ParsedCall::FsSearch(a) => {
            let pattern = shorten(&a.pattern);
            match &a.path {
                Some(path) => format!("Search for `{pattern}` in {}", display(cwd, home, path)),
                None => format!("Search for `{pattern}`"),
            }
        }
        ParsedCall::FsWrite(a) => format!(
            "Write {} to {}",
            bytes(a.content.len()),
            display(cwd, home, &a.path)
        ),
        ParsedCall::FsEdit(a) => format!("Edit {}", display(cwd, home, &a.path)),
        ParsedCall::FsDelete(a) if a.recursive => {
            format!(
                "Delete {} and everything in it",
                display(cwd, home, &a.path)
            )
        }
        ParsedCall::FsDelete(a) => format!("Delete {}", display(cwd, home, &a.path)),
        ParsedCall::FsMove(a) => {
            format!(
                "Move {} to {}",
                display(cwd, home, &a.from),
                display(cwd, home, &a.to)
            )
        }
        ParsedCall::Terminal(a) => {
            let command = shorten(&a.command);
            match &a.cwd {
                Some(dir) => format!("Run `{command}` in {}", display(cwd, home, dir)),
                None => format!("Run `{command}`"),
            }
        }
        ParsedCall::HttpFetch(a) => match a.method {
            HttpMethod::Get => format!("Fetch {}", a.url),
            method => format!("{method} {}", a.url),
        },
    }
}

/// The absolute paths the call touches (ACP `ToolCallLocation`s); empty for `terminal` and
/// `http_fetch`, whose effects cannot be known in advance.
pub fn locations(call: &ParsedCall, cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    match call {
        ParsedCall::FsRead(a) => vec![resolve(cwd, home, &a.path)],
        ParsedCall::FsList(a) => vec![resolve(cwd, home, &a.path)],
        ParsedCall::FsSearch(a) => {
            vec![resolve(
                cwd,
                home,
                a.path.as_deref().unwrap_or(Path::new("")),
            )]
        }
        ParsedCall::FsWrite(a) => vec![resolve(cwd, home, &a.path)],
        ParsedCall::FsEdit(a) => vec![resolve(cwd, home, &a.path)],
        ParsedCall::FsDelete(a) => vec![resolve(cwd, home, &a.path)],
        ParsedCall::FsMove(a) => vec![resolve(cwd, home, &a.from), resolve(cwd, home, &a.to)],
        ParsedCall::Terminal(_) | ParsedCall::HttpFetch(_) => Vec::new(),
    }
}

pub(crate) fn bytes(n: usize) -> String {
    if n == 1 {
        "1 byte".to_owned()
    } else {
        format!("{n} bytes")
    }
}

/// One line, at most `MAX_SHOWN` characters, so a title never spans lines or screens.
fn shorten(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one_line = one_line.trim();
    if one_line.chars().count() <= MAX_SHOWN {
        one_line.to_owned()
    } else {
        let cut: String = one_line.chars().take(MAX_SHOWN - 1).collect();
        format!("{cut}…")
    }
}
