//! Benchmarks of the audit log (filled in below).

fn main() {}
