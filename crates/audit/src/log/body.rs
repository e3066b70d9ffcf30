//! Turning a caller's [`AuditEvent`] into what is written: the slow part of
//! recording (redaction, canonical JSON, SHA-256, time formatting), done on the
//! writer thread.

use std::time::SystemTime;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::canonical::{canonical_json, sort_keys};
use super::chain::hex;
use super::record::{ArgsDigest, AuditEvent, AuditKind, Outcome, RecordBody};
use warden_redact::{redact_json, redact_text};

/// How many characters of the redacted arguments a line shows.
pub const PREVIEW_CHARS: usize = 240;

/// The body of the line for `event`.
pub fn body_of(event: AuditEvent) -> RecordBody {
    RecordBody {
        time: rfc3339(event.at),
        kind: event.kind,
        session_id: event.session_id,
        tool_call_id: event.tool_call_id,
        tool: event.tool.map(|t| redact_text(&t).into_owned()),
        args: event.args.as_ref().map(args_digest),
        risk: event.risk,
        decision: event.decision,
        outcome: event.outcome.map(redact_outcome),
        decided_by: event.decided_by.as_ref().map(|v| sort_keys(redact_json(v))),
        latency_us: event.latency_us,
        client: event.client,
        dropped: None,
    }
}

/// The body of a marker saying that `count` records were lost.
pub fn dropped_marker(count: u64) -> RecordBody {
    RecordBody {
        time: rfc3339(SystemTime::now()),
        kind: AuditKind::Dropped,
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
        dropped: Some(count),
    }
}

/// RFC 3339 in UTC with microseconds, e.g. `2026-11-22T20:35:15.123456Z`.
pub fn rfc3339(at: SystemTime) -> String {
    humantime::format_rfc3339_micros(at).to_string()
}

/// The digest and preview of a call's arguments, both taken after redaction.
pub fn args_digest(args: &Value) -> ArgsDigest {
    let canonical = canonical_json(&redact_json(args));
    let sha256 = hex(&Sha256::digest(canonical.as_bytes()));
    let preview = match canonical.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &canonical[..cut]),
        None => canonical.clone(),
    };
    ArgsDigest {
        sha256,
        len: canonical.len(),
        preview,
    }
}

fn redact_outcome(outcome: Outcome) -> Outcome {
    let redact = |note: Option<String>| note.map(|n| redact_text(&n).into_owned());
    match outcome {
        Outcome::Granted {
            option_id,
            grant_id,
            note,
        } => Outcome::Granted {
            option_id,
            grant_id,
            note: redact(note),
        },
        Outcome::Denied {
            option_id,
            grant_id,
            note,
        } => Outcome::Denied {
            option_id,
            grant_id,
            note: redact(note),
        },
        Outcome::Error { reason } => Outcome::Error {
            reason: redact_text(&reason).into_owned(),
        },
        other @ (Outcome::Cancelled | Outcome::TimedOut { .. } | Outcome::Auto { .. }) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn digest_ignores_key_order_and_hides_secrets() {
        let a = args_digest(&json!({"command": "ls", "env": {"API_KEY": "abc123"}}));
        let b = args_digest(&json!({"env": {"API_KEY": "zzz999"}, "command": "ls"}));
        assert_eq!(a, b, "the digest is over the redacted arguments");
        assert_eq!(
            a.preview,
            r#"{"command":"ls","env":{"API_KEY":"[REDACTED]"}}"#
        );
        let c = args_digest(&json!({"command": "ls -l"}));
        assert_ne!(a.sha256, c.sha256);
    }

    #[test]
    fn long_arguments_are_cut_in_the_preview_only() {
        let d = args_digest(&json!({"content": "é".repeat(500)}));
        assert_eq!(d.preview.chars().count(), PREVIEW_CHARS + 1);
        assert!(d.preview.ends_with('…'));
        assert_eq!(d.len, r#"{"content":""}"#.len() + 1000);
    }

    #[test]
    fn time_is_utc_with_microseconds() {
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_micros(1_795_379_715_123_456);
        assert_eq!(rfc3339(at), "2026-11-22T20:35:15.123456Z");
    }
}
