//! The ACP transport's figures, measured on the release binary over real
//! pipes: start-up, `session/new`, footprint, shutdown, request round trips, pipelined
//! throughput and memory under a flood.
//!
//! Run with `cargo bench --bench acp_transport` (add `-- --runs N` to change the number
//! of processes started for the per-process figures). It prints one table; the figures
//! and their targets are recorded in `docs/performance.md`.
//!
//! This is a plain binary (`harness = false`) rather than a criterion benchmark: most
//! figures are per-process events (spawn, exit, peak memory) that criterion's
//! iteration model does not fit, and it keeps the dependency tree small.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}}"#;

/// A Warden process with its pipes.
struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Its `WARDEN_HOME`, and the temporary folder that holds it when it is its own.
    home: PathBuf,
    _owned: Option<tempfile::TempDir>,
}

impl Agent {
    fn spawn() -> Agent {
        let owned = tempfile::tempdir().expect("a temporary WARDEN_HOME");
        Agent::spawn_in(owned.path().to_path_buf(), Some(owned))
    }

    /// A Warden on the state folder of an earlier one (its stored sessions).
    fn spawn_in(home: PathBuf, owned: Option<tempfile::TempDir>) -> Agent {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_remove("RUST_LOG")
            .env("WARDEN_HOME", &home)
            .env("WARDEN_MANAGED_POLICY", home.join("no-managed-policy.toml"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn warden");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Agent {
            child,
            stdin,
            stdout,
            home,
            _owned: owned,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write to warden");
        stdin.write_all(b"\n").expect("write to warden");
        stdin.flush().expect("flush to warden");
    }

    fn read_line(&mut self) -> String {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read from warden");
        assert!(n > 0, "warden closed stdout");
        line
    }

    /// Reads lines until the response with this id (notifications are skipped).
    fn response(&mut self, id: u64) -> String {
        let needle = format!("\"id\":{id},");
        let needle_end = format!("\"id\":{id}}}");
        loop {
            let line = self.read_line();
            if !line.contains("\"method\"")
                && (line.contains(&needle) || line.contains(&needle_end))
            {
                assert!(line.contains("\"result\""), "request {id} failed: {line}");
                return line;
            }
        }
    }

    fn pid(&self) -> Pid {
        Pid::from_raw(i32::try_from(self.child.id()).expect("pid fits"))
    }

    /// A `/proc/<pid>/status` field in kB (`VmRSS`, `VmHWM`).
    fn status_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc status");
        status
            .lines()
            .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|value| value.split_whitespace().next()?.parse().ok())
            .expect("the status field")
    }

    fn new_session(&mut self, id: u64, cwd: &Path) -> String {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/new","params":{{"cwd":"{}","mcpServers":[]}}}}"#,
            cwd.display()
        ));
        self.response(id)
    }

    /// Waits for the process to exit; true if it exited with status 0.
    fn wait(&mut self) -> bool {
        self.child.wait().expect("wait for warden").success()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// Memory is read from /proc in KiB and shown in MiB; the targets are in MB, so each
// comparison converts (1 MiB = 1.048576 MB).

/// Summary statistics of a sample, in the unit it was taken in.
fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn p90(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[(samples.len() * 9 / 10).min(samples.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

struct Row {
    figure: &'static str,
    measured: String,
    target: &'static str,
    met: bool,
}

/// What each of `runs` fresh processes measured: spawn → initialize, the first
/// session/new, its RSS after it, and how fast it exits (on stdin EOF and on SIGTERM,
/// in turn).
struct Samples {
    spawn_init: Vec<f64>,
    first_new: Vec<f64>,
    rss: Vec<f64>,
    rss_anon: Vec<f64>,
    exit_eof: Vec<f64>,
    exit_term: Vec<f64>,
    clean_exits: bool,
}

fn per_process(runs: usize, cwd: &Path) -> Samples {
    let mut spawn_init = Vec::new();
    let mut first_new = Vec::new();
    let mut rss = Vec::new();
    let mut rss_anon = Vec::new();
    let mut exit_eof = Vec::new();
    let mut exit_term = Vec::new();
    let mut clean_exits = true;
    for run in 0..runs {
        let start = Instant::now();
        let mut agent = Agent::spawn();
        agent.send(INITIALIZE);
        agent.response(0);
        spawn_init.push(ms(start.elapsed()));

        let start = Instant::now();
        agent.new_session(1, cwd);
        first_new.push(ms(start.elapsed()));
        rss.push(agent.status_kb("VmRSS") as f64 / 1024.0);
        rss_anon.push(agent.status_kb("RssAnon") as f64 / 1024.0);

        let start = Instant::now();
        if run % 2 == 0 {
            agent.stdin = None;
            clean_exits &= agent.wait();
            exit_eof.push(ms(start.elapsed()));
        } else {
            signal::kill(agent.pid(), Signal::SIGTERM).expect("SIGTERM");
            clean_exits &= agent.wait();
            exit_term.push(ms(start.elapsed()));
        }
    }
    Samples {
        spawn_init,
        first_new,
        rss,
        rss_anon,
        exit_eof,
        exit_term,
        clean_exits,
    }
}

/// Start-up with 1,000 stored sessions: the 500 `agent` made and 500 more by a second
/// process on the same folder (`agent` stays up for the round trips that follow).
/// Nothing of them is read before `initialize` is answered.
fn stored_sessions(agent: &Agent, runs: usize, cwd: &Path) -> Row {
    let home = agent.home.clone();
    let mut more = Agent::spawn_in(home.clone(), None);
    more.send(INITIALIZE);
    more.response(0);
    for id in 1..=500 {
        more.new_session(id, cwd);
    }
    drop(more);
    let stored = std::fs::read_dir(home.join("sessions"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
                .count()
        })
        .unwrap_or(0);
    let mut spawn_stored = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let mut agent = Agent::spawn_in(home.clone(), None);
        agent.send(INITIALIZE);
        agent.response(0);
        spawn_stored.push(ms(start.elapsed()));
    }
    let stored_median = median(&mut spawn_stored);
    Row {
        figure: "spawn → initialize reply with stored sessions (median)",
        measured: format!(
            "{stored_median:.2} ms (p90 {:.2} ms, {runs} runs, {stored} stored sessions)",
            p90(&mut spawn_stored)
        ),
        target: "≤ 5 ms with 1,000",
        met: stored_median <= 5.0 && stored >= 1000,
    }
}

/// Sequential round trips: one request, wait for its answer, repeat.
fn round_trips(agent: &mut Agent) -> Row {
    let mut round_trips = Vec::new();
    for id in 1000..6000u64 {
        let line = INITIALIZE.replacen("\"id\":0", &format!("\"id\":{id}"), 1);
        let start = Instant::now();
        agent.send(&line);
        agent.response(id);
        round_trips.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let rtt = median(&mut round_trips);
    Row {
        figure: "sequential initialize round trip (median)",
        measured: format!(
            "{rtt:.0} µs (p90 {:.0} µs, 5,000 requests)",
            p90(&mut round_trips)
        ),
        target: "≤ 100 µs",
        met: rtt <= 100.0,
    }
}

/// Many sessions in one process: the steady-state session/new latency.
fn sessions_in_one_process(agent: &mut Agent, cwd: &Path) -> Row {
    let mut new_latency = Vec::new();
    for id in 1..=500 {
        let start = Instant::now();
        agent.new_session(id, cwd);
        new_latency.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let new_median = median(&mut new_latency);
    Row {
        figure: "session/new, 500 in one process (median)",
        measured: format!("{new_median:.0} µs (p90 {:.0} µs)", p90(&mut new_latency)),
        target: "≤ 1 ms",
        met: new_median <= 1000.0,
    }
}

fn main() {
    let mut runs = 30usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--runs" {
            runs = args.next().and_then(|n| n.parse().ok()).expect("--runs N");
        }
        // cargo bench passes `--bench`; other arguments are ignored.
    }
    let cwd = tempfile::tempdir().expect("a session cwd");
    let mut rows = Vec::new();

    // Per-process figures: spawn → initialize, the first session/new, RSS, exit.
    let Samples {
        mut spawn_init,
        mut first_new,
        mut rss,
        mut rss_anon,
        mut exit_eof,
        mut exit_term,
        clean_exits,
    } = per_process(runs, cwd.path());
    let spawn_median = median(&mut spawn_init);
    rows.push(Row {
        figure: "spawn → initialize reply (median)",
        measured: format!(
            "{spawn_median:.2} ms (p90 {:.2} ms, {runs} runs)",
            p90(&mut spawn_init)
        ),
        target: "≤ 5 ms",
        met: spawn_median <= 5.0,
    });
    let first_median = median(&mut first_new);
    rows.push(Row {
        figure: "first session/new (median)",
        measured: format!("{first_median:.3} ms (p90 {:.3} ms)", p90(&mut first_new)),
        target: "≤ 1 ms",
        met: first_median <= 1.0,
    });

    // Many sessions in one process: the steady-state session/new latency.
    let mut agent = Agent::spawn();
    agent.send(INITIALIZE);
    agent.response(0);
    rows.push(sessions_in_one_process(&mut agent, cwd.path()));
    rows.push(stored_sessions(&agent, runs, cwd.path()));

    rows.push(long_session_load(runs.min(10), cwd.path()));

    let rss_max = rss.iter().copied().fold(0.0, f64::max);
    let rss_median = median(&mut rss);
    rows.push(Row {
        figure: "RSS after session/new (median)",
        measured: format!(
            "{rss_median:.1} MiB = {:.1} MB (max {rss_max:.1} MiB; anonymous {:.1} MiB, \
             the rest is file-backed: the binary's own pages)",
            rss_median * 1.048_576,
            median(&mut rss_anon)
        ),
        target: "≤ 8 MB",
        met: rss_median * 1.048_576 <= 8.0,
    });
    for (figure, samples) in [
        ("exit after stdin EOF (median)", &mut exit_eof),
        ("exit after SIGTERM (median)", &mut exit_term),
    ] {
        let m = median(samples);
        rows.push(Row {
            figure,
            measured: format!(
                "{m:.2} ms (p90 {:.2} ms){}",
                p90(samples),
                if clean_exits {
                    ""
                } else {
                    ", NOT ALL EXITED WITH 0"
                }
            ),
            target: "≤ 5 ms",
            met: m <= 5.0 && clean_exits,
        });
    }

    rows.push(round_trips(&mut agent));
    drop(agent);

    // Pipelined: every request written at once by one thread, answers read by another.
    let (rate, _) = flood(20_000);
    rows.push(Row {
        figure: "pipelined initialize requests",
        measured: format!("{rate:.0} requests/s (20,000 sent at once)"),
        target: "≥ 20,000/s",
        met: rate >= 20_000.0,
    });
    let (flood_rate, peak_mb) = flood(100_000);
    rows.push(Row {
        figure: "peak RSS while 100,000 requests arrive at once",
        measured: format!("{peak_mb:.1} MiB (VmHWM; {flood_rate:.0} requests/s)"),
        target: "< 50 MB",
        met: peak_mb * 1.048_576 < 50.0,
    });

    println!("| figure | measured | target | met |");
    println!("| --- | --- | --- | --- |");
    for row in &rows {
        let met = if row.met { "yes" } else { "**no**" };
        println!(
            "| {} | {} | {} | {met} |",
            row.figure, row.measured, row.target
        );
    }
}

/// `session/load` of a long stored session: 1,000 conversation messages and 200 tool
/// calls, made through the protocol by a first Warden (200 prompts whose one allowed
/// call reads a file, 4 messages each, and 100 prompts without a call, 2 each). Each run
/// is a fresh process on the same state folder (a live session would be replayed from
/// memory), timed from the request to its answer, which follows the last replayed
/// update.
fn long_session_load(runs: usize, cwd: &Path) -> Row {
    std::fs::write(cwd.join("data.txt"), "a line of data\n").expect("data file");
    let mut writer = Agent::spawn();
    writer.send(INITIALIZE);
    writer.response(0);
    let created = writer.new_session(1, cwd);
    let session = created
        .split("\"sessionId\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the new session's id")
        .to_owned();
    let prompt = |id: u64, text: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/prompt","params":{{"sessionId":"{session}","prompt":[{{"type":"text","text":{}}}]}}}}"#,
            serde_json::Value::String(text.to_owned())
        )
    };
    for id in 0..300u64 {
        let text = if id < 200 {
            r#"/call fs_read {"path": "data.txt"}"#.to_owned()
        } else {
            format!("/say an answer without a call, number {id}")
        };
        writer.send(&prompt(100 + id, &text));
        writer.response(100 + id);
    }
    let home = writer.home.clone();
    // The writer's process must be gone: one Warden owns a session at a time.
    let _owner = writer._owned.take();
    drop(writer);
    let load = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"session/load","params":{{"sessionId":"{session}","cwd":"{}","mcpServers":[]}}}}"#,
        cwd.display()
    );
    let mut loads = Vec::new();
    let mut replayed = 0;
    for _ in 0..runs {
        let mut agent = Agent::spawn_in(home.clone(), None);
        agent.send(INITIALIZE);
        agent.response(0);
        let start = Instant::now();
        agent.send(&load);
        replayed = 0;
        loop {
            let line = agent.read_line();
            if line.contains("\"session/update\"") {
                replayed += 1;
            } else if line.contains("\"id\":1") {
                assert!(line.contains("\"result\""), "session/load failed: {line}");
                break;
            }
        }
        loads.push(ms(start.elapsed()));
    }
    drop(_owner);
    let load_median = median(&mut loads);
    Row {
        figure: "session/load of 1,000 messages and 200 tool calls → its answer, after the last replayed update (median)",
        measured: format!(
            "{load_median:.1} ms (p90 {:.1} ms, {runs} runs, {replayed} updates replayed)",
            p90(&mut loads)
        ),
        target: "≤ 50 ms",
        met: load_median <= 50.0 && replayed >= 600,
    }
}

/// Sends `count` initialize requests at once and reads every answer. Returns the
/// throughput (requests per second, from the first write to the last answer) and the
/// agent's peak resident memory in MiB.
fn flood(count: u64) -> (f64, f64) {
    let mut agent = Agent::spawn();
    let mut stdin = agent.stdin.take().expect("stdin");
    let start = Instant::now();
    let writer = thread::spawn(move || {
        let mut batch = String::with_capacity(1 << 20);
        for id in 1..=count {
            batch.push_str(&INITIALIZE.replacen("\"id\":0", &format!("\"id\":{id}"), 1));
            batch.push('\n');
            if batch.len() > (1 << 20) - 512 {
                stdin.write_all(batch.as_bytes()).expect("write the flood");
                batch.clear();
            }
        }
        stdin.write_all(batch.as_bytes()).expect("write the flood");
        stdin.flush().expect("flush the flood");
        stdin
    });
    let mut answered = 0;
    while answered < count {
        let line = agent.read_line();
        assert!(
            line.contains("\"result\""),
            "a flooded request failed: {line}"
        );
        answered += 1;
    }
    let elapsed = start.elapsed();
    let peak_kb = agent.status_kb("VmHWM");
    drop(writer.join().expect("the writer thread"));
    (
        count as f64 / elapsed.as_secs_f64(),
        peak_kb as f64 / 1024.0,
    )
}
