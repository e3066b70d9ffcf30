//! Integration tests of the session crate, in one test binary: the real agent in
//! process over an in-memory pipe (`in_process`), and the lifecycle of its questions
//! across answers, restarts and `warden pending` as a property (`lifecycle`).

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod session {
    mod dispatch;
    mod in_process;
    mod lifecycle;
}
