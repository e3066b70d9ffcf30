//! Warden's permission engine: for one proposed tool call, decide allow, ask or deny,
//! with a risk level and an explanation.
//!
//! The crate has no ACP types and does no I/O outside its `store` module (and the
//! read-only path resolution that risk assessment needs). The words of a verdict (risk,
//! decision, mode) are the leaf crate `warden-verdict`'s and are re-exported here; what
//! a secret looks like is `warden-redact`'s.

mod context;
mod locations;

pub use context::Context;
pub use locations::{Locations, PROJECT_POLICY};
pub use warden_verdict::{Decision, Mode, Risk};

pub mod paths;
pub mod shell;

pub use paths::{FileOp, ResolvedPath, Sensitive, holds_secrets, path_risk, resolve};
pub use shell::{CommandAnalysis, Segment, analyse};

pub mod assess;
mod call;
mod engine;
mod evaluation;
pub mod grant;
mod hook_said;
pub mod policy;
pub mod rule;
pub mod sandbox;
pub mod sentence;
pub mod store;
pub mod user_hook;

pub use assess::{Assessment, Unit, UnitPath, assess};
pub use call::{
    InvalidRiskLevel, McpOrigin, RISK_LEVEL_ARG, ToolAnnotations, ToolCall, take_risk_level,
};
pub use engine::Engine;
pub use evaluation::{DecidedBy, Evaluation, MatchedRule, SegmentEvaluation};
pub use grant::{
    Effect, Grant, GrantLookup, GrantMatcher, GrantProposal, GrantSet, Scope, SessionGrants,
    Widening,
};
pub use hook_said::{HookAnswer, HookReport, HookSaid};
pub use policy::{
    ClientEntry, DEFAULT_HOOK_TIMEOUT_SECS, FileProblem, HintPolicy, HookEntry, McpServerEntry,
    McpServerId, Policy, PolicyError, PolicyFile, SandboxSettings, Settings,
};
pub use rule::{Layer, RawRule, Rule, RuleError, UNKNOWN_CLIENT};
pub use sandbox::{SandboxNeeds, Unconfined};
pub use sentence::{Clause, Sentence};
pub use store::{Fingerprint, GrantStore, LoadedGrants, Repair, StoreError, TrustStore};
pub use user_hook::{HookInput, combine, may_loosen};
pub use warden_i18n::Language;
pub mod lint;
pub use lint::{Finding, Severity, lint};
