//! Integration tests of redaction, in one test binary: by key and pattern (`patterns`)
//! and of known secret values (`known_secrets`).

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod redact {
    mod known_secrets;
    mod patterns;
}
