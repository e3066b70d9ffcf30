//! The user's hooks (`[[hook]]`): how their answers combine with the evaluation
//! (stricter always, looser only within bounds, failures count as `ask`), how their
//! output is read, and where a `[[hook]]` entry is refused.

use warden_permissions::policy::Source;
use warden_permissions::{
    DecidedBy, Decision, Engine, HookSaid, Layer, Mode, Policy, Severity, combine, lint,
};

use super::support::World;

fn answered(decision: Decision) -> HookSaid {
    HookSaid::Answered {
        decision,
        reason: Some(format!("the hook says {}", decision.as_str())),
    }
}

fn failed() -> HookSaid {
    HookSaid::Failed {
        problem: "timed out after 1 s".to_owned(),
    }
}

const DENY_WRITES: &str = r#"
[[rule]]
id = "no-writes"
tool = "fs_write"
decision = "deny"
"#;

const WRITE: &str = r#"{"path": "notes.txt", "content": "x"}"#;

const ASK_WRITES: &str = r#"
[[rule]]
id = "ask-writes"
tool = "fs_write"
decision = "ask"
"#;

/// Stricter answers always apply.
#[test]
fn hook_answers_stricter_than_the_engine_always_apply() {
    let w = World::new();
    let plain = w.engine(&[], false);
    check_cases(
        &w,
        vec![
            (
                "deny a low-risk command",
                &plain,
                "terminal",
                r#"{"command": "ls"}"#,
                Mode::Ask,
                Decision::Allow,
                vec![answered(Decision::Deny)],
                Decision::Deny,
            ),
            (
                "ask about a low-risk command",
                &plain,
                "terminal",
                r#"{"command": "ls"}"#,
                Mode::Ask,
                Decision::Allow,
                vec![answered(Decision::Ask)],
                Decision::Ask,
            ),
            (
                "ask where nobody can be asked",
                &plain,
                "terminal",
                r#"{"command": "ls"}"#,
                Mode::ReadOnly,
                Decision::Allow,
                vec![answered(Decision::Ask)],
                Decision::Deny,
            ),
            (
                "deny what the mode asks",
                &plain,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Deny)],
                Decision::Deny,
            ),
            (
                "one deny among allows",
                &plain,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow), answered(Decision::Deny)],
                Decision::Deny,
            ),
        ],
    );
}

/// Looser answers apply to what the mode alone asked.
#[test]
fn hook_answers_looser_than_the_mode_apply_within_bounds() {
    let w = World::new();
    let plain = w.engine(&[], false);
    check_cases(
        &w,
        vec![
            (
                "allow what the mode asks",
                &plain,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow)],
                Decision::Allow,
            ),
            (
                "every hook allows",
                &plain,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow), answered(Decision::Allow)],
                Decision::Allow,
            ),
        ],
    );
}

/// Looser answers past a rule, a Critical call, the sandbox or a mode that denies are ignored.
#[test]
fn hook_answers_looser_out_of_bounds_are_ignored() {
    let w = World::new();
    let plain = w.engine(&[], false);
    let deny_rule = w.engine(&[(Layer::User, DENY_WRITES)], false);
    let ask_rule = w.engine(&[(Layer::User, ASK_WRITES)], false);
    check_cases(
        &w,
        vec![
            (
                "allow past a deny rule",
                &deny_rule,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Deny,
                vec![answered(Decision::Allow)],
                Decision::Deny,
            ),
            (
                "allow past an ask rule",
                &ask_rule,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow)],
                Decision::Ask,
            ),
            (
                "allow a Critical call",
                &plain,
                "terminal",
                r#"{"command": "rm -rf ~"}"#,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow)],
                Decision::Ask,
            ),
            (
                "allow a call that needs the network",
                &plain,
                "terminal",
                r#"{"command": "curl -o /tmp/x https://example.com"}"#,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow)],
                Decision::Ask,
            ),
            (
                "allow what the mode denies",
                &plain,
                "fs_write",
                WRITE,
                Mode::ReadOnly,
                Decision::Deny,
                vec![answered(Decision::Allow)],
                Decision::Deny,
            ),
            (
                "allow beside a hook that asks",
                &plain,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow), answered(Decision::Ask)],
                Decision::Ask,
            ),
        ],
    );
}

/// A failure (an error, a timeout, garbage) is an ask.
#[test]
fn a_failing_hook_is_an_ask() {
    let w = World::new();
    let plain = w.engine(&[], false);
    check_cases(
        &w,
        vec![
            (
                "a failing hook on an allowed call",
                &plain,
                "terminal",
                r#"{"command": "ls"}"#,
                Mode::Ask,
                Decision::Allow,
                vec![failed()],
                Decision::Ask,
            ),
            (
                "a failing hook beside an allow",
                &plain,
                "fs_write",
                WRITE,
                Mode::Ask,
                Decision::Ask,
                vec![answered(Decision::Allow), failed()],
                Decision::Ask,
            ),
            (
                "garbage on an allowed call",
                &plain,
                "terminal",
                r#"{"command": "ls"}"#,
                Mode::Ask,
                Decision::Allow,
                vec![HookSaid::from_output(b"sure, go ahead")],
                Decision::Ask,
            ),
        ],
    );
}

/// (what, engine, tool, args, mode, what the engine decides, the hooks' answers, the
/// decision after them)
type Case<'a> = (
    &'a str,
    &'a Engine,
    &'a str,
    &'a str,
    Mode,
    Decision,
    Vec<HookSaid>,
    Decision,
);

/// Combines each case's answers with the engine's evaluation, and fails with every
/// case whose decision, reports, decider or applied flags are not what they should be.
fn check_cases(w: &World, cases: Vec<Case>) {
    let mut failures = Vec::new();
    for (what, engine, tool, args, mode, engine_says, said, expected) in cases {
        let evaluation = w.eval(engine, tool, args, mode);
        assert_eq!(evaluation.decision, engine_says, "{what}: the engine alone");
        let count = said.len();
        let named = said
            .into_iter()
            .enumerate()
            .map(|(i, s)| (format!("hook-{i}"), s))
            .collect();
        let combined = combine(evaluation, named);
        if combined.decision != expected {
            failures.push(format!(
                "{what}: {:?}, expected {expected:?} (decided by {:?})",
                combined.decision, combined.decided_by
            ));
        }
        if combined.hooks.len() != count {
            failures.push(format!(
                "{what}: {} reports for {count} hooks",
                combined.hooks.len()
            ));
        }
        let changed = combined.decision != engine_says;
        if changed != matches!(combined.decided_by, DecidedBy::Hook { .. }) {
            failures.push(format!("{what}: decided by {:?}", combined.decided_by));
        }
        if changed != combined.hooks.iter().any(|r| r.applied) {
            failures.push(format!("{what}: applied flags {:?}", combined.hooks));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_hooks_output_is_one_answer_object_or_a_failure() {
    let cases: [(&[u8], Option<Decision>); 8] = [
        (br#"{"decision": "allow"}"#, Some(Decision::Allow)),
        (
            b"  {\"decision\": \"deny\", \"reason\": \"no\"}\n",
            Some(Decision::Deny),
        ),
        (
            br#"{"decision": "ask", "reason": "why not", "extra": 1}"#,
            Some(Decision::Ask),
        ),
        (br#"{"decision": "maybe"}"#, None),
        (br#"{"reason": "no decision"}"#, None),
        (br#"{"decision": "allow"}{"decision": "allow"}"#, None),
        (b"", None),
        (b"allow", None),
    ];
    for (output, expected) in cases {
        let said = HookSaid::from_output(output);
        let got = match &said {
            HookSaid::Answered { decision, .. } => Some(*decision),
            HookSaid::Failed { .. } => None,
        };
        assert_eq!(got, expected, "{}", String::from_utf8_lossy(output));
        // Whatever it printed, a failure stands for `ask`.
        assert_eq!(said.decision(), expected.unwrap_or(Decision::Ask));
    }
}

const HOOK: &str = r#"
[[hook]]
command = "my-check"
timeout_secs = 1
"#;

#[test]
fn hooks_are_read_from_the_user_and_managed_policy_and_refused_in_a_project() {
    let user = Source::text(Layer::User, "user.toml", HOOK);
    let managed = Source::text(
        Layer::Managed,
        "managed.toml",
        HOOK.replace("my-check", "corp-check"),
    );
    let project = Source::text(
        Layer::Project,
        ".warden/policy.toml",
        HOOK.replace("my-check", "evil"),
    );
    let policy = Policy::from_sources(&[user, project.clone(), managed], true);
    let commands: Vec<&str> = policy.hooks.iter().map(|h| h.command.as_str()).collect();
    assert_eq!(commands, ["my-check", "corp-check"]);
    assert_eq!(policy.hooks[0].timeout().as_secs(), 1);
    assert!(
        policy
            .errors
            .iter()
            .any(|e| e.layer == Layer::Project && e.error.contains("[[hook]]")),
        "{:?}",
        policy.errors
    );
    let findings = lint(&[project]);
    assert!(
        findings
            .iter()
            .any(|f| f.kind == "hook" && f.severity == Severity::Error),
        "{findings:?}"
    );
}

#[test]
fn a_hook_entry_without_a_timeout_waits_two_seconds_and_unknown_keys_are_errors() {
    let policy = Policy::from_sources(
        &[Source::text(
            Layer::User,
            "user.toml",
            "[[hook]]\ncommand = \"x\"\n",
        )],
        false,
    );
    assert_eq!(policy.hooks[0].timeout().as_secs(), 2);
    let typo = Source::text(
        Layer::User,
        "user.toml",
        "[[hook]]\ncommand = \"x\"\ntimeout = 3\n",
    );
    let findings = lint(&[typo]);
    assert!(
        findings
            .iter()
            .any(|f| f.kind == "parse" && f.message.contains("timeout")),
        "{findings:?}"
    );
}
