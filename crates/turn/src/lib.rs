//! The prompt turn as a state machine, in Warden's own terms, and the driver that runs
//! it.
//!
//! A turn reacts to a closed set of [`Event`]s (the model's reply, an answer, a tool's
//! result, a cancel) and answers each with [`Command`]s (show a call, ask a question,
//! run a prepared call, store a grant, audit, end). It knows nothing of the protocol
//! that carries these to a client, nor of the journal that records them: the agent
//! translates commands into protocol messages in one place. So every rule of the turn is
//! tested without a wire, a model, a disk or a clock.
//!
//! The driver ([`drive`]) is the loop that carries a turn out: the model's stream, the
//! answers, the tools' tasks and the wind-down. It speaks to the person through an
//! [`Outlet`] and writes down what happens through a [`Journal`], both the agent's to
//! implement.

mod audit;
mod choice;
mod command;
mod driver;
mod event;
mod gate;
mod journal;
mod notice;
mod offer;
mod outlet;
mod preview;
mod turn;
mod view;
mod words;

pub use audit::{AnswerOutcome, AuditContext, AuditKind, AuditNote, AuditSink};
pub use choice::{Answer, Choice, choice, offered};
pub use command::{Command, GrantRequest, Stop};
pub use driver::{Driven, TurnSetup, drive};
pub use event::{Event, Stored, ToolResult};
pub use gate::{
    Gate, GrantEffect, GrantScope, PrepareError, Prepared, Proposal, RememberError, Verdict, Why,
};
pub use journal::{
    CallRecord, ClaimRequest, Claimed, Durable, Entry, Journal, JournalError, Prior,
};
pub use notice::{Notice, Severity};
pub use offer::{Offered, offer};
pub use outlet::{FormError, Outlet, PendingAnswer, Update, invalid_title};
pub use preview::{FileState, Files, load as load_files, target};
pub use turn::{Resumed, ResumedBatch, StoredAnswer, Turn, TurnLimits};
pub use view::{CallView, Form, Question, Shown};
pub use words::Words;
