//! Integration tests of the audit log: its chain, verification and writer (`chain`).
//! Redaction has its own crate and tests (`warden-redact`).

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit {
    mod chain;
    mod mirror;
}
