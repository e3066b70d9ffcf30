//! What happens to a turn: the events it reacts to.

use warden_model::{FinishReason, ToolCallRequest};
use warden_tools::Content;

use crate::choice::Answer;
use crate::gate::{GrantEffect, GrantScope};
use crate::preview::Files;

/// The result of running one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub ok: bool,
    /// The tool itself ran out of time.
    pub timed_out: bool,
    pub content: Vec<Content>,
    pub raw_output: serde_json::Value,
    /// What the model is told.
    pub for_model: String,
}

/// Something that happened to the turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The model's complete reply (its text was already streamed by the driver).
    ModelReplied {
        text: String,
        calls: Vec<ToolCallRequest>,
        finish: FinishReason,
        /// What the previews of the calls need from disk, read by the driver.
        files: Files,
    },
    /// The model's reply stream ended without saying that the reply was complete.
    ModelStopped {
        text: String,
        calls: Vec<ToolCallRequest>,
    },
    /// The model could not answer; `error` says why.
    ModelFailed { error: String },
    /// The client answered (or did not answer) question `question` about a call (the
    /// question itself, or the form it opened).
    Answered {
        call_id: String,
        question: u32,
        answer: Answer,
    },
    /// A tool finished.
    ToolFinished { call_id: String, result: ToolResult },
    /// A grant the turn asked to store ([`crate::Command::Store`]) was stored, or not.
    GrantStored {
        call_id: String,
        scope: GrantScope,
        effect: GrantEffect,
        stored: Stored,
    },
    /// The user cancelled the turn, or Warden is shutting down.
    Cancel,
    /// A prompt sent while a restored session's turn runs without one (see
    /// [`crate::Turn::resume`]): the turn takes it as its own, and it joins the
    /// conversation at the next point where the model is asked or the turn would end.
    Prompt { text: String },
}

/// Whether a grant was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    Yes,
    /// Not stored; the answer still stands for its call. The reason is for the user.
    No {
        reason: String,
    },
}
