//! What running a call gives back: its status, the content people see, its raw output
//! and what the model is told.

use std::fmt;

use serde_json::{Value, json};

use crate::content::Content;

/// The result of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Completed (`true`) or failed (`false`), for the tool call's final status.
    pub ok: bool,
    /// The call failed because it ran out of its own time (a command's timeout), as
    /// opposed to failing otherwise: the model is told the difference.
    pub timed_out: bool,
    /// The tool call's content: a Diff for `fs_write`/`fs_edit`, the Terminal for commands the
    /// editor ran, text otherwise.
    pub content: Vec<Content>,
    /// The tool call's `rawOutput`: structured facts (exit code, status, byte counts...).
    pub raw_output: Value,
    /// What the model is told.
    pub for_model: String,
}

impl ToolOutput {
    /// A completed call whose content is its text.
    pub fn completed(text: String, raw_output: Value) -> Self {
        ToolOutput {
            ok: true,
            timed_out: false,
            content: vec![Content::Text(text.clone())],
            raw_output,
            for_model: text,
        }
    }

    /// A failed call: `tool: message` for the model and the user.
    pub fn failed(tool: &str, message: impl fmt::Display) -> Self {
        let text = format!("{tool}: {message}");
        ToolOutput {
            ok: false,
            timed_out: false,
            content: vec![Content::Text(text.clone())],
            raw_output: json!({ "error": text }),
            for_model: text,
        }
    }

    /// A call stopped because the turn was cancelled.
    pub fn cancelled(tool: &str) -> Self {
        let mut out = ToolOutput::failed(tool, "cancelled");
        out.raw_output = json!({ "error": format!("{tool}: cancelled"), "cancelled": true });
        out
    }
}
