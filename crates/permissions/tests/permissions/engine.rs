//! The policy engine end to end: the decision table, the invariants, grants and
//! their store, lint, and property tests.

mod grants;
mod horizon;
mod invariants;
mod lint;
mod props;
mod support;
mod table;
