//! The policy side of the proposal path, in process: validating and describing a call
//! (`Gate::prepare`) and evaluating it (`Gate::evaluate`) with an engine loaded the way
//! a session loads it. `benches/turn.rs` measures the whole path over stdio; this one
//! says how much of it the gate is.
//!
//! Each evaluation is measured twice: warm (the same call again and again) and cold
//! (after writing over 16 MiB, more than this machine's caches), which is closer to the
//! path in Warden, where the model's reply arrives after the process slept.
//!
//! Run with `cargo bench -p warden-session --bench gate`.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use warden_permissions::{Context, Engine, Locations, Mode};
use warden_session::{EngineGate, ModeCell};
use warden_turn::Gate;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&project).expect("project");
    let project = project.canonicalize().expect("the project's real path");
    let managed = dir.path().join("managed/policy.toml");
    let locations = Locations::from_vars(|name| match name {
        "WARDEN_HOME" => Some(home.clone().into_os_string()),
        "WARDEN_MANAGED_POLICY" => Some(managed.clone().into_os_string()),
        _ => None,
    });
    let engine = Arc::new(Engine::load(&locations, &project));
    let context = Context::new(project.clone())
        .with_protected(locations.protected())
        .with_home(home.clone())
        .resolve_roots();
    let gate = EngineGate::new(
        engine,
        context,
        Arc::new(warden_permissions::SessionGrants::new("bench")),
        Arc::new(ModeCell::new(Mode::Ask)),
        "bench".to_owned(),
        warden_tools::Toolbox::builtins(),
    );

    let calls = [
        ("terminal", json!({"command": "touch f1"})),
        ("fs_write", json!({"path": "w1.txt", "content": "x"})),
        ("fs_read", json!({"path": "data.txt"})),
    ];
    // Written between cold runs: larger than the L2 and the share of L3 this process
    // gets, so the evaluation's code and data come from memory again.
    let mut evict = vec![0u8; 16 << 20];
    let mut group = c.benchmark_group("gate");
    for (tool, args) in &calls {
        let prepared = gate.prepare(tool, args).expect("a valid call");
        group.bench_function(format!("prepare {tool}"), |b| {
            b.iter(|| gate.prepare(black_box(tool), black_box(args)))
        });
        group.bench_function(format!("evaluate {tool}"), |b| {
            b.iter(|| gate.evaluate(black_box(&prepared)))
        });
        group.bench_function(format!("evaluate cold {tool}"), |b| {
            b.iter_batched(
                || {
                    for (i, byte) in evict.iter_mut().enumerate().step_by(64) {
                        *byte = byte.wrapping_add(i as u8);
                    }
                },
                |()| gate.evaluate(black_box(&prepared)),
                criterion::BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
