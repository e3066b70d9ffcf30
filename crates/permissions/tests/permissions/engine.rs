//! The policy engine end to end: the decision table, the invariants, grants and
//! their store, lint, and property tests.

mod clients;
mod exec_config;
mod grants;
mod horizon;
mod invariants;
mod lint;
mod props;
mod read_rules;
mod see_through;
mod support;
mod table;
mod user_hooks;
