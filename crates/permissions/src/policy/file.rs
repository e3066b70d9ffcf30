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
}

impl PolicyFile {
    /// Parses a policy file's text.
    pub fn parse(text: &str) -> Result<PolicyFile, toml::de::Error> {
        toml::from_str(text)
    }
}
