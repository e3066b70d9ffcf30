//! A verdict in the hook format of each agent (docs/hooks.md).
//!
//! - Claude Code: `hookSpecificOutput.permissionDecision` `allow`, `ask` or `deny`, with
//!   the sentence as `permissionDecisionReason`.
//! - Codex: no `ask` (an `ask` fails the hook and the call goes on) and no bare `allow`:
//!   a deny is `permissionDecision: "deny"` with its reason; an ask is the same deny,
//!   whose reason says how to approve the call; an allow prints nothing (no objection,
//!   Codex's own approval applies).
//! - Gemini CLI: `decision` `allow`, `ask` or `deny` with `reason` (and the reason as
//!   `systemMessage`, which Gemini shows in its confirmation).
//!
//! Every answer exits 0: all three agents let the call through when a hook fails.

use serde_json::json;
use warden_permissions::Decision;

use crate::Agent;
use crate::judge::Judged;

/// What `warden hook` prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// One JSON object and a newline, or nothing.
    pub stdout: String,
    pub exit_code: u8,
}

/// The agent's answer for a verdict.
pub fn render(agent: Agent, judged: &Judged) -> Answer {
    let reason = judged.reason.as_str();
    let value = match (agent, judged.decision) {
        (Agent::Claude, decision) => claude(decision.as_str(), reason),
        (Agent::Codex, Decision::Allow) => return Answer::plain(String::new()),
        (Agent::Codex, Decision::Deny) => claude("deny", reason),
        (Agent::Codex, Decision::Ask) => claude("deny", &codex_ask(judged)),
        (Agent::Gemini, decision) => {
            let mut value = json!({ "decision": decision.as_str(), "reason": reason });
            if decision == Decision::Ask {
                value["systemMessage"] = json!(reason);
            }
            value
        }
    };
    Answer::plain(format!("{value}\n"))
}

impl Answer {
    fn plain(stdout: String) -> Answer {
        Answer {
            stdout,
            exit_code: 0,
        }
    }
}

/// The `PreToolUse` answer of Claude Code, which Codex shares for its deny.
fn claude(decision: &str, reason: &str) -> serde_json::Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    })
}

/// A Codex deny that stands for Warden's ask: the risk, and how to approve.
fn codex_ask(judged: &Judged) -> String {
    let how = match &judged.check_command {
        Some(check) => format!(
            "To allow calls like it, add an allow rule (or use a mode that allows it) in your \
             Warden policy; `{check}` shows what decides it now."
        ),
        None => "To allow it, run it yourself, or use a tool Warden knows.".to_owned(),
    };
    format!(
        "Warden would ask you about this call, and a Codex hook cannot ask, so it is refused. \
         {} {how}",
        judged.reason
    )
}
