//! `warden hook` for a `terminal` call: from spawning the binary to its answer on
//! stdout, and to its exit (the answer is printed before the audit entries are written),
//! with a Claude Code `PreToolUse` payload for `git status`, a fresh `WARDEN_HOME` and
//! no policy file. The median and the 90th percentile of each are printed; the figures
//! are in `docs/performance.md`.
//!
//! Run with `cargo bench --bench hook` (`-- --runs N`, default 200).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup: a failed step panics"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn percentile(values: &mut [Duration], p: usize) -> Duration {
    values.sort();
    values[(values.len() * p / 100).min(values.len() - 1)]
}

/// One run: (spawn to the answer's last byte, spawn to exit).
fn once(payload: &[u8], home: &std::path::Path) -> (Duration, Duration) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["hook", "--for", "claude"])
        .env("WARDEN_HOME", home)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start warden hook");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(payload).expect("write the payload");
    drop(stdin);
    let mut stdout = child.stdout.take().expect("stdout");
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    // The answer is one line: it is complete at its newline.
    while !answer.ends_with(b"\n") {
        let n = stdout.read(&mut buf).expect("read the answer");
        assert!(n > 0, "no answer: {}", String::from_utf8_lossy(&answer));
        answer.extend_from_slice(&buf[..n]);
    }
    let answered = start.elapsed();
    let status = child.wait().expect("wait");
    let exited = start.elapsed();
    assert!(status.success());
    assert!(
        answer.windows(7).any(|w| w == b"\"allow\""),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    (answered, exited)
}

fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().expect("a folder");
    let home = dir.path().join("warden-home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let payload = serde_json::json!({
        "session_id": "bench",
        "cwd": project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status", "description": "Show the status"},
        "tool_use_id": "toolu_bench",
    })
    .to_string();
    // Warm the page cache and create the audit log.
    for _ in 0..5 {
        once(payload.as_bytes(), &home);
    }
    let (mut answered, mut exited): (Vec<_>, Vec<_>) =
        (0..runs).map(|_| once(payload.as_bytes(), &home)).unzip();
    println!(
        "warden hook --for claude, terminal `git status`, {runs} runs: answer median {:?} (p90 {:?}), exit median {:?} (p90 {:?})",
        percentile(&mut answered, 50),
        percentile(&mut answered, 90),
        percentile(&mut exited, 50),
        percentile(&mut exited, 90),
    );
}
