//! The words and deciders that explain an evaluation: which rule or grant decided a
//! part, and the part's reason as a clause.

use crate::Decision;
use crate::evaluation::DecidedBy;
use crate::grant::Grant;
use crate::rule::Rule;

pub(super) fn verb(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allows",
        Decision::Ask => "asks",
        Decision::Deny => "denies",
    }
}

pub(super) fn rule_sentence(rule: &Rule) -> String {
    let what = match rule.decision {
        Decision::Allow => "Allowed",
        Decision::Ask => "Needs approval",
        Decision::Deny => "Denied",
    };
    let mut s = format!("{what} by rule `{}` in {}", rule.label(), rule.file);
    if let Some(reason) = &rule.reason {
        s.push_str(": ");
        s.push_str(reason);
    }
    s
}

/// A unit's sentence as a clause: "Recursively deletes /root, the home folder." becomes
/// "recursively deletes /root, the home folder", so that it reads after "Critical: ".
pub(super) fn plain_sentence(sentence: &str) -> String {
    let trimmed = sentence.trim().trim_end_matches('.');
    let mut chars = trimmed.chars();
    match chars.next() {
        // Only a capital followed by a lower-case letter is lowered: "Deletes" is a
        // sentence's first word, "SSH" or "/etc" are names.
        Some(first)
            if first.is_uppercase() && chars.clone().next().is_some_and(char::is_lowercase) =>
        {
            // Built from the rest as a whole: a sentence is on every evaluation's path.
            let mut clause = String::with_capacity(trimmed.len());
            clause.extend(first.to_lowercase());
            clause.push_str(chars.as_str());
            clause
        }
        _ => trimmed.to_owned(),
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
