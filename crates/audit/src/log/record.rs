//! What an audit entry says: the caller's [`AuditEvent`] and the line on disk,
//! [`AuditRecord`].

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use warden_verdict::{Decision, Risk};

/// The kind of an audit entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditKind {
    /// The engine assessed a call: risk, decision and what decided.
    Evaluation,
    /// What finally became of a call: the user's answer, or the policy's own verdict.
    Outcome,
    /// A marker written by the writer: this many records were lost before it
    /// (the queue was full, or the disk failed).
    Dropped,
    /// A stored grant was revoked: which one, what it covered, and who revoked it
    /// (in `decided_by`).
    Revocation,
}

impl AuditKind {
    /// The name used on the line: `evaluation`, `outcome` or `dropped`.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditKind::Evaluation => "evaluation",
            AuditKind::Outcome => "outcome",
            AuditKind::Dropped => "dropped",
            AuditKind::Revocation => "revocation",
        }
    }
}

/// What became of a tool call, as recorded in an `outcome` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Outcome {
    /// The user chose an allow option (`allow-once`, `allow-session`, `allow-project`).
    Granted {
        option_id: String,
        /// The grant stored by an `allow-session` or `allow-project` answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grant_id: Option<String>,
        /// The user's note (redacted before it is written).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The user chose a reject option (`reject-once`, `reject-project`).
    Denied {
        option_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grant_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The client cancelled the turn while the question was open.
    Cancelled,
    /// Nobody answered within the approval timeout.
    TimedOut {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_ms: Option<u64>,
    },
    /// An error response, a malformed response or an unknown option id: the call was
    /// denied (fail closed).
    Error { reason: String },
    /// The policy decided without asking (an allow or deny rule, a grant, the mode).
    Auto { decision: Decision },
}

impl Outcome {
    /// A short word for tables: `granted`, `denied`, `cancelled`, ...
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Granted { .. } => "granted",
            Outcome::Denied { .. } => "denied",
            Outcome::Cancelled => "cancelled",
            Outcome::TimedOut { .. } => "timed_out",
            Outcome::Error { .. } => "error",
            Outcome::Auto { .. } => "auto",
        }
    }
}

/// One thing to record, as the session layer hands it to [`crate::AuditLog::record`].
///
/// Building one is cheap on purpose: the arguments stay a raw JSON value and the
/// time a `SystemTime`; redaction, hashing and formatting happen on the writer
/// thread.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    pub kind: AuditKind,
    /// When it happened; set by the constructors.
    pub at: SystemTime,
    pub session_id: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool: Option<String>,
    /// The call's arguments, unredacted. Only their redacted digest is written.
    pub args: Option<Value>,
    pub risk: Option<Risk>,
    pub decision: Option<Decision>,
    pub outcome: Option<Outcome>,
    /// What decided, free-form: the engine's `decided_by` (rule id and file, grant
    /// id, mode, model hint) or anything the session layer adds. Its strings are
    /// redacted before they are written.
    pub decided_by: Option<Value>,
    /// How long the step took (the evaluation, or the wait for the user).
    pub latency_us: Option<u64>,
    /// Which agent's decision this is, when it is not Warden's own agent's: the
    /// agent a `warden hook` answered (`claude-code`, `codex`, `gemini-cli`).
    pub client: Option<String>,
}

impl AuditEvent {
    /// An empty event of this kind, stamped now.
    pub fn new(kind: AuditKind) -> AuditEvent {
        AuditEvent {
            kind,
            at: SystemTime::now(),
            session_id: None,
            tool_call_id: None,
            tool: None,
            args: None,
            risk: None,
            decision: None,
            outcome: None,
            decided_by: None,
            latency_us: None,
            client: None,
        }
    }

    /// An `evaluation` entry for one call.
    pub fn evaluation(
        session_id: impl Into<String>,
        tool_call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
    ) -> AuditEvent {
        AuditEvent {
            session_id: Some(session_id.into()),
            tool_call_id: Some(tool_call_id.into()),
            tool: Some(tool.into()),
            args: Some(args),
            ..AuditEvent::new(AuditKind::Evaluation)
        }
    }

    /// An `outcome` entry for one call.
    pub fn outcome(
        session_id: impl Into<String>,
        tool_call_id: impl Into<String>,
        tool: impl Into<String>,
        outcome: Outcome,
    ) -> AuditEvent {
        AuditEvent {
            session_id: Some(session_id.into()),
            tool_call_id: Some(tool_call_id.into()),
            tool: Some(tool.into()),
            outcome: Some(outcome),
            ..AuditEvent::new(AuditKind::Outcome)
        }
    }

    /// A `revocation` entry: the grant `grant_id` was revoked by `by` (`"warden grants
    /// revoke"`, a session's `/revoke`); `grant` says what it covered.
    pub fn revocation(grant_id: &str, grant: Value, by: &str) -> AuditEvent {
        AuditEvent {
            decided_by: Some(serde_json::json!({
                "grant_id": grant_id,
                "grant": grant,
                "revoked_by": by,
            })),
            ..AuditEvent::new(AuditKind::Revocation)
        }
    }

    /// Attaches the call's arguments (only their redacted digest is written).
    pub fn with_args(mut self, args: Value) -> AuditEvent {
        self.args = Some(args);
        self
    }

    /// The assessed risk.
    pub fn with_risk(mut self, risk: Risk) -> AuditEvent {
        self.risk = Some(risk);
        self
    }

    /// The engine's decision, or on an outcome the effective one.
    pub fn with_decision(mut self, decision: Decision) -> AuditEvent {
        self.decision = Some(decision);
        self
    }

    /// What decided (free-form JSON; strings are redacted, keys written sorted).
    pub fn with_decided_by(mut self, decided_by: Value) -> AuditEvent {
        self.decided_by = Some(decided_by);
        self
    }

    /// How long the step took, written in microseconds.
    pub fn with_latency(mut self, latency: Duration) -> AuditEvent {
        self.latency_us = Some(u64::try_from(latency.as_micros()).unwrap_or(u64::MAX));
        self
    }

    /// Names the agent whose call this is (see [`AuditEvent::client`]).
    pub fn with_client(mut self, client: impl Into<String>) -> AuditEvent {
        self.client = Some(client.into());
        self
    }

    /// Overrides the time stamp (for replays and tests).
    pub fn with_time(mut self, at: SystemTime) -> AuditEvent {
        self.at = at;
        self
    }
}

/// The digest of a call's arguments: never the arguments themselves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgsDigest {
    /// Hex SHA-256 of the canonical JSON of the *redacted* arguments, so that the
    /// log holds nothing from which a secret could be guessed back.
    pub sha256: String,
    /// The length in bytes of that canonical JSON.
    pub len: usize,
    /// Its beginning, for people; ends with `…` when cut.
    pub preview: String,
}

/// One line of the audit log, as written and read back.
///
/// `seq` and `prev` come first on the line and chain it to the line before:
/// `prev` is the hex SHA-256 of the previous line's bytes (without its newline),
/// or [`crate::GENESIS`] on the first line; `seq` counts from 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub seq: u64,
    pub prev: String,
    #[serde(flatten)]
    pub body: RecordBody,
}

/// Everything on a line but the chain fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordBody {
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    pub kind: AuditKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<ArgsDigest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<u64>,
    /// The agent whose call this was, when it is not Warden's own agent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// On a `dropped` marker: how many records were lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
}
