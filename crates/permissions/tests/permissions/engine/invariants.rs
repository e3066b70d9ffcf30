//! The engine's invariants, one test each, and the shape of an evaluation.

use serde_json::json;
use warden_permissions::{
    Context, DecidedBy, Decision, Effect, Engine, GrantMatcher, GrantProposal, Layer, Locations,
    Mode, Risk, Scope, SessionGrants, ToolCall, TrustStore, Widening,
};

use super::support::World;

const ALLOW_TERMINAL: &str = "[[rule]]\ntool = \"terminal\"\ndecision = \"allow\"\n";
const DENY_NPM: &str = "[[rule]]\ntool = \"terminal\"\ncommand = \"npm install\"\ndecision = \"deny\"\nreason = \"no installs\"\n";

#[test]
fn a_deny_rule_wins_over_allow_rules_in_every_layer_and_every_mode() {
    let w = World::new();
    let layers_with_allow = [Layer::User, Layer::Project, Layer::Managed];
    for deny_layer in [Layer::User, Layer::Project, Layer::Managed] {
        for allow_layer in layers_with_allow {
            let mut layers = vec![(allow_layer, ALLOW_TERMINAL)];
            if deny_layer == allow_layer {
                layers[0] = (
                    allow_layer,
                    "[[rule]]\ntool = \"terminal\"\ndecision = \"allow\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"npm install\"\ndecision = \"deny\"\n",
                );
            } else {
                layers.push((deny_layer, DENY_NPM));
            }
            layers.sort_by_key(|(l, _)| *l);
            let engine = w.engine(&layers, true);
            for mode in Mode::ALL {
                let e = w.eval(&engine, "terminal", r#"{"command": "npm install"}"#, mode);
                assert_eq!(
                    e.decision,
                    Decision::Deny,
                    "deny in {deny_layer:?}, allow in {allow_layer:?}, mode {mode}"
                );
                assert!(matches!(e.decided_by, DecidedBy::Rule { .. }));
            }
        }
    }
}

#[test]
fn a_deny_rule_wins_over_grants_and_auto_approved_tools() {
    let w = World::new();
    let policy = format!("auto_approved_tools = [\"terminal\"]\n{DENY_NPM}");
    let engine = w.engine(&[(Layer::User, &policy)], false);
    let proposal = GrantProposal {
        matchers: vec![GrantMatcher::Command {
            prefix: vec!["npm".into()],
        }],
        max_risk: Risk::High,
        label: "x".into(),
        subject: "x".into(),
        // `npm ci` needs the network: the grant was approved with it.
        widens: Widening {
            network: true,
            writes: Vec::new(),
        },
    };
    engine
        .grant(&w.s1, &proposal, Scope::Session, Effect::Allow, "test")
        .expect("session grant");
    let e = w.eval(
        &engine,
        "terminal",
        r#"{"command": "npm install"}"#,
        Mode::AutoApprove,
    );
    assert_eq!(e.decision, Decision::Deny);
    // The grant does apply to what the deny rule does not name.
    let e = w.eval(&engine, "terminal", r#"{"command": "npm ci"}"#, Mode::Ask);
    assert_eq!(e.decision, Decision::Allow);
    assert!(matches!(e.decided_by, DecidedBy::Grant { .. }));
}

#[test]
fn no_layer_loosens_a_managed_ask_or_deny() {
    let w = World::new();
    let managed = "[[rule]]\ntool = \"http_fetch\"\ndecision = \"ask\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"curl\"\ndecision = \"deny\"\n";
    let loosen = "[[rule]]\ntool = \"*\"\ndecision = \"allow\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"curl\"\ndecision = \"allow\"\n";
    let engine = w.engine(
        &[
            (Layer::User, loosen),
            (Layer::Project, loosen),
            (Layer::Managed, managed),
        ],
        true,
    );
    let proposal = GrantProposal {
        matchers: vec![GrantMatcher::Tool {
            tool: "http_fetch".into(),
        }],
        max_risk: Risk::High,
        label: "x".into(),
        subject: "x".into(),
        widens: Default::default(),
    };
    engine
        .grant(&w.s1, &proposal, Scope::Session, Effect::Allow, "test")
        .expect("grant");
    for mode in [Mode::Ask, Mode::AcceptEdits, Mode::AutoApprove] {
        let e = w.eval(&engine, "http_fetch", r#"{"url": "https://docs.rs"}"#, mode);
        assert_eq!(e.decision, Decision::Ask, "mode {mode}");
        assert!(
            matches!(
                &e.decided_by,
                DecidedBy::Rule {
                    layer: Layer::Managed,
                    ..
                }
            ),
            "{:?}",
            e.decided_by
        );
        let e = w.eval(
            &engine,
            "terminal",
            r#"{"command": "curl https://x.org"}"#,
            mode,
        );
        assert_eq!(e.decision, Decision::Deny, "mode {mode}");
    }
}

#[test]
fn a_projects_allow_rules_apply_only_once_the_project_is_trusted() {
    let w = World::new();
    let wh = w.root.join("warden-home");
    std::fs::create_dir_all(w.ws.join(".warden")).expect("mkdir");
    std::fs::write(
        w.ws.join(".warden/policy.toml"),
        "[[rule]]\ntool = \"terminal\"\ncommand = \"npm test\"\ndecision = \"allow\"\n\n[[rule]]\ntool = \"fs_read\"\npath = \"README.md\"\ndecision = \"deny\"\n",
    )
    .expect("write");
    let locations = Locations::from_vars(|name| match name {
        "WARDEN_HOME" => Some(wh.clone().into()),
        "WARDEN_MANAGED_POLICY" => Some(wh.join("managed.toml").into()),
        _ => None,
    });
    let install = ToolCall::new("terminal", json!({"command": "npm test"}));
    let readme = ToolCall::new("fs_read", json!({"path": "README.md"}));

    let engine = Engine::load(&locations, &w.ws);
    let e = engine.evaluate(&install, &w.ctx(), Mode::Ask, &SessionGrants::new("s"));
    assert_eq!(e.decision, Decision::Ask);
    assert!(
        e.matched_rules
            .iter()
            .any(|m| m.layer == Layer::Project && !m.applied),
        "the untrusted allow rule is listed as not applied: {:?}",
        e.matched_rules
    );
    // Its deny rules apply all the same.
    assert_eq!(
        engine
            .evaluate(&readme, &w.ctx(), Mode::Ask, &SessionGrants::new("s"))
            .decision,
        Decision::Deny
    );

    // Trust through a symlinked path: the canonical root is what counts.
    let link = w.root.join("project-link");
    std::os::unix::fs::symlink(&w.ws, &link).expect("symlink");
    TrustStore::new(locations.trusted_projects())
        .trust(&link)
        .expect("trust");
    let engine = Engine::load(&locations, &w.ws);
    let e = engine.evaluate(&install, &w.ctx(), Mode::Ask, &SessionGrants::new("s"));
    assert_eq!(e.decision, Decision::Allow);
    assert!(matches!(
        &e.decided_by,
        DecidedBy::Rule {
            layer: Layer::Project,
            ..
        }
    ));
    assert_eq!(
        engine
            .evaluate(&readme, &w.ctx(), Mode::Ask, &SessionGrants::new("s"))
            .decision,
        Decision::Deny
    );

    // Another folder is not trusted by it.
    let other = w.root.join("other");
    std::fs::create_dir_all(other.join(".warden")).expect("mkdir");
    std::fs::copy(
        w.ws.join(".warden/policy.toml"),
        other.join(".warden/policy.toml"),
    )
    .expect("copy");
    let engine = Engine::load(&locations, &other);
    let ctx = warden_permissions::Context::new(&other);
    assert_eq!(
        engine
            .evaluate(&install, &ctx, Mode::Ask, &SessionGrants::new("s"))
            .decision,
        Decision::Ask
    );
}

#[test]
fn an_untrusted_project_cannot_loosen_settings() {
    let w = World::new();
    let project = "mode = \"auto-approve\"\nmodel_risk_hints = \"trust\"\nauto_approved_tools = [\"terminal\"]\napproval_timeout_secs = 0\n";
    let engine = w.engine(&[(Layer::Project, project)], false);
    let s = engine.settings();
    assert_eq!(s.mode, Mode::Ask);
    assert_eq!(s.model_risk_hints, warden_permissions::HintPolicy::Escalate);
    assert!(s.auto_approved_tools.is_empty());
    assert_eq!(s.approval_timeout_secs, 30);
    // Stricter settings are taken.
    let engine = w.engine(
        &[(
            Layer::Project,
            "mode = \"read-only\"\nmax_asks_per_turn = 2\n",
        )],
        false,
    );
    assert_eq!(engine.settings().mode, Mode::ReadOnly);
    assert_eq!(engine.settings().max_asks_per_turn, 2);
    // Trusted, the project's settings apply.
    let engine = w.engine(&[(Layer::Project, project)], true);
    assert_eq!(engine.settings().mode, Mode::AutoApprove);
    assert_eq!(engine.settings().approval_timeout(Risk::High), None);
}

#[test]
fn critical_is_never_allowed_by_a_grant_a_mode_auto_approval_a_hint_or_a_rule() {
    let w = World::new();
    let policy = "auto_approved_tools = [\"*\"]\nmodel_risk_hints = \"trust\"\n\n[[rule]]\ntool = \"*\"\ndecision = \"allow\"\n";
    let engine = w.engine(&[(Layer::User, policy), (Layer::Managed, policy)], true);
    let proposal = GrantProposal {
        matchers: vec![GrantMatcher::Command {
            prefix: vec!["rm".into()],
        }],
        max_risk: Risk::Critical,
        label: "x".into(),
        subject: "x".into(),
        widens: Default::default(),
    };
    for scope in [Scope::Session, Scope::User] {
        engine
            .grant(&w.s1, &proposal, scope, Effect::Allow, "test")
            .expect("grant");
    }
    for mode in Mode::ALL {
        let e = w.eval(
            &engine,
            "terminal",
            r#"{"command": "rm -rf ~", "risk_level": "low"}"#,
            mode,
        );
        assert_eq!(e.risk, Risk::Critical);
        assert_ne!(e.decision, Decision::Allow, "mode {mode}");
        assert!(e.once_only);
        assert!(e.proposal.is_none());
    }
}

#[test]
fn a_policy_file_that_cannot_be_parsed_makes_every_call_ask_and_names_the_file() {
    let w = World::new();
    let wh = w.root.join("wh");
    std::fs::create_dir_all(&wh).expect("mkdir");
    std::fs::write(
        wh.join("policy.toml"),
        "[[rule]]\ntool = \"fs_read\"\ndecison = \"allow\"\n",
    )
    .expect("write");
    let locations = Locations::from_vars(|name| match name {
        "WARDEN_HOME" => Some(wh.clone().into()),
        "WARDEN_MANAGED_POLICY" => Some(wh.join("managed").into()),
        _ => None,
    });
    // The managed policy path is a folder: it cannot be read, which is an error too.
    std::fs::create_dir_all(wh.join("managed")).expect("mkdir");
    let engine = Engine::load(&locations, &w.ws);
    assert_eq!(
        engine.policy().errors.len(),
        2,
        "{:?}",
        engine.policy().errors
    );
    let read = ToolCall::new("fs_read", json!({"path": "README.md"}));
    let e = engine.evaluate(&read, &w.ctx(), Mode::Ask, &SessionGrants::new("s"));
    assert_eq!(e.decision, Decision::Ask);
    let DecidedBy::PolicyError { file, error } = &e.decided_by else {
        panic!("{:?}", e.decided_by);
    };
    assert!(file.ends_with("policy.toml"), "{file}");
    assert!(error.contains("decison"), "{error}");
    assert!(
        e.explanation.to_string().contains("policy.toml"),
        "{}",
        e.explanation
    );
    // In a mode that cannot ask, it is denied.
    assert_eq!(
        engine
            .evaluate(&read, &w.ctx(), Mode::ReadOnly, &SessionGrants::new("s"))
            .decision,
        Decision::Deny
    );
    assert_eq!(
        engine
            .evaluate(&read, &w.ctx(), Mode::AutoApprove, &SessionGrants::new("s"))
            .decision,
        Decision::Ask
    );
}

#[test]
fn a_broken_files_deny_rules_still_apply() {
    let w = World::new();
    let text = "[[rule]]\ntool = \"terminal\"\ncommand = \"ls\"\ndecision = \"deny\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"x && y\"\ndecision = \"allow\"\n";
    let engine = w.engine(&[(Layer::User, text)], false);
    assert_eq!(engine.policy().errors.len(), 1);
    assert!(engine.policy().errors[0].error.contains("rule 2"));
    let e = w.eval(&engine, "terminal", r#"{"command": "ls"}"#, Mode::Ask);
    assert_eq!(e.decision, Decision::Deny);
}

#[test]
fn unknown_keys_and_failed_examples_are_errors() {
    let w = World::new();
    for (text, needle) in [
        (
            "mode = \"ask\"\naproval_timeout_secs = 3\n",
            "aproval_timeout_secs",
        ),
        (
            "[[rule]]\ntool = \"terminal\"\ndecision = \"allow\"\nreson = \"x\"\n",
            "reson",
        ),
        ("[[rule]]\ndecision = \"maybe\"\n", "maybe"),
        ("mode = \"yolo\"\n", "yolo"),
        ("[approval_timeout_secs_by_risk]\nhihg = 3\n", "hihg"),
        (
            "[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\nmatch = [\"git push\"]\n",
            "example `git push` should match",
        ),
        (
            "[[rule]]\ntool = \"terminal\"\ncommand = \"git\"\ndecision = \"allow\"\nnot_match = [\"git push\"]\n",
            "should not match",
        ),
    ] {
        let engine = w.engine(&[(Layer::User, text)], false);
        let errors = &engine.policy().errors;
        assert_eq!(errors.len(), 1, "{text}: {errors:?}");
        assert!(
            errors[0].error.contains(needle),
            "{text}: {}",
            errors[0].error
        );
        let e = w.eval(&engine, "fs_read", r#"{"path": "README.md"}"#, Mode::Ask);
        assert_eq!(e.decision, Decision::Ask, "{text}");
    }
    // Passing examples are fine.
    let ok = "[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\nmatch = [\"git status\", \"git status --short\"]\nnot_match = [\"git push\", \"git stash\"]\n";
    assert!(
        w.engine(&[(Layer::User, ok)], false)
            .policy()
            .errors
            .is_empty()
    );
}

#[test]
fn a_malformed_call_is_denied_and_says_what_is_wrong() {
    let w = World::new();
    let engine = w.engine(
        &[(
            Layer::User,
            "[[rule]]\ntool = \"*\"\ndecision = \"allow\"\n",
        )],
        false,
    );
    for (tool, args, needle) in [
        ("fs_read", "{}", "`path` is missing"),
        ("fs_write", r#"{"path": "a"}"#, "`content` is missing"),
        (
            "terminal",
            r#"{"command": 1}"#,
            "`command` must be a string",
        ),
        (
            "http_fetch",
            r#"{"url": "file:///etc/passwd"}"#,
            "only http and https",
        ),
        (
            "fs_delete",
            r#"{"path": "a", "recursive": 1}"#,
            "`recursive` must be true or false",
        ),
        (
            "fs_read",
            r#"{"path": "a", "mode": "x"}"#,
            "unexpected argument `mode`",
        ),
    ] {
        let e = w.eval(&engine, tool, args, Mode::AutoApprove);
        assert_eq!(e.decision, Decision::Deny, "{tool} {args}");
        assert!(matches!(e.decided_by, DecidedBy::Malformed { .. }));
        assert!(
            e.reason.to_string().contains(needle),
            "{tool} {args}: {}",
            e.reason
        );
    }
    let e = engine.reject_malformed("fs_read", "the arguments are not valid JSON", Mode::Ask);
    assert_eq!(e.decision, Decision::Deny);
}

#[test]
fn each_segment_gets_its_own_decision_and_the_strictest_decides() {
    let w = World::new();
    let engine = w.engine(
        &[(Layer::User, "[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\nid = \"git-status\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"curl\"\ndecision = \"deny\"\nid = \"no-curl\"\n")],
        false,
    );
    let e = w.eval(
        &engine,
        "terminal",
        r#"{"command": "git status && npm test && curl https://x.org"}"#,
        Mode::Ask,
    );
    let seg: Vec<(&str, Decision)> = e
        .segments
        .iter()
        .map(|s| (s.text.as_str(), s.decision))
        .collect();
    assert_eq!(
        seg,
        [
            ("git status", Decision::Allow),
            ("npm test", Decision::Ask),
            ("curl https://x.org", Decision::Deny)
        ]
    );
    assert_eq!(e.decision, Decision::Deny);
    assert!(
        e.explanation.to_string().contains("curl"),
        "{}",
        e.explanation
    );
    let ids: Vec<&str> = e.matched_rules.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["git-status", "no-curl"]);
}

#[test]
fn every_matching_rule_is_listed_in_the_order_it_is_consulted() {
    let w = World::new();
    let engine = w.engine(
        &[
            (Layer::User, "[[rule]]\nid = \"u-allow\"\ntool = \"fs_*\"\ndecision = \"allow\"\n\n[[rule]]\nid = \"u-ask\"\npath = \"src/**\"\ndecision = \"ask\"\n"),
            (Layer::Managed, "[[rule]]\nid = \"m-deny\"\ntool = \"fs_write\"\npath = \"src/*.rs\"\ndecision = \"deny\"\n"),
        ],
        false,
    );
    let e = w.eval(
        &engine,
        "fs_write",
        r#"{"path": "src/main.rs", "content": ""}"#,
        Mode::Ask,
    );
    let ids: Vec<(&str, Decision)> = e
        .matched_rules
        .iter()
        .map(|m| (m.id.as_str(), m.decision))
        .collect();
    assert_eq!(
        ids,
        [
            ("m-deny", Decision::Deny),
            ("u-allow", Decision::Allow),
            ("u-ask", Decision::Ask)
        ]
    );
    assert_eq!(
        e.decided_by,
        DecidedBy::Rule {
            id: "m-deny".into(),
            file: "managed.toml".into(),
            layer: Layer::Managed
        }
    );
}

#[test]
fn the_evaluation_serialises_to_the_contracts_json() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let e = w.eval(&engine, "terminal", r#"{"command": "npm test"}"#, Mode::Ask);
    let v = serde_json::to_value(&e).expect("json");
    for key in [
        "decision",
        "risk",
        "reason",
        "decided_by",
        "matched_rules",
        "segments",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    let expected = json!({
        "decision": "ask",
        "risk": "medium",
        "reason": "Execute command: npm test",
        "decided_by": {"kind": "mode", "mode": "ask"},
        "segments": [{"text": "npm test", "risk": "medium", "decision": "ask"}],
        "proposal": {"label": "`npm test …` in this project", "max_risk": "medium",
                     "matchers": [{"command": {"prefix": ["npm", "test"]}}]},
        "once_only": false
    });
    assert_eq!(v["decision"], expected["decision"]);
    assert_eq!(v["risk"], expected["risk"]);
    assert_eq!(v["reason"], expected["reason"]);
    assert_eq!(v["decided_by"], expected["decided_by"]);
    assert_eq!(v["segments"][0]["text"], expected["segments"][0]["text"]);
    assert_eq!(
        v["segments"][0]["decision"],
        expected["segments"][0]["decision"]
    );
    assert_eq!(v["proposal"]["label"], expected["proposal"]["label"]);
    assert_eq!(v["proposal"]["matchers"], expected["proposal"]["matchers"]);
    assert_eq!(v["once_only"], expected["once_only"]);
}

#[test]
fn reasons_are_sentences_for_people() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let readme = w.ws.join("README.md");
    for (tool, args, reason) in [
        (
            "fs_read",
            r#"{"path": "README.md"}"#.to_owned(),
            format!("Read file at {}", readme.display()),
        ),
        (
            "terminal",
            r#"{"command": "npm install"}"#.to_owned(),
            "Execute command: npm install".to_owned(),
        ),
        (
            "fs_write",
            format!(
                r#"{{"path": "src/main.rs", "content": "{}"}}"#,
                "x".repeat(120)
            ),
            "Write 120 bytes to src/main.rs".to_owned(),
        ),
        (
            "http_fetch",
            r#"{"url": "https://docs.rs/serde"}"#.to_owned(),
            "Fetch https://docs.rs/serde".to_owned(),
        ),
        (
            "fs_delete",
            r#"{"path": "build", "recursive": true}"#.to_owned(),
            "Delete build and everything in it".to_owned(),
        ),
        (
            "mcp__github__create_issue",
            "{}".to_owned(),
            "Call tool `create_issue` of MCP server `github`".to_owned(),
        ),
    ] {
        assert_eq!(
            w.eval(&engine, tool, &args, Mode::Ask).reason.to_string(),
            reason
        );
    }
}

#[test]
fn mcp_annotations_raise_and_lower_no_further_than_medium() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let call = |read_only, destructive, trusted| {
        ToolCall::new("mcp__fs__wipe", json!({})).with_annotations(
            warden_permissions::ToolAnnotations {
                read_only,
                destructive,
                trusted,
            },
        )
    };
    let risk = |c: &ToolCall| {
        engine
            .evaluate(c, &w.ctx(), Mode::Ask, &SessionGrants::new("s"))
            .risk
    };
    // (readOnlyHint, destructiveHint, trusted by the user's policy) -> risk
    let cases = [
        ((None, None, false), Risk::High),
        ((Some(true), None, false), Risk::Medium),
        ((Some(true), None, true), Risk::Low),
        ((Some(false), None, true), Risk::High),
        ((None, Some(true), false), Risk::Critical),
        ((None, Some(true), true), Risk::Critical),
        ((Some(true), Some(true), false), Risk::Critical),
        ((Some(true), Some(true), true), Risk::Critical),
        ((None, Some(false), false), Risk::High),
    ];
    for ((read_only, destructive, trusted), expect) in cases {
        assert_eq!(
            risk(&call(read_only, destructive, trusted)),
            expect,
            "{read_only:?} {destructive:?} {trusted}"
        );
    }
    let e = engine.evaluate(
        &call(Some(true), None, false),
        &w.ctx(),
        Mode::Ask,
        &SessionGrants::new("s"),
    );
    assert_eq!(e.decision, Decision::Ask);
}

#[test]
fn settings_give_timeouts_per_risk_and_limits() {
    let w = World::new();
    let text = "approval_timeout_secs = 45\nmax_pending_requests = 3\nmax_asks_per_turn = 5\n\n[approval_timeout_secs_by_risk]\nhigh = 60\ncritical = 0\n";
    let engine = w.engine(&[(Layer::User, text)], false);
    let s = engine.settings();
    let secs = |r| s.approval_timeout(r).map(|d| d.as_secs());
    assert_eq!(secs(Risk::Low), Some(45));
    assert_eq!(secs(Risk::High), Some(60));
    assert_eq!(secs(Risk::Critical), None);
    assert_eq!((s.max_pending_requests, s.max_asks_per_turn), (3, 5));
    // The managed layer's settings win.
    let engine = w.engine(
        &[
            (Layer::User, text),
            (
                Layer::Managed,
                "approval_timeout_secs = 10\nmode = \"read-only\"\n",
            ),
        ],
        false,
    );
    assert_eq!(
        engine
            .settings()
            .approval_timeout(Risk::Low)
            .map(|d| d.as_secs()),
        Some(10)
    );
    assert_eq!(engine.settings().mode, Mode::ReadOnly);
}

#[test]
fn the_engine_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Engine>();
}

#[test]
fn an_unreadable_grants_file_fails_closed() {
    let w = World::new();
    let wh = w.root.join("wh");
    // A folder where the grants file should be: it cannot be read as a file.
    std::fs::create_dir_all(wh.join("grants.jsonl")).expect("mkdir");
    let locations = Locations::from_vars(|name| match name {
        "WARDEN_HOME" => Some(wh.clone().into()),
        "WARDEN_MANAGED_POLICY" => Some(wh.join("managed.toml").into()),
        _ => None,
    });
    let engine = Engine::load(&locations, &w.ws);
    let call = ToolCall::new("http_fetch", json!({"url": "https://evil.com/"}));
    let e = engine.evaluate(&call, &w.ctx(), Mode::AutoApprove, &SessionGrants::new("s"));
    assert_eq!(e.decision, Decision::Ask);
    assert!(
        matches!(&e.decided_by, DecidedBy::PolicyError { file, .. } if file.ends_with("grants.jsonl"))
    );
}

/// Clients show the risk and its reason in words; the reason must be the sentence of the
/// part that decided, never the call's title.
#[test]
fn the_risk_reason_is_the_deciding_parts_sentence() {
    let w = World::new();
    let engine = w.engine(
        &[(
            Layer::User,
            "[[rule]]\ntool = \"fs_write\"\ndecision = \"ask\"\nid = \"w\"\n",
        )],
        false,
    );
    let check = |tool: &str, args: &str, expect: &str| {
        let e = w.eval(&engine, tool, &w.expand(args), Mode::Ask);
        assert_eq!(
            e.risk_reason
                .to_string()
                .replace(&w.home.display().to_string(), "$HOME"),
            expect,
            "{args}"
        );
    };
    check(
        "terminal",
        r#"{"command": "cd /tmp && rm -rf ~"}"#,
        "recursively deletes $HOME, the home folder",
    );
    check(
        "fs_write",
        r#"{"path": "notes.txt", "content": "x"}"#,
        "writes $HOME/project/notes.txt inside the workspace",
    );
    let e = w.eval(
        &engine,
        "fs_write",
        r#"{"path": "a.txt", "content": "x"}"#,
        Mode::Ask,
    );
    assert_eq!(e.reason.to_string(), "Write 1 byte to a.txt");
    assert!(
        e.explanation
            .to_string()
            .starts_with("Needs approval by rule `w` in "),
        "{}",
        e.explanation
    );
}

/// `WARDEN_MANAGED_POLICY=$HOME/managed.toml` once made every write in the home
/// folder Critical: the managed file's whole parent folder was protected. Only
/// Warden's own files (and folders named for Warden) are protected now, and deleting
/// a folder that holds them is still Critical.
#[test]
fn a_managed_policy_in_the_home_folder_protects_that_file_not_the_home_folder() {
    let w = World::new();
    let home = w.home.display().to_string();
    let managed = w.home.join("managed.toml");
    let locations = Locations::from_vars(|name| match name {
        "HOME" => Some(home.clone().into()),
        "WARDEN_MANAGED_POLICY" => Some(managed.clone().into_os_string()),
        _ => None,
    });
    let engine = w.engine(&[], false);
    let ctx = Context::new(&w.ws)
        .with_home(&w.home)
        .with_protected(locations.protected());
    let eval = |tool: &str, args: serde_json::Value| {
        engine
            .evaluate(&ToolCall::new(tool, args), &ctx, Mode::Ask, &w.s1)
            .risk
    };
    let h = |p: &str| format!("{home}/{p}");
    // Not Critical: ordinary files in the home folder and the workspace.
    for (tool, args, risk) in [
        (
            "fs_write",
            json!({"path": h("notes.txt"), "content": "x"}),
            Risk::High,
        ),
        (
            "fs_write",
            json!({"path": h("project/src/main.rs"), "content": "x"}),
            Risk::Medium,
        ),
        (
            "fs_write",
            json!({"path": h("managed.toml.bak"), "content": "x"}),
            Risk::High,
        ),
        (
            "terminal",
            json!({"command": format!("touch {}", h("notes.txt"))}),
            Risk::High,
        ),
        (
            "terminal",
            json!({"command": "echo hi > out.txt"}),
            Risk::Medium,
        ),
        ("fs_read", json!({"path": h("notes.txt")}), Risk::Medium),
    ] {
        assert_eq!(eval(tool, args.clone()), risk, "{tool} {args}");
    }
    // Critical: Warden's own files, and deleting a folder that holds them.
    for (tool, args) in [
        (
            "fs_write",
            json!({"path": h("managed.toml"), "content": "x"}),
        ),
        ("fs_delete", json!({"path": h("managed.toml")})),
        (
            "fs_write",
            json!({"path": h(".config/warden/policy.toml"), "content": "x"}),
        ),
        (
            "fs_write",
            json!({"path": h(".local/state/warden/grants.jsonl"), "content": "x"}),
        ),
        (
            "terminal",
            json!({"command": format!("echo x > {}", h("managed.toml"))}),
        ),
        (
            "terminal",
            json!({"command": format!("rm -rf {}", h(".config"))}),
        ),
        (
            "terminal",
            json!({"command": format!("rm -rf {}", h(".local/state"))}),
        ),
    ] {
        assert_eq!(eval(tool, args.clone()), Risk::Critical, "{tool} {args}");
    }
}

#[test]
fn only_the_user_s_and_the_managed_policy_can_trust_an_mcp_server() {
    let w = World::new();
    let text = "[[mcp_server]]\nname = \"time\"\ncommand = \"uvx\"\ntrust_annotations = true\n";
    let server = warden_permissions::McpServerId::Stdio {
        name: "time",
        command: "uvx",
        args: &[],
    };
    for (layer, trusted_project, expect) in [
        (Layer::User, false, true),
        (Layer::Managed, false, true),
        // Not even a trusted project may vouch for a server.
        (Layer::Project, true, false),
        (Layer::Project, false, false),
    ] {
        let engine = w.engine(&[(layer, text)], trusted_project);
        assert_eq!(
            engine.policy().trusts_mcp_annotations(&server),
            expect,
            "{layer:?} trusted={trusted_project}"
        );
    }
    let engine = w.engine(&[(Layer::User, "mcp_connect_timeout_secs = 3\n")], false);
    assert_eq!(engine.settings().mcp_connect_timeout_secs, 3);
    assert_eq!(w.engine(&[], false).settings().mcp_connect_timeout_secs, 10);
}

#[test]
fn a_sensitive_path_in_an_mcp_call_raises_it_whatever_the_annotations() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let key = w.expand(r#"{"path": "$HOME/.ssh/id_rsa"}"#);
    let args: serde_json::Value = serde_json::from_str(&key).expect("json");
    let call = |read_only, trusted| {
        ToolCall::new("mcp__fs__read_file", args.clone()).with_annotations(
            warden_permissions::ToolAnnotations {
                read_only,
                destructive: None,
                trusted,
            },
        )
    };
    let risk = |c: &ToolCall| {
        engine
            .evaluate(c, &w.ctx(), Mode::Ask, &SessionGrants::new("s"))
            .risk
    };
    // (readOnlyHint, trusted) -> risk: judged as a read when the tool says it reads,
    // as a write otherwise; never lowered by trust.
    for ((read_only, trusted), expect) in [
        ((None, false), Risk::Critical),
        ((Some(false), true), Risk::Critical),
        ((Some(true), false), Risk::High),
        ((Some(true), true), Risk::High),
    ] {
        assert_eq!(
            risk(&call(read_only, trusted)),
            expect,
            "{read_only:?} {trusted}"
        );
    }
}

/// What is kept of the user's sessions is the user's to say: the user's file sets it, a
/// project cannot change it, trusted or not.
#[test]
fn session_retention_comes_from_the_user_never_a_project() {
    let w = World::new();
    let kept = |layers: &[(Layer, &str)], trusted: bool| {
        let engine = w.engine(layers, trusted);
        let s = engine.settings();
        (s.session_retention_days, s.max_sessions)
    };
    assert_eq!(kept(&[], false), (30, 1000));
    let user = "session_retention_days = 7\nmax_sessions = 20\n";
    assert_eq!(kept(&[(Layer::User, user)], false), (7, 20));
    let project = "session_retention_days = 0\nmax_sessions = 0\n";
    for trusted in [false, true] {
        assert_eq!(
            kept(&[(Layer::User, user), (Layer::Project, project)], trusted),
            (7, 20),
            "trusted: {trusted}"
        );
    }
}

/// Fail closed: on a system that cannot confine commands, every `terminal` call asks,
/// in every mode that can ask and whatever rule would allow it, with no "always"
/// option; a call that needs more than its sandbox is widened by a grant or the user's
/// own rule, never by a mode or a project's rule.
#[test]
fn without_a_sandbox_every_command_asks_and_only_the_user_widens_one() {
    let w = World::new();
    let engine = w.engine(&[(Layer::User, ALLOW_TERMINAL)], false);
    let ls = ToolCall::new("terminal", json!({"command": "ls"}));
    let unconfined = w
        .ctx()
        .with_sandbox_missing(Some("this system has no Landlock".to_owned()));
    for mode in [Mode::Ask, Mode::AutoApprove, Mode::AcceptEdits] {
        let e = engine.evaluate(&ls, &unconfined, mode, &SessionGrants::new("s"));
        assert_eq!(e.decision, Decision::Ask, "mode {mode}");
        assert!(e.once_only && e.proposal.is_none(), "mode {mode}: {e:?}");
        assert!(
            e.risk_reason
                .to_string()
                .contains("runs without a sandbox: this system has no Landlock"),
            "{}",
            e.risk_reason
        );
    }
    // Where the system can confine, the user's allow rule lets it run, and widens a
    // call that needs the network.
    let curl = ToolCall::new("terminal", json!({"command": "curl https://example.com"}));
    let e = engine.evaluate(&curl, &w.ctx(), Mode::Ask, &SessionGrants::new("s"));
    assert_eq!(e.decision, Decision::Allow, "{e:?}");
    assert_eq!(e.sandbox.as_ref().map(|n| n.network), Some(true));
    // A mode alone does not.
    let bare = w.engine(&[], false);
    let e = bare.evaluate(&curl, &w.ctx(), Mode::AutoApprove, &SessionGrants::new("s"));
    assert_eq!(e.decision, Decision::Ask, "{e:?}");
    assert!(
        e.proposal.is_some(),
        "a grant can still be proposed for what it needs"
    );
}

/// What broke: a grant widened the sandbox of every call it covered by whatever that
/// call needed, so a grant approved for a call that needed nothing beyond its sandbox
/// let a later call it covers reach the network unasked. A grant now records what the
/// approved call needed and widens by that alone; one stored without it widens nothing.
#[test]
fn a_grant_widened_any_call_it_covers_beyond_what_was_approved() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let eval = |command: &str| {
        let call = ToolCall::new("terminal", json!({ "command": command }));
        engine.evaluate(&call, &w.ctx(), Mode::AutoApprove, &w.s1)
    };
    // The request for a download says what it needs, and so does its proposal.
    let first = eval("curl https://example.com/a");
    assert_eq!(first.decision, Decision::Ask, "{first:?}");
    let proposal = first.proposal.expect("a proposal");
    assert_eq!(
        proposal.widens,
        Widening {
            network: true,
            writes: Vec::new()
        }
    );
    let grant = engine
        .grant(&w.s1, &proposal, Scope::Session, Effect::Allow, "test")
        .expect("session grant");
    assert!(grant.widens.network);
    let again = eval("curl https://example.com/b");
    assert_eq!(again.decision, Decision::Allow, "{again:?}");
    assert!(matches!(again.decided_by, DecidedBy::Grant { .. }));

    // A grant approved when the call needed nothing beyond its sandbox (the user's
    // settings gave every command the network then, or the grant was stored before
    // grants recorded what they widen) does not give a later call the network.
    let other = SessionGrants::new("s2");
    let offline = GrantProposal {
        matchers: vec![GrantMatcher::Command {
            prefix: vec!["curl".into()],
        }],
        max_risk: Risk::High,
        label: "x".into(),
        subject: "x".into(),
        widens: Widening::default(),
    };
    engine
        .grant(&other, &offline, Scope::Session, Effect::Allow, "test")
        .expect("session grant");
    let call = ToolCall::new(
        "terminal",
        json!({ "command": "curl https://example.com/c" }),
    );
    let beyond = engine.evaluate(&call, &w.ctx(), Mode::AutoApprove, &other);
    assert_eq!(beyond.decision, Decision::Ask, "{beyond:?}");
    assert!(
        beyond.explanation.to_string().contains("beyond what grant"),
        "{}",
        beyond.explanation
    );
    // What the user is asked now proposes a grant with the network.
    assert_eq!(
        beyond.proposal.map(|p| p.widens.network),
        Some(true),
        "the new proposal records the network"
    );
}

/// A policy that allows High-risk calls but leaves Medium ones to the mode: a part
/// the things around it raise into High must not be allowed by it.
const ALLOW_HIGH: &str = "[[rule]]\nrisk = \"high\"\ndecision = \"allow\"\n";

/// Asserts that under `policy`, in `ask` mode, `cargo build` is asked on its own and
/// its part of the `raised` call (arguments in which something raises it) is asked too.
fn cargo_build_is_asked_alone_and_raised(policy: &str, raised: &str) {
    let w = World::new();
    let engine = w.engine(&[(Layer::User, policy)], false);
    let decisions: Vec<Decision> = [r#"{"command": "cargo build"}"#, raised]
        .iter()
        .map(|args| {
            let e = w.eval(&engine, "terminal", args, Mode::Ask);
            e.segments
                .iter()
                .filter(|s| s.text == "cargo build")
                .map(|s| s.decision)
                .max()
                .unwrap_or(e.decision)
        })
        .collect();
    assert_eq!(decisions, [Decision::Ask, Decision::Ask], "{raised}");
}

#[test]
fn a_part_the_rest_of_its_line_raises_is_no_looser_than_on_its_own() {
    // Found by the compound property test: `rm -rf build` makes the `cargo build`
    // after it High, and a rule that allows High allowed it, though it is asked alone.
    let w = World::new();
    let engine = w.engine(&[(Layer::User, ALLOW_HIGH)], false);
    let alone = w.eval(
        &engine,
        "terminal",
        r#"{"command": "cargo build"}"#,
        Mode::Ask,
    );
    assert_eq!((alone.risk, alone.decision), (Risk::Medium, Decision::Ask));
    let line = w.eval(
        &engine,
        "terminal",
        r#"{"command": "rm -rf build && cargo build"}"#,
        Mode::Ask,
    );
    let part = line
        .segments
        .iter()
        .find(|s| s.text == "cargo build")
        .expect("the cargo part");
    // The line still says how risky the part is where it stands, and why.
    assert_eq!(part.risk, Risk::High);
    assert_eq!(part.decision, Decision::Ask, "{:?}", part.decided_by);
    assert_eq!(part.decided_by, DecidedBy::Mode { mode: Mode::Ask });
    // The rule for the raised risk matched, and is listed, though it did not decide.
    let matched: Vec<&str> = part.matched_rules.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(matched, ["user#1"]);
    assert_eq!(line.decision, Decision::Ask);
    assert!(
        line.explanation.to_string().contains("on its own"),
        "{}",
        line.explanation
    );
}

#[test]
fn a_model_hint_that_raises_a_part_is_no_looser_than_without_it() {
    cargo_build_is_asked_alone_and_raised(
        &format!("model_risk_hints = \"escalate\"\n\n{ALLOW_HIGH}"),
        r#"{"command": "cargo build", "risk_level": "high"}"#,
    );
}

#[test]
fn a_folder_that_raises_a_command_is_no_looser_than_the_workspace() {
    cargo_build_is_asked_alone_and_raised(
        ALLOW_HIGH,
        r#"{"command": "cargo build", "cwd": "$HOME/.ssh"}"#,
    );
}

#[test]
fn a_wrapper_that_raises_a_command_is_no_looser_than_the_command() {
    // `systemd-run` makes whatever it runs at least High.
    cargo_build_is_asked_alone_and_raised(ALLOW_HIGH, r#"{"command": "systemd-run cargo build"}"#);
}

#[test]
fn a_variable_set_for_a_command_never_loosens_it() {
    // Found by the property that a construct is at least as strict as its command: an
    // ask rule for Low calls asked about `ls`, but `FOO=1 ls` is Medium, and a rule
    // that allows the terminal let it through.
    let w = World::new();
    let policy = "[[rule]]\ntool = \"terminal\"\ndecision = \"allow\"\n\n[[rule]]\nrisk = \"low\"\ndecision = \"ask\"\n";
    let engine = w.engine(&[(Layer::User, policy)], false);
    let alone = w.eval_command(&engine, "ls", Mode::Ask);
    let set = w.eval_command(&engine, "FOO=1 ls", Mode::Ask);
    assert_eq!(alone.decision, Decision::Ask);
    assert_eq!(set.risk, Risk::Medium);
    assert_eq!(set.decision, Decision::Ask, "{}", set.explanation);
}

#[test]
fn a_redirection_never_loosens_the_command_it_redirects() {
    // Found by the construct property: an ask rule for Low calls asked about `ls`, and
    // `ls > out.txt` (Medium, for the file it writes) was left to `auto-approve`.
    let w = World::new();
    let engine = w.engine(
        &[(
            Layer::User,
            "[[rule]]\nrisk = \"low\"\ndecision = \"ask\"\n",
        )],
        false,
    );
    let alone = w.eval_command(&engine, "ls", Mode::AutoApprove);
    assert_eq!(alone.decision, Decision::Ask);
    let redirected = w.eval_command(&engine, "ls > out.txt", Mode::AutoApprove);
    assert_eq!(redirected.risk, Risk::Medium);
    assert_eq!(
        redirected.decision,
        Decision::Ask,
        "{}",
        redirected.explanation
    );
}

#[test]
fn a_rating_on_a_raised_command_is_no_looser_than_no_rating() {
    // Found by the rating property: `echo hi > notes.txt` is Medium (asked) where echo
    // alone is Low (allowed); rated High, it was decided at High (allowed by the rule)
    // and at Low, and never at the Medium it has without the rating.
    let w = World::new();
    let engine = w.engine(&[(Layer::User, ALLOW_HIGH)], false);
    let eval = |args: &str| w.eval(&engine, "terminal", args, Mode::Ask);
    let unrated = eval(r#"{"command": "echo hi > notes.txt"}"#);
    let rated = eval(r#"{"command": "echo hi > notes.txt", "risk_level": "high"}"#);
    assert_eq!(unrated.decision, Decision::Ask);
    assert_eq!(rated.risk, Risk::High);
    assert_eq!(rated.decision, Decision::Ask, "{}", rated.explanation);
    assert!(
        rated.explanation.to_string().contains("model's rating"),
        "{}",
        rated.explanation
    );
}

#[test]
fn a_part_raised_by_two_things_is_no_looser_than_by_either() {
    // Found by the construct property: `echo hi > notes.txt` is Medium (asked) where
    // echo alone is Low (allowed). `PATH=/usr/bin` raised it to High, a rule allowed
    // High calls, and the part was decided at High and at echo's own Low, never at the
    // Medium the redirection alone gives it.
    let w = World::new();
    let engine = w.engine(&[(Layer::User, ALLOW_HIGH)], false);
    let eval = |command: &str| {
        let args = json!({ "command": command }).to_string();
        w.eval(&engine, "terminal", &args, Mode::Ask)
    };
    assert_eq!(eval("echo hi > notes.txt").decision, Decision::Ask);
    let both = eval("PATH=/usr/bin echo hi > notes.txt");
    assert_eq!(both.risk, Risk::High);
    assert_eq!(both.decision, Decision::Ask, "{}", both.explanation);
    assert!(
        both.explanation
            .to_string()
            .contains("as only some of what raised it would leave it"),
        "{}",
        both.explanation
    );
}
