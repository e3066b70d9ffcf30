//! What a person sees about a call before it runs: the diff of an edit, what a delete
//! removes, and the risk with its reason in words.
//!
//! Clients show a tool call's `content`, not its `_meta`, so everything that helps a
//! person decide is content: an edit carries an ACP `diff` (`oldText` null for a new
//! file), so a client can open its diff-approval screen, and a call that asks carries
//! a text block such as "Critical: recursively deletes /root, the home folder".
//!
//! The files are read locally, off the runtime's thread, before the turn sees the
//! model's reply ([`load`]); the turn itself stays free of I/O and builds the content
//! from what was read ([`content`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use warden_i18n::Args;
use warden_model::ToolCallRequest;
use warden_permissions::Decision;
use warden_tools::Content;

use crate::gate::{Prepared, Verdict};
use crate::words::Words;

/// The most folder entries a delete's preview names.
const MAX_ENTRIES_SHOWN: usize = 20;
/// The most folder entries counted for a delete's preview; past it the count says "more
/// than".
const MAX_ENTRIES_COUNTED: usize = 10_000;

/// What is at a path now, as far as a preview needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// Nothing: a write creates it.
    Missing,
    Text(String),
    /// A folder: the first names (sorted) and how many entries it has.
    Folder {
        first: Vec<String>,
        total: usize,
        more: bool,
    },
    /// Something that cannot be shown as text (too large, not UTF-8, unreadable).
    Hidden(String),
}

/// The state of the paths a batch's previews need, by absolute path, and the session's
/// cwd and home they were resolved against (the engine's, so that the diff shown is of
/// the file the engine judged and the tool writes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Files {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub states: HashMap<PathBuf, FileState>,
}

/// The path whose current state a call's preview shows: the target of `fs_write`,
/// `fs_edit` and `fs_delete`.
pub fn target(
    tool: &str,
    args: &serde_json::Value,
    cwd: &Path,
    home: Option<&Path>,
) -> Option<PathBuf> {
    if !matches!(tool, "fs_write" | "fs_edit" | "fs_delete") {
        return None;
    }
    let path = args.get("path")?.as_str()?;
    (!path.is_empty()).then(|| warden_tools::resolve(cwd, home, Path::new(path)))
}

/// Reads what the previews of a batch need, on the blocking pool. Files larger than
/// `max_bytes` are not read.
pub async fn load(
    calls: &[ToolCallRequest],
    cwd: &Path,
    home: Option<&Path>,
    max_bytes: usize,
) -> Files {
    let paths: Vec<PathBuf> = calls
        .iter()
        .filter_map(|c| target(&c.name, &c.arguments, cwd, home))
        .collect();
    let states = if paths.is_empty() {
        HashMap::new()
    } else {
        tokio::task::spawn_blocking(move || {
            paths
                .into_iter()
                .map(|p| {
                    let state = read_state(&p, max_bytes);
                    (p, state)
                })
                .collect()
        })
        .await
        .unwrap_or_default()
    };
    Files {
        cwd: cwd.to_path_buf(),
        home: home.map(Path::to_path_buf),
        states,
    }
}

fn read_state(path: &Path, max_bytes: usize) -> FileState {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return FileState::Missing,
        Err(err) => return FileState::Hidden(format!("it cannot be read: {err}")),
    };
    if meta.is_dir() {
        return read_folder(path);
    }
    if meta.len() > max_bytes as u64 {
        return FileState::Hidden(format!("it is {} bytes, too large to show", meta.len()));
    }
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => FileState::Text(text),
            Err(_) => FileState::Hidden("it is not text".to_owned()),
        },
        Err(err) => FileState::Hidden(format!("it cannot be read: {err}")),
    }
}

fn read_folder(path: &Path) -> FileState {
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(err) => return FileState::Hidden(format!("it cannot be listed: {err}")),
    };
    let mut names: Vec<String> = Vec::new();
    let mut more = false;
    for entry in entries {
        if names.len() >= MAX_ENTRIES_COUNTED {
            more = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        let mut name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            name.push('/');
        }
        names.push(name);
    }
    names.sort();
    let total = names.len();
    names.truncate(MAX_ENTRIES_SHOWN);
    FileState::Folder {
        first: names,
        total,
        more,
    }
}

/// The content a call carries before it runs: its preview, and for a call that is not
/// simply allowed, the risk and the reason in words.
pub fn content(
    prepared: &Prepared,
    verdict: &Verdict,
    files: &Files,
    words: Words,
) -> Vec<Content> {
    let mut content = preview(prepared, files, words);
    if verdict.decision != Decision::Allow {
        if let Some(prompt) = mcp_prompt(prepared, words) {
            content.push(Content::Text(prompt));
        }
        content.push(Content::Text(risk_text(prepared, verdict, words)));
    }
    content
}

/// The question about a call of an MCP tool (the contract's wording): who asks, the
/// arguments as JSON (whole, never shortened), the warning and the bold line.
pub fn mcp_prompt(prepared: &Prepared, words: Words) -> Option<String> {
    let origin = prepared.origin.as_ref()?;
    let args =
        serde_json::to_string_pretty(&prepared.args).unwrap_or_else(|_| prepared.args.to_string());
    let question = words.text(
        "agent-question-mcp",
        &Args::new().with("server", origin.server.clone()),
    );
    Some(format!(
        "{question}\n\n{}\n\n{}\n\n**{}**",
        warden_model::code_block("json", &args),
        words.plain("agent-mcp-warning"),
        words.plain("agent-mcp-review"),
    ))
}

/// The diff of an edit, or what a delete removes.
fn preview(prepared: &Prepared, files: &Files, words: Words) -> Vec<Content> {
    let cwd = files.cwd.as_path();
    let Some(path) = target(&prepared.tool, &prepared.args, cwd, files.home.as_deref()) else {
        return Vec::new();
    };
    let state = files.states.get(&path);
    let arg = |name: &str| {
        prepared
            .args
            .get(name)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let shown = shown(&path, cwd);
    let note = |id: &str, why: Option<&str>| {
        let mut args = Args::new().with("path", shown.clone());
        if let Some(why) = why {
            args = args.with("why", why.to_owned());
        }
        vec![Content::Text(words.text(id, &args))]
    };
    let diff = |old: Option<String>, new: String| {
        vec![Content::Diff {
            path: path.clone(),
            old_text: old,
            new_text: new,
        }]
    };
    match (prepared.tool.as_str(), state) {
        ("fs_write", Some(FileState::Missing)) => diff(None, arg("content")),
        // Not read (a path the user's edit introduced): no diff, rather than one that
        // would call an existing file new.
        ("fs_write", None) => note("agent-preview-write-unread", None),
        ("fs_write", Some(FileState::Text(old))) => diff(Some(old.clone()), arg("content")),
        ("fs_write", Some(FileState::Folder { .. })) => note("agent-preview-write-folder", None),
        ("fs_write", Some(FileState::Hidden(why))) => note("agent-preview-write-hidden", Some(why)),
        ("fs_edit", Some(FileState::Text(old))) => {
            let (from, to) = (arg("old_text"), arg("new_text"));
            if !from.is_empty() && old.matches(from.as_str()).count() == 1 {
                diff(Some(old.clone()), old.replacen(&from, &to, 1))
            } else {
                // The edit will fail (its text is missing or not unique); the excerpt
                // still shows what was asked.
                diff(Some(from), to)
            }
        }
        ("fs_edit", _) => diff(Some(arg("old_text")), arg("new_text")),
        ("fs_delete", Some(FileState::Text(old))) => diff(Some(old.clone()), String::new()),
        ("fs_delete", Some(FileState::Folder { first, total, more })) => {
            // The first names are a list, not words: they are the same in every language.
            let mut names = String::new();
            if !first.is_empty() {
                names = format!(": {}", first.join(", "));
                if *total > first.len() || *more {
                    names.push_str(", …");
                }
            }
            let args = Args::new()
                .with("path", shown.clone())
                .with("total", *total)
                .with("more", if *more { "yes" } else { "no" })
                .with("first", names);
            vec![Content::Text(
                words.text("agent-preview-delete-folder", &args),
            )]
        }
        ("fs_delete", Some(FileState::Missing)) => note("agent-preview-delete-missing", None),
        ("fs_delete", None) => note("agent-preview-delete-unread", None),
        ("fs_delete", Some(FileState::Hidden(why))) => {
            note("agent-preview-delete-hidden", Some(why))
        }
        _ => Vec::new(),
    }
}

/// A path below `cwd` relative to it, others as they are.
fn shown(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// "Critical: recursively deletes /root, the home folder", then for a compound command
/// the part that decided, and for a command the whole command (never shortened, unlike
/// the title). Markdown: paragraphs, and the command in a code block.
pub fn risk_text(prepared: &Prepared, verdict: &Verdict, words: Words) -> String {
    let args = Args::new()
        .with("risk", words.risk(verdict.risk))
        .with("reason", verdict.risk_reason.clone());
    let mut s = words.text("agent-risk-line", &args);
    if let Some(part) = &verdict.deciding_part {
        let args = Args::new().with("part", warden_model::code_span(part));
        s.push_str("\n\n");
        s.push_str(&words.text("agent-decided-by-part", &args));
    }
    if prepared.tool == "terminal"
        && let Some(command) = prepared.args.get("command").and_then(|c| c.as_str())
    {
        s.push_str("\n\n");
        s.push_str(&warden_model::code_block("sh", command));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;
    use warden_permissions::Risk;
    use warden_tools::{PreparedCall, ToolKind};

    fn prepared(tool: &str, args: serde_json::Value) -> Prepared {
        Prepared {
            call: PreparedCall::new(tool.to_owned(), args, ToolKind::Edit, String::new()),
            hint: None,
        }
    }

    fn verdict(decision: Decision) -> Verdict {
        Verdict {
            decision,
            risk: Risk::Medium,
            reason: String::new(),
            risk_reason: "writes a file inside the workspace".to_owned(),
            deciding_part: None,
            proposal: None,
            timeout: None,
            why: Arc::default(),
        }
    }

    /// The content as JSON, one line per block, for the table below.
    fn check(tool: &str, args: serde_json::Value, state: Option<FileState>, expect: &str) {
        let mut files = Files {
            cwd: PathBuf::from("/w"),
            home: Some(PathBuf::from("/home/u")),
            states: HashMap::new(),
        };
        if let (Some(state), Some(path)) = (
            state,
            target(tool, &args, &files.cwd, files.home.as_deref()),
        ) {
            files.states.insert(path, state);
        }
        let content = content(
            &prepared(tool, args),
            &verdict(Decision::Allow),
            &files,
            Words::default(),
        );
        let lines: Vec<String> = content
            .iter()
            .map(|c| match c {
                Content::Diff {
                    path,
                    old_text,
                    new_text,
                } => match old_text {
                    Some(old) => {
                        json!({"type": "diff", "path": path, "oldText": old, "newText": new_text})
                    }
                    None => json!({"type": "diff", "path": path, "newText": new_text}),
                }
                .to_string(),
                Content::Text(text) => {
                    json!({"type": "content", "content": {"type": "text", "text": text}})
                        .to_string()
                }
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(lines.join("\n"), expect, "{tool}");
    }

    #[test]
    fn edits_carry_their_diff_and_deletes_what_goes() {
        check(
            "fs_write",
            json!({"path": "new.txt", "content": "hi"}),
            Some(FileState::Missing),
            // The schema leaves a `null` out; the transport writes it back (tested there).
            r#"{"type":"diff","path":"/w/new.txt","newText":"hi"}"#,
        );
        check(
            "fs_write",
            json!({"path": "a.txt", "content": "new"}),
            Some(FileState::Text("old".to_owned())),
            r#"{"type":"diff","path":"/w/a.txt","oldText":"old","newText":"new"}"#,
        );
        check(
            "fs_write",
            json!({"path": "big.bin", "content": "x"}),
            Some(FileState::Hidden("it is not text".to_owned())),
            r#"{"type":"content","content":{"type":"text","text":"Replaces the whole of big.bin, whose current content is not shown (it is not text)."}}"#,
        );
        check(
            "fs_edit",
            json!({"path": "a.txt", "old_text": "b", "new_text": "B"}),
            Some(FileState::Text("a\nb\nc\n".to_owned())),
            r#"{"type":"diff","path":"/w/a.txt","oldText":"a\nb\nc\n","newText":"a\nB\nc\n"}"#,
        );
        check(
            "fs_edit",
            json!({"path": "a.txt", "old_text": "x", "new_text": "y"}),
            Some(FileState::Text("x x".to_owned())),
            r#"{"type":"diff","path":"/w/a.txt","oldText":"x","newText":"y"}"#,
        );
        check(
            "fs_delete",
            json!({"path": "a.txt"}),
            Some(FileState::Text("gone".to_owned())),
            r#"{"type":"diff","path":"/w/a.txt","oldText":"gone","newText":""}"#,
        );
        check(
            "fs_delete",
            json!({"path": "dir", "recursive": true}),
            Some(FileState::Folder {
                first: vec!["a".to_owned(), "b/".to_owned()],
                total: 3,
                more: false,
            }),
            r#"{"type":"content","content":{"type":"text","text":"Deletes the folder dir with 3 entries: a, b/, …."}}"#,
        );
        check(
            "fs_delete",
            json!({"path": "gone.txt"}),
            Some(FileState::Missing),
            r#"{"type":"content","content":{"type":"text","text":"gone.txt does not exist."}}"#,
        );
        check(
            "fs_write",
            json!({"path": "edited.txt", "content": "x"}),
            None,
            r#"{"type":"content","content":{"type":"text","text":"Writes the whole of edited.txt; its current content was not read, so no diff is shown."}}"#,
        );
        check("fs_read", json!({"path": "a.txt"}), None, "");
    }

    #[test]
    fn files_are_read_as_they_are_on_disk() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::write(dir.path().join("a.txt"), "text").expect("write a.txt");
        std::fs::write(dir.path().join("bin"), [0xff, 0xfe]).expect("write bin");
        std::fs::create_dir(dir.path().join("sub")).expect("create sub");
        std::fs::write(dir.path().join("sub/x"), "").expect("write sub/x");
        assert_eq!(
            read_state(&dir.path().join("a.txt"), 100),
            FileState::Text("text".to_owned())
        );
        assert_eq!(
            read_state(&dir.path().join("a.txt"), 2),
            FileState::Hidden("it is 4 bytes, too large to show".to_owned())
        );
        assert_eq!(
            read_state(&dir.path().join("bin"), 100),
            FileState::Hidden("it is not text".to_owned())
        );
        assert_eq!(
            read_state(&dir.path().join("none"), 100),
            FileState::Missing
        );
        assert_eq!(
            read_state(&dir.path().join("sub"), 100),
            FileState::Folder {
                first: vec!["x".to_owned()],
                total: 1,
                more: false
            }
        );
    }

    #[test]
    fn the_risk_names_the_deciding_part_and_shows_the_whole_command() {
        let command = format!("cd /tmp && rm -rf ~ # {}", "x".repeat(100));
        let mut v = verdict(Decision::Ask);
        v.risk = Risk::Critical;
        v.risk_reason = "recursively deletes /root, the home folder".to_owned();
        v.deciding_part = Some("rm -rf ~".to_owned());
        let text = risk_text(
            &prepared("terminal", json!({ "command": command })),
            &v,
            Words::default(),
        );
        assert_eq!(
            text,
            format!(
                "Critical: recursively deletes /root, the home folder\n\n\
                 Decided by the part `rm -rf ~`.\n\n```sh\n{command}\n```"
            )
        );
    }

    #[test]
    fn an_mcp_call_that_asks_carries_the_contract_s_prompt_first() {
        let call = PreparedCall::new(
            "mcp__github__create_issue".to_owned(),
            json!({"title": "Bug", "labels": ["a", "b"]}),
            ToolKind::Other,
            "Run create_issue from github".to_owned(),
        )
        .with_origin(warden_tools::Origin {
            server: "github".to_owned(),
            identity: "github stdio [\"gh-mcp\"]".to_owned(),
            tool: "create_issue".to_owned(),
        });
        let prepared = Prepared { call, hint: None };
        let files = Files {
            cwd: "/w".into(),
            home: None,
            states: Default::default(),
        };
        let texts = |decision| -> Vec<String> {
            content(&prepared, &verdict(decision), &files, Words::default())
                .into_iter()
                .map(|c| match c {
                    Content::Text(text) => text,
                    other => format!("{other:?}"),
                })
                .collect()
        };
        let asked = texts(Decision::Ask);
        assert_eq!(asked.len(), 2, "{asked:?}");
        assert_eq!(
            asked[0],
            "Allow tool call from github?\n\n```json\n{\n  \"title\": \"Bug\",\n  \"labels\": [\n    \"a\",\n    \"b\"\n  ]\n}\n```\n\n\
             Malicious MCP servers or conversation content could potentially trick Warden into attempting harmful actions through your installed tools.\n\n\
             **Review each action carefully before approving**"
        );
        assert!(asked[1].starts_with("Medium: "), "{asked:?}");
        // A call that is simply allowed asks nothing and shows no warning.
        assert!(texts(Decision::Allow).is_empty());
        // A built-in call never carries the MCP prompt.
        let builtin = prepared_builtin();
        assert!(mcp_prompt(&builtin, Words::default()).is_none());
    }

    fn prepared_builtin() -> Prepared {
        prepared("fs_write", json!({"path": "a", "content": "b"}))
    }
}
