//! The audit log's hash chain: appending, and what `verify` finds after tampering.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use warden_audit::{
    AuditEvent, AuditLog, AuditRecord, GENESIS, Outcome, ProblemKind, line_hash, tail, verify,
};
use warden_verdict::{Decision, Risk};

fn log_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("state").join("audit.jsonl")
}

fn event(i: usize) -> AuditEvent {
    AuditEvent::evaluation(
        "s1",
        format!("call-{i}"),
        "terminal",
        json!({"command": format!("echo {i}")}),
    )
    .with_risk(Risk::Low)
    .with_decision(Decision::Allow)
    .with_decided_by(json!({"mode": "ask"}))
    .with_latency(std::time::Duration::from_micros(7))
}

/// Appends `n` evaluations through a fresh log and waits for them.
fn append(path: &Path, n: usize) {
    let log = AuditLog::open(path).expect("open");
    for i in 0..n {
        log.record(event(i));
    }
    log.flush().expect("flush");
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    fs::write(path, lines.join("\n") + "\n").expect("write");
}

/// The first problem's line and a short name for its kind.
fn first_break(path: &Path) -> Option<(u64, &'static str)> {
    let report = verify(path).expect("verify");
    report.first_break().map(|p| {
        let kind = match p.kind {
            ProblemKind::Torn => "torn",
            ProblemKind::BadJson { .. } => "bad json",
            ProblemKind::PrevMismatch { .. } => "prev",
            ProblemKind::SeqGap { .. } => "seq",
        };
        (p.line, kind)
    })
}

#[test]
fn appended_lines_chain_and_verify() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 10);
    append(&path, 5);
    let report = verify(&path).expect("verify");
    assert!(report.is_intact(), "{report}");
    assert_eq!(report.lines, 15);
    assert_eq!(report.last_seq, 15);
    let all = lines(&path);
    assert_eq!(report.head, line_hash(all[14].as_bytes()));
    let first: AuditRecord = serde_json::from_str(&all[0]).expect("record");
    assert_eq!(first.seq, 1);
    assert_eq!(first.prev, GENESIS);
    let second: AuditRecord = serde_json::from_str(&all[1]).expect("record");
    assert_eq!(second.prev, line_hash(all[0].as_bytes()));
}

#[test]
fn a_line_has_every_field_and_no_secret() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    let log = AuditLog::open(&path).expect("open");
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_micros(1_795_379_715_123_456);
    log.record(
        AuditEvent::evaluation(
            "sess-1",
            "call-1",
            "terminal",
            json!({"command": "curl -H 'Authorization: Bearer abcdefgh12345' https://x.io"}),
        )
        .with_time(at)
        .with_risk(Risk::High)
        .with_decision(Decision::Ask)
        .with_decided_by(json!({"rule": {"id": "terminal-ask", "file": "/etc/warden/policy.toml"}}))
        .with_latency(std::time::Duration::from_micros(42)),
    );
    log.record(
        AuditEvent::outcome(
            "sess-1",
            "call-1",
            "terminal",
            Outcome::Denied {
                option_id: "reject-once".into(),
                grant_id: None,
                note: Some("do not send my token=abc123 anywhere".into()),
            },
        )
        .with_time(at)
        .with_decision(Decision::Deny)
        .with_latency(std::time::Duration::from_millis(1500)),
    );
    log.flush().expect("flush");
    let all = lines(&path);
    let rest: Vec<&str> = all
        .iter()
        .map(|l| &l[l.find(",\"time\"").expect("time")..])
        .collect();
    expect_test::expect![[r#"
        [
            ",\"time\":\"2026-11-22T20:35:15.123456Z\",\"kind\":\"evaluation\",\"session_id\":\"sess-1\",\"tool_call_id\":\"call-1\",\"tool\":\"terminal\",\"args\":{\"sha256\":\"500fb8ddeabb41c8341b7fcc692427166ea6bbbfaa4dcfb416c549e71f56e9f6\",\"len\":62,\"preview\":\"{\\\"command\\\":\\\"curl -H 'Authorization: [REDACTED]' https://x.io\\\"}\"},\"risk\":\"high\",\"decision\":\"ask\",\"decided_by\":{\"rule\":{\"file\":\"/etc/warden/policy.toml\",\"id\":\"terminal-ask\"}},\"latency_us\":42}",
            ",\"time\":\"2026-11-22T20:35:15.123456Z\",\"kind\":\"outcome\",\"session_id\":\"sess-1\",\"tool_call_id\":\"call-1\",\"tool\":\"terminal\",\"decision\":\"deny\",\"outcome\":{\"type\":\"denied\",\"option_id\":\"reject-once\",\"note\":\"do not send my token=[REDACTED] anywhere\"},\"latency_us\":1500000}",
        ]
    "#]]
    .assert_debug_eq(&rest);
    assert!(
        !fs::read_to_string(&path)
            .expect("read")
            .contains("abcdefgh12345")
    );
}

#[cfg(unix)]
#[test]
fn the_log_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, "").expect("write");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).expect("chmod");
    append(&path, 1);
    let mode = fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn missing_and_empty_logs_verify_with_no_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    let report = verify(&path).expect("verify missing");
    assert!(report.is_intact());
    assert_eq!((report.lines, report.head.as_str()), (0, GENESIS));
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(&path, "").expect("write");
    let report = verify(&path).expect("verify empty");
    assert!(report.is_intact());
    assert_eq!(report.lines, 0);
}

#[test]
fn an_edited_line_breaks_the_link_after_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 5);
    let mut all = lines(&path);
    all[2] = all[2].replace("\"allow\"", "\"deny\"");
    write_lines(&path, &all);
    assert_eq!(first_break(&path), Some((4, "prev")));
    let report = verify(&path).expect("verify");
    assert_eq!(report.problems.len(), 1, "{report}");
    expect_test::expect![[r#"
        line 4 does not follow line 3: its prev is not the hash of line 3 (line 3 was edited, or lines were inserted, deleted or moved here)"#]]
    .assert_eq(&report.problems[0].to_string());
}

#[test]
fn an_edited_line_that_is_no_longer_json_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 5);
    let mut all = lines(&path);
    all[1].truncate(20);
    write_lines(&path, &all);
    assert_eq!(first_break(&path), Some((2, "bad json")));
}

#[test]
fn a_deleted_middle_line_is_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 5);
    let mut all = lines(&path);
    all.remove(2);
    write_lines(&path, &all);
    let report = verify(&path).expect("verify");
    let found: Vec<(u64, bool)> = report
        .problems
        .iter()
        .map(|p| {
            (
                p.line,
                matches!(
                    p.kind,
                    ProblemKind::SeqGap {
                        expected: 3,
                        found: 4
                    }
                ),
            )
        })
        .collect();
    assert_eq!(found, vec![(3, false), (3, true)], "{report}");
}

#[test]
fn a_deleted_first_line_is_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 3);
    let mut all = lines(&path);
    all.remove(0);
    write_lines(&path, &all);
    assert_eq!(first_break(&path), Some((1, "prev")));
}

#[test]
fn reordered_lines_are_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 5);
    let mut all = lines(&path);
    all.swap(1, 2);
    write_lines(&path, &all);
    assert_eq!(first_break(&path), Some((2, "prev")));
}

#[test]
fn an_inserted_line_is_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 4);
    let mut all = lines(&path);
    let copy = all[1].clone();
    all.insert(2, copy);
    write_lines(&path, &all);
    assert_eq!(first_break(&path), Some((3, "prev")));
}

#[test]
fn a_deleted_last_line_cannot_be_found_by_the_chain_alone() {
    // Documented limit: only a copy of the head hash kept elsewhere shows it.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 3);
    let head_before = verify(&path).expect("verify").head;
    let mut all = lines(&path);
    all.pop();
    write_lines(&path, &all);
    let report = verify(&path).expect("verify");
    assert!(report.is_intact());
    assert_ne!(report.head, head_before);
}

#[test]
fn torn_last_line_is_appendable_and_pinpointed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    append(&path, 3);
    let text = fs::read_to_string(&path).expect("read");
    // A crash in the middle of writing the fourth line.
    fs::write(&path, format!("{text}{{\"seq\":4,\"prev\":\"ab")).expect("write");
    assert_eq!(first_break(&path), Some((4, "torn")));
    append(&path, 2);
    let all = lines(&path);
    assert_eq!(all.len(), 6);
    assert_eq!(all[3], "{\"seq\":4,\"prev\":\"ab");
    let report = verify(&path).expect("verify");
    assert_eq!(report.problems.len(), 1, "{report}");
    assert_eq!(report.problems[0].line, 4);
    assert!(matches!(
        report.problems[0].kind,
        ProblemKind::BadJson { .. }
    ));
    // The writer numbered its lines after the last readable one.
    let fifth: AuditRecord = serde_json::from_str(&all[4]).expect("record");
    assert_eq!(
        (fifth.seq, fifth.prev.as_str()),
        (4, line_hash(all[3].as_bytes()).as_str())
    );
}

#[test]
fn two_logs_on_one_file_interleave_into_one_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    let a = Arc::new(AuditLog::open(&path).expect("open a"));
    let b = Arc::new(AuditLog::open(&path).expect("open b"));
    let threads: Vec<_> = [a, b]
        .into_iter()
        .enumerate()
        .map(|(t, log)| {
            std::thread::spawn(move || {
                for i in 0..500 {
                    log.record(event(t * 1000 + i));
                    if i % 50 == 0 {
                        // Interleave the two writers' batches.
                        std::thread::yield_now();
                    }
                }
                log.flush().expect("flush");
                assert_eq!(log.dropped(), 0);
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("join");
    }
    let report = verify(&path).expect("verify");
    assert!(report.is_intact(), "{report}");
    assert_eq!(report.lines, 1000);
    let mut ids: Vec<String> = lines(&path)
        .iter()
        .map(|l| {
            let r: AuditRecord = serde_json::from_str(l).expect("record");
            r.body.tool_call_id.expect("id")
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 1000, "every record is there once");
}

#[test]
fn a_full_queue_drops_and_leaves_a_marker() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    let log = AuditLog::open_with_capacity(&path, 4).expect("open");
    // Hold the file lock, so the writer stalls after taking one batch off the queue.
    let holder = fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    fs4::FileExt::lock(&holder).expect("lock");
    let sent = warden_audit::MAX_BATCH + 4 + 100;
    for i in 0..sent {
        log.record(event(i));
    }
    let dropped = log.dropped();
    assert!(dropped >= 100, "dropped {dropped}");
    fs4::FileExt::unlock(&holder).expect("unlock");
    log.flush().expect("flush");
    let report = verify(&path).expect("verify");
    assert!(report.is_intact(), "{report}");
    assert_eq!(report.dropped, dropped);
    let markers = tail(&path, usize::MAX)
        .expect("tail")
        .iter()
        .filter(|l| l.record.as_ref().is_some_and(|r| r.body.dropped.is_some()))
        .count();
    // Drops that happen while the writer is between taking its batch and writing it
    // go into a second marker; together the markers count every lost record.
    assert!(markers >= 1, "no dropped marker");
    assert_eq!(report.lines, sent as u64 - dropped + markers as u64);
}

#[test]
fn a_deleted_log_is_started_again_not_written_into_the_void() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    let log = AuditLog::open(&path).expect("open");
    log.record(event(1));
    log.flush().expect("flush");
    fs::remove_file(&path).expect("rm");
    log.record(event(2));
    log.record(event(3));
    log.flush().expect("flush");
    let report = verify(&path).expect("verify");
    assert!(report.is_intact(), "{report}");
    assert_eq!((report.lines, report.last_seq), (2, 2));
}

#[test]
fn tail_returns_the_last_lines_oldest_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    assert!(tail(&path, 5).expect("tail missing").is_empty());
    append(&path, 10);
    let last = tail(&path, 3).expect("tail");
    let seqs: Vec<u64> = last
        .iter()
        .map(|l| l.record.as_ref().expect("record").seq)
        .collect();
    assert_eq!(seqs, vec![8, 9, 10]);
    assert_eq!(tail(&path, 100).expect("tail").len(), 10);
}

#[test]
fn dropping_the_log_writes_everything_queued() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = log_path(&dir);
    {
        let log = AuditLog::open(&path).expect("open");
        for i in 0..200 {
            log.record(event(i));
        }
    }
    assert_eq!(verify(&path).expect("verify").lines, 200);
}
