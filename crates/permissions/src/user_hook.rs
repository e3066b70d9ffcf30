//! What the user's own hooks (`[[hook]]`) said about a call, and the one rule that
//! puts their answers together with the engine's evaluation.
//!
//! Running a hook is I/O and lives elsewhere (the `warden-hook` crate); this module is
//! pure, so that the rule is tested as a table: a hook may always make a decision
//! stricter; it may loosen only what the mode alone would have asked, and never past a
//! deny or ask rule, a Critical risk, a policy file that cannot be used, or the sandbox
//! (a call that needs more than its confinement gives, or runs without it).

use serde::Serialize;

use crate::Sentence;
use crate::evaluation::{DecidedBy, Evaluation};
use crate::hook_said::{HookReport, HookSaid};
use crate::{Decision, ToolCall};

/// What a hook reads on its standard input.
#[derive(Debug, Serialize)]
pub struct HookInput<'a> {
    pub call: &'a ToolCall,
    pub evaluation: &'a Evaluation,
}

/// Whether a hook may turn this evaluation's `ask` into `allow`: only an ask the
/// mode's table decided (itself, through the model's hint, or through the built-in
/// rules, which are its `ask` column written out), for every part, on a call
/// that is not Critical, stays inside its sandbox, and comes from usable policy files.
pub fn may_loosen(evaluation: &Evaluation) -> bool {
    let by_mode = |by: &DecidedBy| {
        matches!(
            by,
            DecidedBy::Mode { .. }
                | DecidedBy::ModelHint { .. }
                | DecidedBy::Rule {
                    layer: crate::Layer::Builtin,
                    ..
                }
        )
    };
    let inside_sandbox = evaluation
        .sandbox
        .as_ref()
        .is_none_or(|needs| !needs.widens() && needs.unconfined.is_none());
    evaluation.decision == Decision::Ask
        && by_mode(&evaluation.decided_by)
        && evaluation
            .segments
            .iter()
            .filter(|s| s.decision == Decision::Ask)
            .all(|s| by_mode(&s.decided_by))
        && evaluation.risk != crate::Risk::Critical
        && !evaluation.once_only
        && inside_sandbox
        && evaluation.policy_errors.is_empty()
}

/// Puts the hooks' answers (`said`, in the order of the policy) together with the
/// engine's evaluation: the strictest answer wins when it is stricter than the
/// evaluation; `allow` from every hook turns a loosenable `ask` (see [`may_loosen`])
/// into `allow`. In a mode that cannot ask, a hook's `ask` denies. The evaluation
/// records every report, whether it changed anything or not.
pub fn combine(mut evaluation: Evaluation, said: Vec<(String, HookSaid)>) -> Evaluation {
    if said.is_empty() {
        return evaluation;
    }
    let before = evaluation.decision;
    let strictest = said
        .iter()
        .map(|(_, s)| s.decision())
        .max()
        .unwrap_or(Decision::Ask);
    let wanted = if strictest == Decision::Ask && !evaluation.mode.can_ask() {
        Decision::Deny
    } else {
        strictest
    };
    let after = if wanted > before {
        wanted
    } else if wanted == Decision::Allow && before == Decision::Ask && may_loosen(&evaluation) {
        Decision::Allow
    } else {
        before
    };
    let deciding = (after != before)
        .then(|| said.iter().position(|(_, s)| s.decision() == strictest))
        .flatten();
    evaluation.hooks = said
        .into_iter()
        .enumerate()
        .map(|(i, (command, said))| HookReport {
            applied: after != before && (deciding == Some(i) || after == Decision::Allow),
            command,
            said,
        })
        .collect();
    if let Some(report) = deciding.and_then(|i| evaluation.hooks.get(i)) {
        let sentence = match &report.said {
            HookSaid::Answered {
                reason: Some(reason),
                ..
            } => Sentence::new("engine-hook-said-why").text("reason", reason.clone()),
            HookSaid::Answered { reason: None, .. } => Sentence::new("engine-hook-said"),
            HookSaid::Failed { problem } => {
                Sentence::new("engine-hook-failed").text("problem", problem.clone())
            }
        };
        evaluation.explanation = sentence
            .text("command", report.command.clone())
            .text("decision", after.as_str())
            .sentence("before", evaluation.explanation.clone());
        evaluation.decided_by = DecidedBy::Hook {
            command: report.command.clone(),
        };
        evaluation.decision = after;
        if after != Decision::Ask {
            evaluation.proposal = None;
        }
    }
    evaluation
}
