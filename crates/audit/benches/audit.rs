//! Benchmarks of the audit log: what `record()` costs the turn that calls it, and
//! how many records a second the writer thread gets to disk.
//!
//! Run: `cargo bench -p warden-audit --bench audit`.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use warden_audit::{AuditEvent, AuditLog, args_digest};
use warden_verdict::{Decision, Risk};

/// A typical evaluation: a shell command with a secret to redact, a rule that decided.
fn event(i: u64) -> AuditEvent {
    AuditEvent::evaluation(
        "sess-0123456789",
        format!("call-{i}"),
        "terminal",
        json!({
            "command": "curl -H 'Authorization: Bearer abcdef0123456789' https://api.example.com/v1/items | jq .",
            "cwd": "/home/user/project",
            "timeout_secs": 30
        }),
    )
    .with_risk(Risk::High)
    .with_decision(Decision::Ask)
    .with_decided_by(json!({"rule": {"id": "terminal-ask", "file": "/home/user/.config/warden/policy.toml"}}))
    .with_latency(Duration::from_micros(3))
}

/// The caller's side: queueing one event (built beforehand, as the session layer
/// builds it anyway). Batches stay below the queue's capacity, and the queue is
/// drained between batches without timing it, so this is the cost of a successful
/// hand-off, not of a drop.
fn record(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = AuditLog::open(dir.path().join("audit.jsonl")).expect("open");
    let batch = (AuditLog::QUEUE_CAPACITY / 2) as u64;
    c.bench_function("audit/record (caller side)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let n = batch.min(iters - done);
                let events: Vec<AuditEvent> = (0..n).map(event).collect();
                let start = Instant::now();
                for e in events {
                    log.record(black_box(e));
                }
                total += start.elapsed();
                log.flush().expect("flush");
                done += n;
            }
            total
        });
    });
    assert_eq!(
        log.dropped(),
        0,
        "the benchmark measured drops, not hand-offs"
    );
}

/// The hand-off alone: the writer is held at the file lock, so it takes nothing off
/// the queue and needs no waking while the batch is timed. The difference to
/// `record (caller side)` is the cost of waking and sharing the queue with a busy
/// writer.
fn record_writer_stalled(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path).expect("open");
    let holder = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    // Below the queue's capacity even when the writer took a whole batch first.
    let batch = (AuditLog::QUEUE_CAPACITY / 2) as u64;
    c.bench_function("audit/record (writer stalled)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let n = batch.min(iters - done);
                let events: Vec<AuditEvent> = (0..n).map(event).collect();
                fs4::FileExt::lock(&holder).expect("lock");
                let start = Instant::now();
                for e in events {
                    log.record(black_box(e));
                }
                total += start.elapsed();
                fs4::FileExt::unlock(&holder).expect("unlock");
                log.flush().expect("flush");
                done += n;
            }
            total
        });
    });
    assert_eq!(
        log.dropped(),
        0,
        "the benchmark measured drops, not hand-offs"
    );
}

/// The writer's side: record 2,000 events and wait until they are on disk (redaction,
/// digest, hash chain, locked append, one fsync at the end).
fn writer_throughput(c: &mut Criterion) {
    const N: u64 = 2_000;
    let dir = tempfile::tempdir().expect("tempdir");
    let log = AuditLog::open(dir.path().join("audit.jsonl")).expect("open");
    let mut group = c.benchmark_group("audit/writer");
    group.throughput(Throughput::Elements(N));
    group.sample_size(20);
    group.bench_function("2000 records to disk", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let events: Vec<AuditEvent> = (0..N).map(event).collect();
                let start = Instant::now();
                for e in events {
                    log.record(e);
                }
                log.flush().expect("flush");
                total += start.elapsed();
            }
            total
        });
    });
    group.finish();
    assert_eq!(log.dropped(), 0);
}

/// The part of the writer's work per record that is redaction and digest.
fn digest(c: &mut Criterion) {
    let args = event(0).args.expect("args");
    c.bench_function(
        "audit/args_digest (redact + canonical JSON + SHA-256)",
        |b| {
            b.iter(|| args_digest(black_box(&args)));
        },
    );
}

criterion_group!(
    benches,
    record,
    record_writer_stalled,
    writer_throughput,
    digest
);
criterion_main!(benches);
