//! An agent's tool call as the Warden calls that do the same (docs/contract.md, section
//! 11): shell tools are `terminal`; file writes, edits and deletes are `fs_write`,
//! `fs_edit` and `fs_delete` (each file of a Codex `apply_patch` on its own); fetches
//! are `http_fetch`; MCP tools are `mcp__<server>__<tool>`. A tool Warden does not
//! know maps to nothing, and is asked about.

use serde_json::{Value, json};
use warden_permissions::ToolCall;

use crate::apply_patch::{self, PatchError};
use crate::{Agent, Payload};

/// What an agent's call is, in Warden's terms.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapped {
    /// The Warden calls that do what the agent's call does (several for a patch that
    /// touches several files, or an edit with several changes).
    Calls(Vec<ToolCall>),
    /// A tool Warden has no counterpart for.
    Unknown { tool: String },
    /// A known tool whose input cannot be read.
    Malformed { tool: String, problem: String },
}

/// Maps one payload's call.
pub fn map(agent: Agent, payload: &Payload) -> Mapped {
    let tool = payload.tool_name.as_str();
    if tool.starts_with("mcp__") {
        return calls(vec![ToolCall::new(tool, payload.tool_input.clone())]);
    }
    let mapped = match agent {
        Agent::Claude => claude(payload),
        Agent::Codex => codex(payload),
        Agent::Gemini => gemini(payload),
    };
    match mapped {
        Some(Ok(calls)) if !calls.is_empty() => Mapped::Calls(calls),
        Some(Ok(_)) => Mapped::Malformed {
            tool: tool.to_owned(),
            problem: "the call does nothing Warden can judge".to_owned(),
        },
        Some(Err(problem)) => Mapped::Malformed {
            tool: tool.to_owned(),
            problem: problem.to_string(),
        },
        None => Mapped::Unknown {
            tool: tool.to_owned(),
        },
    }
}

fn calls(calls: Vec<ToolCall>) -> Mapped {
    Mapped::Calls(calls)
}

/// `None`: an unknown tool; `Err`: a known tool whose input cannot be read.
type Mapping = Option<Result<Vec<ToolCall>, Unreadable>>;

/// Why a known tool's input cannot be read; the words are what the user is shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Unreadable {
    #[error("`tool_input.{0}` is missing or not a string")]
    Argument(String),
    #[error("`tool_input.command` has an element that is not a string")]
    CommandElement,
    #[error("`tool_input.command` is missing, or neither a string nor a list")]
    Command,
    #[error(transparent)]
    Patch(#[from] PatchError),
    #[error("the prompt names no http:// or https:// URL")]
    NoUrl,
    #[error("`tool_input.edits` is missing or not a list")]
    Edits,
    #[error("an edit's `{0}` is missing or not a string")]
    EditArgument(&'static str),
}

fn one(tool: &str, args: Value) -> Mapping {
    Some(Ok(vec![ToolCall::new(tool, args)]))
}

/// A required string argument.
fn arg<'a>(payload: &'a Payload, key: &str) -> Result<&'a str, Unreadable> {
    payload
        .input_str(key)
        .ok_or_else(|| Unreadable::Argument(key.to_owned()))
}

/// An optional string argument, as JSON (null when absent).
fn opt(payload: &Payload, key: &str) -> Value {
    payload.input_str(key).map_or(Value::Null, Value::from)
}

/// Builds the calls of a known tool, or the reason its input cannot be read.
fn known(build: impl FnOnce() -> Result<Vec<ToolCall>, Unreadable>) -> Mapping {
    Some(build())
}

fn claude(p: &Payload) -> Mapping {
    match p.tool_name.as_str() {
        "Bash" | "PowerShell" => known(|| terminal(arg(p, "command")?, Value::Null)),
        "Write" => known(|| write(arg(p, "file_path")?, arg(p, "content")?)),
        "Edit" => known(|| {
            edit(
                arg(p, "file_path")?,
                arg(p, "old_string")?,
                arg(p, "new_string")?,
            )
        }),
        "MultiEdit" => known(|| multi_edit(p)),
        "NotebookEdit" => known(|| write(arg(p, "notebook_path")?, arg(p, "new_source")?)),
        "Read" => one("fs_read", json!({ "path": p.input_str("file_path") })),
        "Grep" => one(
            "fs_search",
            json!({ "pattern": p.input_str("pattern"), "path": opt(p, "path") }),
        ),
        "Glob" | "LS" => one(
            "fs_list",
            json!({ "path": p.input_str("path").unwrap_or(".") }),
        ),
        "WebFetch" => known(|| fetch(arg(p, "url")?)),
        _ => None,
    }
}

fn codex(p: &Payload) -> Mapping {
    match p.tool_name.as_str() {
        "Bash" | "shell" | "local_shell" | "exec_command" => known(|| {
            let command = codex_command(p.tool_input.get("command"))?;
            terminal(&command, opt(p, "workdir"))
        }),
        "apply_patch" => known(|| {
            let patch = codex_command(p.tool_input.get("command").or(p.tool_input.get("input")))?;
            let files = apply_patch::parse(&patch)?;
            Ok(files
                .into_iter()
                .map(|f| ToolCall::new(f.tool, f.args))
                .collect())
        }),
        _ => None,
    }
}

/// Codex's `command`: a command line, or an argument vector (`["bash", "-lc",
/// "npm test"]`), whose script is what runs.
fn codex_command(value: Option<&Value>) -> Result<String, Unreadable> {
    match value {
        Some(Value::String(command)) => Ok(command.clone()),
        Some(Value::Array(items)) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            let words = words.ok_or(Unreadable::CommandElement)?;
            match words.as_slice() {
                [shell, flag, script]
                    if matches!(
                        *shell,
                        "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh" | "/bin/zsh"
                    ) && matches!(*flag, "-c" | "-lc") =>
                {
                    Ok((*script).to_owned())
                }
                words => Ok(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")),
            }
        }
        _ => Err(Unreadable::Command),
    }
}

/// A word as the shell reads it back.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn gemini(p: &Payload) -> Mapping {
    if let Some(mcp) = &p.mcp_context {
        let name = format!("mcp__{}__{}", mcp.server_name, mcp.tool_name);
        return one(&name, p.tool_input.clone());
    }
    match p.tool_name.as_str() {
        "run_shell_command" => known(|| terminal(arg(p, "command")?, opt(p, "dir_path"))),
        "write_file" => known(|| write(arg(p, "file_path")?, arg(p, "content")?)),
        "replace" => known(|| {
            edit(
                arg(p, "file_path")?,
                arg(p, "old_string")?,
                arg(p, "new_string")?,
            )
        }),
        "read_file" => one("fs_read", json!({ "path": p.input_str("file_path") })),
        "list_directory" => one("fs_list", json!({ "path": p.input_str("dir_path") })),
        "search_file_content" | "grep_search" => one(
            "fs_search",
            json!({ "pattern": p.input_str("pattern"), "path": opt(p, "dir_path") }),
        ),
        "web_fetch" => known(|| {
            let urls = urls_in(arg(p, "prompt")?);
            if urls.is_empty() {
                return Err(Unreadable::NoUrl);
            }
            Ok(urls
                .into_iter()
                .map(|url| ToolCall::new("http_fetch", json!({ "url": url })))
                .collect())
        }),
        _ => None,
    }
}

fn terminal(command: &str, cwd: Value) -> Result<Vec<ToolCall>, Unreadable> {
    let mut args = json!({ "command": command });
    if !cwd.is_null() {
        args["cwd"] = cwd;
    }
    Ok(vec![ToolCall::new("terminal", args)])
}

fn write(path: &str, content: &str) -> Result<Vec<ToolCall>, Unreadable> {
    Ok(vec![ToolCall::new(
        "fs_write",
        json!({ "path": path, "content": content }),
    )])
}

fn edit(path: &str, old: &str, new: &str) -> Result<Vec<ToolCall>, Unreadable> {
    Ok(vec![ToolCall::new(
        "fs_edit",
        json!({ "path": path, "old_text": old, "new_text": new }),
    )])
}

fn multi_edit(p: &Payload) -> Result<Vec<ToolCall>, Unreadable> {
    let path = arg(p, "file_path")?;
    let edits = p
        .tool_input
        .get("edits")
        .and_then(Value::as_array)
        .ok_or(Unreadable::Edits)?;
    let mut calls = Vec::new();
    for e in edits {
        let text = |key: &'static str| {
            e.get(key)
                .and_then(Value::as_str)
                .ok_or(Unreadable::EditArgument(key))
        };
        calls.extend(edit(path, text("old_string")?, text("new_string")?)?);
    }
    Ok(calls)
}

fn fetch(url: &str) -> Result<Vec<ToolCall>, Unreadable> {
    Ok(vec![ToolCall::new("http_fetch", json!({ "url": url }))])
}

/// The http:// and https:// URLs in a text, in order (Gemini's `web_fetch` names its
/// URLs in its prompt).
fn urls_in(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "<>\"'()[]{}".contains(c))
        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
        .map(|w| {
            w.trim_end_matches(['.', ',', ';', ':', '!', '?'])
                .to_owned()
        })
        .collect()
}
