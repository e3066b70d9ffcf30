//! Warden's audit log: what Warden writes down about every tool call, redacted with
//! `warden-redact` before it reaches the disk.
//!
//! The audit log ([`AuditLog`]) appends one hash-chained JSON line per evaluation and
//! per outcome from a writer thread, so a turn never waits for the disk; [`verify`]
//! and [`tail`] read it back.
//!
//! The records carry a [`Decision`](warden_verdict::Decision) and a
//! [`Risk`](warden_verdict::Risk) from the leaf crate `warden-verdict`, so the audit log
//! does not compile the policy engine, and the engine does no I/O for the log.

mod log;

pub use log::{
    ArgsDigest, AuditError, AuditEvent, AuditKind, AuditLog, AuditMirror, AuditRecord, GENESIS,
    MAX_BATCH, Outcome, Problem, ProblemKind, RecordBody, TailLine, VerifyReport, args_digest,
    canonical_json, hex, line_hash, tail, verify,
};
