//! Integration tests of the built-in tools, in one test binary.

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tools {
    mod defs;
    mod describe;
    mod editor_fs;
    mod editor_terminal;
    mod fake_editor;
    mod fs_local;
    mod http;
    mod support;
    mod terminal_local;
    mod terminal_secrets;
    mod validate;
}
