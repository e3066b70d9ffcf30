//! `warden policy lint`: problems in policy files that loading alone does not show.
//!
//! Errors (the exit status is non-zero): a file that cannot be read or parsed, a rule
//! that does not compile, an embedded example that fails, and a dead rule (one that
//! can never match, such as `command` on a tool glob that cannot be `terminal`: it
//! usually means a deny rule silently protects nothing). Warnings: duplicate rules,
//! rules shadowed by an earlier rule of the same decision in the same file (it always
//! matches first), allow rules that a deny rule fully covers, and deny or ask rules
//! for one risk that leave the riskier calls they would otherwise match less strictly
//! handled (a `risk` condition matches one risk exactly).

use serde::Serialize;

use crate::policy::{FileProblem, Source, load_file};
use crate::rule::{Layer, Rule};
use crate::{Decision, Risk};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One problem found by lint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    /// `parse`, `rule`, `example`, `hook`, `dead`, `duplicate`, `shadowed`, `covered`,
    /// `riskier` or `client` (a project's `[[client]]`).
    pub kind: &'static str,
    pub file: String,
    /// The rule's `id` or `<layer>#<index>`, when the finding is about one rule.
    pub rule: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &self.rule {
            Some(rule) => write!(
                f,
                "{}: {severity} [{}] rule `{rule}`: {}",
                self.file, self.kind, self.message
            ),
            None => write!(
                f,
                "{}: {severity} [{}] {}",
                self.file, self.kind, self.message
            ),
        }
    }
}

/// The tools that carry file paths a `path` rule can match.
const PATH_TOOLS: &[&str] = &[
    "fs_read",
    "fs_list",
    "fs_search",
    "fs_write",
    "fs_edit",
    "fs_delete",
    "fs_move",
    "terminal",
];

/// Whether a tool-name pattern has glob syntax (else it is one exact name).
fn is_literal(pattern: &str) -> bool {
    !pattern.contains(['*', '?', '[', '{', '\\'])
}

/// Why a rule can never match, if it cannot.
fn dead_reason(rule: &Rule) -> Option<String> {
    let tool_can = |name: &str| rule.tool_matches(name);
    if rule.command.is_some() && !tool_can("terminal") {
        return Some(
            "`command` only matches `terminal` calls, and `tool` excludes `terminal`".into(),
        );
    }
    if rule.domain.is_some() && !tool_can("http_fetch") {
        return Some(
            "`domain` only matches `http_fetch` calls, and `tool` excludes `http_fetch`".into(),
        );
    }
    if rule.command.is_some() && rule.domain.is_some() {
        return Some("no call has both a `command` and a `domain`".into());
    }
    if rule.path.is_some() && !PATH_TOOLS.iter().any(|t| tool_can(t)) {
        return Some(
            "`path` only matches file tools and `terminal`, and `tool` excludes them all".into(),
        );
    }
    if rule.decision == Decision::Allow && rule.risk == Some(Risk::Critical) {
        return Some("nothing allows a Critical call, so this allow rule never decides".into());
    }
    None
}

/// A project policy's `[[client]]` tables: never read, since a project must not choose
/// how the calls made in it are asked about.
fn project_clients(source: &Source, loaded: &crate::policy::LoadedFile) -> Vec<Finding> {
    if source.layer != Layer::Project {
        return Vec::new();
    }
    let Some(parsed) = &loaded.parsed else {
        return Vec::new();
    };
    parsed
        .clients
        .iter()
        .map(|entry| Finding {
            severity: Severity::Error,
            kind: "client",
            file: source.file.clone(),
            rule: None,
            message: format!(
                "`[[client]]` with `name = \"{}\"` is ignored: per-client defaults are read from the user's and the managed policy only, never a project's",
                entry.name
            ),
        })
        .collect()
}

/// Whether `a` matches every call `b` matches (conservative: false when unsure).
pub fn covers(a: &Rule, b: &Rule) -> bool {
    covers_but_risk(a, b) && (a.risk.is_none() || a.risk == b.risk)
}

/// Whether `a` matches every call `b` matches, their `risk` aside.
fn covers_but_risk(a: &Rule, b: &Rule) -> bool {
    let tool = match (&a.tool, &b.tool) {
        (None, _) => true,
        (Some((pa, _)), Some((pb, _))) => {
            pa == pb || pa == "*" || (is_literal(pb) && a.tool_matches(pb))
        }
        (Some((pa, _)), None) => pa == "*",
    };
    let command = match (&a.command, &b.command) {
        (None, _) => true,
        (Some((_, pa)), Some((_, pb))) => pb.is_covered_by(pa),
        (Some(_), None) => false,
    };
    let path = match (&a.path, &b.path) {
        (None, _) => true,
        (Some(pa), Some(pb)) => pa.source == pb.source,
        (Some(_), None) => false,
    };
    let domain = match (&a.domain, &b.domain) {
        (None, _) => true,
        (Some((_, pa)), Some((_, pb))) => pb.is_covered_by(pa),
        (Some(_), None) => false,
    };
    let args = a.raw.args.iter().flatten().all(|(k, v)| {
        b.raw.args.as_ref().and_then(|m| m.get(k)) == Some(v)
            || v == "*" && b.raw.args.as_ref().is_some_and(|m| m.contains_key(k))
    });
    // A rule for some clients covers another only for the same clients, or for all.
    let client = match (&a.raw.client, &b.raw.client) {
        (None, _) => true,
        (Some(pa), Some(pb)) => pa.eq_ignore_ascii_case(pb) || pa == "*",
        (Some(pa), None) => pa == "*",
    };
    tool && client && command && path && domain && args
}

fn same_conditions(a: &Rule, b: &Rule) -> bool {
    a.raw.tool == b.raw.tool
        && a.raw.client == b.raw.client
        && a.command.as_ref().map(|c| &c.1) == b.command.as_ref().map(|c| &c.1)
        && a.raw.path == b.raw.path
        && a.domain.as_ref().map(|d| &d.1) == b.domain.as_ref().map(|d| &d.1)
        && a.raw.args == b.raw.args
        && a.risk == b.risk
}

/// For a deny or ask rule with a `risk` below Critical: the higher risks that no rule of
/// the same file, matching every call it matches but for the risk, treats at least as
/// strictly. A `risk` condition matches one risk exactly, so `risk = "high"` with
/// `decision = "deny"` leaves Critical calls to be asked, which is rarely what its
/// author meant.
fn riskier_uncovered(rule: &Rule, rules: &[Rule]) -> Vec<Risk> {
    let Some(risk) = rule.risk.filter(|_| rule.decision != Decision::Allow) else {
        return Vec::new();
    };
    Risk::ALL
        .into_iter()
        .filter(|higher| *higher > risk)
        .filter(|higher| {
            !rules.iter().any(|other| {
                other.decision >= rule.decision
                    && other.risk.is_none_or(|r| r == *higher)
                    && covers_but_risk(other, rule)
            })
        })
        .collect()
}

/// The findings about each rule of one file on its own: dead, riskier, duplicate and
/// shadowed rules.
fn rule_findings(file: &str, rules: &[Rule]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let finding = |severity, kind, message: String| Finding {
            severity,
            kind,
            file: file.to_owned(),
            rule: Some(rule.label()),
            message,
        };
        if let Some(why) = dead_reason(rule) {
            findings.push(finding(
                Severity::Error,
                "dead",
                format!("can never match: {why}"),
            ));
            continue;
        }
        let riskier = riskier_uncovered(rule, rules);
        if !riskier.is_empty() {
            let names: Vec<&str> = riskier.iter().map(|r| r.as_str()).collect();
            findings.push(finding(
                Severity::Warning,
                "riskier",
                format!(
                    "`risk` matches one risk exactly: this rule does not {} {} calls it would otherwise match; add a rule for them if it should",
                    word_for(rule.decision),
                    names.join(" or ")
                ),
            ));
        }
        let earlier = &rules[..i];
        if let Some(dup) = earlier.iter().find(|e| same_conditions(e, rule)) {
            findings.push(finding(
                Severity::Warning,
                "duplicate",
                format!("has the same conditions as rule `{}`", dup.label()),
            ));
        } else if let Some(first) = earlier
            .iter()
            .find(|e| e.decision == rule.decision && covers(e, rule))
        {
            findings.push(finding(
                Severity::Warning,
                "shadowed",
                format!(
                    "rule `{}` comes first with the same decision and matches every call this one does",
                    first.label()
                ),
            ));
        }
    }
    findings
}

/// The verb of a decision in a finding's sentence.
fn word_for(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask => "ask about",
        Decision::Deny => "deny",
    }
}

/// Lints the given files as the layers in effect (or as separate files: each is
/// linted on its own, and allow rules are checked against every file's deny rules).
pub fn lint(sources: &[Source]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut all: Vec<Rule> = Vec::new();
    for source in sources {
        let (loaded, rules) = load_file(source, true);
        findings.extend(project_clients(source, &loaded));
        for e in &loaded.errors {
            // A file that does not parse: every problem in it, not only the first.
            if let (FileProblem::Parse(_), Ok(text)) = (e, &source.text) {
                let problems = crate::PolicyFile::problems(text);
                if !problems.is_empty() {
                    findings.extend(problems.iter().map(|p| Finding {
                        severity: Severity::Error,
                        kind: "parse",
                        file: source.file.clone(),
                        rule: None,
                        message: p.to_string().trim_end().to_owned(),
                    }));
                    continue;
                }
            }
            let kind = match e {
                e if e.is_whole_file() => "parse",
                FileProblem::Rule { error, .. } if error.is_failed_example() => "example",
                FileProblem::ProjectHook => "hook",
                _ => "rule",
            };
            findings.push(Finding {
                severity: Severity::Error,
                kind,
                file: source.file.clone(),
                rule: None,
                message: e.to_string(),
            });
        }
        findings.extend(rule_findings(&source.file, &rules));
        all.extend(rules.into_iter().filter(|r| r.layer != Layer::Builtin));
    }
    for rule in all
        .iter()
        .filter(|r| r.decision == Decision::Allow && dead_reason(r).is_none())
    {
        if let Some(deny) = all
            .iter()
            .find(|d| d.decision == Decision::Deny && dead_reason(d).is_none() && covers(d, rule))
        {
            findings.push(Finding {
                severity: Severity::Warning,
                kind: "covered",
                file: rule.file.to_string(),
                rule: Some(rule.label()),
                message: format!(
                    "deny rule `{}` in {} matches every call this allow rule does, so it never allows anything",
                    deny.label(),
                    deny.file
                ),
            });
        }
    }
    findings
}
