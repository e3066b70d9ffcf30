//! The `warden` binary.

fn main() {}
