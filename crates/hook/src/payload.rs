//! What an agent's pre-tool-use hook reads on its standard input: the fields all three
//! agents share (Claude Code and Codex `PreToolUse`, Gemini CLI `BeforeTool`), and
//! Gemini's MCP context. Fields Warden does not use are ignored.

use std::path::PathBuf;

use serde::Deserialize;

/// The most a payload may hold. A real one is a few kilobytes (a whole file's content
/// in a write at most); anything beyond this is not read, and the call is asked about.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

/// One pre-tool-use payload.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Payload {
    /// The agent's session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The agent's working folder: the project whose policy applies.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
    /// The agent's own name for the tool (`Bash`, `apply_patch`, `write_file`,
    /// `mcp__github__create_issue`, `mcp_github_create_issue`).
    pub tool_name: String,
    /// The tool's arguments, as the model gave them.
    #[serde(default)]
    pub tool_input: serde_json::Value,
    /// The call's id (Claude Code and Codex).
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// Gemini CLI: the MCP server and tool a call goes to.
    #[serde(default)]
    pub mcp_context: Option<McpContext>,
}

/// Gemini CLI's `mcp_context`: its MCP tool names (`mcp_<server>_<tool>`) cannot be
/// split where the server's name has an underscore, so the server is read from here.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct McpContext {
    pub server_name: String,
    pub tool_name: String,
}

/// Why a payload cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    #[error("the hook's input is larger than {MAX_PAYLOAD_BYTES} bytes")]
    TooLarge,
    #[error("the hook's input is not a pre-tool-use payload ({0})")]
    Invalid(String),
}

impl Payload {
    /// Reads a payload from the bytes of the hook's standard input.
    pub fn parse(bytes: &[u8]) -> Result<Payload, PayloadError> {
        if bytes.len() > MAX_PAYLOAD_BYTES {
            return Err(PayloadError::TooLarge);
        }
        serde_json::from_slice(bytes).map_err(|e| PayloadError::Invalid(e.to_string()))
    }

    /// A string argument of the tool's input.
    pub fn input_str(&self, key: &str) -> Option<&str> {
        self.tool_input.get(key).and_then(serde_json::Value::as_str)
    }
}
