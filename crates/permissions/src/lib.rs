//! Warden's permission engine: for one proposed tool call, decide allow, ask or deny,
//! with a risk level and an explanation.
//!
//! The crate has no ACP types and does no I/O outside its `store` and `audit` modules
//! (and the read-only path resolution that risk assessment needs).

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

pub mod audit;
pub mod redact;

pub use audit::{AuditError, AuditEvent, AuditKind, AuditLog, AuditRecord, Outcome, VerifyReport};

pub mod paths;
pub mod shell;

pub use paths::{FileOp, ResolvedPath, Sensitive, path_risk, resolve};
pub use shell::{CommandAnalysis, Segment, analyse};
