//! What confinement adds to a command's start: `/bin/true` started directly and through
//! each sandbox helper (`warden-sandbox`, which Warden starts its own commands with, and
//! `warden sandbox-exec`, which an editor is asked to run) with a session's default
//! confinement (namespaces, mounts, Landlock, seccomp, the process bound), alternately,
//! in one build. The median of each and of the differences is printed; the figures are
//! in `docs/performance.md`.
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
    // Warden starts its own commands with the small helper; an editor is asked to run
    // `warden sandbox-exec`. Both are measured, in turn with the direct start.
    let helpers = [
        ("`warden-sandbox`", env!("CARGO_BIN_EXE_warden-sandbox")),
        ("`warden sandbox-exec`", env!("CARGO_BIN_EXE_warden")),
    ];
    let lines: Vec<_> = helpers
        .iter()
        .map(|(_, helper)| {
            command_line(
                &PathBuf::from(helper),
                &confinement,
                "/bin/true",
                Vec::<String>::new(),
            )
        })
        .collect();
    let plain = || Command::new("/bin/true");
    let confined = |i: usize| {
        let (program, args) = &lines[i];
        let mut command = Command::new(program);
        command.args(args);
        command
    };
    // Warm the page cache for each.
    time(plain());
    for i in 0..lines.len() {
        time(confined(i));
    }
    let mut direct = Vec::new();
    let mut through = vec![Vec::new(); lines.len()];
    let mut added = vec![Vec::new(); lines.len()];
    for _ in 0..runs {
        for i in 0..lines.len() {
            let d = time(plain());
            let s = time(confined(i));
            if i == 0 {
                direct.push(d);
            }
            through[i].push(s);
            added[i].push(s.saturating_sub(d));
        }
    }
    let ms = |values: Vec<Duration>| median(values).as_secs_f64() * 1e3;
    println!(
        "| start of `/bin/true` ({runs} runs) | median | added by confinement (median of pairs) |"
    );
    println!("| --- | --- | --- |");
    println!("| direct | {:.2} ms | - |", ms(direct));
    for ((name, _), (through, added)) in helpers.iter().zip(through.into_iter().zip(added)) {
        println!(
            "| through {name} | {:.2} ms | {:.2} ms |",
            ms(through),
            ms(added)
        );
    }
}
