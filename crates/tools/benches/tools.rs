//! Warden's own cost per tool call: validating the model's arguments, the title and the
//! locations (done for every call before the `tool_call` notification), and running the cheapest
//! tools locally (a small fs_read, `true` in a local shell), and redacting Warden's own
//! secrets from a command's output.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use warden_tools::{ExecContext, Limits, Place, Secrets, execute, locations, title, validate};

fn describe_calls(c: &mut Criterion) {
    let cwd = Path::new("/work/project");
    let place = Place {
        cwd,
        home: None,
        language: warden_i18n::Language::English,
    };
    let terminal = json!({"command": "cargo test -p warden-tools -- --nocapture", "timeout_secs": 60, "risk_level": "medium"});
    let write = json!({"path": "src/lib.rs", "content": "x".repeat(2000)});
    c.bench_function("validate+title+locations terminal", |b| {
        b.iter(|| {
            let call = validate("terminal", black_box(&terminal)).expect("valid");
            (title(&call, place), locations(&call, cwd, None))
        })
    });
    c.bench_function("validate+title+locations fs_write 2 KB", |b| {
        b.iter(|| {
            let call = validate("fs_write", black_box(&write)).expect("valid");
            (title(&call, place), locations(&call, cwd, None))
        })
    });
}

fn run_locally(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.rs"), "fn main() {}\n".repeat(100)).expect("write");
    let read = validate("fs_read", &json!({"path": "a.rs"})).expect("valid");
    let shell = validate("terminal", &json!({"command": "true"})).expect("valid");
    let progress = |_| {};
    let secrets = Secrets::default();
    let cx = || ExecContext {
        cwd: dir.path(),
        home: None,
        editor: None,
        cancel: CancellationToken::new(),
        limits: Limits::default(),
        progress: &progress,
        secrets: &secrets,
        secret_files: std::sync::Arc::new(|_| false),
    };
    c.bench_function("execute fs_read 1.3 KB local", |b| {
        b.iter(|| runtime.block_on(execute(&read, cx())))
    });
    c.bench_function("execute terminal `true` local", |b| {
        b.iter(|| runtime.block_on(execute(&shell, cx())))
    });
}

/// The redaction a command's output passes when the model's key is set: a full 64 KiB
/// (the most `terminal` keeps), without and with the key in it, once whole (as each text
/// of a result is redacted before it becomes content) and once as the stream in front of
/// the capture, in the 8 KiB reads the local process makes.
fn redact(c: &mut Criterion) {
    let key = "sk-bench-0123456789abcdef0123456789abcdef";
    let secrets = Secrets::new(&[], |name| {
        (name == "OPENAI_API_KEY").then(|| key.to_owned())
    });
    let line = "   Compiling warden-tools v0.1.0 (/work/project/crates/tools) ok\n";
    let clean = line.repeat(64 * 1024 / line.len());
    let leaky = format!(
        "{}{key}\n{}",
        &clean[..clean.len() / 2],
        &clean[clean.len() / 2..]
    );
    for (name, text) in [("no key", &clean), ("one key", &leaky)] {
        c.bench_function(&format!("secrets/redact 64 KiB, {name}"), |b| {
            b.iter(|| secrets.values().redact(black_box(text)).len())
        });
        c.bench_function(
            &format!("secrets/stream 64 KiB in 8 KiB reads, {name}"),
            |b| {
                b.iter(|| {
                    let mut stream = secrets.values().stream();
                    let mut kept = 0;
                    for chunk in black_box(text.as_bytes()).chunks(8192) {
                        kept += stream.push(chunk).len();
                    }
                    kept + stream.finish().len()
                })
            },
        );
    }
}

criterion_group!(benches, describe_calls, run_locally, redact);
criterion_main!(benches);
