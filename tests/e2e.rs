//! End-to-end tests: the real `warden` binary driven over stdio by a small ACP client,
//! its inspection commands (`cli_audit`, `cli_policy`) run as processes, and `warden chat`
//! without a terminal (`cli_chat`) and on a pseudo-terminal (`chat_pty`).
//!
//! One test binary holds every scenario (to keep link time low); the modules live in
//! `tests/e2e/`. Every message the agent writes is validated against the official ACP
//! JSON Schema for its method (see `support::schema`).

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod e2e {
    mod support;

    mod approvals;
    mod bad_input;
    mod chat_pty;
    mod chat_sessions;
    mod cli_arguments;
    mod cli_audit;
    mod cli_chat;
    mod cli_grants;
    mod cli_hook;
    mod cli_policy;
    mod cli_sessions;
    mod clients;
    mod commands;
    mod crate_graph;
    mod denials;
    mod explain;
    mod language;
    mod lifecycle;
    mod mcp;
    mod notices;
    mod openai_model;
    mod protocol;
    mod questions;
    mod sandbox;
    mod sandbox_guard;
    mod secrets;
    mod sessions;
    mod telemetry;
    mod turns;
    mod user_hooks;
}
