//! Recorded pre-tool-use payloads of each agent, in the shapes their documentation
//! gives, judged by a real engine and answered in the agent's format: allow, deny with
//! a reason, ask, a malformed payload, an MCP tool, an unknown tool, and a Codex
//! `apply_patch` that touches several files.

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hook {
    mod agents;
    mod patch;
    mod user_hooks;
}
