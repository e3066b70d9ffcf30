//! Loading 100,000 stored grants: reading `grants.jsonl` and indexing it.
//!
//! Run: `cargo bench -p warden-permissions --bench grants_load`.

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
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
