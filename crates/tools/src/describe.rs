//! What a call does, for people: its title and the paths it touches.

use std::path::{Path, PathBuf};

use warden_i18n::{Args, catalog};

use crate::call::{HttpMethod, ParsedCall};
use crate::paths::{display, resolve};
use crate::place::Place;

/// The longest command or pattern shown in a title, in characters.
const MAX_SHOWN: usize = 80;

/// A short sentence that says what the call does, e.g. "Read src/main.rs", "Run `npm test`",
/// "Write 120 bytes to src/lib.rs", "Fetch https://docs.rs/", in the session's language.
/// Paths inside `cwd` are shown relative to it.
pub fn title(call: &ParsedCall, place: Place<'_>) -> String {
    let words = catalog(place.language);
    let shown = |path: &Path| display(place.cwd, place.home, path);
    let (id, args) = match call {
        ParsedCall::FsRead(a) => {
            let args = Args::new().with("path", shown(&a.path));
            match (a.line, a.limit) {
                (None, None) => ("tools-read", args),
                (Some(line), None) => ("tools-read-from", args.with("line", line)),
                (line, Some(limit)) => {
                    let first = line.unwrap_or(1);
                    let last = first.saturating_add(limit - 1);
                    let args = args.with("first", first).with("last", last);
                    ("tools-read-lines", args)
                }
            }
        }
        ParsedCall::FsList(a) => ("tools-list", Args::new().with("path", shown(&a.path))),
        ParsedCall::FsSearch(a) => {
            let args = Args::new().with("pattern", shorten(&a.pattern));
            match &a.path {
                Some(path) => ("tools-search-in", args.with("path", shown(path))),
                None => ("tools-search", args),
            }
        }
        ParsedCall::FsWrite(a) => (
            "tools-write",
            Args::new()
                .with("bytes", a.content.len())
                .with("path", shown(&a.path)),
        ),
        ParsedCall::FsEdit(a) => ("tools-edit", Args::new().with("path", shown(&a.path))),
        ParsedCall::FsDelete(a) if a.recursive => {
            ("tools-delete-all", Args::new().with("path", shown(&a.path)))
        }
        ParsedCall::FsDelete(a) => ("tools-delete", Args::new().with("path", shown(&a.path))),
        ParsedCall::FsMove(a) => (
            "tools-move",
            Args::new()
                .with("from", shown(&a.from))
                .with("to", shown(&a.to)),
        ),
        ParsedCall::Terminal(a) => {
            let args = Args::new().with("command", shorten(&a.command));
            match &a.cwd {
                Some(dir) => ("tools-run-in", args.with("path", shown(dir))),
                None => ("tools-run", args),
            }
        }
        ParsedCall::HttpFetch(a) => match a.method {
            HttpMethod::Get => ("tools-fetch", Args::new().with("url", a.url.clone())),
            method => (
                "tools-fetch-method",
                Args::new()
                    .with("method", method.to_string())
                    .with("url", a.url.clone()),
            ),
        },
    };
    words.text(id, &args)
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
