//! Warden's audit log and secret redaction: what Warden writes down about every tool
//! call, and what it hides from that record and from tool output.
//!
//! The audit log ([`AuditLog`]) appends one hash-chained JSON line per evaluation and
//! per outcome from a writer thread, so a turn never waits for the disk; [`verify`]
//! and [`tail`] read it back. Redaction ([`redact_text`], [`redact_json`],
//! [`KnownSecrets`]) hides secrets by key, by pattern and by known value.
//!
//! The records carry the engine's [`Decision`](warden_permissions::Decision) and
//! [`Risk`](warden_permissions::Risk), so this crate depends on `warden-permissions`;
//! the engine never depends on it and does no I/O for it.

mod log;
mod redact;

pub use log::{
    ArgsDigest, AuditError, AuditEvent, AuditKind, AuditLog, AuditRecord, GENESIS, MAX_BATCH,
    Outcome, Problem, ProblemKind, RecordBody, TailLine, VerifyReport, args_digest, canonical_json,
    hex, line_hash, tail, verify,
};
pub use redact::{
    KnownSecrets, MIN_SECRET_LEN, REDACTED, RedactStream, is_secret_key, redact_json, redact_text,
};
