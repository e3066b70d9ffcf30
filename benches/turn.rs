//! The issue-4 figures for the prompt turn, measured on the release binary over real
//! pipes with the scripted model:
//!
//! - Warden's own overhead per tool call: from the prompt that proposes a call to its
//!   `session/request_permission` on the wire, and from the client's answer to the
//!   call's `in_progress` update (the tool starting). Both include two pipe hops and the
//!   scripted model's reply, so they bound Warden's own share from above; a bare request
//!   round trip is printed beside them for scale.
//! - Throughput: one session running 1,000 allowed tool calls end to end.
//!
//! Run with `cargo bench --bench turn`. The figures are recorded in
//! `docs/performance.md` ("Prompt turn").

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    dir: tempfile::TempDir,
    next_id: i64,
}

impl Agent {
    fn spawn() -> Agent {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::create_dir_all(dir.path().join("home")).expect("home");
        std::fs::create_dir_all(dir.path().join("project")).expect("project");
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_remove("RUST_LOG")
            .env("WARDEN_HOME", dir.path().join("home"))
            // In its own folder: the managed policy's folder is protected, and the
            // project must not be inside it.
            .env(
                "WARDEN_MANAGED_POLICY",
                dir.path().join("managed/policy.toml"),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn warden");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Agent {
            child,
            stdin,
            stdout,
            dir,
            next_id: 0,
        }
    }

    fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        serde_json::from_str(&line).expect("a JSON line")
    }

    /// Reads until a message satisfies `wanted`, and returns it.
    fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self.read();
            if wanted(&message) {
                return message;
            }
        }
    }

    fn response(&mut self, id: i64) -> Value {
        self.until(|m| m["id"] == id && m.get("method").is_none())
    }

    fn session(&mut self) -> String {
        let id = self.request("initialize", json!({"protocolVersion": 1}));
        self.response(id);
        let cwd = self.dir.path().join("project").display().to_string();
        let id = self.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        let response = self.response(id);
        response["result"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The CPU time all of a process's threads have spent, in nanoseconds
/// (`/proc/<pid>/task/*/schedstat`). Unlike wall time it does not grow when other
/// processes compete for the cores, so it shows Warden's own cost on a busy machine.
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);

    let mut agent = Agent::spawn();
    let session = agent.session();

    let pid = agent.child.id();
    // A bare round trip, for scale: the pipes and the SDK, no turn.
    let cpu_before_bare = cpu_ns(pid);
    let mut bare = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let id = agent.request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "ask"}),
        );
        agent.response(id);
        bare.push(start.elapsed());
    }

    let cpu_bare = (cpu_ns(pid) - cpu_before_bare) / runs as u64;

    // Warden's CPU for one whole asked call, the permission cycle included: the prompt,
    // the model's reply, the evaluation, the request, the answer, a cheap tool (a small
    // file write), its result, the model's closing reply and the prompt's answer.
    let cpu_before_cycle = cpu_ns(pid);
    for i in 0..runs {
        let text = format!(r#"/call fs_write {{"path": "w{i}.txt", "content": "x"}}"#);
        let id = agent.request("session/prompt", prompt(&session, &text));
        let request = agent.until(|m| m["method"] == "session/request_permission");
        agent.send(&json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}}));
        agent.response(id);
    }
    let cpu_cycle = (cpu_ns(pid) - cpu_before_cycle) / runs as u64;

    let mut to_request = Vec::new();
    let mut to_start = Vec::new();
    for i in 0..runs {
        let text = format!(r#"/call terminal {{"command": "touch f{i}"}}"#);
        let start = Instant::now();
        let id = agent.request("session/prompt", prompt(&session, &text));
        let request = agent.until(|m| m["method"] == "session/request_permission");
        to_request.push(start.elapsed());
        let answered = Instant::now();
        agent.send(&json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}}));
        agent.until(|m| m["params"]["update"]["status"] == "in_progress");
        to_start.push(answered.elapsed());
        agent.response(id);
    }

    // 1,000 allowed calls (reads inside the project are Low) in one session.
    std::fs::write(agent.dir.path().join("project/data.txt"), "x\n").expect("data");
    let batch: Vec<String> = (0..1000)
        .map(|_| r#"/call fs_read {"path": "data.txt"}"#.to_owned())
        .collect();
    let text = batch.join("\n");
    let mut rates = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let id = agent.request("session/prompt", prompt(&session, &text));
        let response = agent.response(id);
        let elapsed = start.elapsed();
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        rates.push(Duration::from_secs_f64(1000.0 / elapsed.as_secs_f64()));
    }
    let rate = median(rates).as_secs_f64();

    println!("| figure | median | target |");
    println!("| --- | --- | --- |");
    println!(
        "| bare request round trip (for scale) | {:.0} µs | - |",
        median(bare).as_secs_f64() * 1e6
    );
    println!(
        "| prompt with one call → its permission request on the wire | {:.0} µs | < 200 µs of Warden's own |",
        median(to_request).as_secs_f64() * 1e6
    );
    println!(
        "| permission answer → the call's `in_progress` (tool starting) | {:.0} µs | < 200 µs of Warden's own |",
        median(to_start).as_secs_f64() * 1e6
    );
    println!("| 1,000 allowed calls in one session | {rate:.0} calls/s | > 2,000 calls/s |");
    println!();
    println!("| Warden's CPU time (all threads) | mean |");
    println!("| --- | --- |");
    println!(
        "| per bare request round trip | {:.0} µs |",
        cpu_bare as f64 / 1e3
    );
    println!(
        "| per asked call, the whole cycle (both segments above and more) | {:.0} µs |",
        cpu_cycle as f64 / 1e3
    );
}
