//! Audit records exported over OTLP (docs/telemetry.md) through the real binary: an ACP
//! session and `warden hook`, against a receiver started by the test, and against a
//! collector that is down, which must change nothing the user sees.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use warden_telemetry::{OtlpReceiver, ReceivedSpan, attr};

use super::support::{Answer, Client, Spawn};

/// Only a bound on waiting for spans that arrive far sooner; nothing asserts on time.
const WAIT: Duration = Duration::from_secs(20);
const CONTENT: &str = "telemetry-must-not-carry-this";

/// An endpoint on a port nobody listens on.
fn dead_endpoint() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    format!("http://127.0.0.1:{port}")
}

fn get<'a>(span: &'a ReceivedSpan, name: &str) -> &'a str {
    span.attributes
        .get(name)
        .map_or("<missing>", String::as_str)
}

/// Runs one asked `fs_write` in a session with `endpoint` as the OTLP endpoint, allows
/// it, and checks that the call ran and the agent exited cleanly. Every line on stdout
/// is checked by the harness as an ACP message.
fn asked_write(endpoint: &str) -> Client {
    let mut client =
        Client::spawn_with(&Spawn::default().env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint));
    let session = client.ready_session();
    client.on_request(|_| {
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}}))
    });
    let call = json!({"path": "notes.txt", "content": CONTENT});
    let result = client.prompt(&session, &format!("/call fs_write {call}"));
    assert_eq!(result["stopReason"], "end_turn");
    assert_eq!(
        client.agent_requests("session/request_permission").len(),
        1,
        "the write was asked"
    );
    let written = std::fs::read_to_string(client.process().project().join("notes.txt"));
    assert_eq!(written.ok().as_deref(), Some(CONTENT), "and it ran");
    let status = client.finish();
    assert!(
        status.success(),
        "{status:?}: {}",
        client.process().stderr()
    );
    client
}

#[test]
fn a_session_with_a_dead_collector_still_asks_and_runs_its_call() {
    let client = asked_write(&dead_endpoint());
    // The local log is the record of truth and has the whole call.
    let log = std::fs::read_to_string(client.process().home().join("audit.jsonl"))
        .expect("the audit log");
    let kinds: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json")["kind"].clone())
        .collect();
    assert_eq!(kinds, [json!("evaluation"), json!("outcome")], "{log}");
}

#[test]
fn a_sessions_call_reaches_the_collector_as_an_execute_tool_span() {
    let receiver = OtlpReceiver::start().expect("receiver");
    let _client = asked_write(&receiver.endpoint());
    let spans = receiver.spans(1, WAIT);
    let span = spans
        .iter()
        .find(|s| s.name == "execute_tool fs_write")
        .unwrap_or_else(|| panic!("no fs_write span in {spans:?}"));
    assert_eq!(get(span, attr::OPERATION), "execute_tool");
    assert_eq!(get(span, attr::VERDICT), "ask");
    assert_eq!(get(span, attr::RISK), "medium");
    // The built-in policy's rule for writes asks; the span names it.
    assert_eq!(get(span, attr::DECIDED_BY), "rule");
    assert_ne!(get(span, attr::RULE_ID), "<missing>", "{span:?}");
    assert_eq!(get(span, attr::ACTION), "allow");
    assert_eq!(get(span, attr::ANSWERED_BY), "editor");
    assert_eq!(get(span, attr::ARGS_HASH).len(), 64, "{span:?}");
    for body in receiver.bodies() {
        assert!(!String::from_utf8_lossy(&body).contains(CONTENT));
    }
}

/// `warden hook --for claude` with WARDEN_HOME in `home` and no `OTEL_*` variable but
/// `otel` (the test's own environment may have some).
fn hook(home: &Path, project: &Path, otel: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .args(["hook", "--for", "claude"])
        .current_dir(project)
        .env("WARDEN_HOME", home)
        .env("WARDEN_MANAGED_POLICY", home.join("managed.toml"))
        .env_remove("RUST_LOG")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_SDK_DISABLED")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(endpoint) = otel {
        command.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
    }
    let mut child = command.spawn().expect("run warden hook");
    let payload = json!({
        "session_id": "s-1", "cwd": project, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": format!("curl https://example.com/{CONTENT}")},
        "tool_use_id": "toolu_7",
    });
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(payload.to_string().as_bytes())
        .expect("payload");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    out
}

fn dirs() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    let home = root.join("home");
    let project = root.join("project");
    std::fs::create_dir_all(&home).expect("mkdir");
    std::fs::create_dir_all(&project).expect("mkdir");
    (dir, home, project)
}

#[test]
fn warden_hook_exports_to_the_endpoint_in_config_toml() {
    let receiver = OtlpReceiver::start().expect("receiver");
    let (_dir, home, project) = dirs();
    let config = format!("[telemetry]\notlp_endpoint = \"{}\"\n", receiver.endpoint());
    std::fs::write(home.join("config.toml"), config).expect("config");
    hook(&home, &project, None);
    let spans = receiver.spans(1, WAIT);
    let span = spans
        .iter()
        .find(|s| get(s, attr::TOOL_CALL_ID) == "toolu_7")
        .unwrap_or_else(|| panic!("no span for the hook's call in {spans:?}"));
    assert_eq!(span.name, "execute_tool terminal");
    assert_eq!(get(span, attr::CLIENT), "claude-code");
    assert_eq!(get(span, attr::VERDICT), "ask");
    assert_eq!(
        get(span, attr::ANSWERED_BY),
        "claude-code",
        "the agent asks its user"
    );
    for body in receiver.bodies() {
        assert!(!String::from_utf8_lossy(&body).contains(CONTENT));
    }
}

#[test]
fn warden_hook_answers_the_same_with_a_dead_collector() {
    let (_dir, home, project) = dirs();
    let without = hook(&home, &project, None);
    let with_dead = hook(&home, &project, Some(&dead_endpoint()));
    assert!(!without.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&with_dead.stdout),
        String::from_utf8_lossy(&without.stdout)
    );
}
