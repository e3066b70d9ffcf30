//! Integration tests of the built-in tools, in one test binary.

mod tools {
    mod defs;
    mod describe;
    mod fs_local;
    mod support;
    mod validate;
}
