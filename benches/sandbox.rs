//! What confinement adds to a command's start: `/bin/true` started directly and through
//! `warden sandbox-exec` with a session's default confinement (namespaces, mounts,
//! Landlock, seccomp, the process bound), alternately, in one build. The median of each
//! and of the difference is printed; the figures are in `docs/performance.md`.
//!
//! Run with `cargo bench --bench sandbox` (`-- --runs N`, default 200).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup: a failed step panics"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use warden_sandbox::{Workspace, command_line};

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn time(mut command: Command) -> Duration {
    let start = Instant::now();
    let status = command.status().expect("start");
    let took = start.elapsed();
    assert!(status.success(), "{command:?} failed");
    took
}

fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let workspace = tempfile::tempdir().expect("a workspace");
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let confinement = Workspace {
        roots: vec![workspace.path().to_path_buf()],
        home,
        warden_dirs: Vec::new(),
        temp_dirs: vec![PathBuf::from("/tmp")],
        extra_writable: Vec::new(),
        network: false,
        max_processes: 512,
    }
    .confinement();
    let helper = PathBuf::from(env!("CARGO_BIN_EXE_warden"));
    let (program, args) = command_line(&helper, &confinement, "/bin/true", Vec::<String>::new());
    let plain = || Command::new("/bin/true");
    let confined = || {
        let mut command = Command::new(&program);
        command.args(&args);
        command
    };
    // Warm the page cache for both.
    time(plain());
    time(confined());
    let (mut direct, mut sandboxed, mut added) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let d = time(plain());
        let s = time(confined());
        direct.push(d);
        sandboxed.push(s);
        added.push(s.saturating_sub(d));
    }
    println!("| start of `/bin/true` ({runs} runs) | median |");
    println!("| --- | --- |");
    println!("| direct | {:.2} ms |", median(direct).as_secs_f64() * 1e3);
    println!(
        "| through `warden sandbox-exec` | {:.2} ms |",
        median(sandboxed).as_secs_f64() * 1e3
    );
    println!(
        "| added by confinement (median of pairs) | {:.2} ms |",
        median(added).as_secs_f64() * 1e3
    );
}
