//! The TOML format of a policy file (docs/contract.md, section 6).

use serde::{Deserialize, Serialize};

use crate::rule::RawRule;
use crate::{Mode, Risk};

/// What the model's `risk_level` hint may do; by default it may only raise the risk
/// (decision 0203).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HintPolicy {
    /// The hint is recorded and has no effect.
    Ignore,
    /// The hint may raise the risk, never lower it (the default).
    #[default]
    Escalate,
    /// The hint replaces the assessed risk, except for Critical calls and calls that
    /// a deny or ask rule matched.
    Trust,
}

impl HintPolicy {
    /// How much a setting protects: an untrusted project may only move it up.
    pub(crate) fn strictness(self) -> u8 {
        match self {
            HintPolicy::Trust => 0,
            HintPolicy::Ignore => 1,
            HintPolicy::Escalate => 2,
        }
    }
}

/// Approval timeouts per risk, in seconds (`[approval_timeout_secs_by_risk]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskTimeouts {
    pub low: Option<u64>,
    pub medium: Option<u64>,
    pub high: Option<u64>,
    pub critical: Option<u64>,
}

impl RiskTimeouts {
    pub fn get(&self, risk: Risk) -> Option<u64> {
        match risk {
            Risk::Low => self.low,
            Risk::Medium => self.medium,
            Risk::High => self.high,
            Risk::Critical => self.critical,
        }
    }

    pub(crate) fn set(&mut self, risk: Risk, secs: u64) {
        let slot = match risk {
            Risk::Low => &mut self.low,
            Risk::Medium => &mut self.medium,
            Risk::High => &mut self.high,
            Risk::Critical => &mut self.critical,
        };
        *slot = Some(secs);
    }
}

/// `[sandbox]` as written: each key overrides the weaker layers' value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxFile {
    /// `false` turns confinement off on purpose (every session then says so).
    pub enabled: Option<bool>,
    /// `true`: commands may use the network without asking for it.
    pub network: Option<bool>,
    /// More folders every command may write (a build cache, …).
    pub writable: Option<Vec<std::path::PathBuf>>,
    /// The most processes one command's tree may have at once.
    pub max_processes: Option<u64>,
}

/// One policy file as written. Unknown keys are an error, so that a typo cannot
/// silently drop a rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// The default session mode.
    pub mode: Option<Mode>,
    /// How long a permission request waits for the user; 0 waits for ever.
    pub approval_timeout_secs: Option<u64>,
    /// Per-risk overrides of `approval_timeout_secs`.
    pub approval_timeout_secs_by_risk: Option<RiskTimeouts>,
    /// `ignore`, `escalate` (default) or `trust`.
    pub model_risk_hints: Option<HintPolicy>,
    /// Tools (names or globs) that skip the question: still subject to
    /// deny and ask rules, never for Critical calls.
    pub auto_approved_tools: Option<Vec<String>>,
    /// How many permission requests may wait at once in a session.
    pub max_pending_requests: Option<usize>,
    /// How many questions one prompt turn may ask before the rest are denied.
    pub max_asks_per_turn: Option<usize>,
    /// How long starting an MCP server may take, in seconds (default 10).
    pub mcp_connect_timeout_secs: Option<u64>,
    /// How long one MCP tool call may take before it fails as hung, in seconds
    /// (default 300).
    pub mcp_call_timeout_secs: Option<u64>,
    /// Days a stored session is kept after its last change (user and managed files
    /// only).
    pub session_retention_days: Option<u64>,
    /// How many stored sessions are kept at most (user and managed files only).
    pub max_sessions: Option<usize>,
    /// The sandbox's settings (`[sandbox]`); read from the user's and the managed
    /// policy only, never a project's.
    pub sandbox: Option<SandboxFile>,
    /// The rules, in order.
    #[serde(default, rename = "rule", skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RawRule>,
    /// What the user says about MCP servers (`[[mcp_server]]`); read from the user's
    /// and the managed policy only.
    #[serde(default, rename = "mcp_server", skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<super::mcp::McpServerEntry>,
    /// The user's own commands consulted on every call (`[[hook]]`); read from the
    /// user's and the managed policy only, refused in a project's.
    #[serde(default, rename = "hook", skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<super::hook::HookEntry>,
    /// Per-client defaults (`[[client]]`); read from the user's and the managed policy
    /// only (lint reports a project's).
    #[serde(default, rename = "client", skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<super::client::ClientEntry>,
}

impl PolicyFile {
    /// Parses a policy file's text.
    pub fn parse(text: &str) -> Result<PolicyFile, toml::de::Error> {
        toml::from_str(text)
    }

    /// Every problem that stops `text` from parsing, in the order of the file, each
    /// with its line and column: all the TOML syntax errors the parser recovers from,
    /// then each setting, rule and MCP server entry checked on its own (an unknown key,
    /// a wrong type, a missing field). [`PolicyFile::parse`] stops at the first; lint
    /// reports them all, so that one run shows everything to fix. An entry that holds a
    /// syntax error is not checked again (what is missing from it is the syntax error's
    /// doing).
    pub fn problems(text: &str) -> Vec<toml::de::Error> {
        use serde::Deserialize as _;
        use toml::de::{DeArray, DeString, DeTable, DeValue, Deserializer};
        type Entry<'i> = (toml::Spanned<DeString<'i>>, toml::Spanned<DeValue<'i>>);

        let (root, mut errors) = DeTable::parse_recoverable(text);
        let whole = root.span();
        // Each entry on its own: a setting, or one rule or server of its array (a
        // problem in one does not hide the next one's).
        let mut entries: Vec<(usize, Entry<'_>)> = Vec::new();
        for (key, value) in root.get_ref() {
            match value.get_ref() {
                DeValue::Array(items)
                    if matches!(
                        key.get_ref().as_ref(),
                        "rule" | "mcp_server" | "hook" | "client"
                    ) =>
                {
                    for item in items {
                        let one: DeArray<'_> = std::iter::once(item.clone()).collect();
                        let value = toml::Spanned::new(value.span(), DeValue::Array(one));
                        entries.push((item.span().start, (key.clone(), value)));
                    }
                }
                _ => entries.push((key.span().start, (key.clone(), value.clone()))),
            }
        }
        entries.sort_by_key(|(start, _)| *start);
        // An entry reaches to where the next one starts; one that holds a syntax error
        // is not checked again.
        let broken: Vec<usize> = errors
            .iter()
            .filter_map(|e| e.span())
            .map(|s| s.start)
            .collect();
        let starts: Vec<usize> = entries.iter().map(|(start, _)| *start).collect();
        for (i, (start, (key, value))) in entries.into_iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(usize::MAX);
            if broken.iter().any(|b| (start..end).contains(b)) {
                continue;
            }
            let mut table = DeTable::new();
            table.insert(key, value);
            let one = Deserializer::from(toml::Spanned::new(whole.clone(), table));
            if let Err(e) = PolicyFile::deserialize(one) {
                errors.push(e);
            }
        }
        for e in &mut errors {
            e.set_input(Some(text));
        }
        let line = |e: &toml::de::Error| {
            e.span().map_or(usize::MAX, |s| {
                text.get(..s.start).map_or(0, |t| t.matches('\n').count())
            })
        };
        errors.sort_by_key(|e| e.span().map_or(usize::MAX, |s| s.start));
        // One problem a line: the parser's later complaints about a line it already
        // rejected are noise.
        let mut seen = std::collections::HashSet::new();
        errors.retain(|e| seen.insert(line(e)));
        errors
    }
}

#[cfg(test)]
mod tests {
    use super::PolicyFile;

    /// The line (from 1) of each problem `problems` finds in `text`.
    fn lines(text: &str) -> Vec<usize> {
        PolicyFile::problems(text)
            .iter()
            .map(|e| {
                let start = e.span().expect("a problem has a place").start;
                text[..start].matches('\n').count() + 1
            })
            .collect()
    }

    #[test]
    fn every_problem_of_a_file_is_found_once_in_the_order_of_the_file() {
        let text = "mode = \"ask\"\nx = 1\n[[rule]]\ntool = = \"x\"\ndecision = \"deny\"\n\
                    [[rule]]\ntol = 1\n[[rule]]\ntool = \"a\"\ndecision = \"ask\n";
        assert_eq!(lines(text), [2, 4, 7, 10]);
        // A rule that holds a syntax error is not blamed for what it then lacks.
        let messages: Vec<String> = PolicyFile::problems(text)
            .iter()
            .map(|e| e.message().to_owned())
            .collect();
        assert!(
            !messages.iter().any(|m| m.contains("missing field")),
            "{messages:?}"
        );
    }

    #[test]
    fn a_file_that_parses_has_no_problems() {
        assert!(
            PolicyFile::problems("mode = \"ask\"\n[[rule]]\ntool = \"a\"\ndecision = \"deny\"\n")
                .is_empty()
        );
    }
}
