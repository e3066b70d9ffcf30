//! Fuzzes the shell analyser: it must never panic, and its invariants must hold for
//! any input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use warden_permissions::shell::{MAX_COMMAND_BYTES, analyse};
use warden_permissions::{Context, Risk};

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let ctx = Context::new("/home/fuzz/project").with_home("/home/fuzz");
    let analysis = analyse(command, &ctx);
    let max = analysis.segments.iter().map(|s| s.risk).max();
    // The command's risk is the strictest segment's, or stricter.
    assert!(max.is_none_or(|m| analysis.risk >= m));
    // What cannot be read is never below High.
    if analysis.problem.is_some() || analysis.segments.iter().any(|s| s.opaque) {
        assert!(analysis.risk >= Risk::High);
    }
    if command.len() > MAX_COMMAND_BYTES {
        assert!(analysis.risk >= Risk::High);
    }
    let _ = analysis.reason();
});
