//! The words and deciders that explain an evaluation: which rule or grant decided a
//! part, as sentences of the engine's catalog.

use crate::evaluation::DecidedBy;
use crate::grant::Grant;
use crate::rule::{Layer, Rule};
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

/// "Allowed by rule `x` in FILE", with the rule's own `reason` when it has one: a
/// built-in rule's in the reader's language, any other rule's (the user's words) as
/// written.
pub(super) fn rule_sentence(rule: &Rule) -> Sentence {
    let builtin = (rule.layer == Layer::Builtin)
        .then(|| builtin_reason(rule.id.as_deref()?))
        .flatten();
    let reason = match (builtin, &rule.reason) {
        (Some(id), _) => Some(Sentence::new(id)),
        (None, Some(reason)) => Some(Sentence::verbatim(reason.as_str())),
        (None, None) => None,
    };
    let sentence = match reason {
        Some(reason) => Sentence::new("engine-by-rule-because").sentence("reason", reason),
        None => Sentence::new("engine-by-rule"),
    };
    sentence
        .text("decision", word(rule.decision))
        .text("rule", rule.label())
        .text("file", rule.file.to_string())
}

/// The catalog's words for a built-in rule's `reason` (`policy/builtin.rs`).
fn builtin_reason(id: &str) -> Option<&'static str> {
    match id {
        "builtin:fs_read" => Some("engine-builtin-fs-read"),
        "builtin:fs_write" => Some("engine-builtin-fs-write"),
        "builtin:terminal" => Some("engine-builtin-terminal"),
        "builtin:http" => Some("engine-builtin-http"),
        _ => None,
    }
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
