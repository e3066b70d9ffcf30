//! What the turn has the audit log record: each evaluation and each answer.

use crate::gate::Verdict;

/// What became of a question to the user, as the audit log says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerOutcome {
    Granted,
    Denied,
    Cancelled,
    TimedOut,
    /// The question failed or was answered with something that was not offered.
    Error,
}

impl AnswerOutcome {
    /// Its name in the audit log.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerOutcome::Granted => "granted",
            AnswerOutcome::Denied => "denied",
            AnswerOutcome::Cancelled => "cancelled",
            AnswerOutcome::TimedOut => "timed_out",
            AnswerOutcome::Error => "error",
        }
    }
}

/// What an audit entry says happened.
#[derive(Debug, Clone, PartialEq)]
pub enum AuditKind {
    /// The engine's evaluation of a call.
    Evaluated { verdict: Verdict },
    /// A call that could not be read (decided as a denial).
    Malformed { reason: String },
    /// An answer refused because the call was answered before, from elsewhere (the
    /// driver's, not the turn's: the turn only ever sees the answer that won).
    Refused { option_id: String, reason: String },
    /// What became of a question to the user.
    Answered {
        outcome: AnswerOutcome,
        option_id: Option<String>,
        note: Option<String>,
        reason: Option<String>,
    },
}

/// One line for the audit log.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditNote {
    pub call_id: String,
    pub tool: String,
    pub args: serde_json::Value,
    pub kind: AuditKind,
}

/// What the driver knows of an audit note beyond the turn: how long its answer took,
/// and who gave it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuditContext {
    pub latency: Option<std::time::Duration>,
    /// Who chose the option of an answered call, or whose answer was refused; `None`
    /// when nobody chose (a timeout, a cancel, a failure).
    pub answered_by: Option<warden_verdict::AnsweredBy>,
}

/// Where a session's audit notes go. Recording must not block the turn.
pub trait AuditSink: Send + Sync {
    fn record(&self, note: &AuditNote, context: AuditContext);
}
