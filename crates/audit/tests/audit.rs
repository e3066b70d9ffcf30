//! Integration tests of the audit log and redaction, in one test binary: the log's
//! chain, verification and writer (`chain`), redaction by key and pattern (`redact`),
//! and redaction of known secret values (`known_secrets`).

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit {
    mod chain;
    mod known_secrets;
    mod redact;
}
