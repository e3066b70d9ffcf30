//! What a person is shown and asked about a call, in Warden's terms. The protocol side
//! turns these into its own messages (a `tool_call`, a permission request, a form).

use std::path::PathBuf;
use std::time::Duration;

use warden_tools::{Content, Origin, ToolKind};

use crate::choice::Choice;
use crate::gate::{Prepared, Verdict};

/// A call as a person sees it before it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CallView {
    pub call_id: String,
    /// The tool's name, as the policy knows it.
    pub tool: String,
    /// What the call does, in a line.
    pub title: String,
    pub kind: ToolKind,
    /// The arguments it runs with (the user's edit, when they edited them).
    pub args: serde_json::Value,
    /// The files it touches.
    pub locations: Vec<PathBuf>,
    /// Its preview (a diff, what a delete removes) and, when it is not simply allowed,
    /// the risk and the reason in words.
    pub content: Vec<Content>,
    /// The MCP server the tool comes from.
    pub origin: Option<Origin>,
}

impl CallView {
    pub fn new(call_id: &str, prepared: &Prepared, content: Vec<Content>) -> CallView {
        CallView {
            call_id: call_id.to_owned(),
            tool: prepared.tool.clone(),
            title: prepared.title.clone(),
            kind: prepared.kind,
            args: prepared.args.clone(),
            locations: prepared.locations.clone(),
            content,
            origin: prepared.origin.clone(),
        }
    }
}

/// How a call is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// For the first time: nothing else about the call comes before it.
    First,
    /// Again, whole, waiting: a call the client was shown before a restart, asked again.
    Again,
    /// Again, as the user edited it.
    Edited,
}

/// A question to the user about a call: question `number` of its call (1 for its
/// first), with the choices offered, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub number: u32,
    /// It shows arguments the user edited, not the model's.
    pub edited: bool,
    pub view: CallView,
    pub verdict: Verdict,
    pub choices: Vec<Choice>,
}

impl Question {
    pub fn call_id(&self) -> &str {
        &self.view.call_id
    }

    /// How long to wait for the answer before the question is withdrawn.
    pub fn timeout(&self) -> Option<Duration> {
        self.verdict.timeout
    }
}

/// The form that approves a call with edits or denies it with a note; its answer
/// comes back as the answer to question `question`.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub call_id: String,
    pub question: u32,
    pub title: String,
    /// The arguments the form shows, to edit.
    pub args: serde_json::Value,
    pub timeout: Option<Duration>,
}
