//! `warden audit tail` and `warden audit verify`, end to end through the binary.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::json;
use warden_audit::{AuditEvent, AuditLog, Outcome};
use warden_permissions::{Decision, Risk};

fn warden(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .env("WARDEN_HOME", home)
        .env_remove("XDG_STATE_HOME")
        .output()
        .expect("run warden")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// Writes an evaluation, its outcome and a second evaluation to `path`.
fn write_log(path: &Path) {
    let at = UNIX_EPOCH + Duration::from_micros(1_795_379_715_000_000);
    let log = AuditLog::open(path).expect("open");
    log.record(
        AuditEvent::evaluation(
            "sess-1",
            "c1",
            "terminal",
            json!({"command": "npm install --token s3cr3t"}),
        )
        .with_time(at)
        .with_risk(Risk::High)
        .with_decision(Decision::Ask)
        .with_decided_by(json!({"rule": {"id": "terminal-ask", "file": "defaults"}})),
    );
    log.record(
        AuditEvent::outcome(
            "sess-1",
            "c1",
            "terminal",
            Outcome::Granted {
                option_id: "allow-once".into(),
                grant_id: None,
                note: None,
            },
        )
        .with_time(at + Duration::from_secs(2))
        .with_decision(Decision::Allow)
        .with_decided_by(json!({"answered_by": "warden pending"})),
    );
    log.record(
        AuditEvent::evaluation("sess-1", "c2", "fs_read", json!({"path": "README.md"}))
            .with_time(at + Duration::from_secs(3))
            .with_risk(Risk::Low)
            .with_decision(Decision::Allow)
            .with_decided_by(json!({"mode": "ask"})),
    );
    log.flush().expect("flush");
}

#[test]
fn tail_prints_readable_lines_and_raw_json() {
    let home = tempfile::tempdir().expect("tempdir");
    let empty = warden(home.path(), &["audit", "tail"]);
    assert!(empty.status.success());
    assert_eq!(stdout(&empty), "");

    let path = home.path().join("audit.jsonl");
    write_log(&path);
    let out = warden(home.path(), &["audit", "tail"]);
    assert!(out.status.success(), "{out:?}");
    expect_test::expect![[r#"
        2026-11-22T20:35:15.000000Z  sess-1  terminal  high  ask  rule.file=defaults rule.id=terminal-ask  {"command":"npm install --token [REDACTED]"}
        2026-11-22T20:35:17.000000Z  sess-1  terminal  -  allow  user granted allow-once (answered by warden pending)
        2026-11-22T20:35:18.000000Z  sess-1  fs_read  low  allow  mode=ask  {"path":"README.md"}
    "#]]
    .assert_eq(&stdout(&out));
    // The command is shown, its secret is not.
    assert!(stdout(&out).contains("npm install"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("s3cr3t"), "{}", stdout(&out));

    let raw = warden(home.path(), &["audit", "tail", "-n", "2", "--json"]);
    assert!(raw.status.success());
    let file = fs::read_to_string(&path).expect("read");
    let last_two: Vec<&str> = file.lines().skip(1).collect();
    assert_eq!(stdout(&raw), format!("{}\n", last_two.join("\n")));
    assert!(!file.contains("s3cr3t"), "the token is redacted");
}

#[test]
fn verify_exits_zero_when_intact_and_one_naming_the_line_when_broken() {
    let home = tempfile::tempdir().expect("tempdir");
    let path = home.path().join("audit.jsonl");
    let missing = warden(home.path(), &["audit", "verify"]);
    assert_eq!(missing.status.code(), Some(0));
    assert!(stdout(&missing).contains(": 0 lines, chain intact"));

    write_log(&path);
    let ok = warden(home.path(), &["audit", "verify"]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    assert!(stdout(&ok).contains(": 3 lines, chain intact; last seq 3, head "));

    let text = fs::read_to_string(&path).expect("read");
    fs::write(
        &path,
        text.replacen("\"allow-once\"", "\"allow-session\"", 1),
    )
    .expect("write");
    let broken = warden(home.path(), &["audit", "verify"]);
    assert_eq!(broken.status.code(), Some(1), "{broken:?}");
    let report = stdout(&broken);
    let report = &report[report.find(": 3 lines").expect("summary")..];
    expect_test::expect![[r#"
        : 3 lines, chain BROKEN: line 3 does not follow line 2: its prev is not the hash of line 2 (line 2 was edited, or lines were inserted, deleted or moved here)
    "#]]
    .assert_eq(report);
}

#[test]
fn file_points_at_another_log() {
    let home = tempfile::tempdir().expect("tempdir");
    let other = home.path().join("elsewhere.jsonl");
    write_log(&other);
    let tail = warden(
        home.path(),
        &[
            "audit",
            "tail",
            "-n",
            "1",
            "--file",
            other.to_str().expect("utf-8"),
        ],
    );
    assert!(stdout(&tail).contains("fs_read"), "{tail:?}");
    let default = warden(home.path(), &["audit", "tail"]);
    assert_eq!(stdout(&default), "");
}

#[test]
fn an_unreadable_log_is_an_error_not_a_verdict() {
    let home = tempfile::tempdir().expect("tempdir");
    // A folder where the log should be: it cannot be read as a file.
    let out = warden(
        home.path(),
        &[
            "audit",
            "verify",
            "--file",
            home.path().to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(stdout(&out), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot read the audit log"), "{stderr}");
}

/// What broke: `warden grants revoke` left no line in the audit log, so the log could
/// not say when a decision stopped holding. The line names the grant, what it covered
/// (the redirect target of an exact command too) and who revoked it; the chain stays
/// intact.
#[test]
fn regression_a_revocation_leaves_an_audit_line_that_tail_shows() {
    let home = tempfile::tempdir().expect("tempdir");
    let out_txt = home.path().join("out.txt");
    let grant = json!({"grant": {
        "id": "g-00000000000000aa",
        "created_at": "2026-11-22T20:00:00Z",
        "client": "zed",
        "effect": "allow",
        "scope": "user",
        "matchers": [{"exact": {"argv": ["echo", "hi"], "paths": [out_txt]}}],
        "max_risk": "medium",
    }});
    fs::write(home.path().join("grants.jsonl"), format!("{grant}\n")).expect("write");
    let listed = warden(home.path(), &["grants", "list"]);
    let what = format!("exactly `echo hi` writing {}", out_txt.display());
    assert!(stdout(&listed).contains(&what), "{listed:?}");

    let revoked = warden(home.path(), &["grants", "revoke", "g-00000000000000aa"]);
    assert_eq!(revoked.status.code(), Some(0), "{revoked:?}");
    let tail = warden(home.path(), &["audit", "tail"]);
    let text = stdout(&tail);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].contains("REVOKED"), "{text}");
    assert!(
        lines[0].ends_with(&format!(
            "revoked grant g-00000000000000aa (allow {what}, user) by warden grants revoke"
        )),
        "{text}"
    );
    let raw = warden(home.path(), &["audit", "tail", "--json"]);
    let record: serde_json::Value = serde_json::from_str(stdout(&raw).trim()).expect("json");
    assert_eq!(record["kind"], "revocation", "{record}");
    assert_eq!(record["decided_by"]["grant_id"], "g-00000000000000aa");
    assert!(warden(home.path(), &["audit", "verify"]).status.success());

    // An id no grant has is refused and leaves no line.
    let unknown = warden(home.path(), &["grants", "revoke", "g-nosuch"]);
    assert_eq!(unknown.status.code(), Some(1), "{unknown:?}");
    let tail = warden(home.path(), &["audit", "tail"]);
    assert_eq!(stdout(&tail).lines().count(), 1, "{}", stdout(&tail));
}
