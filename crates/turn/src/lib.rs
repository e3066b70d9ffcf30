//! The prompt turn as a state machine, in Warden's own terms.
//!
//! A turn reacts to a closed set of [`Event`]s (the model's reply, an answer, a tool's
//! result, a cancel) and answers each with [`Command`]s (show a call, ask a question,
//! run a prepared call, store a grant, audit, end). It knows nothing of the protocol
//! that carries these to a client, nor of the journal that records them: the agent
//! translates commands into protocol messages in one place, and its driver carries
//! them out. So every rule here is tested without a wire, a model, a disk or a clock.

mod audit;
mod choice;
mod command;
mod event;
mod gate;
mod notice;
mod preview;
mod turn;
mod view;
mod words;

pub use audit::{AnswerOutcome, AuditKind, AuditNote};
pub use choice::{Answer, Choice, choice, offered};
pub use command::{Command, GrantRequest, Stop};
pub use event::{Event, Stored, ToolResult};
pub use gate::{
    Gate, GrantEffect, GrantScope, PrepareError, Prepared, Proposal, RememberError, Verdict,
};
pub use notice::{Notice, Severity};
pub use preview::{FileState, Files, load as load_files, target};
pub use turn::{Resumed, ResumedBatch, StoredAnswer, Turn, TurnLimits};
pub use view::{CallView, Form, Question, Shown};
pub use words::Words;
