//! The engine's answer for one tool call, with everything needed to explain it.
//! Serialised, it is what `warden policy check` prints (docs/contract.md, section 6).

use serde::Serialize;

use crate::grant::{GrantProposal, Scope};
use crate::policy::HintPolicy;
use crate::rule::{Layer, Rule};
use crate::{Decision, Mode, Risk};

/// What decided a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecidedBy {
    /// A policy rule.
    Rule {
        id: String,
        file: String,
        layer: Layer,
    },
    /// A stored or session grant.
    Grant { id: String, scope: Scope },
    /// The session mode's table (docs/contract.md, section 4).
    Mode { mode: Mode },
    /// The tool is on `auto_approved_tools`.
    AutoApproved { tool: String },
    /// The mode's table, applied to a risk the model's hint changed.
    ModelHint {
        hint: Risk,
        policy: HintPolicy,
        mode: Mode,
    },
    /// A policy file could not be used, so the call asks (or is denied).
    PolicyError { file: String, error: String },
    /// The call's arguments are wrong.
    Malformed { problem: String },
    /// One of the user's own hooks (`[[hook]]`) changed the decision.
    Hook { command: String },
}

/// A rule that matched the call (or one of its segments).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MatchedRule {
    /// The rule's `id`, or `<layer>#<index>`.
    pub id: String,
    /// Its position in its file, from 1.
    pub index: usize,
    pub file: String,
    pub layer: Layer,
    pub decision: Decision,
    /// False for an untrusted project's allow rule, which decides nothing.
    pub applied: bool,
}

impl MatchedRule {
    /// Whether both name the same rule: the same position of the same file and layer.
    pub(crate) fn same_rule(&self, other: &MatchedRule) -> bool {
        self.file == other.file && self.index == other.index && self.layer == other.layer
    }

    pub(crate) fn of(rule: &Rule) -> MatchedRule {
        MatchedRule {
            id: rule.label(),
            index: rule.index,
            file: rule.file.to_string(),
            layer: rule.layer,
            decision: rule.decision,
            applied: rule.applies,
        }
    }
}

/// One part of a shell command, with its own risk and decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentEvaluation {
    pub text: String,
    pub risk: Risk,
    pub decision: Decision,
    /// Why this part has its risk.
    pub reason: crate::Sentence,
    pub decided_by: DecidedBy,
    pub matched_rules: Vec<MatchedRule>,
}

/// The verdict on one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    pub decision: Decision,
    /// The risk the decision was made on (after the model's hint, as the policy
    /// allows).
    pub risk: Risk,
    /// What the call does, for people: "Execute command: npm install".
    pub reason: crate::Sentence,
    /// Why the decision is what it is, for people.
    pub explanation: crate::Sentence,
    /// Why the call has its risk, in words: the sentence of the part that decided
    /// (for a compound command, the deciding segment's), as a clause that reads after
    /// the risk: "recursively deletes /root, the home folder".
    pub risk_reason: crate::Clause,
    pub decided_by: DecidedBy,
    /// Every rule that matched, in the order they are consulted.
    pub matched_rules: Vec<MatchedRule>,
    /// For a shell command, each part; empty for other tools.
    pub segments: Vec<SegmentEvaluation>,
    /// The grant an "always" option would store; none for Critical calls and for
    /// calls that cannot be generalised narrowly.
    pub proposal: Option<GrantProposal>,
    /// Critical: the client may only be offered one-time options.
    pub once_only: bool,
    /// A file edit whose every target lies inside the workspace.
    pub edit_inside_workspace: bool,
    pub tool: String,
    /// The risk as assessed, before the model's hint.
    pub assessed_risk: Risk,
    pub model_hint: Option<Risk>,
    pub mode: Mode,
    /// Policy files that could not be used.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub policy_errors: Vec<crate::policy::PolicyError>,
    /// For a `terminal` call: what it needs beyond its default confinement (the
    /// network, writes outside the workspace, or no sandbox at all). A call that
    /// runs is confined with exactly these needs added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::SandboxNeeds>,
    /// What each of the user's hooks said, in the order of the policy (empty when
    /// there are none, or they were not run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<crate::hook_said::HookReport>,
}
