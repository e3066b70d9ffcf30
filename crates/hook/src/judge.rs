//! One hook call judged: the payload read, its call mapped to Warden's, each Warden
//! call evaluated, and the strictest verdict with the sentence that explains it.

use warden_permissions::{Decision, Evaluation, Risk, ToolCall};

use crate::mapping::{Mapped, map};
use crate::{Agent, Payload, PayloadError};

/// The verdict on one agent call.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub decision: Decision,
    /// The risk of the part that decided (Medium for a call Warden could not judge).
    pub risk: Risk,
    /// The sentence the agent shows: what the call does, its risk and why, and what
    /// decided.
    pub reason: String,
    /// Each Warden call and its evaluation (none when the call could not be judged).
    pub evaluations: Vec<(ToolCall, Evaluation)>,
    /// For a Codex ask: a `warden policy check` command line that shows what decides
    /// the call, for the reason's "how to approve".
    pub check_command: Option<String>,
}

/// Judges a payload (or what made it unreadable) with `evaluate`, the evaluation
/// `warden policy check` makes for the project of the payload's `cwd`.
pub fn judge(
    agent: Agent,
    payload: Result<&Payload, &PayloadError>,
    evaluate: &mut dyn FnMut(&ToolCall) -> Evaluation,
) -> Judged {
    let payload = match payload {
        Ok(payload) => payload,
        Err(e) => return Judged::unjudged(format!("Warden could not read this call: {e}.")),
    };
    let calls = match map(agent, payload) {
        Mapped::Calls(calls) => calls,
        Mapped::Unknown { tool } => {
            return Judged::unjudged(format!(
                "Warden does not know the tool `{tool}`, so it cannot judge this call."
            ));
        }
        Mapped::Malformed { tool, problem } => {
            return Judged::unjudged(format!(
                "Warden could not read this `{tool}` call: {problem}."
            ));
        }
    };
    let evaluations: Vec<(ToolCall, Evaluation)> = calls
        .into_iter()
        .map(|call| {
            let evaluation = evaluate(&call);
            (call, evaluation)
        })
        .collect();
    // The strictest part decides, and of those the riskiest explains.
    let deciding = evaluations
        .iter()
        .max_by_key(|(_, e)| (e.decision, e.risk))
        .map(|(call, e)| (call, e));
    let Some((call, evaluation)) = deciding else {
        return Judged::unjudged("Warden found nothing to judge in this call.".to_owned());
    };
    Judged {
        decision: evaluation.decision,
        risk: evaluation.risk,
        reason: sentence(evaluation),
        check_command: Some(check_command(call)),
        evaluations,
    }
}

impl Judged {
    /// A call Warden could not judge (its input unreadable, its tool unknown, Warden
    /// itself failing): asked about, and denied by Codex, which cannot ask.
    pub fn unjudged(reason: String) -> Judged {
        Judged {
            decision: Decision::Ask,
            risk: Risk::Medium,
            reason,
            evaluations: Vec::new(),
            check_command: None,
        }
    }
}

/// "Execute command: rm -rf ~. Critical risk: recursively deletes ~, the home
/// folder. No rule or grant decided; the `ask` mode asks about Critical calls."
pub fn sentence(evaluation: &Evaluation) -> String {
    let risk = match evaluation.risk {
        Risk::Low => "Low",
        Risk::Medium => "Medium",
        Risk::High => "High",
        Risk::Critical => "Critical",
    };
    // The other agent's user reads it as Warden's reason; it is written in English, as
    // the audit log is.
    let (what, why, decided) = (
        evaluation.reason.to_string(),
        evaluation.risk_reason.to_string(),
        evaluation.explanation.to_string(),
    );
    let what = what.trim().trim_end_matches('.');
    let why = why.trim().trim_end_matches('.');
    let decided = decided.trim();
    format!("Warden: {what}. {risk} risk: {why}. {decided}")
}

/// `warden policy check --tool terminal --args '{"command":"…"}' --mode …`, quoted for
/// a POSIX shell.
fn check_command(call: &ToolCall) -> String {
    let args = call.args.to_string().replace('\'', r"'\''");
    format!("warden policy check --tool {} --args '{args}'", call.tool)
}
