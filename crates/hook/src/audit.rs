//! What the audit log records about a hook's verdict: an evaluation entry per Warden
//! call, with the agent as the client, and the outcome the hook settled.

use serde_json::json;
use warden_audit::{AuditEvent, Outcome};
use warden_permissions::Decision;

use crate::judge::Judged;
use crate::{Agent, Payload};

/// The audit entries for one judged call, in the order they happened. A call the
/// agent will ask its user about has no outcome here: the agent's answer is not
/// Warden's to know. Codex cannot ask, so there Warden's ask is a denial.
pub fn events(agent: Agent, payload: Option<&Payload>, judged: &Judged) -> Vec<AuditEvent> {
    let session = payload
        .and_then(|p| p.session_id.clone())
        .unwrap_or_else(|| format!("{}-hook", agent.id()));
    let call_id = payload
        .and_then(|p| p.tool_use_id.clone())
        .unwrap_or_default();
    let agent_tool = payload.map_or_else(|| "<unreadable>".to_owned(), |p| p.tool_name.clone());
    let input = payload.map_or(serde_json::Value::Null, |p| p.tool_input.clone());
    let mut events = Vec::new();
    if judged.evaluations.is_empty() {
        events.push(
            AuditEvent::evaluation(&session, &call_id, &agent_tool, input)
                .with_risk(judged.risk)
                .with_decision(judged.decision)
                .with_decided_by(json!({ "kind": "unjudged", "problem": judged.reason }))
                .with_client(agent.client()),
        );
    }
    for (call, evaluation) in &judged.evaluations {
        events.push(
            AuditEvent::evaluation(&session, &call_id, &call.tool, call.args.clone())
                .with_risk(evaluation.risk)
                .with_decision(evaluation.decision)
                .with_decided_by(json!({
                    "decided_by": evaluation.decided_by,
                    "agent_tool": agent_tool,
                }))
                .with_client(agent.client()),
        );
    }
    let settled = match (agent, judged.decision) {
        (_, Decision::Allow) => Some(Decision::Allow),
        (_, Decision::Deny) | (Agent::Codex, Decision::Ask) => Some(Decision::Deny),
        (_, Decision::Ask) => None,
    };
    if let Some(decision) = settled {
        events.push(
            AuditEvent::outcome(&session, &call_id, &agent_tool, Outcome::Auto { decision })
                .with_decision(decision)
                .with_risk(judged.risk)
                .with_client(agent.client()),
        );
    }
    events
}
