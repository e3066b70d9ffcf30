//! MCP servers, on the release binary over real pipes, with the test server
//! (`crates/mcp-test-server`, built in release by this benchmark):
//!
//! - `session/new` with no server, and with three stdio servers, against one server's own
//!   start (spawn, `initialize`, `tools/list`) measured alone;
//! - Warden's own time for an MCP call: from sending the prompt `/call mcp__t__now {}`
//!   (the scripted model proposes the call at once; a rule allows it) to the moment the
//!   server's handler runs, read on CLOCK_MONOTONIC, which both processes share;
//! - Warden's resident memory per connected server (a session with ten servers against
//!   one with none).
//!
//! Run with `cargo bench --bench mcp` (`-- --runs N`, default 30). It prints one table;
//! the figures are recorded in `docs/performance.md`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup: a failed step panics"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn monotonic_nanos() -> u128 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

fn test_server() -> PathBuf {
    let warden = PathBuf::from(env!("CARGO_BIN_EXE_warden"));
    let bin_dir = warden.parent().expect("bin dir").to_path_buf();
    let target_dir = bin_dir.parent().expect("target dir").to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "warden-mcp-test-server",
        ])
        .env("CARGO_TARGET_DIR", &target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo build");
    assert!(status.success());
    target_dir.join("release").join("warden-mcp-test-server")
}

/// One line-delimited JSON-RPC peer over a child's pipes.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Peer {
    fn spawn(mut command: Command) -> Peer {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Peer {
            child,
            stdin,
            stdout,
            next: 0,
        }
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        self.next
    }

    fn notify(&mut self, method: &str) {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )
        .unwrap();
    }

    /// Reads until the response to `id`, answering nothing and skipping notifications.
    fn response(&mut self, id: u64) -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "EOF");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn warden(home: &Path) -> Peer {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .env_remove("RUST_LOG")
        .env_remove("WARDEN_MODEL")
        .env("WARDEN_HOME", home)
        .env("WARDEN_MANAGED_POLICY", home.join("no-managed.toml"));
    let mut peer = Peer::spawn(command);
    peer.request(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}),
    );
    peer
}

fn servers(server: &Path, n: usize) -> Value {
    (0..n)
        .map(|i| json!({"name": format!("s{i}"), "command": server, "args": ["good"], "env": []}))
        .collect()
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn row(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "| {name} | {:.2?} | {:.2?} | {:.2?} |",
        percentile(&samples, 0.5),
        percentile(&samples, 0.9),
        samples[samples.len() - 1]
    );
}

fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(30);
    let server = test_server();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        home.join("policy.toml"),
        "[[rule]]\ntool = \"mcp__*\"\ndecision = \"allow\"\n",
    )
    .unwrap();
    let cwd = project.display().to_string();

    // One server's own start, measured alone.
    let mut alone = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let mut command = Command::new(&server);
        command.arg("good");
        let mut peer = Peer::spawn(command);
        peer.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}),
        );
        peer.notify("notifications/initialized");
        peer.request("tools/list", json!({}));
        alone.push(started.elapsed());
    }

    let mut none = Vec::new();
    let mut three = Vec::new();
    let mut call = Vec::new();
    let mut w = warden(&home);
    for _ in 0..runs {
        let started = Instant::now();
        w.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        none.push(started.elapsed());
        let started = Instant::now();
        let session = w.request(
            "session/new",
            json!({"cwd": cwd, "mcpServers": servers(&server, 3)}),
        );
        three.push(started.elapsed());
        let id = session["result"]["sessionId"].as_str().unwrap().to_owned();
        // The first call of a session warms nothing that later calls skip; measure one
        // per session, after one unmeasured call.
        for measured in [false, true] {
            let prompt = json!({"sessionId": id, "prompt": [{"type": "text", "text": "/call mcp__s0__now {}"}]});
            let sent = monotonic_nanos();
            let pid = w.send("session/prompt", prompt);
            let mut line = String::new();
            let mut arrived = None;
            loop {
                line.clear();
                assert!(w.stdout.read_line(&mut line).unwrap() > 0);
                let message: Value = serde_json::from_str(&line).unwrap();
                let update = &message["params"]["update"];
                if update["status"] == "completed" {
                    let text = update["content"][0]["content"]["text"].as_str().unwrap();
                    arrived = Some(text.parse::<u128>().unwrap());
                }
                if message["id"] == pid {
                    break;
                }
            }
            if measured {
                let nanos = arrived.expect("the call completed") - sent;
                call.push(Duration::from_nanos(nanos as u64));
            }
        }
        w.request("session/close", json!({"sessionId": id}));
    }
    drop(w);

    // Memory: a fresh Warden with one session of no servers, then one of ten.
    let mut w = warden(&home);
    w.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
    std::thread::sleep(Duration::from_millis(200));
    let before = rss_kib(w.child.id());
    w.request(
        "session/new",
        json!({"cwd": cwd, "mcpServers": servers(&server, 10)}),
    );
    std::thread::sleep(Duration::from_millis(200));
    let after = rss_kib(w.child.id());
    drop(w);

    println!("| measure ({runs} runs) | median | p90 | max |");
    println!("| --- | --- | --- | --- |");
    row(
        "one test server's own start (spawn, initialize, tools/list)",
        alone,
    );
    row("`session/new`, no MCP server", none);
    row("`session/new`, three stdio servers", three);
    row("MCP call: prompt sent → the server's handler runs", call);
    println!(
        "\nWarden's RSS: {before} KiB with a session of no servers, {after} KiB after a session of ten: {:.0} KiB per server",
        (after.saturating_sub(before)) as f64 / 10.0
    );
}
