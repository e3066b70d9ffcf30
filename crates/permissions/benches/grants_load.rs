//! Loading 100,000 stored grants: reading `grants.jsonl` and indexing it.
//!
//! Run: `cargo bench -p warden-permissions --bench grants_load`.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use criterion::{Criterion, criterion_group, criterion_main};
use warden_permissions::store::GrantRecord;
use warden_permissions::{Effect, Grant, GrantMatcher, GrantSet, GrantStore, Risk, Scope};

fn grant(i: usize) -> Grant {
    let matcher = match i % 4 {
        0 => GrantMatcher::Command {
            prefix: vec![format!("tool{i}"), "test".into()],
        },
        1 => GrantMatcher::Files {
            tool: "fs_write".into(),
            paths: vec![PathBuf::from(format!(
                "/home/user/project{}/src/file{i}.rs",
                i % 50
            ))],
        },
        2 => GrantMatcher::Domain {
            tool: "http_fetch".into(),
            domain: format!("host{i}.example.org"),
        },
        _ => GrantMatcher::Tool {
            tool: format!("mcp__server{}__tool{i}", i % 100),
        },
    };
    Grant {
        id: format!("g-{i:016x}"),
        created_at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000 + i as u64),
        expires_at: None,
        client: "zed".into(),
        effect: Effect::Allow,
        scope: if i.is_multiple_of(2) {
            Scope::Project
        } else {
            Scope::User
        },
        project: (i.is_multiple_of(2))
            .then(|| PathBuf::from(format!("/home/user/project{}", i % 50))),
        session: None,
        matchers: vec![matcher],
        max_risk: Risk::High,
        widens: Default::default(),
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("grants.jsonl");
    let mut text = String::new();
    for i in 0..100_000 {
        text.push_str(&serde_json::to_string(&GrantRecord::Grant(grant(i))).expect("json"));
        text.push('\n');
    }
    std::fs::write(&path, text).expect("write");
    let store = GrantStore::new(&path);
    assert_eq!(store.load().expect("load").len(), 100_000);
    let mut group = c.benchmark_group("grants_load");
    group.sample_size(20);
    group.bench_function("100000", |b| {
        b.iter(|| GrantSet::new(black_box(&store).load().expect("load")))
    });
    // The same load, timed in CPU time over all threads rather than wall time: on a
    // shared machine the wall time mostly measures the other processes.
    group.bench_function("100000_cpu", |b| {
        b.iter_custom(|iters| {
            let start = cpu_time();
            for _ in 0..iters {
                black_box(GrantSet::new(black_box(&store).load().expect("load")));
            }
            cpu_time() - start
        })
    });
    group.finish();
    phases(c, &path);
}

/// The CPU time the process has used (user and system, all threads), from
/// `/proc/self/stat`, in clock ticks of 10 ms (`USER_HZ` is 100 on Linux). Batches
/// of several loads keep the granularity small next to the figure.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("stat") + 2..]
        .split(' ')
        .collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 here.
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    Duration::from_millis(ticks * 10)
}

/// The phases of a load, single-threaded, to show where the time goes.
fn phases(c: &mut Criterion, path: &std::path::Path) {
    let bytes = std::fs::read(path).expect("read");
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let records: Vec<GrantRecord> = lines
        .iter()
        .map(|l| serde_json::from_slice(l).expect("parse"))
        .collect();
    let grants: Vec<Grant> = records
        .into_iter()
        .filter_map(|r| match r {
            GrantRecord::Grant(g) => Some(g),
            GrantRecord::Revoke(_) => None,
        })
        .collect();
    let mut group = c.benchmark_group("grants_load_phases");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("read", |b| b.iter(|| std::fs::read(black_box(path))));
    group.bench_function("split", |b| {
        b.iter(|| {
            black_box(&bytes)
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count()
        })
    });
    group.bench_function("scan_json", |b| {
        b.iter(|| {
            for l in &lines {
                let _: serde::de::IgnoredAny = serde_json::from_slice(l).expect("scan");
            }
        })
    });
    group.bench_function("parse", |b| {
        b.iter(|| {
            for l in &lines {
                let text = std::str::from_utf8(l).expect("utf-8");
                black_box(serde_json::from_str::<GrantRecord>(text).expect("parse"));
            }
        })
    });
    group.bench_function("clone_drop", |b| b.iter(|| black_box(grants.clone())));
    group.bench_function("index", |b| {
        b.iter_batched(
            || grants.clone(),
            GrantSet::new,
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
