//! The mirror seam: a second sink sees every appended record, redacted, after the disk,
//! and is flushed by `AuditLog::flush` and when the log closes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use warden_audit::{AuditEvent, AuditLog, AuditMirror, RecordBody};
use warden_verdict::{Decision, Risk};

#[derive(Debug, Default)]
struct Recording {
    bodies: Mutex<Vec<RecordBody>>,
    flushes: AtomicUsize,
    /// How many lines the log file had when each body arrived.
    lines_on_disk: Mutex<Vec<usize>>,
    path: Mutex<Option<std::path::PathBuf>>,
}

impl AuditMirror for Recording {
    fn mirror(&self, body: &RecordBody) {
        let path = self.path.lock().unwrap().clone();
        let lines = path
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map_or(0, |text| text.lines().count());
        self.lines_on_disk.lock().unwrap().push(lines);
        self.bodies.lock().unwrap().push(body.clone());
    }

    fn flush(&self) {
        self.flushes.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn the_mirror_sees_each_record_redacted_after_it_is_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let mirror = Arc::new(Recording::default());
    *mirror.path.lock().unwrap() = Some(path.clone());
    let log =
        AuditLog::open_mirrored(&path, Some(mirror.clone() as Arc<dyn AuditMirror>)).expect("open");
    log.record(
        AuditEvent::evaluation(
            "s1",
            "call-1",
            "terminal",
            json!({"command": "curl -H 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwx'"}),
        )
        .with_risk(Risk::High)
        .with_decision(Decision::Ask),
    );
    log.flush().expect("flush");
    assert_eq!(
        mirror.flushes.load(Ordering::SeqCst),
        1,
        "flush reaches the mirror"
    );
    let bodies = mirror.bodies.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0].tool_call_id.as_deref(), Some("call-1"));
    let args = bodies[0].args.as_ref().expect("the digest");
    assert!(!args.preview.contains("sk-abcdefghij"), "{}", args.preview);
    assert!(
        mirror.lines_on_disk.lock().unwrap()[0] >= 1,
        "the line was written before the mirror saw it"
    );
    drop(log);
    assert_eq!(
        mirror.flushes.load(Ordering::SeqCst),
        2,
        "closing the log flushes the mirror"
    );
}
