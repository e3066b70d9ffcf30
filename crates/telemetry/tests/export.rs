//! The audit log's records, exported to a real OTLP/HTTP receiver started by the test:
//! one `execute_tool` span per call, with the verdict, the risk, what decided, who
//! answered and the keyed hash of the arguments, and never the arguments.

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use warden_audit::{AuditEvent, AuditLog, Outcome, verify};
use warden_telemetry::{ArgsKey, KEY_FILE, OtlpReceiver, ReceivedSpan, attr, open_audit_log};
use warden_verdict::{Decision, Risk};

const SECRET_ARGS: &str = "echo nobody-should-see-this-7f3a";
/// Generous: only a bound on waiting for spans that should arrive far sooner.
const WAIT: Duration = Duration::from_secs(20);

fn no_env(_: &str) -> Option<String> {
    None
}

fn open(path: &Path, endpoint: &str) -> AuditLog {
    open_audit_log(path, Some(endpoint), &no_env).expect("audit log opens")
}

fn asked_and_granted(log: &AuditLog) {
    log.record(
        AuditEvent::evaluation(
            "s1",
            "call-1",
            "terminal",
            json!({ "command": SECRET_ARGS }),
        )
        .with_risk(Risk::High)
        .with_decision(Decision::Ask)
        .with_decided_by(json!({ "kind": "mode", "mode": "default" })),
    );
    log.record(
        AuditEvent::outcome(
            "s1",
            "call-1",
            "terminal",
            Outcome::Granted {
                option_id: "allow-once".into(),
                grant_id: None,
                note: Some(SECRET_ARGS.into()),
            },
        )
        .with_args(json!({ "command": SECRET_ARGS }))
        .with_decision(Decision::Allow)
        .with_decided_by(json!({ "answered_by": "editor" })),
    );
}

fn span<'a>(spans: &'a [ReceivedSpan], call_id: &str) -> &'a ReceivedSpan {
    spans
        .iter()
        .find(|s| s.attributes.get(attr::TOOL_CALL_ID).map(String::as_str) == Some(call_id))
        .unwrap_or_else(|| panic!("no span for {call_id} in {spans:?}"))
}

fn get<'a>(span: &'a ReceivedSpan, name: &str) -> &'a str {
    span.attributes
        .get(name)
        .map_or("<missing>", String::as_str)
}

#[test]
fn an_asked_call_arrives_as_one_execute_tool_span_with_its_verdict_and_answer() {
    let receiver = OtlpReceiver::start().expect("receiver");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let log = open(&path, &receiver.endpoint());
    asked_and_granted(&log);
    drop(log);

    let spans = receiver.spans(1, WAIT);
    assert_eq!(spans.len(), 1, "one span per call: {spans:?}");
    let span = span(&spans, "call-1");
    assert_eq!(span.name, "execute_tool terminal");
    assert_eq!(get(span, attr::OPERATION), "execute_tool");
    assert_eq!(get(span, attr::TOOL_NAME), "terminal");
    assert_eq!(get(span, attr::CONVERSATION_ID), "s1");
    assert_eq!(get(span, attr::VERDICT), "ask");
    assert_eq!(get(span, attr::RISK), "high");
    assert_eq!(get(span, attr::DECIDED_BY), "mode");
    assert_eq!(get(span, attr::MODE), "default");
    assert_eq!(get(span, attr::ACTION), "allow");
    assert_eq!(get(span, attr::OUTCOME), "granted");
    assert_eq!(get(span, attr::ANSWERED_BY), "editor");
    assert_eq!(get(span, attr::CLIENT), "acp");

    // The hash is the installation key's HMAC of the log line's own digest.
    let key_hex = std::fs::read_to_string(dir.path().join(KEY_FILE)).expect("key file");
    let key: [u8; 32] = hex::decode(key_hex.trim())
        .expect("hex")
        .try_into()
        .expect("32 bytes");
    let report = verify(&path).expect("verify");
    assert!(report.problems.is_empty(), "{report:?}");
    let line = std::fs::read_to_string(&path).expect("log");
    let first: serde_json::Value =
        serde_json::from_str(line.lines().next().expect("a line")).expect("json");
    let digest = first["args"]["sha256"].as_str().expect("digest");
    assert_eq!(
        get(span, attr::ARGS_HASH),
        ArgsKey::from_bytes(key).hash(digest)
    );
    assert_ne!(
        get(span, attr::ARGS_HASH),
        digest,
        "keyed, not the plain digest"
    );
}

#[test]
fn the_arguments_and_notes_never_reach_the_collector() {
    let receiver = OtlpReceiver::start().expect("receiver");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = open(&dir.path().join("audit.jsonl"), &receiver.endpoint());
    asked_and_granted(&log);
    drop(log);

    assert_eq!(receiver.spans(1, WAIT).len(), 1);
    let bodies = receiver.bodies();
    assert!(!bodies.is_empty());
    for body in bodies {
        let text = String::from_utf8_lossy(&body);
        assert!(!text.contains("nobody-should-see-this"), "{text}");
        assert!(!text.contains("echo"), "{text}");
    }
}

#[test]
fn a_rule_denial_names_the_rule_and_the_policy_as_who_answered() {
    let receiver = OtlpReceiver::start().expect("receiver");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = open(&dir.path().join("audit.jsonl"), &receiver.endpoint());
    log.record(
        AuditEvent::evaluation("s2", "call-9", "fs_delete", json!({ "path": "/etc" }))
            .with_risk(Risk::Critical)
            .with_decision(Decision::Deny)
            .with_decided_by(
                json!({ "kind": "rule", "id": "no-etc", "file": "policy.toml", "layer": "user" }),
            ),
    );
    log.record(
        AuditEvent::outcome(
            "s2",
            "call-9",
            "fs_delete",
            Outcome::Auto {
                decision: Decision::Deny,
            },
        )
        .with_decision(Decision::Deny),
    );
    drop(log);

    let spans = receiver.spans(1, WAIT);
    let span = span(&spans, "call-9");
    assert_eq!(get(span, attr::VERDICT), "deny");
    assert_eq!(get(span, attr::ACTION), "deny");
    assert_eq!(get(span, attr::RISK), "critical");
    assert_eq!(get(span, attr::DECIDED_BY), "rule");
    assert_eq!(get(span, attr::RULE_ID), "no-etc");
    assert_eq!(get(span, attr::ANSWERED_BY), "policy");
}

#[test]
fn a_hook_call_the_agent_asks_about_is_sent_at_close_with_the_agent_as_client() {
    let receiver = OtlpReceiver::start().expect("receiver");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = open(&dir.path().join("audit.jsonl"), &receiver.endpoint());
    log.record(
        AuditEvent::evaluation("sess", "toolu_1", "terminal", json!({ "command": "make" }))
            .with_risk(Risk::Medium)
            .with_decision(Decision::Ask)
            .with_decided_by(json!({
                "decided_by": { "kind": "mode", "mode": "default" },
                "agent_tool": "Bash",
            }))
            .with_client("claude-code"),
    );
    drop(log);

    let spans = receiver.spans(1, WAIT);
    let span = span(&spans, "toolu_1");
    assert_eq!(get(span, attr::CLIENT), "claude-code");
    assert_eq!(get(span, attr::ANSWERED_BY), "claude-code");
    assert_eq!(get(span, attr::ACTION), "ask");
    assert_eq!(get(span, attr::DECIDED_BY), "mode");
}

#[test]
fn a_dead_collector_leaves_the_local_log_whole() {
    // A port that was free a moment ago and has nobody listening now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let log = open(&path, &format!("http://127.0.0.1:{port}"));
    asked_and_granted(&log);
    log.flush()
        .expect("the log flushes although the collector is down");
    drop(log);

    let report = verify(&path).expect("verify");
    assert!(report.problems.is_empty(), "{report:?}");
    let lines = std::fs::read_to_string(&path).expect("log");
    assert_eq!(lines.lines().count(), 2, "{lines}");
}

#[test]
fn nothing_starts_without_an_endpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = open_audit_log(&dir.path().join("audit.jsonl"), None, &no_env).expect("opens");
    asked_and_granted(&log);
    drop(log);
    assert!(
        !dir.path().join(KEY_FILE).exists(),
        "no key is made when telemetry is off"
    );
}
