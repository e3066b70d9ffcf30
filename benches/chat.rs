//! `warden chat` start-up with Warden's own agent, on the release binary: from spawning
//! `warden chat --prompt '/say hi'` to its session line (the agent initialized and a
//! session open, so the first prompt is being sent), and to the end of that first turn.
//!
//! Run with `cargo bench --bench chat` (`-- --runs N`, default 30). It prints one table;
//! the figures are recorded in `docs/performance.md`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup: a failed step panics"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(30);
    let mut to_session = Vec::new();
    let mut to_end = Vec::new();
    for _ in 0..runs {
        let dir = tempfile::Builder::new()
            .prefix("warden-chat-bench-")
            .tempdir()
            .expect("tempdir");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).expect("mkdir");
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(["chat", "--prompt", "/say hi"])
            .current_dir(&project)
            .env_remove("RUST_LOG")
            .env_remove("WARDEN_MODEL")
            .env("WARDEN_HOME", dir.path().join("home"))
            .env(
                "WARDEN_MANAGED_POLICY",
                dir.path().join("managed/policy.toml"),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn warden chat");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        for line in stdout.lines() {
            let line = line.expect("read");
            if line.starts_with("Session ") {
                to_session.push(started.elapsed());
            }
            if line.starts_with("[turn ended") {
                to_end.push(started.elapsed());
            }
        }
        let status = child.wait().expect("wait");
        assert!(status.success(), "warden chat failed: {status}");
    }
    to_session.sort();
    to_end.sort();
    println!("warden chat, Warden's own agent, {runs} processes");
    println!("| figure | median | p90 |");
    println!("| --- | --- | --- |");
    for (name, figures) in [
        ("spawn → session line (first prompt sent)", &to_session),
        ("spawn → first turn ended (`/say hi`)", &to_end),
    ] {
        println!(
            "| {name} | {:.1} ms | {:.1} ms |",
            percentile(figures, 0.5).as_secs_f64() * 1000.0,
            percentile(figures, 0.9).as_secs_f64() * 1000.0
        );
    }
}
