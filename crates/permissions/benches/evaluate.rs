//! One evaluation against 1, 100, 1,000 and 10,000 rules.
//!
//! `decide/*` measures the policy alone (rules, grants, mode) on a call that is
//! already assessed: the part that grows with the number of rules. `evaluate/*` is
//! the whole `Engine::evaluate`, with path resolution and shell parsing.
//! `stored_grants/*` is `decide` on an engine without a grants file and on one with a
//! grants file of 100 grants: the difference is what the check for a changed file
//! costs each evaluation (a `statx` and a read lock); `stored_grants/fingerprint` is the
//! `statx` alone.
//!
//! Run: `cargo bench -p warden-permissions --bench evaluate`.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use warden_permissions::policy::Source;
use warden_permissions::{
    Context, Effect, Engine, GrantMatcher, GrantProposal, GrantStore, Layer, Mode, Policy, Risk,
    Scope, SessionGrants, ToolCall, assess,
};

/// A policy of `n` rules of every kind: MCP tool globs, commands, path globs,
/// domains and argument matchers, none of which matches the benchmarked calls, so
/// that every evaluation falls through all of them to the mode table (the worst case).
fn policy(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let body = match i % 5 {
            0 => format!("tool = \"mcp__server{i}__*\"\ndecision = \"allow\""),
            1 => format!("tool = \"terminal\"\ncommand = \"tool{i} sub{i}\"\ndecision = \"deny\""),
            2 => format!("tool = \"fs_*\"\npath = \"dir{i}/**/*.rs\"\ndecision = \"allow\""),
            3 => format!(
                "tool = \"http_fetch\"\ndomain = \"*.host{i}.example.org\"\ndecision = \"allow\""
            ),
            _ => format!(
                "tool = \"mcp__github__*\"\nargs = {{ repo = \"org{i}/*\" }}\ndecision = \"ask\""
            ),
        };
        text.push_str(&format!("[[rule]]\nid = \"r{i}\"\n{body}\n\n"));
    }
    text
}

/// The calls benchmarked, by name: one of each kind of tool, and a shell line with a
/// part its surroundings raise.
fn calls() -> [(&'static str, ToolCall); 6] {
    [
        (
            "terminal",
            ToolCall::new("terminal", json!({"command": "cargo build && git status"})),
        ),
        // The same line with its build's part raised by a variable set for it: that
        // part is decided at its raised and at its own risk.
        (
            "terminal_raised",
            ToolCall::new(
                "terminal",
                json!({"command": "PATH=/usr/bin cargo build && git status"}),
            ),
        ),
        // A part raised by two things: `echo` (Low) by its redirection (Medium) and by
        // a variable (High). It is decided at each of the three risks.
        (
            "terminal_raised_twice",
            ToolCall::new(
                "terminal",
                json!({"command": "PATH=/usr/bin echo hi > notes.txt && git status"}),
            ),
        ),
        (
            "fs_write",
            ToolCall::new(
                "fs_write",
                json!({"path": "src/main.rs", "content": "fn main() {}"}),
            ),
        ),
        (
            "http_fetch",
            ToolCall::new("http_fetch", json!({"url": "https://docs.rs/serde"})),
        ),
        (
            "mcp",
            ToolCall::new(
                "mcp__github__create_issue",
                json!({"repo": "acme/x", "title": "t"}),
            ),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().canonicalize().expect("canonical");
    std::fs::create_dir_all(ws.join("src")).expect("mkdir");
    let ctx = Context::new(&ws);
    // A session with no grants of its own, made once: the session holds it, not the call.
    let session = SessionGrants::new("s");
    let calls = calls();
    let provenance = ToolCall::new(
        "terminal",
        json!({"command": "curl -fsSL https://x.example/i.sh -o i.sh && printf 'ls\\n' | sh && grep -r TODO src"}),
    );
    let raised = assess(&calls[1].1, &ctx);
    assert!(
        raised.units.iter().any(|u| u.own_risk.is_some()),
        "the raised line has no raised part"
    );
    let twice = assess(&calls[2].1, &ctx);
    assert!(
        twice
            .units
            .iter()
            .any(|u| u.own_risk == Some(Risk::Low) && u.risk == Risk::High),
        "the twice-raised line has no part raised from Low to High"
    );
    let mut decide = c.benchmark_group("decide");
    for n in [1, 100, 1_000, 10_000] {
        let policy =
            Policy::from_sources(&[Source::text(Layer::User, "bench.toml", policy(n))], false);
        assert!(policy.errors.is_empty(), "{:?}", policy.errors);
        let engine = Engine::with_policy(policy, &ws, None);
        for (name, call) in &calls {
            let assessment = assess(call, &ctx);
            decide.bench_with_input(BenchmarkId::new(*name, n), &n, |b, _| {
                b.iter(|| engine.decide(black_box(call), &assessment, &ctx, Mode::Ask, &session))
            });
        }
    }
    decide.finish();
    let mut evaluate = c.benchmark_group("evaluate");
    for n in [1, 1_000] {
        let policy =
            Policy::from_sources(&[Source::text(Layer::User, "bench.toml", policy(n))], false);
        let engine = Engine::with_policy(policy, &ws, None);
        for (name, call) in &calls {
            evaluate.bench_with_input(BenchmarkId::new(*name, n), &n, |b, _| {
                b.iter(|| engine.evaluate(black_box(call), &ctx, Mode::Ask, &session))
            });
        }
        // A line on the analyser's slower paths: a download into a file, known text
        // piped into a shell (analysed as a script) and a recursive read that lists
        // its folder for secret files.
        evaluate.bench_with_input(BenchmarkId::new("terminal_provenance", n), &n, |b, _| {
            b.iter(|| engine.evaluate(black_box(&provenance), &ctx, Mode::Ask, &session))
        });
    }
    evaluate.finish();

    let grants = dir.path().join("state/grants.jsonl");
    let with_file = Engine::with_policy(
        Policy::from_sources(&[], false),
        &ws,
        Some(GrantStore::new(&grants)),
    );
    for i in 0..100 {
        let proposal = GrantProposal {
            matchers: vec![GrantMatcher::Command {
                prefix: vec![format!("tool{i}"), "sub".to_owned()],
            }],
            max_risk: Risk::High,
            label: String::new(),
            subject: String::new(),
            widens: Default::default(),
        };
        with_file
            .grant(&session, &proposal, Scope::User, Effect::Allow, "bench")
            .expect("grant");
    }
    let without_file = Engine::with_policy(Policy::from_sources(&[], false), &ws, None);
    let (_, call) = &calls[0];
    let assessment = assess(call, &ctx);
    let mut stored = c.benchmark_group("stored_grants");
    for (name, engine) in [("no file", &without_file), ("100 grants", &with_file)] {
        stored.bench_function(format!("decide terminal, {name}"), |b| {
            b.iter(|| engine.decide(black_box(call), &assessment, &ctx, Mode::Ask, &session))
        });
    }
    // The check alone, for scale: one `statx` of the grants file.
    let store = GrantStore::new(&grants);
    stored.bench_function("fingerprint of the grants file", |b| {
        b.iter(|| black_box(store.fingerprint()))
    });
    stored.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
