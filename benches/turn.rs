//! The prompt turn's figures, measured on the release binary over real
//! pipes with the scripted model:
//!
//! - Warden's own overhead per tool call: from the prompt that proposes a call to its
//!   `session/request_permission` on the wire, and from the client's answer to the
//!   call's `in_progress` update (the tool starting). Both include two pipe hops and the
//!   scripted model's reply, so they bound Warden's own share from above; a bare request
//!   round trip is printed beside them for scale.
//! - The same overhead as the target defines it, from the model's tool call to the
//!   permission request: Warden runs against an OpenAI-compatible model (a local server
//!   in this process that speaks the real streamed wire format), and the clock starts
//!   as the server starts writing the reply that holds the tool call. It stops when the
//!   request is read from Warden's stdout, so it includes the socket and pipe hops and
//!   Warden's HTTP, SSE and JSON parsing of the reply.
//! - The same with three calls in the model's reply, until the third request: less the
//!   one call's figure and halved, what a call costs once the reply's own work is done
//!   and the code a call runs has just run (the first call of a reply runs it cold).
//! - The same once more with a model that thinks for 30 ms before it replies, Warden
//!   idle meanwhile, and a bare round trip after as long an idle: what a call costs when,
//!   as with any hosted model, the caches and on a virtual machine the processor itself
//!   have gone cold. Not targets: the targets' window is the one above, whose reply
//!   follows the request at once.
//! - Beside each path's wall time, the CPU time of Warden's main thread over the same
//!   window: Warden's own share, without the wake-ups of idle threads.
//! - Throughput: one session running 1,000 allowed tool calls end to end.
//!
//! Every figure is taken four times, alternately with and without the session journal
//! (the same build; without it, Warden is given a sessions folder it refuses), so that
//! the journal's cost is read in the same minutes. Warden always journals its sessions,
//! so the targets are read from the journaled rounds alone: the last table lists them.
//!
//! Run with `cargo bench --bench turn` (`-- --think-ms N` for how long the model thinks
//! in the idle rows, 30 by default; `-- --runs N` for N samples per figure, 300 by
//! default). The figures are recorded in `docs/performance.md` ("Prompt turn").

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, mpsc};
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
    fn spawn(journal: bool) -> Agent {
        Agent::spawn_with(&[], journal)
    }

    /// Starts Warden; without `journal`, its sessions folder is one it refuses (others
    /// may write to it), so that its sessions are not stored and the same build is
    /// measured without the journal.
    fn spawn_with(env: &[(&str, String)], journal: bool) -> Agent {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::create_dir_all(dir.path().join("home")).expect("home");
        if !journal {
            use std::os::unix::fs::PermissionsExt;
            let sessions = dir.path().join("home/sessions");
            std::fs::create_dir_all(&sessions).expect("sessions");
            std::fs::set_permissions(&sessions, std::fs::Permissions::from_mode(0o777))
                .expect("chmod");
        }
        std::fs::create_dir_all(dir.path().join("project")).expect("project");
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_remove("RUST_LOG")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
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
        self.new_session()
    }

    fn new_session(&mut self) -> String {
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
        .filter_map(|task| run_ns(&task.path()))
        .sum()
}

/// The time a thread (`/proc/<pid>/task/<tid>`) has spent on a CPU, from its
/// `schedstat`.
fn run_ns(task: &std::path::Path) -> Option<u64> {
    let stat = std::fs::read_to_string(task.join("schedstat")).ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// The CPU time of Warden's main thread, which runs the protocol and every turn
/// (decision 0004): its own work on a path, without the audit log's thread, which
/// writes the path's records in parallel once the messages are out.
///
/// The kernel brings a thread's total up to date when the thread stops running, so this
/// first waits (briefly) until the thread sleeps: a window measured between two such
/// readings holds all the work Warden did for it, and a little more at its end (what
/// Warden does right after writing, such as handing audit notes to the log's thread).
fn main_thread_cpu_ns(pid: u32) -> u64 {
    let task = std::path::PathBuf::from(format!("/proc/{pid}/task/{pid}"));
    for _ in 0..100_000 {
        let stat = std::fs::read_to_string(task.join("stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.trim().chars().next());
        if state != Some('R') {
            break;
        }
        std::thread::yield_now();
    }
    run_ns(&task).unwrap_or(0)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The median of `samples`, in microseconds.
fn median_us(samples: Vec<Duration>) -> f64 {
    median(samples).as_secs_f64() * 1e6
}

/// The value given after `name` on the benchmark's command line (`-- --runs 100`).
fn option<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::args()
        .skip_while(|a| a != name)
        .nth(1)
        .and_then(|value| value.parse().ok())
}

/// What the model server reports for each tool-call reply: the moment its write started,
/// and Warden's CPU time just before (Warden is idle then, waiting for the reply).
struct Sent {
    at: Instant,
    warden_cpu_ns: u64,
}

/// The scripted model's replies that propose calls.
#[derive(Clone, Copy)]
struct Replies {
    /// How many calls each such reply proposes.
    calls: u32,
    /// How long the model thinks before it writes such a reply, Warden waiting idle
    /// meanwhile. A hosted model takes hundreds of milliseconds at least.
    think: Duration,
}

/// A Chat Completions server on 127.0.0.1 for one client, keeping connections alive and
/// streaming replies chunked, as hosted providers do: the first, third, ... request gets
/// a reply proposing `replies.calls` `terminal` calls, the others a closing text.
/// `warden` is the pid whose CPU time is read before each tool-call reply.
fn model_server(warden: Arc<AtomicU32>, replies: Replies) -> (String, mpsc::Receiver<Sent>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("address"));
    let (sent_tx, sent_rx) = mpsc::channel();
    // A thread per connection: sessions share one HTTP client, so usually one kept-alive
    // connection, but the client may open more.
    let served = Arc::new(AtomicU32::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let (warden, served, sent_tx) = (warden.clone(), served.clone(), sent_tx.clone());
            std::thread::spawn(move || serve_model(stream, &warden, &served, &sent_tx, replies));
        }
    });
    (url, sent_rx)
}

/// Answers the requests of one connection until it closes.
fn serve_model(
    stream: TcpStream,
    warden: &AtomicU32,
    served: &AtomicU32,
    sent_tx: &mpsc::Sender<Sent>,
    replies: Replies,
) {
    use warden_model::testing::{call_delta, done, finish, text_chunk};
    // Each reply is one write; without Nagle's algorithm it leaves at once.
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream);
    while read_http_request(&mut reader) {
        let n = served.fetch_add(1, Ordering::AcqRel);
        let body = if n.is_multiple_of(2) {
            std::thread::sleep(replies.think);
            let mut body: String = (0..replies.calls)
                .map(|i| {
                    let arguments = format!(r#"{{"command": "touch m{n}_{i}"}}"#);
                    call_delta(
                        i,
                        Some(&format!("call_{n}_{i}")),
                        Some("terminal"),
                        &arguments,
                    )
                })
                .collect();
            body.push_str(&finish("tool_calls"));
            body.push_str(&done());
            body
        } else {
            [text_chunk("Done."), finish("stop"), done()].concat()
        };
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
            body.len()
        );
        let warden_cpu_ns = main_thread_cpu_ns(warden.load(Ordering::Acquire));
        // The clock starts as the write starts: taken after it, a preempted server
        // thread could start it late.
        let sent = Sent {
            at: Instant::now(),
            warden_cpu_ns,
        };
        if reader.get_mut().write_all(reply.as_bytes()).is_err() {
            return;
        }
        if n.is_multiple_of(2) && sent_tx.send(sent).is_err() {
            return;
        }
    }
}

/// Reads one HTTP/1.1 request with a `content-length` body; false at the connection's end.
fn read_http_request(reader: &mut BufReader<TcpStream>) -> bool {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return false;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).is_ok()
}

fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

fn main() {
    let runs: usize = option("--runs").unwrap_or(300);
    // The same build with and without the session journal, alternately, so that what
    // the journal costs is measured in the same minutes (this machine's speed drifts).
    let mut journaled = Vec::new();
    for (round, journal) in [true, false, true, false].into_iter().enumerate() {
        println!(
            "### Round {}: {}",
            round + 1,
            if journal {
                "sessions journaled"
            } else {
                "sessions not stored (no journal)"
            }
        );
        println!();
        let figures = measure(runs, journal);
        if journal {
            journaled.push(figures);
        }
        println!();
    }
    // Warden always journals its sessions: the targets are read from the journaled
    // rounds alone, the others only say what the journal costs.
    let list = |pick: fn(&Targets) -> f64| {
        let values: Vec<String> = journaled
            .iter()
            .map(|t| format!("{:.0}", pick(t)))
            .collect();
        values.join(", ")
    };
    println!("### The targets, from the journaled rounds");
    println!();
    println!("| path | Warden's main thread CPU, median of each journaled round | target |");
    println!("| --- | --- | --- |");
    println!(
        "| the model's tool call → its permission request | {} µs | < 200 µs |",
        list(|t| t.model)
    );
    println!(
        "| permission answer → the call's `in_progress` | {} µs | < 200 µs |",
        list(|t| t.answer)
    );
}

/// How long the model thinks before the replies of the model path's last figure, and
/// Warden idles before the bare round trips that follow it: `-- --think-ms N`, 30 ms by
/// default.
fn think() -> Duration {
    static THINK: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *THINK.get_or_init(|| Duration::from_millis(option("--think-ms").unwrap_or(30)))
}

/// The model path's figures of a round, in microseconds.
struct ModelPaths {
    one_wall: f64,
    one_cpu: f64,
    three_cpu: f64,
    thought_wall: f64,
    thought_cpu: f64,
}

/// The model path: a reply with one call, with three, and with one after the model
/// thought (a third as many samples, each waits).
fn model_paths(runs: usize, journal: bool) -> ModelPaths {
    let now = Duration::ZERO;
    // With three calls in the reply: what each call beyond the first costs, once the
    // reply's own work is done and the code of a call has just run.
    let (_, three) = from_model(
        runs,
        journal,
        Replies {
            calls: 3,
            think: now,
        },
    );
    let (one_wall, one) = from_model(
        runs,
        journal,
        Replies {
            calls: 1,
            think: now,
        },
    );
    // After the model thought, the same call finds the caches, and on a virtual machine
    // the processor itself, cold.
    let thought = Replies {
        calls: 1,
        think: think(),
    };
    let (thought_wall, thought_cpu) = from_model(runs.div_ceil(3), journal, thought);
    ModelPaths {
        one_wall: median_us(one_wall),
        one_cpu: median_us(one),
        three_cpu: median_us(three),
        thought_wall: median_us(thought_wall),
        thought_cpu: median_us(thought_cpu),
    }
}

/// A round's figures that have targets, in microseconds of Warden's main thread.
struct Targets {
    model: f64,
    answer: f64,
}

/// The rate of 1,000 allowed calls (reads inside the project are Low) in one session,
/// the median of five prompts; and whether the session was journaled only when asked.
fn allowed_calls_rate(agent: &mut Agent, session: &str, journal: bool) -> f64 {
    std::fs::write(agent.dir.path().join("project/data.txt"), "x\n").expect("data");
    let batch: Vec<String> = (0..1000)
        .map(|_| r#"/call fs_read {"path": "data.txt"}"#.to_owned())
        .collect();
    let text = batch.join("\n");
    let mut rates = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let id = agent.request("session/prompt", prompt(session, &text));
        let response = agent.response(id);
        let elapsed = start.elapsed();
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        rates.push(Duration::from_secs_f64(1000.0 / elapsed.as_secs_f64()));
    }
    let rate = median(rates).as_secs_f64();
    let journals = std::fs::read_dir(agent.dir.path().join("home/sessions"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(
        journals > 0,
        journal,
        "the session is journaled only when asked"
    );
    rate
}

/// The model's path, with a model on a socket: from the reply that proposes calls until
/// the last of their permission requests is read, the wall time and Warden's main-thread
/// CPU of each of `runs` replies.
fn from_model(runs: usize, journal: bool, replies: Replies) -> (Vec<Duration>, Vec<Duration>) {
    let warden = Arc::new(AtomicU32::new(0));
    let (url, sent) = model_server(warden.clone(), replies);
    let mut agent = Agent::spawn_with(
        &[
            ("WARDEN_MODEL", "openai:bench-model".to_owned()),
            ("OPENAI_BASE_URL", url),
            ("OPENAI_API_KEY", "sk-bench".to_owned()),
        ],
        journal,
    );
    let pid = agent.child.id();
    warden.store(pid, Ordering::Release);
    agent.session();
    let mut from_model = Vec::new();
    let mut from_model_cpu = Vec::new();
    let mut session = String::new();
    for run in 0..runs {
        // A session per ten calls, so that the conversation the model is sent (and
        // Warden builds for every request) stays small, while most calls are made in a
        // session that already worked, as in use (a new session's first records follow
        // the sync of its journal's header).
        if run % 10 == 0 {
            session = agent.new_session();
        }
        let id = agent.request("session/prompt", prompt(&session, "go"));
        let requests: Vec<Value> = (0..replies.calls)
            .map(|_| agent.until(|m| m["method"] == "session/request_permission"))
            .collect();
        let arrived = Instant::now();
        let cpu_after = main_thread_cpu_ns(pid);
        let written = sent.recv().expect("the server's report");
        from_model.push(arrived.duration_since(written.at));
        from_model_cpu.push(Duration::from_nanos(
            cpu_after.saturating_sub(written.warden_cpu_ns),
        ));
        for request in requests {
            agent.send(&json!({"jsonrpc": "2.0", "id": request["id"],
                "result": {"outcome": {"outcome": "selected", "optionId": "reject-once"}}}));
        }
        let response = agent.response(id);
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    }

    (from_model, from_model_cpu)
}

/// A bare round trip, for scale: the pipes and the SDK, no turn. Wall times, the main
/// thread's CPU times, and the mean CPU of all threads per round trip (nanoseconds).
fn bare_round_trips(
    agent: &mut Agent,
    session: &str,
    runs: usize,
) -> (Vec<Duration>, Vec<Duration>, u64) {
    let pid = agent.child.id();
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
    let mut bare_cpu = Vec::new();
    for _ in 0..runs {
        let before = main_thread_cpu_ns(pid);
        let id = agent.request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "ask"}),
        );
        agent.response(id);
        bare_cpu.push(Duration::from_nanos(
            main_thread_cpu_ns(pid).saturating_sub(before),
        ));
    }
    (
        bare,
        bare_cpu,
        (cpu_ns(pid) - cpu_before_bare) / runs as u64,
    )
}

/// Bare round trips each after Warden idled for [`think`]: Warden's main-thread CPU of
/// each. What idling alone costs the next message, whatever the message.
fn bare_after_idle(agent: &mut Agent, session: &str, runs: usize) -> Vec<Duration> {
    let pid = agent.child.id();
    (0..runs)
        .map(|_| {
            std::thread::sleep(think());
            let before = main_thread_cpu_ns(pid);
            let id = agent.request(
                "session/set_mode",
                json!({"sessionId": session, "modeId": "ask"}),
            );
            agent.response(id);
            Duration::from_nanos(main_thread_cpu_ns(pid).saturating_sub(before))
        })
        .collect()
}

fn measure(runs: usize, journal: bool) -> Targets {
    let mut agent = Agent::spawn(journal);
    let session = agent.session();

    let pid = agent.child.id();
    let (bare, bare_cpu, cpu_bare) = bare_round_trips(&mut agent, &session, runs);
    let bare_idle = bare_after_idle(&mut agent, &session, runs.div_ceil(3));

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
    let mut to_request_cpu = Vec::new();
    let mut to_start = Vec::new();
    let mut to_start_cpu = Vec::new();
    for i in 0..runs {
        let text = format!(r#"/call terminal {{"command": "touch f{i}"}}"#);
        let cpu_before = main_thread_cpu_ns(pid);
        let start = Instant::now();
        let id = agent.request("session/prompt", prompt(&session, &text));
        let request = agent.until(|m| m["method"] == "session/request_permission");
        to_request.push(start.elapsed());
        let cpu_between = main_thread_cpu_ns(pid);
        to_request_cpu.push(Duration::from_nanos(cpu_between.saturating_sub(cpu_before)));
        let answered = Instant::now();
        agent.send(&json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}}));
        agent.until(|m| m["params"]["update"]["status"] == "in_progress");
        to_start.push(answered.elapsed());
        to_start_cpu.push(Duration::from_nanos(
            main_thread_cpu_ns(pid).saturating_sub(cpu_between),
        ));
        agent.response(id);
    }

    let rate = allowed_calls_rate(&mut agent, &session, journal);
    drop(agent);

    let model = model_paths(runs, journal);
    let (one, three) = (model.one_cpu, model.three_cpu);
    let answer = median_us(to_start_cpu);
    // Without the journal, a round says what the journal costs; the targets are the
    // journaled rounds'.
    let target = if journal {
        "< 200 µs of Warden's own"
    } else {
        "- (see the journaled rounds)"
    };
    println!("| path | wall, median | Warden's main thread CPU, median | target |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| bare request round trip (for scale) | {:.0} µs | {:.0} µs | - |",
        median_us(bare),
        median_us(bare_cpu)
    );
    println!(
        "| the same after Warden idled for {} ms (for scale) | - | {:.0} µs | - |",
        think().as_millis(),
        median_us(bare_idle)
    );
    println!(
        "| the model's tool call (reply written to the socket) → its permission request read from stdout | {:.0} µs | {one:.0} µs | {target} |",
        model.one_wall,
    );
    println!(
        "| the same, the model having thought for {} ms first (Warden idle meanwhile, as with any hosted model) | {:.0} µs | {:.0} µs | - (this machine's idle cost: docs/performance.md) |",
        think().as_millis(),
        model.thought_wall,
        model.thought_cpu
    );
    println!(
        "| the model's reply with three calls → the third permission request read from stdout | - | {three:.0} µs | - |"
    );
    println!(
        "| each call after the first in one reply (the three calls' CPU less one call's, halved) | - | {:.0} µs | - |",
        (three - one) / 2.0
    );
    println!(
        "| prompt with one call (scripted model) → its permission request read from stdout | {:.0} µs | {:.0} µs | (the same, plus reading the prompt) |",
        median_us(to_request),
        median_us(to_request_cpu)
    );
    println!(
        "| permission answer → the call's `in_progress` (tool starting) | {:.0} µs | {answer:.0} µs | {target} |",
        median_us(to_start),
    );
    println!("| 1,000 allowed calls in one session | {rate:.0} calls/s | - | > 2,000 calls/s |");
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
    Targets { model: one, answer }
}
