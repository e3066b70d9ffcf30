//! The definitions of the built-in tools: what the model is offered.

use std::sync::LazyLock;

use serde_json::{Value, json};

use crate::content::ToolKind;

/// The largest `timeout_secs` the `terminal` tool accepts.
pub const MAX_TIMEOUT_SECS: u64 = 3600;

/// One built-in tool as offered to the model and announced to the editor.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The tool's name (docs/contract.md, section 2).
    pub name: &'static str,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// The kind of its tool calls.
    pub kind: ToolKind,
    /// The JSON Schema of its arguments, without `risk_level` (the model crate adds it).
    pub schema: Value,
}

/// Every built-in tool, in a stable order.
pub fn builtin_tools() -> &'static [ToolDef] {
    &TOOLS
}

/// The built-in tool with this name, if any.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|tool| tool.name == name)
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

static TOOLS: LazyLock<Vec<ToolDef>> = LazyLock::new(|| {
    vec![
        ToolDef {
            name: "fs_read",
            description: "Read a UTF-8 text file. Optionally start at a 1-based `line` and read at most `limit` lines. Large files are truncated; read them in parts.",
            kind: ToolKind::Read,
            schema: object(
                json!({
                    "path": {"type": "string", "description": "File path, absolute or relative to the working directory."},
                    "line": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)."},
                    "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to read."},
                }),
                &["path"],
            ),
        },
        ToolDef {
            name: "fs_list",
            description: "List the entries of a directory (not recursive). Directories end with `/`.",
            kind: ToolKind::Read,
            schema: object(
                json!({
                    "path": {"type": "string", "description": "Directory path, absolute or relative to the working directory."},
                }),
                &["path"],
            ),
        },
        ToolDef {
            name: "fs_search",
            description: "Search the contents of text files for a regular expression (Rust regex syntax), recursively, honouring .gitignore. Prints `path:line: text` for each matching line.",
            kind: ToolKind::Search,
            schema: object(
                json!({
                    "pattern": {"type": "string", "description": "Regular expression to search for."},
                    "path": {"type": "string", "description": "File or directory to search; defaults to the working directory."},
                }),
                &["pattern"],
            ),
        },
        ToolDef {
            name: "fs_write",
            description: "Write a text file, replacing its whole content. Creates the file and its parent directories if needed.",
            kind: ToolKind::Edit,
            schema: object(
                json!({
                    "path": {"type": "string", "description": "File path, absolute or relative to the working directory."},
                    "content": {"type": "string", "description": "The complete new content of the file."},
                }),
                &["path", "content"],
            ),
        },
        ToolDef {
            name: "fs_edit",
            description: "Replace exactly one occurrence of `old_text` with `new_text` in a text file. Fails if `old_text` occurs zero or several times; then include more surrounding text.",
            kind: ToolKind::Edit,
            schema: object(
                json!({
                    "path": {"type": "string", "description": "File path, absolute or relative to the working directory."},
                    "old_text": {"type": "string", "description": "The exact text to replace; must occur exactly once."},
                    "new_text": {"type": "string", "description": "The replacement text."},
                }),
                &["path", "old_text", "new_text"],
            ),
        },
        ToolDef {
            name: "fs_delete",
            description: "Delete a file, a symbolic link, or (with `recursive: true`) a directory and everything in it.",
            kind: ToolKind::Delete,
            schema: object(
                json!({
                    "path": {"type": "string", "description": "Path to delete, absolute or relative to the working directory."},
                    "recursive": {"type": "boolean", "description": "Required to delete a directory.", "default": false},
                }),
                &["path"],
            ),
        },
        ToolDef {
            name: "fs_move",
            description: "Move or rename a file or directory. Never overwrites: fails if the target exists.",
            kind: ToolKind::Move,
            schema: object(
                json!({
                    "from": {"type": "string", "description": "Existing path."},
                    "to": {"type": "string", "description": "New path; must not exist."},
                }),
                &["from", "to"],
            ),
        },
        ToolDef {
            name: "terminal",
            description: "Run a shell command line with `sh -c` and return its exit status and output (stdout and stderr together, truncated when long). No input is available; the command is killed on timeout. It runs in a sandbox: it may write only the workspace and the temporary folders, cannot read keys and credentials, and has no network unless the user allowed it for this call. When the result says the sandbox refused something the task really needs, call again with `sandbox: false` so that the user decides; never retry variants to get around it.",
            kind: ToolKind::Execute,
            schema: object(
                json!({
                    "command": {"type": "string", "description": "The shell command line."},
                    "cwd": {"type": "string", "description": "Working directory, absolute or relative to the session's; defaults to the session's."},
                    "timeout_secs": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_SECS, "description": "Seconds before the command is killed (default 120)."},
                    "sandbox": {"type": "boolean", "description": "false: ask the user to run this command WITHOUT the sandbox, only after the sandbox refused an access the task needs (default true)."},
                }),
                &["command"],
            ),
        },
        ToolDef {
            name: "http_fetch",
            description: "Make an HTTP(S) request and return the status, content type and body text (truncated when large). Redirects are followed only within the same host.",
            kind: ToolKind::Fetch,
            schema: object(
                json!({
                    "url": {"type": "string", "description": "An http:// or https:// URL."},
                    "method": {"type": "string", "enum": ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"], "default": "GET"},
                    "body": {"type": "string", "description": "Request body, for POST, PUT, PATCH."},
                }),
                &["url"],
            ),
        },
    ]
});
