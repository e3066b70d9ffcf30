//! The turn's audit notes, written to the permission crate's audit log.

use std::sync::Arc;

use warden_acp_transport::schema::SessionId;
use warden_audit::{AuditEvent, AuditLog, Outcome};
use warden_permissions::Decision;
use warden_turn::{AnswerOutcome, AuditContext, AuditKind, AuditNote, AuditSink};
use warden_verdict::AnsweredBy;

/// Writes audit notes to an [`AuditLog`] (which hands them to its own writer thread).
#[derive(Debug)]
pub struct AuditLogSink {
    log: AuditLog,
}

impl AuditLogSink {
    pub fn new(log: AuditLog) -> AuditLogSink {
        AuditLogSink { log }
    }

    /// Records that the grant `id` was revoked with `/revoke` in `session`.
    pub fn revoked(&self, session: &SessionId, id: &str) {
        let mut event = AuditEvent::revocation(id, serde_json::Value::Null, "/revoke");
        event.session_id = Some(session.to_string());
        self.log.record(event);
    }

    /// Waits until everything recorded so far is written.
    pub fn flush(&self) {
        if let Err(err) = self.log.flush() {
            tracing::warn!(%err, "flushing the audit log failed");
        }
    }
}

/// Who answered, as the audit log names it (`warden pending` writes the same).
pub fn answerer(by: AnsweredBy) -> &'static str {
    match by {
        AnsweredBy::Editor => "editor",
        AnsweredBy::Pending => "warden pending",
        AnsweredBy::Warden => "warden",
    }
}

/// A session's audit notes, as its turns hand them over: to the audit log, or nowhere
/// when the log cannot be opened (already reported as an error).
#[derive(Debug)]
pub struct SessionAudit {
    pub log: Option<Arc<AuditLogSink>>,
    pub session: SessionId,
}

impl AuditSink for SessionAudit {
    fn record(&self, note: &AuditNote, context: AuditContext) {
        if let Some(log) = &self.log {
            log.record(&self.session, note, context);
        }
    }
}

impl AuditLogSink {
    /// Records a turn's audit note for `session`.
    pub fn record(&self, session: &SessionId, note: &AuditNote, context: AuditContext) {
        let latency = context.latency;
        let session_id = session.0.to_string();
        let session = session_id.clone();
        let event = match &note.kind {
            AuditKind::Evaluated { verdict } => {
                let mut event = AuditEvent::evaluation(
                    session,
                    note.call_id.clone(),
                    note.tool.clone(),
                    note.args.clone(),
                )
                .with_risk(verdict.risk)
                .with_decision(verdict.decision);
                if let Some(by) = &verdict.why.decided_by {
                    // A plain enum of strings serialises; a null would only drop it.
                    event = event.with_decided_by(serde_json::to_value(by).unwrap_or_default());
                }
                event
            }
            AuditKind::Malformed { reason } => AuditEvent::evaluation(
                session,
                note.call_id.clone(),
                note.tool.clone(),
                note.args.clone(),
            )
            .with_decision(Decision::Deny)
            .with_decided_by(serde_json::json!({ "kind": "malformed", "problem": reason })),
            AuditKind::Answered {
                outcome,
                option_id,
                note: user_note,
                reason,
            } => {
                let option_id = option_id.clone().unwrap_or_default();
                let outcome = match *outcome {
                    AnswerOutcome::Granted => Outcome::Granted {
                        option_id,
                        grant_id: None,
                        note: user_note.clone(),
                    },
                    AnswerOutcome::Denied => Outcome::Denied {
                        option_id,
                        grant_id: None,
                        note: user_note.clone(),
                    },
                    AnswerOutcome::Cancelled => Outcome::Cancelled,
                    AnswerOutcome::TimedOut => Outcome::TimedOut {
                        after_ms: latency.map(|l| l.as_millis() as u64),
                    },
                    AnswerOutcome::Error => Outcome::Error {
                        reason: reason.clone().unwrap_or_else(|| "unknown".to_owned()),
                    },
                };
                // What the answer decided: only a grant lets the call run.
                let decision = match outcome {
                    Outcome::Granted { .. } => Decision::Allow,
                    _ => Decision::Deny,
                };
                AuditEvent::outcome(session, note.call_id.clone(), note.tool.clone(), outcome)
                    .with_args(note.args.clone())
                    .with_decision(decision)
            }
            AuditKind::Refused { option_id, reason } => AuditEvent::outcome(
                session,
                note.call_id.clone(),
                note.tool.clone(),
                Outcome::Error {
                    reason: format!("{reason} (this answer chose `{option_id}`)"),
                },
            )
            .with_args(note.args.clone()),
        };
        // Who chose: the editor, or `warden pending` from another terminal.
        let event = match context.answered_by {
            Some(by) => event.with_decided_by(serde_json::json!({ "answered_by": answerer(by) })),
            None => event,
        };
        let event = match latency {
            Some(latency) => event.with_latency(latency),
            None => event,
        };
        self.log.record(event);
        // A call the policy settled without asking also gets its outcome line, so that
        // every call in the log ends in exactly one outcome.
        if let AuditKind::Evaluated { verdict } = &note.kind
            && verdict.decision != Decision::Ask
        {
            self.log.record(
                AuditEvent::outcome(
                    session_id,
                    note.call_id.clone(),
                    note.tool.clone(),
                    Outcome::Auto {
                        decision: verdict.decision,
                    },
                )
                .with_decision(verdict.decision)
                .with_risk(verdict.risk),
            );
        }
    }
}
