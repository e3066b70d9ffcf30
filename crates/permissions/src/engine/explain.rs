//! The words and deciders that explain an evaluation: which rule or grant decided a
//! part, as sentences of the engine's catalog.

use crate::evaluation::DecidedBy;
use crate::grant::Grant;
use crate::rule::Rule;
use crate::{Decision, Risk, Sentence};

/// A decision as the catalog's messages select on it (`allow`, `ask`, `deny`).
pub(super) fn word(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask => "ask",
        Decision::Deny => "deny",
    }
}

/// Whether a sentence about the mode adds that nothing allows a Critical call (`yes` or
/// `no`, as the catalog's messages select on it).
pub(super) fn critical(risk: Risk) -> &'static str {
    if risk == Risk::Critical { "yes" } else { "no" }
}

/// "Allowed by rule `x` in FILE", with the rule's own `reason` (the user's words, shown
/// as written) when it has one.
pub(super) fn rule_sentence(rule: &Rule) -> Sentence {
    let sentence = match &rule.reason {
        Some(reason) => Sentence::new("engine-by-rule-because").text("reason", reason.as_str()),
        None => Sentence::new("engine-by-rule"),
    };
    sentence
        .text("decision", word(rule.decision))
        .text("rule", rule.label())
        .text("file", rule.file.to_string())
}

pub(super) fn rule_decider(rule: &Rule) -> DecidedBy {
    DecidedBy::Rule {
        id: rule.label(),
        file: rule.file.to_string(),
        layer: rule.layer,
    }
}

pub(super) fn grant_decider(grant: &Grant) -> DecidedBy {
    DecidedBy::Grant {
        id: grant.id.clone(),
        scope: grant.scope,
    }
}
