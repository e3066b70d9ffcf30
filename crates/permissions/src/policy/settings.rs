//! The settings of the layers in effect, merged.

use std::time::Duration;

use serde::Serialize;

use super::file::{HintPolicy, PolicyFile, RiskTimeouts};
use crate::rule::Layer;
use crate::{Mode, Risk};

/// The approval timeout when no file sets one.
pub const DEFAULT_APPROVAL_TIMEOUT_SECS: u64 = 30;
/// `max_pending_requests` when no file sets it.
pub const DEFAULT_MAX_PENDING_REQUESTS: usize = 16;
/// `max_asks_per_turn` when no file sets it.
pub const DEFAULT_MAX_ASKS_PER_TURN: usize = 32;
/// `session_retention_days` when no file sets it.
pub const DEFAULT_SESSION_RETENTION_DAYS: u64 = 30;
/// `max_sessions` when no file sets it.
pub const DEFAULT_MAX_SESSIONS: usize = 1000;

/// `mcp_connect_timeout_secs` when no file sets it.
pub const DEFAULT_MCP_CONNECT_TIMEOUT_SECS: u64 = 10;
/// `mcp_call_timeout_secs` when no file sets it.
pub const DEFAULT_MCP_CALL_TIMEOUT_SECS: u64 = 300;

/// The merged settings of all layers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// The mode a new session starts in.
    pub mode: Mode,
    /// Seconds a permission request waits; 0 waits for ever.
    pub approval_timeout_secs: u64,
    /// Per-risk overrides.
    pub approval_timeout_secs_by_risk: RiskTimeouts,
    pub model_risk_hints: HintPolicy,
    /// Tool names or globs that skip the question.
    pub auto_approved_tools: Vec<String>,
    pub max_pending_requests: usize,
    pub max_asks_per_turn: usize,
    /// Seconds an MCP server has to start.
    pub mcp_connect_timeout_secs: u64,
    /// Seconds one MCP tool call may take.
    pub mcp_call_timeout_secs: u64,
    /// Days a stored session is kept after its last change.
    pub session_retention_days: u64,
    /// How many stored sessions are kept at most.
    pub max_sessions: usize,
    /// The sandbox (`[sandbox]`, user and managed policy only).
    pub sandbox: SandboxSettings,
}

/// `max_processes` when no file sets it.
pub const DEFAULT_SANDBOX_MAX_PROCESSES: u64 = 512;

/// The sandbox's settings, merged from the user's and the managed policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxSettings {
    /// Whether commands run confined (`false`: turned off on purpose).
    pub enabled: bool,
    /// Whether every command may use the network without asking for it.
    pub network: bool,
    /// More folders every command may write (absolute; `~/` means the home folder).
    pub writable: Vec<std::path::PathBuf>,
    /// The most processes one command's tree may have at once.
    pub max_processes: u64,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            enabled: true,
            network: false,
            writable: Vec::new(),
            max_processes: DEFAULT_SANDBOX_MAX_PROCESSES,
        }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            mode: Mode::Ask,
            approval_timeout_secs: DEFAULT_APPROVAL_TIMEOUT_SECS,
            approval_timeout_secs_by_risk: RiskTimeouts::default(),
            model_risk_hints: HintPolicy::Escalate,
            auto_approved_tools: Vec::new(),
            max_pending_requests: DEFAULT_MAX_PENDING_REQUESTS,
            max_asks_per_turn: DEFAULT_MAX_ASKS_PER_TURN,
            mcp_connect_timeout_secs: DEFAULT_MCP_CONNECT_TIMEOUT_SECS,
            mcp_call_timeout_secs: DEFAULT_MCP_CALL_TIMEOUT_SECS,
            session_retention_days: DEFAULT_SESSION_RETENTION_DAYS,
            max_sessions: DEFAULT_MAX_SESSIONS,
            sandbox: SandboxSettings::default(),
        }
    }
}

/// How much a mode protects: an untrusted project may only move it up.
fn mode_strictness(mode: Mode) -> u8 {
    match mode {
        Mode::AutoApprove => 0,
        Mode::AcceptEdits => 1,
        Mode::Ask => 2,
        Mode::ReadOnly | Mode::AutoDeny => 3,
    }
}

/// `current`, unless `other` protects more (then `other`).
pub fn stricter_mode(current: Mode, other: Mode) -> Mode {
    if mode_strictness(other) > mode_strictness(current) {
        other
    } else {
        current
    }
}

impl Settings {
    /// How long a permission request for a call of this risk waits; `None` waits for
    /// ever.
    pub fn approval_timeout(&self, risk: Risk) -> Option<Duration> {
        let secs = self
            .approval_timeout_secs_by_risk
            .get(risk)
            .unwrap_or(self.approval_timeout_secs);
        (secs > 0).then(|| Duration::from_secs(secs))
    }

    /// Applies one layer's file over the settings so far. Layers come weakest first.
    ///
    /// An untrusted project cannot loosen anything: it may make the mode and the
    /// model-hint policy stricter and the limits lower, and its other settings
    /// (timeouts, `auto_approved_tools`) are ignored. The managed layer's settings
    /// win over every other layer's.
    pub(crate) fn apply(&mut self, layer: Layer, trusted: bool, file: &PolicyFile) {
        let untrusted = layer == Layer::Project && !trusted;
        if let Some(mode) = file.mode
            && (!untrusted || mode_strictness(mode) > mode_strictness(self.mode))
        {
            self.mode = mode;
        }
        if let Some(h) = file.model_risk_hints
            && (!untrusted || h.strictness() > self.model_risk_hints.strictness())
        {
            self.model_risk_hints = h;
        }
        if let Some(n) = file.max_pending_requests
            && (!untrusted || n < self.max_pending_requests)
        {
            self.max_pending_requests = n;
        }
        if let Some(n) = file.max_asks_per_turn
            && (!untrusted || n < self.max_asks_per_turn)
        {
            self.max_asks_per_turn = n;
        }
        // What is kept of the user's own sessions is the user's (or the
        // administrator's) to say, never a project's, trusted or not.
        if layer != Layer::Project {
            if let Some(days) = file.session_retention_days {
                self.session_retention_days = days;
            }
            if let Some(n) = file.max_sessions {
                self.max_sessions = n;
            }
            // The sandbox bounds what the user's commands may do: a project, trusted
            // or not, never loosens (or even sets) it.
            if let Some(sandbox) = &file.sandbox {
                self.sandbox.apply(sandbox);
            }
        }
        if untrusted {
            return;
        }
        if let Some(secs) = file.approval_timeout_secs {
            self.approval_timeout_secs = secs;
        }
        if let Some(secs) = file.mcp_connect_timeout_secs {
            self.mcp_connect_timeout_secs = secs;
        }
        if let Some(secs) = file.mcp_call_timeout_secs {
            self.mcp_call_timeout_secs = secs;
        }
        if let Some(by_risk) = file.approval_timeout_secs_by_risk {
            for risk in Risk::ALL {
                if let Some(secs) = by_risk.get(risk) {
                    self.approval_timeout_secs_by_risk.set(risk, secs);
                }
            }
        }
        if let Some(tools) = &file.auto_approved_tools {
            for tool in tools {
                if !self.auto_approved_tools.contains(tool) {
                    self.auto_approved_tools.push(tool.clone());
                }
            }
        }
    }
}

impl Settings {
    /// Applies a `[[client]]` entry of the user's or the managed policy for the session's
    /// client, over that layer's own settings (so the managed policy's settings still win
    /// over the user's per-client ones).
    pub(crate) fn apply_client(&mut self, entry: &super::client::ClientEntry) {
        if let Some(mode) = entry.mode {
            self.mode = mode;
        }
        if let Some(secs) = entry.approval_timeout_secs {
            self.approval_timeout_secs = secs;
        }
    }
}

impl SandboxSettings {
    fn apply(&mut self, file: &super::file::SandboxFile) {
        if let Some(enabled) = file.enabled {
            self.enabled = enabled;
        }
        if let Some(network) = file.network {
            self.network = network;
        }
        if let Some(writable) = &file.writable {
            self.writable = writable.clone();
        }
        if let Some(n) = file.max_processes {
            self.max_processes = n.max(1);
        }
    }
}
