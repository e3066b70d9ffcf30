//! Preferences per client: `client` globs on rules and `[[client]]` defaults, matched
//! against `clientInfo.name` (case-insensitive; `unknown` for a client that sends none).

use warden_permissions::policy::Source;
use warden_permissions::{DecidedBy, Decision, Engine, Layer, Mode, Policy, UNKNOWN_CLIENT};

use super::support::World;

fn sources(layers: &[(Layer, &str)]) -> Vec<Source> {
    layers
        .iter()
        .map(|(layer, text)| Source::text(*layer, format!("{}.toml", layer.as_str()), *text))
        .collect()
}

fn engine(world: &World, layers: &[(Layer, &str)], trusted: bool, client: &str) -> Engine {
    let policy = Policy::for_client(&sources(layers), trusted, client);
    Engine::with_policy(policy, &world.ws, None)
}

const CLIENT_RULES: &str = r#"
[[rule]]
id = "no-terminal-for-ci"
client = "ci-*"
tool = "terminal"
decision = "deny"
reason = "scripted clients run no commands"

[[rule]]
id = "zed-may-build"
client = "Zed"
tool = "terminal"
command = "cargo build"
decision = "allow"

[[rule]]
id = "anonymous-ask"
client = "unknown"
tool = "fs_read"
decision = "ask"
"#;

/// One row per (client, call): which rule decides, if any.
#[test]
fn client_globs_choose_which_rules_exist_for_a_client() {
    let world = World::new();
    let table: &[(&str, &str, &str, Decision, Option<&str>)] = &[
        (
            "ci-runner",
            "terminal",
            r#"{"command":"ls"}"#,
            Decision::Deny,
            Some("no-terminal-for-ci"),
        ),
        (
            "CI-nightly",
            "terminal",
            r#"{"command":"cargo build"}"#,
            Decision::Deny,
            Some("no-terminal-for-ci"),
        ),
        (
            "zed",
            "terminal",
            r#"{"command":"cargo build"}"#,
            Decision::Allow,
            Some("zed-may-build"),
        ),
        (
            "ZED",
            "terminal",
            r#"{"command":"cargo build"}"#,
            Decision::Allow,
            Some("zed-may-build"),
        ),
        (
            "vscode",
            "terminal",
            r#"{"command":"cargo build"}"#,
            Decision::Ask,
            None,
        ),
        (
            UNKNOWN_CLIENT,
            "terminal",
            r#"{"command":"cargo build"}"#,
            Decision::Ask,
            None,
        ),
        (
            UNKNOWN_CLIENT,
            "fs_read",
            r#"{"path":"README.md"}"#,
            Decision::Ask,
            Some("anonymous-ask"),
        ),
        (
            "zed",
            "fs_read",
            r#"{"path":"README.md"}"#,
            Decision::Allow,
            None,
        ),
    ];
    let mut failures = Vec::new();
    for (client, tool, args, decision, rule) in table {
        let engine = engine(&world, &[(Layer::User, CLIENT_RULES)], false, client);
        let evaluation = world.eval(&engine, tool, args, Mode::Ask);
        let decided_by_rule = match &evaluation.decided_by {
            DecidedBy::Rule {
                id,
                layer: Layer::User,
                ..
            } => Some(id.clone()),
            _ => None,
        };
        if evaluation.decision != *decision || decided_by_rule.as_deref() != *rule {
            failures.push(format!(
                "{client} {tool} {args}: {:?} by {decided_by_rule:?}, expected {decision:?} by {rule:?}",
                evaluation.decision
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_policy_without_a_client_is_the_policy_of_a_client_that_sent_no_name() {
    let plain = Policy::from_sources(&sources(&[(Layer::User, CLIENT_RULES)]), false);
    assert_eq!(plain.client, UNKNOWN_CLIENT);
    let ids: Vec<String> = plain.rules.iter().map(|r| r.label()).collect();
    assert_eq!(ids, ["anonymous-ask"]);
}

const DEFAULTS: &str = r#"
mode = "accept-edits"
approval_timeout_secs = 30

[[client]]
name = "ci-*"
mode = "auto-deny"

[[client]]
name = "slow-reader"
approval_timeout_secs = 600

[[client]]
name = "unknown"
mode = "read-only"
"#;

/// One row per client: the mode and approval timeout its sessions start with.
#[test]
fn client_tables_set_a_clients_mode_and_timeout() {
    let table: &[(&str, Mode, u64, Option<Mode>)] = &[
        ("ci-runner", Mode::AutoDeny, 30, Some(Mode::AutoDeny)),
        ("CI-Runner", Mode::AutoDeny, 30, Some(Mode::AutoDeny)),
        ("slow-reader", Mode::AcceptEdits, 600, None),
        (UNKNOWN_CLIENT, Mode::ReadOnly, 30, Some(Mode::ReadOnly)),
        ("zed", Mode::AcceptEdits, 30, None),
    ];
    for (client, mode, secs, client_mode) in table {
        let policy = Policy::for_client(&sources(&[(Layer::User, DEFAULTS)]), false, client);
        assert_eq!(policy.settings.mode, *mode, "{client}");
        assert_eq!(policy.settings.approval_timeout_secs, *secs, "{client}");
        assert_eq!(policy.client_mode, *client_mode, "{client}");
        assert!(policy.errors.is_empty(), "{:?}", policy.errors);
    }
}

/// The managed policy's own settings still win over the user's per-client defaults, and
/// its `[[client]]` entries over both.
#[test]
fn the_managed_policy_wins_over_the_users_client_defaults() {
    let user = "[[client]]\nname = \"*\"\nmode = \"auto-approve\"\napproval_timeout_secs = 5\n";
    let managed_mode = "mode = \"ask\"\n";
    let policy = Policy::for_client(
        &sources(&[(Layer::User, user), (Layer::Managed, managed_mode)]),
        false,
        "zed",
    );
    assert_eq!(policy.settings.mode, Mode::Ask);
    assert_eq!(policy.settings.approval_timeout_secs, 5);

    let managed_client = "[[client]]\nname = \"zed\"\nmode = \"read-only\"\n";
    let policy = Policy::for_client(
        &sources(&[(Layer::User, user), (Layer::Managed, managed_client)]),
        false,
        "zed",
    );
    assert_eq!(policy.settings.mode, Mode::ReadOnly);
    assert_eq!(policy.client_mode, Some(Mode::ReadOnly));
}

/// A project cannot choose how its own calls are asked about: its `[[client]]` tables are
/// never read, trusted or not; its `client` rules obey the usual trust rules.
#[test]
fn a_projects_client_tables_are_ignored_and_its_client_rules_obey_trust() {
    let world = World::new();
    let project = r#"
[[client]]
name = "*"
mode = "auto-approve"

[[rule]]
id = "project-allows-zed"
client = "zed"
tool = "fs_write"
decision = "allow"
"#;
    for trusted in [false, true] {
        let policy = Policy::for_client(&sources(&[(Layer::Project, project)]), trusted, "zed");
        assert_eq!(policy.settings.mode, Mode::Ask, "trusted: {trusted}");
        assert_eq!(policy.client_mode, None, "trusted: {trusted}");
    }
    let write = r#"{"path":"src/main.rs","content":"x"}"#;
    let untrusted = engine(&world, &[(Layer::Project, project)], false, "zed");
    assert_eq!(
        world
            .eval(&untrusted, "fs_write", write, Mode::Ask)
            .decision,
        Decision::Ask
    );
    let trusted = engine(&world, &[(Layer::Project, project)], true, "zed");
    assert_eq!(
        world.eval(&trusted, "fs_write", write, Mode::Ask).decision,
        Decision::Allow
    );
    let other = engine(&world, &[(Layer::Project, project)], true, "vscode");
    assert_eq!(
        world.eval(&other, "fs_write", write, Mode::Ask).decision,
        Decision::Ask
    );
}

#[test]
fn a_client_glob_that_does_not_compile_is_a_problem_of_its_file() {
    let bad_rule = "[[rule]]\nclient = \"[\"\ntool = \"terminal\"\ndecision = \"deny\"\n";
    let bad_table = "[[client]]\nname = \"[\"\nmode = \"auto-approve\"\n";
    for text in [bad_rule, bad_table] {
        let policy = Policy::for_client(&sources(&[(Layer::User, text)]), false, "[");
        assert_eq!(policy.errors.len(), 1, "{text}: {:?}", policy.errors);
        assert_eq!(policy.settings.mode, Mode::Ask, "{text}");
    }
}
