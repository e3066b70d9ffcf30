//! Warden's permission engine: for one proposed tool call, decide allow, ask or deny,
//! with a risk level and an explanation.
//!
//! The crate has no ACP types and does no I/O outside its `store` module (and the
//! read-only path resolution that risk assessment needs). The audit log and redaction
//! live in `warden-audit`, which depends on this crate.

mod context;
mod decision;
mod locations;
mod mode;
mod risk;

pub use context::Context;
pub use decision::Decision;
pub use locations::{Locations, PROJECT_POLICY};
pub use mode::Mode;
pub use risk::Risk;

pub mod secrets;

pub use secrets::is_secret_variable;

pub mod paths;
pub mod shell;

pub use paths::{FileOp, ResolvedPath, Sensitive, path_risk, resolve};
pub use shell::{CommandAnalysis, Segment, analyse};

pub mod assess;
mod call;
mod engine;
mod evaluation;
pub mod grant;
pub mod policy;
pub mod rule;
pub mod sandbox;
pub mod store;

pub use assess::{Assessment, Unit, UnitPath, assess};
pub use call::{
    InvalidRiskLevel, McpOrigin, RISK_LEVEL_ARG, ToolAnnotations, ToolCall, take_risk_level,
};
pub use engine::Engine;
pub use evaluation::{DecidedBy, Evaluation, MatchedRule, SegmentEvaluation};
pub use grant::{
    Effect, Grant, GrantMatcher, GrantProposal, GrantSet, Scope, SessionGrants, Widening,
};
pub use policy::{
    FileProblem, HintPolicy, McpServerEntry, McpServerId, Policy, PolicyError, PolicyFile,
    SandboxSettings, Settings,
};
pub use rule::{Layer, RawRule, Rule, RuleError};
pub use sandbox::{SandboxNeeds, Unconfined};
pub use store::{Fingerprint, GrantStore, LoadedGrants, Repair, StoreError, TrustStore};
pub mod lint;
pub use lint::{Finding, Severity, lint};
