//! What a turn writes down as it goes, so that a restart neither loses a call nor runs
//! one twice: the records of the turn in Warden's terms, and the claims that make an
//! answer the only one a question takes.
//!
//! The driver calls a [`Journal`] at each change of a call's state; the agent's
//! implementation keeps the records in the session's journal on disk. What must reach
//! the disk before a call runs (the answer that lets it run) is handed back as a
//! [`Durable`] that the driver completes on the blocking pool first.

use std::time::SystemTime;

use futures::future::BoxFuture;
use warden_model::Message;
use warden_permissions::Grant;
use warden_tools::ToolKind;
use warden_verdict::{AnsweredBy, Risk};

use crate::offer::Offered;

/// Why the journal could not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct JournalError(pub Box<dyn std::error::Error + Send + Sync>);

/// What must be on disk before a call runs: blocking, so the driver runs it on the
/// blocking pool; the call does not run when it fails.
pub type Durable = Box<dyn FnOnce() -> Result<(), JournalError> + Send>;

/// What is known of a call when it is written down: from its evaluation, how it was
/// shown, and the options its latest question offered.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    pub id: String,
    pub tool: String,
    pub args: serde_json::Value,
    pub title: String,
    pub kind: ToolKind,
    pub risk: Risk,
    pub reason: String,
    pub offered: Vec<Offered>,
    /// The grant the "always" options store, in words.
    pub grant: Option<String>,
    /// When the call was first known.
    pub at: SystemTime,
}

impl CallRecord {
    pub fn new(id: &str) -> CallRecord {
        CallRecord {
            id: id.to_owned(),
            tool: String::new(),
            args: serde_json::Value::Null,
            title: String::new(),
            kind: ToolKind::Other,
            risk: Risk::Low,
            reason: String::new(),
            offered: Vec::new(),
            grant: None,
            at: SystemTime::now(),
        }
    }
}

/// One record of the turn.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    /// A prompt, as it joins the conversation.
    Prompt(&'a str),
    /// The text of a model reply.
    AgentText(&'a str),
    /// An entry of the conversation the model sees.
    Conversation(&'a Message),
    /// What became of a call whose result joined the conversation (a tool result).
    Finished(&'a Message),
    /// A call, as its latest question shows it (or as it is about to run).
    Proposed(&'a CallRecord),
    /// Question `question` about a call was asked, as the turn's `request`th request.
    Asked {
        call: &'a str,
        request: usize,
        question: u32,
        edited: bool,
    },
    /// A grant of the session's own ("always, in this session"), which a load restores.
    Grant(&'a Grant),
}

/// An answer that tries to become the one its question takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRequest {
    pub call: String,
    pub question: u32,
    pub option: String,
    pub note: Option<String>,
}

/// An answer that took a question first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prior {
    pub question: u32,
    pub option: String,
    pub note: Option<String>,
    pub by: AnsweredBy,
}

/// Who owns a question once an answer tried to claim it.
pub enum Claimed {
    /// This answer; with what must reach the disk before its call runs, if anything.
    This(Option<Durable>),
    /// An earlier answer (from another terminal): this one is refused.
    First(Prior),
}

impl std::fmt::Debug for Claimed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Claimed::This(durable) => f
                .debug_tuple("This")
                .field(&durable.as_ref().map(|_| "durable"))
                .finish(),
            Claimed::First(prior) => f.debug_tuple("First").field(prior).finish(),
        }
    }
}

/// The record a turn keeps. Writing is cheap and never waits for the disk: entries are
/// staged and go to the kernel together ([`Journal::flush`]); what must outlive a power
/// loss is a [`Durable`].
pub trait Journal: Send + Sync {
    /// Stages an entry, written with the next flush.
    fn stage(&self, entry: Entry<'_>);

    /// Writes what was staged, then this entry.
    fn write(&self, entry: Entry<'_>);

    /// Writes what was staged.
    fn flush(&self);

    /// Writes that a call is about to run; when this fails, the call does not run.
    fn running(&self, call: &str) -> Result<(), JournalError>;

    /// Drops the answers an earlier call with the same id left, before a new call with
    /// that id is first written down: an id is unique only within a reply.
    fn forget_old_answers(&self, call: &str);

    /// Question `question` about a call is being asked: from now on it may be answered
    /// from elsewhere.
    fn asking(&self, call: &str, question: u32);

    /// Prepares, off the turn's thread, for answers to come (so that claiming one need
    /// not wait for the disk).
    fn prepare_answers(&self);

    /// The answer given from elsewhere (another terminal) to question `question` about
    /// a call, if any; when there is one it is written down as the question's answer.
    fn answered_elsewhere(&self, call: &str, question: u32) -> Option<Prior>;

    /// Claims a question for an answer: the first answer a question gets is the only
    /// one it takes.
    fn claim(&self, request: ClaimRequest) -> BoxFuture<'static, Result<Claimed, JournalError>>;

    /// What puts everything written so far on disk: an answer a restored session
    /// applies must outlive a power loss before its call runs.
    fn sync(&self) -> Durable;
}
