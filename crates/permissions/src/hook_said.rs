//! What a user's hook (`[[hook]]`) said about a call, and its part in an evaluation: the
//! words shared by the evaluation (which reports them) and the rule that combines them
//! (`user_hook.rs`).

use serde::{Deserialize, Serialize};

use crate::Decision;

/// What one hook answered, as read from its output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookAnswer {
    pub decision: Decision,
    #[serde(default)]
    pub reason: Option<String>,
}

/// What a hook said, or why it said nothing usable (which counts as `ask`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "said", rename_all = "snake_case")]
pub enum HookSaid {
    /// It answered with a decision.
    Answered {
        decision: Decision,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// It could not be started, exited with a failure, timed out, or printed
    /// something other than one answer.
    Failed { problem: String },
}

impl HookSaid {
    /// The decision this answer stands for: a failure is `ask`.
    pub fn decision(&self) -> Decision {
        match self {
            HookSaid::Answered { decision, .. } => *decision,
            HookSaid::Failed { .. } => Decision::Ask,
        }
    }

    /// Reads a hook's standard output: exactly one answer object (surrounding white
    /// space aside). Anything else is a failure, never a decision.
    pub fn from_output(stdout: &[u8]) -> HookSaid {
        match serde_json::from_slice::<HookAnswer>(stdout) {
            Ok(answer) => HookSaid::Answered {
                decision: answer.decision,
                reason: answer.reason.filter(|r| !r.trim().is_empty()),
            },
            Err(e) => HookSaid::Failed {
                problem: format!("its output is not one answer object ({e})"),
            },
        }
    }
}

/// One hook's part in an evaluation, as `warden policy check` lists it under `hooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookReport {
    /// The hook's command line.
    pub command: String,
    #[serde(flatten)]
    pub said: HookSaid,
    /// Whether the answer changed the decision (a looser answer out of bounds, or one
    /// that agrees with the decision, changes nothing).
    pub applied: bool,
}
