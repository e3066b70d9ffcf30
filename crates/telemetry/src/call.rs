//! One tool call as telemetry sees it: its evaluation records and its outcome, folded
//! into the attributes of one `execute_tool` span.
//!
//! Only fields that say nothing of the arguments are taken: names, the verdict, the
//! risk, what decided (its kind and the rule's, grant's or mode's name, never a
//! problem text or a hook's command line), who answered, and the keyed hash of the
//! arguments' digest. The digest's preview, notes and reasons are never read.

use std::time::SystemTime;

use serde_json::Value;
use warden_audit::{AuditKind, Outcome, RecordBody};
use warden_verdict::Decision;

use crate::key::ArgsKey;

/// The attribute names (docs/telemetry.md lists them).
pub mod attr {
    pub const OPERATION: &str = "gen_ai.operation.name";
    pub const TOOL_NAME: &str = "gen_ai.tool.name";
    pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
    pub const CONVERSATION_ID: &str = "gen_ai.conversation.id";
    pub const VERDICT: &str = "warden.verdict";
    pub const ACTION: &str = "warden.action";
    pub const OUTCOME: &str = "warden.outcome";
    pub const RISK: &str = "warden.risk";
    pub const DECIDED_BY: &str = "warden.decided_by";
    pub const RULE_ID: &str = "warden.rule.id";
    pub const GRANT_ID: &str = "warden.grant.id";
    pub const MODE: &str = "warden.mode";
    pub const ANSWERED_BY: &str = "warden.answered_by";
    pub const CLIENT: &str = "warden.client";
    pub const ARGS_HASH: &str = "warden.args.hmac_sha256";
}

/// What is known of one call so far.
#[derive(Debug, Clone)]
pub struct Call {
    pub start: SystemTime,
    pub end: SystemTime,
    pub tool: String,
    pub attributes: Vec<(&'static str, String)>,
    /// The strictest evaluated decision (several evaluations: a patch's files).
    verdict: Option<Decision>,
    outcome: Option<Decision>,
    client: Option<String>,
}

impl Call {
    /// A call opened by its first record.
    pub fn open(body: &RecordBody) -> Call {
        let at = time_of(body);
        Call {
            start: at,
            end: at,
            tool: body.tool.clone().unwrap_or_default(),
            attributes: Vec::new(),
            verdict: None,
            outcome: None,
            client: body.client.clone(),
        }
    }

    /// Folds one record of this call in.
    pub fn add(&mut self, body: &RecordBody, key: &ArgsKey) {
        self.end = time_of(body);
        match body.kind {
            AuditKind::Evaluation => self.evaluated(body, key),
            AuditKind::Outcome => self.answered(body),
            AuditKind::Dropped | AuditKind::Revocation => {}
        }
    }

    /// Whether the call has its outcome, so its span can be sent.
    pub fn is_settled(&self) -> bool {
        self.outcome.is_some()
    }

    fn evaluated(&mut self, body: &RecordBody, key: &ArgsKey) {
        let Some(decision) = body.decision else {
            return;
        };
        // Several evaluations of one call: the strictest one's facts describe it.
        if self.verdict.is_some_and(|v| v >= decision) {
            return;
        }
        self.verdict = Some(decision);
        self.tool = body.tool.clone().unwrap_or_default();
        self.set(attr::VERDICT, decision.as_str());
        if let Some(risk) = body.risk {
            self.set(attr::RISK, risk.as_str());
        }
        if let Some(args) = &body.args {
            self.set(attr::ARGS_HASH, &key.hash(&args.sha256));
        }
        for (name, value) in decided_by(body.decided_by.as_ref()) {
            self.set(name, &value);
        }
    }

    fn answered(&mut self, body: &RecordBody) {
        let Some(outcome) = &body.outcome else { return };
        let action = body.decision.unwrap_or(match outcome {
            Outcome::Granted { .. } => Decision::Allow,
            Outcome::Auto { decision } => *decision,
            _ => Decision::Deny,
        });
        self.outcome = Some(action);
        self.set(attr::ACTION, action.as_str());
        self.set(attr::OUTCOME, outcome.label());
        if self.verdict.is_none()
            && let Some(risk) = body.risk
        {
            self.set(attr::RISK, risk.as_str());
        }
        let answered_by = body
            .decided_by
            .as_ref()
            .and_then(|d| d.get("answered_by"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        // Without a name on the record: the policy settled it, nobody answered in
        // time, or the editor did (its answer, its cancellation, its error).
        let answered_by = match (answered_by, outcome) {
            (Some(by), _) => by,
            (None, Outcome::Auto { .. }) => "policy".to_owned(),
            (None, Outcome::TimedOut { .. }) => "nobody".to_owned(),
            (None, _) => "editor".to_owned(),
        };
        self.set(attr::ANSWERED_BY, &answered_by);
    }

    /// The span's attributes, with those that hold whatever the records did not say
    /// (a call the agent itself asks about has no outcome in Warden's log).
    pub fn finish(mut self, conversation: &str, call_id: &str) -> Call {
        let tool = self.tool.clone();
        self.set(attr::OPERATION, "execute_tool");
        self.set(attr::TOOL_NAME, &tool);
        self.set(attr::TOOL_CALL_ID, call_id);
        self.set(attr::CONVERSATION_ID, conversation);
        let client = self.client.clone().unwrap_or_else(|| "acp".to_owned());
        self.set(attr::CLIENT, &client);
        if self.outcome.is_none() {
            // Nobody has answered yet: the agent (for a hook) or the editor asks.
            let verdict = self.verdict.unwrap_or(Decision::Ask);
            self.set(attr::ACTION, verdict.as_str());
            let pending = self.client.clone().unwrap_or_else(|| "pending".to_owned());
            self.set(attr::ANSWERED_BY, &pending);
        }
        self
    }

    fn set(&mut self, name: &'static str, value: &str) {
        match self.attributes.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value.to_owned(),
            None => self.attributes.push((name, value.to_owned())),
        }
    }
}

/// The parts of `decided_by` that name what decided, and nothing that could hold the
/// call's own text. The hook path nests the engine's under `decided_by`.
fn decided_by(value: Option<&Value>) -> Vec<(&'static str, String)> {
    let Some(value) = value else {
        return Vec::new();
    };
    let engine = value
        .get("decided_by")
        .filter(|v| v.is_object())
        .unwrap_or(value);
    let text = |key: &str| engine.get(key).and_then(Value::as_str).map(str::to_owned);
    let Some(kind) = text("kind") else {
        return Vec::new();
    };
    let mut out = vec![(attr::DECIDED_BY, kind.clone())];
    match kind.as_str() {
        "rule" => out.extend(text("id").map(|id| (attr::RULE_ID, id))),
        "grant" => out.extend(text("id").map(|id| (attr::GRANT_ID, id))),
        "mode" | "model_hint" => out.extend(text("mode").map(|m| (attr::MODE, m))),
        _ => {}
    }
    out
}

fn time_of(body: &RecordBody) -> SystemTime {
    humantime::parse_rfc3339(&body.time).unwrap_or_else(|_| SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use warden_audit::AuditKind;

    fn body(kind: AuditKind, decided_by: Value) -> RecordBody {
        RecordBody {
            time: "2026-11-27T10:00:00.000000Z".to_owned(),
            kind,
            session_id: Some("s".into()),
            tool_call_id: Some("c".into()),
            tool: Some("terminal".into()),
            args: None,
            risk: None,
            decision: Some(Decision::Ask),
            outcome: None,
            decided_by: Some(decided_by),
            latency_us: None,
            client: None,
            dropped: None,
        }
    }

    fn values(call: &Call) -> String {
        call.attributes
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn problem_texts_and_hook_commands_are_never_attributes() {
        let key = ArgsKey::from_bytes([7; 32]);
        for decided_by in [
            json!({"kind": "policy_error", "file": "p.toml", "error": "rm -rf /secret-path"}),
            json!({"kind": "malformed", "problem": "rm -rf /secret-path"}),
            json!({"kind": "hook", "command": "/secret-path/check.sh"}),
            json!({"decided_by": {"kind": "unjudged", "problem": "rm -rf /secret-path"}}),
        ] {
            let record = body(AuditKind::Evaluation, decided_by);
            let mut call = Call::open(&record);
            call.add(&record, &key);
            let text = values(&call.finish("s", "c"));
            assert!(!text.contains("secret-path"), "{text}");
            assert!(text.contains("warden.decided_by="), "{text}");
        }
    }

    #[test]
    fn a_call_nobody_answered_in_time_says_so() {
        let key = ArgsKey::from_bytes([7; 32]);
        let mut record = body(AuditKind::Outcome, json!({}));
        record.outcome = Some(Outcome::TimedOut { after_ms: Some(5) });
        record.decision = Some(Decision::Deny);
        let mut call = Call::open(&record);
        call.add(&record, &key);
        assert!(call.is_settled());
        let text = values(&call.finish("s", "c"));
        assert!(text.contains("warden.answered_by=nobody"), "{text}");
        assert!(text.contains("warden.action=deny"), "{text}");
        assert!(text.contains("warden.outcome=timed_out"), "{text}");
    }
}
