//! What the turn asks its driver to do, in Warden's terms: show a call, ask a question,
//! run a prepared call, store a grant, audit, tell the user, end.

use warden_tools::PreparedCall;

use crate::audit::AuditNote;
use crate::event::ToolResult;
use crate::gate::{GrantEffect, GrantScope, Prepared, Verdict};
use crate::notice::Notice;
use crate::view::{CallView, Form, Question, Shown};

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The model is done, or the turn failed and said why.
    EndTurn,
    /// The model's reply was cut off at its token limit.
    MaxTokens,
    /// The turn reached its limit of model requests.
    MaxModelRequests,
    /// The model refused.
    Refusal,
    /// The user cancelled.
    Cancelled,
}

impl Stop {
    /// Its name, as the protocol's stop reasons spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Stop::EndTurn => "end_turn",
            Stop::MaxTokens => "max_tokens",
            Stop::MaxModelRequests => "max_turn_requests",
            Stop::Refusal => "refusal",
            Stop::Cancelled => "cancelled",
        }
    }
}

/// A grant to store for later calls: the user's "always" answer.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantRequest {
    pub call_id: String,
    /// The call as it was asked.
    pub call: Prepared,
    /// The verdict whose proposal is stored (never one computed again).
    pub verdict: Verdict,
    pub scope: GrantScope,
    pub effect: GrantEffect,
}

/// What the driver must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Show a call: pending, with its preview and its risk in words.
    Show {
        view: Box<CallView>,
        shown: Shown,
    },
    /// Show a call that could not even be read.
    ShowInvalid {
        call_id: String,
        tool: String,
        args: serde_json::Value,
    },
    /// A call starts running.
    Running {
        call_id: String,
    },
    /// A call ends without running (or is stopped): failed, with the reason.
    Failed {
        call_id: String,
        reason: String,
    },
    /// A call ran: its result.
    Finished {
        call_id: String,
        result: ToolResult,
    },
    /// Ask a question about a call.
    Ask(Box<Question>),
    /// Open the form to approve with edits or deny with a note; its answer comes back
    /// as the answer to the same question ([`crate::Event::Answered`]). A form that
    /// cannot be shown comes back as a failed answer.
    Elicit(Box<Form>),
    /// Withdraw the open question about a call.
    Withdraw {
        call_id: String,
    },
    /// Run a call exactly as it was prepared (and judged).
    Run {
        call_id: String,
        call: Box<PreparedCall>,
    },
    /// Store the user's "always" answer. Its result comes back as
    /// [`crate::Event::GrantStored`].
    Store(Box<GrantRequest>),
    /// Stop a running tool.
    Stop {
        call_id: String,
    },
    /// Ask the model for its next reply to the conversation.
    CallModel,
    Audit(Box<AuditNote>),
    /// Say something in the reply: why the turn stopped.
    Say(String),
    /// Tell the user something that is not a reply.
    Tell(Notice),
    /// Answer the prompt. Always the last command of a turn.
    End(Stop),
}
