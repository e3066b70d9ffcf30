//! The policy engine end to end: the decision table, the invariants, grants and
//! their store, lint, and property tests. One test binary, so it builds once.

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod grants;
mod invariants;
mod lint;
mod props;
mod support;
mod table;
