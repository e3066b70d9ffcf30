//! Fuzzes the policy parser and the engine over whatever policy it yields: loading
//! must never panic, lint must never panic, and a file with errors must never let a
//! call through unasked.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use warden_permissions::policy::Source;
use warden_permissions::{Context, Decision, Engine, Layer, Mode, Policy, ToolCall, lint};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let sources = [Source::text(Layer::User, "fuzz.toml", text)];
    let _ = lint(&sources);
    let policy = Policy::from_sources(&sources, false);
    let broken = !policy.errors.is_empty();
    let engine = Engine::with_policy(policy, std::path::Path::new("/nonexistent/fuzz"), None);
    let ctx = Context::new("/nonexistent/fuzz").with_home("/nonexistent");
    let calls = [
        ToolCall::new("fs_read", json!({"path": "README.md"})),
        ToolCall::new("terminal", json!({"command": "git status && rm -rf ~"})),
        ToolCall::new("http_fetch", json!({"url": "https://docs.rs/x"})),
        ToolCall::new("mcp__github__create_issue", json!({"repo": "a/b"})),
    ];
    for call in &calls {
        for mode in Mode::ALL {
            let e = engine.evaluate(call, &ctx, mode, &warden_permissions::SessionGrants::new("fuzz"));
            if broken {
                assert_ne!(
                    e.decision,
                    Decision::Allow,
                    "a broken policy allowed {call:?}"
                );
            }
            if e.risk == warden_permissions::Risk::Critical {
                assert_ne!(e.decision, Decision::Allow, "Critical allowed: {call:?}");
            }
        }
    }
});
