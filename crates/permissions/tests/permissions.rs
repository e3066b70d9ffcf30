//! Integration tests of the permission engine, in one test binary (one link, one
//! process start): the engine's decision table, invariants, grants, lint and
//! properties (`engine`), path resolution, and the shell analyser.

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod permissions {
    mod engine;
    mod paths_table;
    mod sentences;
    mod shell_argv;
    mod shell_carried;
    mod shell_classes;
    mod shell_env;
    mod shell_environment;
    mod shell_layers;
    mod shell_modelled;
    mod shell_overprompting;
    mod shell_place;
    mod shell_props;
    mod shell_provenance;
    mod shell_secrets;
    mod shell_support;
    mod shell_table;
    mod shell_wrappers;
    mod shell_writers;
}
