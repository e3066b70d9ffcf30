//! Grants: what is proposed, what a grant covers, and the grants file.

use std::time::{Duration, SystemTime};

use serde_json::json;
use warden_permissions::{
    DecidedBy, Decision, Effect, Engine, GrantMatcher, GrantStore, Layer, McpOrigin, Mode, Policy,
    Risk, Scope, SessionGrants, ToolCall,
};

use super::support::World;

fn proposal_of(
    w: &World,
    engine: &Engine,
    tool: &str,
    args: &str,
) -> Option<warden_permissions::GrantProposal> {
    w.eval(engine, tool, args, Mode::Ask).proposal
}

#[test]
fn command_grants_name_the_program_and_subcommand() {
    let w = World::new();
    let engine = w.engine(&[], false);
    for (command, prefix, label) in [
        (
            "npm test",
            vec!["npm", "test"],
            "`npm test …` in this project",
        ),
        (
            "npm test -- --watch",
            vec!["npm", "test"],
            "`npm test …` in this project",
        ),
        (
            "npm install left-pad",
            vec!["npm", "install"],
            "`npm install …` in this project",
        ),
        (
            "npm run build",
            vec!["npm", "run", "build"],
            "`npm run build …` in this project",
        ),
        (
            "cargo build --release",
            vec!["cargo", "build"],
            "`cargo build …` in this project",
        ),
        (
            "git fetch origin",
            vec!["git", "fetch"],
            "`git fetch …` in this project",
        ),
        ("make", vec!["make"], "`make …` in this project"),
        (
            "curl https://example.com",
            vec!["curl"],
            "`curl …` in this project",
        ),
    ] {
        let p = proposal_of(
            &w,
            &engine,
            "terminal",
            &json!({"command": command}).to_string(),
        )
        .unwrap_or_else(|| panic!("no proposal for {command}"));
        let prefix: Vec<String> = prefix.into_iter().map(str::to_owned).collect();
        assert_eq!(
            p.matchers,
            vec![GrantMatcher::Command { prefix }],
            "{command}"
        );
        assert_eq!(p.label, label, "{command}");
    }
}

#[test]
fn no_grant_is_proposed_for_over_broad_commands() {
    let w = World::new();
    let engine = w.engine(&[], false);
    for command in [
        "python -c 'print(1)'",
        "python script.py",
        "python3",
        "bash -c 'npm install'",
        "sh -c 'curl https://x.org'",
        "node -e 'x'",
        "node server.js",
        "env FOO=1 python x.py",
        "xargs echo",
        "sudo ls",
        "rm -rf ~",
        "$CMD arg",
        "npm --global install x",
        "npm run",
        "ls && python -c 'x'",
    ] {
        let e = w.eval_command(&engine, command, Mode::Ask);
        assert_ne!(e.decision, Decision::Allow, "{command}");
        assert!(e.proposal.is_none(), "{command}: {:?}", e.proposal);
    }
}

#[test]
fn other_tools_get_a_file_folder_domain_or_tool_grant() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p =
        |tool: &str, args: &str| proposal_of(&w, &engine, tool, &w.expand(args)).expect("proposal");
    assert_eq!(
        p("fs_write", r#"{"path": "src/main.rs", "content": "x"}"#).matchers,
        vec![GrantMatcher::Files {
            tool: "fs_write".into(),
            paths: vec![w.ws.join("src/main.rs")]
        }]
    );
    assert_eq!(
        p("fs_read", r#"{"path": "$ROOT/outside/notes.txt"}"#).matchers,
        vec![GrantMatcher::Folder {
            tool: "fs_read".into(),
            path: w.root.join("outside")
        }]
    );
    assert_eq!(
        p("http_fetch", r#"{"url": "https://Docs.rs/serde?x=1"}"#).matchers,
        vec![GrantMatcher::Domain {
            tool: "http_fetch".into(),
            domain: "docs.rs".into()
        }]
    );
}

/// A grant by an MCP tool's name would also cover another server that takes the same
/// name: none is proposed, so only "once" and the session's exact call are offered.
#[test]
fn an_mcp_tool_gets_no_grant_by_its_name_alone() {
    let w = World::new();
    let engine = w.engine(&[], false);
    for (tool, args) in [
        ("mcp__github__create_issue", r#"{"title": "secret title"}"#),
        ("mcp__time__get_current_time", r#"{}"#),
    ] {
        let e = w.eval(&engine, tool, args, Mode::Ask);
        assert_eq!(e.decision, Decision::Ask, "{tool}");
        assert!(e.proposal.is_none(), "{tool}: {:?}", e.proposal);
    }
}

#[test]
fn an_mcp_grant_names_the_server_s_identity_and_the_tool() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let origin = |identity: &str, tool: &str| McpOrigin {
        server: "github".into(),
        identity: identity.into(),
        tool: tool.into(),
    };
    let call = |identity: &str, tool: &str, title: &str| {
        ToolCall::new(format!("mcp__github__{tool}"), json!({ "title": title }))
            .with_origin(origin(identity, tool))
    };
    let asked = engine.evaluate(
        &call("github [npx gh]", "create_issue", "a"),
        &w.ctx(),
        Mode::Ask,
        &w.s1,
    );
    let p = asked
        .proposal
        .expect("a proposal for an MCP tool of a known server");
    assert_eq!(
        p.matchers,
        [GrantMatcher::McpTool {
            server: "github".into(),
            identity: "github [npx gh]".into(),
            tool: "create_issue".into(),
        }]
    );
    engine
        .grant(&w.s1, &p, Scope::Session, Effect::Allow, "zed")
        .expect("grant");
    let decide = |c: &ToolCall| engine.evaluate(c, &w.ctx(), Mode::Ask, &w.s1).decision;
    // Other arguments of the same tool of the same server: covered.
    assert_eq!(
        decide(&call("github [npx gh]", "create_issue", "b")),
        Decision::Allow
    );
    // A server that borrows the name, another tool, or no known server: not covered.
    assert_eq!(
        decide(&call("github [npx evil]", "create_issue", "b")),
        Decision::Ask
    );
    assert_eq!(
        decide(&call("github [npx gh]", "delete_repo", "b")),
        Decision::Ask
    );
    assert_eq!(
        decide(&ToolCall::new(
            "mcp__github__create_issue",
            json!({"title": "b"})
        )),
        Decision::Ask
    );
}

#[test]
fn a_grant_stores_the_generalised_matcher_never_the_raw_arguments() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(
        &w,
        &engine,
        "terminal",
        r#"{"command": "npm install left-pad --token=SECRET"}"#,
    )
    .expect("proposal");
    engine
        .grant(&w.s1, &p, Scope::User, Effect::Allow, "zed")
        .expect("grant");
    let text = std::fs::read_to_string(w.state.join("grants.jsonl")).expect("read");
    assert!(text.contains("\"npm\",\"install\""), "{text}");
    assert!(
        !text.contains("left-pad") && !text.contains("SECRET"),
        "{text}"
    );
}

#[test]
fn a_grant_covers_a_compound_command_only_when_it_names_every_part() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(
        &w,
        &engine,
        "terminal",
        r#"{"command": "npm test && npm run lint"}"#,
    )
    .expect("proposal");
    assert_eq!(p.matchers.len(), 2);
    engine
        .grant(&w.s1, &p, Scope::Session, Effect::Allow, "zed")
        .expect("grant");
    let d = |c: &str| w.eval_command(&engine, c, Mode::Ask).decision;
    assert_eq!(d("npm test && npm run lint"), Decision::Allow);
    assert_eq!(d("npm test"), Decision::Allow);
    assert_eq!(d("ls && npm test"), Decision::Allow);
    assert_eq!(d("npm test && npm install"), Decision::Ask);
    assert_eq!(d("npm test && curl https://x.org"), Decision::Ask);
    assert_eq!(d("npm test; rm -rf ~"), Decision::Ask);
    assert_eq!(
        d("npm run lint > /tmp/x"),
        Decision::Ask,
        "a riskier write than proposed for"
    );
}

#[test]
fn session_grants_hold_in_their_session_only() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(&w, &engine, "terminal", r#"{"command": "npm test"}"#).expect("proposal");
    engine
        .grant(&w.s1, &p, Scope::Session, Effect::Allow, "zed")
        .expect("grant");
    let call = ToolCall::new("terminal", json!({"command": "npm test"}));
    assert_eq!(
        engine.evaluate(&call, &w.ctx(), Mode::Ask, &w.s1).decision,
        Decision::Allow
    );
    assert_eq!(
        engine
            .evaluate(&call, &w.ctx(), Mode::Ask, &SessionGrants::new("s2"))
            .decision,
        Decision::Ask
    );
    assert!(
        !w.state.join("grants.jsonl").exists(),
        "a session grant is not stored"
    );
    // The session's grants are its own: the engine's revoke (stored grants) does not
    // see them, the session's does, once.
    let id = w.s1.list()[0].id.clone();
    assert!(!engine.revoke(&id).expect("revoke"));
    assert!(w.s1.revoke(&id));
    assert!(!w.s1.revoke(&id));
    assert_eq!(
        engine.evaluate(&call, &w.ctx(), Mode::Ask, &w.s1).decision,
        Decision::Ask
    );
    // Once: nothing is kept.
    engine
        .grant(&w.s1, &p, Scope::Once, Effect::Allow, "zed")
        .expect("grant");
    assert_eq!(
        engine.evaluate(&call, &w.ctx(), Mode::Ask, &w.s1).decision,
        Decision::Ask
    );
}

#[test]
fn project_grants_persist_for_their_project_and_user_grants_everywhere() {
    let w = World::new();
    let store = || Some(GrantStore::new(w.state.join("grants.jsonl")));
    let engine = w.engine(&[], false);
    let test =
        proposal_of(&w, &engine, "terminal", r#"{"command": "npm test"}"#).expect("proposal");
    let docs = proposal_of(&w, &engine, "http_fetch", r#"{"url": "https://docs.rs/x"}"#)
        .expect("proposal");
    engine
        .grant(&w.s1, &test, Scope::Project, Effect::Allow, "zed")
        .expect("grant");
    engine
        .grant(&w.s1, &docs, Scope::User, Effect::Allow, "zed")
        .expect("grant");

    let npm = ToolCall::new("terminal", json!({"command": "npm test"}));
    let fetch = ToolCall::new("http_fetch", json!({"url": "https://docs.rs/y"}));
    // A fresh engine for the same project reads them back.
    let same = Engine::with_policy(Policy::from_sources(&[], false), &w.ws, store());
    assert_eq!(
        same.evaluate(&npm, &w.ctx(), Mode::Ask, &SessionGrants::new("s9"))
            .decision,
        Decision::Allow
    );
    assert_eq!(
        same.evaluate(&fetch, &w.ctx(), Mode::Ask, &SessionGrants::new("s9"))
            .decision,
        Decision::Allow
    );
    // Another project sees the user grant only.
    let other_root = w.root.join("outside");
    let other = Engine::with_policy(Policy::from_sources(&[], false), &other_root, store());
    let ctx = warden_permissions::Context::new(&other_root);
    assert_eq!(
        other
            .evaluate(&npm, &ctx, Mode::Ask, &SessionGrants::new("s9"))
            .decision,
        Decision::Ask
    );
    assert_eq!(
        other
            .evaluate(&fetch, &ctx, Mode::Ask, &SessionGrants::new("s9"))
            .decision,
        Decision::Allow
    );
}

#[test]
fn a_deny_grant_denies_even_in_auto_approve() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(&w, &engine, "http_fetch", r#"{"url": "https://evil.com/"}"#)
        .expect("proposal");
    let g = engine
        .grant(&w.s1, &p, Scope::Project, Effect::Deny, "zed")
        .expect("grant");
    let e = w.eval(
        &engine,
        "http_fetch",
        r#"{"url": "https://evil.com/other"}"#,
        Mode::AutoApprove,
    );
    assert_eq!(e.decision, Decision::Deny);
    assert_eq!(
        e.decided_by,
        DecidedBy::Grant {
            id: g.id,
            scope: Scope::Project
        }
    );
}

#[test]
fn a_grant_covers_no_call_riskier_than_it_was_proposed_for() {
    let w = World::new();
    let engine = w.engine(&[], false);
    // A read grant for the workspace's folder covers other reads there, not `.env`.
    let p = proposal_of(
        &w,
        &engine,
        "fs_read",
        r#"{"path": "$ROOT/outside/notes.txt"}"#,
    )
    .expect("proposal");
    assert_eq!(p.max_risk, Risk::Medium);
    engine
        .grant(&w.s1, &p, Scope::Session, Effect::Allow, "zed")
        .expect("grant");
    assert_eq!(
        w.eval(
            &engine,
            "fs_read",
            r#"{"path": "$ROOT/outside/other.txt"}"#,
            Mode::Ask
        )
        .decision,
        Decision::Allow
    );
    assert_eq!(
        w.eval(
            &engine,
            "fs_read",
            r#"{"path": "$ROOT/outside.txt"}"#,
            Mode::Ask
        )
        .decision,
        Decision::Ask
    );
    let p = proposal_of(&w, &engine, "fs_read", r#"{"path": "$HOME/.bashrc"}"#).expect("proposal");
    assert!(
        matches!(&p.matchers[0], GrantMatcher::Files { .. }),
        "the home folder is too broad: {p:?}"
    );
}

#[test]
fn expired_grants_do_not_apply_and_expire_drops_them() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(&w, &engine, "terminal", r#"{"command": "npm test"}"#).expect("proposal");
    let past = SystemTime::now() - Duration::from_secs(60);
    let future = SystemTime::now() + Duration::from_secs(3600);
    engine
        .grant_until(&w.s1, &p, Scope::User, Effect::Allow, "zed", Some(past))
        .expect("grant");
    assert_eq!(
        w.eval(&engine, "terminal", r#"{"command": "npm test"}"#, Mode::Ask)
            .decision,
        Decision::Ask
    );
    engine
        .grant_until(&w.s1, &p, Scope::User, Effect::Allow, "zed", Some(future))
        .expect("grant");
    assert_eq!(
        w.eval(&engine, "terminal", r#"{"command": "npm test"}"#, Mode::Ask)
            .decision,
        Decision::Allow
    );
    let store = GrantStore::new(w.state.join("grants.jsonl"));
    assert_eq!(store.load().expect("load").len(), 2);
    assert_eq!(store.expire(SystemTime::now()).expect("expire"), 1);
    assert_eq!(store.load().expect("load").len(), 1);
}

#[test]
fn revoking_a_grant_stops_it_and_survives_a_reload() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(&w, &engine, "terminal", r#"{"command": "npm test"}"#).expect("proposal");
    let g = engine
        .grant(&w.s1, &p, Scope::Project, Effect::Allow, "zed")
        .expect("grant");
    assert!(engine.revoke(&g.id).expect("revoke"));
    assert!(!engine.revoke("g-nope").expect("revoke"));
    assert_eq!(
        w.eval(&engine, "terminal", r#"{"command": "npm test"}"#, Mode::Ask)
            .decision,
        Decision::Ask
    );
    let store = GrantStore::new(w.state.join("grants.jsonl"));
    assert!(store.load().expect("load").is_empty());
    let text = std::fs::read_to_string(store.path()).expect("read");
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.starts_with("{\"revoke\"")),
        "{text}"
    );
}

#[test]
fn duplicate_grants_are_skipped() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(&w, &engine, "terminal", r#"{"command": "npm test"}"#).expect("proposal");
    let a = engine
        .grant(&w.s1, &p, Scope::Project, Effect::Allow, "zed")
        .expect("grant");
    let b = engine
        .grant(&w.s1, &p, Scope::Project, Effect::Allow, "chat")
        .expect("grant");
    assert_eq!(a.id, b.id);
    let other = w.engine(&[], false);
    let c = other
        .grant(&w.s1, &p, Scope::Project, Effect::Allow, "zed")
        .expect("grant");
    assert_eq!(
        a.id, c.id,
        "another process's equal grant is found under the lock"
    );
    assert_eq!(
        GrantStore::new(w.state.join("grants.jsonl"))
            .load()
            .expect("load")
            .len(),
        1
    );
    let d = engine
        .grant(&w.s1, &p, Scope::User, Effect::Allow, "zed")
        .expect("grant");
    assert_ne!(a.id, d.id, "another scope is another grant");
}

#[test]
fn a_torn_or_corrupt_line_is_skipped_and_the_others_load() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(&w, &engine, "terminal", r#"{"command": "npm test"}"#).expect("proposal");
    engine
        .grant(&w.s1, &p, Scope::User, Effect::Allow, "zed")
        .expect("grant");
    let path = w.state.join("grants.jsonl");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("not json at all\n{\"grant\": {\"id\": 3}}\n\u{0}\u{1}\n{\"grant\":{\"id\":\"g-torn\",\"created_");
    std::fs::write(&path, text).expect("write");
    let store = GrantStore::new(&path);
    assert_eq!(store.load().expect("load").len(), 1);
    // A grant appended after a torn line cuts it off and starts on a line of its own.
    let q =
        proposal_of(&w, &engine, "terminal", r#"{"command": "cargo build"}"#).expect("proposal");
    engine
        .grant(&w.s1, &q, Scope::User, Effect::Allow, "zed")
        .expect("grant");
    assert_eq!(store.load().expect("load").len(), 2);
}

#[test]
fn the_grants_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(&w, &engine, "terminal", r#"{"command": "npm test"}"#).expect("proposal");
    engine
        .grant(&w.s1, &p, Scope::User, Effect::Allow, "zed")
        .expect("grant");
    let mode = std::fs::metadata(w.state.join("grants.jsonl"))
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn writers_granting_at_once_lose_nothing() {
    let w = World::new();
    let path = w.state.join("grants.jsonl");
    let engine = w.engine(&[], false);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let path = path.clone();
            let ws = w.ws.clone();
            std::thread::spawn(move || {
                // Each thread is its own writer, with its own file handles, like
                // another process.
                let engine = Engine::with_policy(
                    Policy::from_sources(&[], false),
                    &ws,
                    Some(GrantStore::new(&path)),
                );
                for i in 0..25 {
                    let proposal = warden_permissions::GrantProposal {
                        matchers: vec![GrantMatcher::Command {
                            prefix: vec![format!("tool{t}"), format!("sub{i}")],
                        }],
                        max_risk: Risk::High,
                        label: String::new(),
                        subject: String::new(),
                        widens: Default::default(),
                    };
                    engine
                        .grant(
                            &SessionGrants::new("s"),
                            &proposal,
                            Scope::User,
                            Effect::Allow,
                            "t",
                        )
                        .expect("grant");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    let grants = GrantStore::new(&path).load().expect("load");
    assert_eq!(grants.len(), 200);
    engine.reload_grants().expect("reload");
    assert_eq!(engine.grants(None).len(), 200);
    let _ = Layer::User;
}

/// `warden grants revoke` runs in another process while an agent's engine holds the
/// grant: the engine's next decision reads the file again and no longer allows. A
/// grant another process adds applies the same way.
#[test]
fn a_grant_revoked_by_another_process_stops_allowing_at_the_next_decision() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let npm = r#"{"command": "npm test"}"#;
    let p = proposal_of(&w, &engine, "terminal", npm).expect("proposal");
    let other = w.engine(&[], false);
    let g = other
        .grant(
            &SessionGrants::new("s2"),
            &p,
            Scope::Project,
            Effect::Allow,
            "zed",
        )
        .expect("grant");
    let e = w.eval(&engine, "terminal", npm, Mode::Ask);
    assert_eq!(e.decision, Decision::Allow, "{}", e.explanation);
    assert!(
        GrantStore::new(w.state.join("grants.jsonl"))
            .revoke(&g.id)
            .expect("revoke")
    );
    let e = w.eval(&engine, "terminal", npm, Mode::Ask);
    assert_eq!(e.decision, Decision::Ask, "{}", e.explanation);
}

/// `warden grants expire` rewrites the file (a new inode of about the same size):
/// what it dropped no longer allows in a running engine.
#[test]
fn a_grants_file_compacted_by_another_process_is_read_again() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let npm = r#"{"command": "npm test"}"#;
    let p = proposal_of(&w, &engine, "terminal", npm).expect("proposal");
    let in_an_hour = SystemTime::now() + Duration::from_secs(3600);
    engine
        .grant_until(
            &w.s1,
            &p,
            Scope::User,
            Effect::Allow,
            "zed",
            Some(in_an_hour),
        )
        .expect("grant");
    assert_eq!(
        w.eval(&engine, "terminal", npm, Mode::Ask).decision,
        Decision::Allow
    );
    // Compacting as of tomorrow drops the grant, as `warden grants expire` would then.
    let tomorrow = SystemTime::now() + Duration::from_secs(86_400);
    let store = GrantStore::new(w.state.join("grants.jsonl"));
    assert_eq!(store.expire(tomorrow).expect("expire"), 1);
    assert_eq!(
        w.eval(&engine, "terminal", npm, Mode::Ask).decision,
        Decision::Ask
    );
}

/// A crash during an append leaves a last line without its newline. Such a line was
/// never acknowledged, so it is not damage: every good grant keeps applying, those
/// stored after it too (the append that stores them cuts it off), and the engine
/// reports no error. (It once made every would-be-allowed call ask, for good.)
#[test]
fn a_torn_last_line_keeps_every_good_grant_applying() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let npm = r#"{"command": "npm test"}"#;
    let cargo = r#"{"command": "cargo build"}"#;
    let p = proposal_of(&w, &engine, "terminal", npm).expect("proposal");
    let q = proposal_of(&w, &engine, "terminal", cargo).expect("proposal");
    let g = engine
        .grant(&w.s1, &p, Scope::User, Effect::Allow, "zed")
        .expect("grant");
    let path = w.state.join("grants.jsonl");
    let good = std::fs::read_to_string(&path).expect("read");
    // The torn line is the start of a revocation of the grant: never acknowledged, so
    // it revokes nothing.
    std::fs::write(
        &path,
        format!("{good}{{\"revoke\":{{\"id\":\"{}\",\"at", g.id),
    )
    .expect("write");
    let e = w.eval(&engine, "terminal", npm, Mode::Ask);
    assert_eq!(e.decision, Decision::Allow, "{}", e.explanation);
    assert!(e.policy_errors.is_empty(), "{:?}", e.policy_errors);
    assert_eq!(engine.grants_error(), None);

    // Another process stores a grant after the torn line.
    let other = w.engine(&[], false);
    other
        .grant(
            &SessionGrants::new("s2"),
            &q,
            Scope::User,
            Effect::Allow,
            "zed",
        )
        .expect("grant");
    for engine in [&engine, &other, &w.engine(&[], false)] {
        for call in [npm, cargo] {
            let e = w.eval(engine, "terminal", call, Mode::Ask);
            assert_eq!(e.decision, Decision::Allow, "{call}: {}", e.explanation);
            assert!(e.policy_errors.is_empty(), "{:?}", e.policy_errors);
        }
    }
    let loaded = GrantStore::new(&path).load_checked().expect("load");
    assert_eq!(
        (loaded.grants.len(), loaded.skipped, loaded.torn),
        (2, 0, false)
    );
}

/// A line in the middle of the grants file that cannot be read may have been a
/// revocation or a "reject always": while it is there nothing is allowed unasked, the
/// grants that were read still deny, nothing is lost from the file, and the error says
/// how to repair it. Once `warden grants repair` has kept the line aside, the grants
/// allow again.
#[test]
fn middle_corruption_makes_allow_grants_ask_but_deny_grants_still_deny() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let npm = r#"{"command": "npm test"}"#;
    let cargo = r#"{"command": "cargo build"}"#;
    let p = proposal_of(&w, &engine, "terminal", npm).expect("proposal");
    let q = proposal_of(&w, &engine, "terminal", cargo).expect("proposal");
    engine
        .grant(&w.s1, &p, Scope::Project, Effect::Allow, "zed")
        .expect("grant");
    engine
        .grant(&w.s1, &q, Scope::Project, Effect::Deny, "zed")
        .expect("grant");
    assert_eq!(
        w.eval(&engine, "terminal", npm, Mode::Ask).decision,
        Decision::Allow
    );

    let path = w.state.join("grants.jsonl");
    let good = std::fs::read_to_string(&path).expect("read");
    let (first, second) = good.split_at(good.find('\n').expect("two lines") + 1);
    std::fs::write(&path, format!("{first}{{\"revoke\":{{\"id\":\n{second}")).expect("write");
    for mode in [Mode::Ask, Mode::AutoApprove] {
        let e = w.eval(&engine, "terminal", npm, mode);
        assert_eq!(e.decision, Decision::Ask, "{mode:?}: {}", e.explanation);
        assert!(
            matches!(&e.decided_by, DecidedBy::PolicyError { file, error }
                if file.ends_with("grants.jsonl")
                    && error.starts_with("1 unreadable line skipped")
                    && error.contains("warden grants repair")),
            "{:?}",
            e.decided_by
        );
        assert_eq!(e.policy_errors.len(), 1);
        let e = w.eval(&engine, "terminal", cargo, mode);
        assert_eq!(e.decision, Decision::Deny, "{mode:?}: {}", e.explanation);
    }
    let error = engine
        .grants_error()
        .expect("the engine says the grants are damaged");
    assert!(error.file.ends_with("grants.jsonl"), "{error:?}");
    assert_eq!(
        GrantStore::new(&path).load().expect("load").len(),
        2,
        "the grants that were read are still in the file"
    );

    let repair = GrantStore::new(&path)
        .repair(SystemTime::now())
        .expect("repair");
    assert_eq!((repair.kept, repair.unreadable), (2, 1));
    let e = w.eval(&engine, "terminal", npm, Mode::Ask);
    assert_eq!(e.decision, Decision::Allow, "{}", e.explanation);
    assert!(e.policy_errors.is_empty());
    assert_eq!(engine.grants_error(), None);
    assert_eq!(
        w.eval(&engine, "terminal", cargo, Mode::Ask).decision,
        Decision::Deny
    );
}

/// A grants file that becomes unreadable while the engine runs (here: replaced by a
/// folder) fails closed too, and the deny grants read before still deny.
#[test]
fn a_grants_file_that_becomes_unreadable_fails_closed() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let npm = r#"{"command": "npm test"}"#;
    let cargo = r#"{"command": "cargo build"}"#;
    let p = proposal_of(&w, &engine, "terminal", npm).expect("proposal");
    let q = proposal_of(&w, &engine, "terminal", cargo).expect("proposal");
    engine
        .grant(&w.s1, &p, Scope::Project, Effect::Allow, "zed")
        .expect("grant");
    engine
        .grant(&w.s1, &q, Scope::Project, Effect::Deny, "zed")
        .expect("grant");
    assert_eq!(
        w.eval(&engine, "terminal", npm, Mode::Ask).decision,
        Decision::Allow
    );
    let path = w.state.join("grants.jsonl");
    std::fs::rename(&path, w.state.join("grants.jsonl.bak")).expect("move");
    std::fs::create_dir(&path).expect("mkdir");
    let e = w.eval(&engine, "terminal", npm, Mode::Ask);
    assert_eq!(e.decision, Decision::Ask, "{}", e.explanation);
    assert!(
        matches!(&e.decided_by, DecidedBy::PolicyError { file, .. } if file.ends_with("grants.jsonl"))
    );
    assert_eq!(
        w.eval(&engine, "terminal", cargo, Mode::Ask).decision,
        Decision::Deny
    );
}

/// Destructive commands approved "always": (approved command, commands the grant
/// covers, commands it must not cover).
const EXACT_GRANT_CASES: &[(&str, &[&str], &[&str])] = &[
    (
        "git status && rm -rf build",
        &[
            "rm -rf build",
            "rm -fr build",
            "rm --recursive --force build",
            "git status && rm -rf build",
        ],
        &[
            "rm -rf src2",
            "rm -rf src",
            "rm -rf build src2",
            "rm -r build",
            "rm -rf build/..",
            "cd src && rm -rf build",
            "rm -rf ./build/../src2",
            "rm build",
            "unlink build",
        ],
    ),
    (
        "rm notes.txt",
        &["rm notes.txt"],
        &[
            "rm notes2.txt",
            "rm -f notes.txt",
            "rm notes.txt README.md",
            "rm README.md",
        ],
    ),
    (
        "mv a.txt b.txt",
        &["mv a.txt b.txt"],
        &[
            "mv a.txt README.md",
            "mv README.md b.txt",
            "mv src/main.rs b.txt",
        ],
    ),
    (
        "cp a.txt b.txt",
        &["cp a.txt b.txt"],
        &["cp a.txt README.md", "cp a.txt src/main.rs"],
    ),
    (
        "echo hi > out.txt",
        &["echo hi > out.txt"],
        &[
            "echo hi > README.md",
            "echo bye > out.txt",
            "echo hi > src/main.rs",
        ],
    ),
    (
        "touch new.txt",
        &["touch new.txt"],
        &["touch README.md", "touch src/new.txt"],
    ),
    (
        "git clean -fdx",
        &["git clean -fdx", "git clean -f -d -x"],
        &[
            "git clean -fdx src",
            "git clean -fd",
            "git clean -fdx -e keep",
        ],
    ),
    (
        "git reset --hard HEAD~1",
        &["git reset --hard HEAD~1"],
        &["git reset --hard HEAD~5", "git reset --hard origin/main"],
    ),
    (
        "git branch -D old",
        &["git branch -D old"],
        &["git branch -D main", "git branch -D old main"],
    ),
    (
        "kill 1234",
        &["kill 1234"],
        &["kill 1", "kill -9 1234", "kill 1234 1"],
    ),
    (
        "chmod 644 notes.txt",
        &["chmod 644 notes.txt"],
        &["chmod 777 notes.txt", "chmod 644 README.md"],
    ),
    (
        "mkdir -p gen/out",
        &["mkdir -p gen/out"],
        &["mkdir -p gen/other", "mkdir -p src/x"],
    ),
];

/// Approving "always" for a destructive command stores a grant for exactly that
/// command and the files it touched, never for its bare program: a grant from
/// `git status && rm -rf build` once covered every `rm`, and `rm -rf src2` later ran
/// unasked.
#[test]
fn a_grant_for_a_destructive_command_covers_exactly_that_command() {
    let w = World::new();
    std::fs::create_dir_all(w.ws.join("src2")).expect("mkdir");
    for (approved, covered, not_covered) in EXACT_GRANT_CASES {
        let engine = w.engine(&[], false);
        let p = proposal_of(
            &w,
            &engine,
            "terminal",
            &json!({"command": approved}).to_string(),
        )
        .unwrap_or_else(|| panic!("no proposal for {approved}"));
        assert!(
            p.matchers
                .iter()
                .all(|m| matches!(m, GrantMatcher::Exact { .. })),
            "{approved}: {p:?}"
        );
        engine
            .grant(&w.s1, &p, Scope::Session, Effect::Allow, "zed")
            .expect("grant");
        let d = |c: &str| w.eval_command(&engine, c, Mode::Ask).decision;
        for c in *covered {
            assert_eq!(d(c), Decision::Allow, "{approved} should cover {c}");
        }
        for c in *not_covered {
            assert_ne!(d(c), Decision::Allow, "{approved} must not cover {c}");
        }
    }
}

/// What broke: the grant for `echo hi > out.txt` was labelled `exactly "echo hi"`, as
/// if it were the harmless `echo hi`; the label names the file the redirection writes.
#[test]
fn regression_an_exact_grant_label_names_the_redirect_target() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let p = proposal_of(
        &w,
        &engine,
        "terminal",
        &json!({"command": "echo hi > out.txt"}).to_string(),
    )
    .expect("a proposal");
    assert_eq!(
        p.subject_plain(&w.ws),
        "exactly \"echo hi\" writing out.txt"
    );
    let out = w.ws.join("out.txt");
    assert_eq!(
        p.subject,
        format!("exactly `echo hi` writing {}", out.display())
    );
    // A file the command names itself is not named twice.
    let p = proposal_of(
        &w,
        &engine,
        "terminal",
        &json!({"command": "rm notes.txt"}).to_string(),
    )
    .expect("a proposal");
    assert_eq!(p.subject_plain(&w.ws), "exactly \"rm notes.txt\"");
}

/// No exact grant is proposed when a word is only known at run time or is a glob:
/// it is not the same command twice.
#[test]
fn no_grant_is_proposed_for_a_destructive_command_with_unknown_operands() {
    let w = World::new();
    let engine = w.engine(&[], false);
    for command in [
        "rm -rf $DIR",
        "rm -f *.o",
        "rm -rf \"$(cat list)\"",
        "kill $PID",
        "find . -delete",
        "rm --token=ghp_0123456789abcdefghijklmnopqrstuvwxyz01 x",
    ] {
        let e = w.eval_command(&engine, command, Mode::Ask);
        assert_ne!(e.decision, Decision::Allow, "{command}");
        assert!(e.proposal.is_none(), "{command}: {:?}", e.proposal);
    }
}

/// A program grant stored before destructive commands were granted exactly (or
/// written by hand) no longer covers them; a deny grant for the program still denies.
#[test]
fn a_stored_program_grant_no_longer_covers_a_destructive_command() {
    let w = World::new();
    let engine = w.engine(&[], false);
    let broad = |prefix: &[&str]| warden_permissions::GrantProposal {
        matchers: vec![GrantMatcher::Command {
            prefix: prefix.iter().map(|s| s.to_string()).collect(),
        }],
        max_risk: Risk::High,
        label: "x".into(),
        subject: "x".into(),
        widens: Default::default(),
    };
    for prefix in [&["rm"][..], &["git", "clean"], &["kill"], &["echo"]] {
        engine
            .grant(&w.s1, &broad(prefix), Scope::Session, Effect::Allow, "zed")
            .expect("grant");
    }
    let d = |c: &str| w.eval_command(&engine, c, Mode::Ask).decision;
    for c in [
        "rm -rf src",
        "git clean -fdx",
        "kill 1",
        "echo x > README.md",
    ] {
        assert_eq!(d(c), Decision::Ask, "{c}");
    }
    // Guards: a grant for a command that changes nothing still generalises.
    assert_eq!(d("echo hello"), Decision::Allow);
    engine
        .grant(&w.s1, &broad(&["rm"]), Scope::Session, Effect::Deny, "zed")
        .expect("grant");
    assert_eq!(d("rm notes.txt"), Decision::Deny);
}
