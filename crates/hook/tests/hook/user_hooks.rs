//! The user's hooks run as real processes: what they read, and what their answers
//! (or failures) do to a decision.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use warden_hook::user_hooks;
use warden_permissions::{
    Context, DecidedBy, Decision, Engine, HookEntry, HookSaid, Mode, Policy, SessionGrants,
    ToolCall, combine,
};

/// Writes an executable script into `dir` and returns its path.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn entry(path: &Path, timeout_secs: Option<u64>) -> HookEntry {
    HookEntry {
        command: path.display().to_string(),
        timeout_secs,
    }
}

/// The user's hooks the decision table runs: each answers one way, or fails one way.
struct Scripts {
    deny: PathBuf,
    allow: PathBuf,
    fail: PathBuf,
    slow: PathBuf,
    garbage: PathBuf,
    reads: PathBuf,
}

impl Scripts {
    fn new(root: &Path) -> Scripts {
        let deny = script(
            root,
            "deny.sh",
            r#"echo '{"decision": "deny", "reason": "not on Fridays"}'"#,
        );
        let allow = script(
            root,
            "allow.sh",
            r#"echo '{"decision": "allow", "reason": "fine by me"}'"#,
        );
        let fail = script(root, "fail.sh", "exit 1");
        let slow = script(root, "slow.sh", "sleep 30");
        let garbage = script(root, "garbage.sh", "echo 'sure, go ahead'");
        // It reads the call and the evaluation from its input, and denies only writes.
        let reads = script(
            root,
            "reads.sh",
            r#"input=$(cat)
case "$input" in
  *'"call":{"tool":"fs_write"'*'"evaluation":{"decision":"ask"'*) echo '{"decision": "deny", "reason": "saw a write"}' ;;
  *) echo '{"decision": "allow"}' ;;
esac"#,
        );
        Scripts {
            deny,
            allow,
            fail,
            slow,
            garbage,
            reads,
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn real_hooks_make_calls_stricter_or_looser_within_bounds_and_failures_ask() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let engine = Engine::with_policy(Policy::from_sources(&[], false), &root, None);
    let ctx = Context::new(&root);
    let grants = SessionGrants::new("s");
    let hook = Scripts::new(&root);
    let ls = ToolCall::new("terminal", serde_json::json!({"command": "ls"}));
    let write = ToolCall::new(
        "fs_write",
        serde_json::json!({"path": "a.txt", "content": "x"}),
    );
    let critical = ToolCall::new("terminal", serde_json::json!({"command": "rm -rf ~"}));
    // (what, hooks, call, decision after the hooks, whether a hook decided)
    let cases = [
        (
            "stricter: deny a low-risk call",
            vec![entry(&hook.deny, None)],
            &ls,
            Decision::Deny,
            true,
        ),
        (
            "looser within bounds: allow an asked write",
            vec![entry(&hook.allow, None)],
            &write,
            Decision::Allow,
            true,
        ),
        (
            "looser out of bounds: a Critical call",
            vec![entry(&hook.allow, None)],
            &critical,
            Decision::Ask,
            false,
        ),
        (
            "failing: exit 1",
            vec![entry(&hook.fail, None)],
            &ls,
            Decision::Ask,
            true,
        ),
        (
            "slow: past its timeout",
            vec![entry(&hook.slow, Some(1))],
            &ls,
            Decision::Ask,
            true,
        ),
        (
            "garbage",
            vec![entry(&hook.garbage, None)],
            &ls,
            Decision::Ask,
            true,
        ),
        (
            "missing program",
            vec![entry(&root.join("nowhere.sh"), None)],
            &ls,
            Decision::Ask,
            true,
        ),
        (
            "reads its input: a write",
            vec![entry(&hook.reads, None)],
            &write,
            Decision::Deny,
            true,
        ),
        (
            "reads its input: a command",
            vec![entry(&hook.reads, None)],
            &ls,
            Decision::Allow,
            false,
        ),
    ];
    let mut failures = Vec::new();
    for (what, hooks, call, expected, by_hook) in cases {
        let evaluation = engine.evaluate(call, &ctx, Mode::Ask, &grants);
        let said = user_hooks::run(&hooks, &root, call, &evaluation).await;
        assert_eq!(said.len(), hooks.len(), "{what}");
        let combined = combine(evaluation, said);
        if combined.decision != expected {
            failures.push(format!(
                "{what}: {:?}, expected {expected:?}: {:?}",
                combined.decision, combined.hooks
            ));
        }
        if matches!(combined.decided_by, DecidedBy::Hook { .. }) != by_hook {
            failures.push(format!("{what}: decided by {:?}", combined.decided_by));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_slow_hook_is_reported_as_timed_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let slow = script(&root, "slow.sh", "sleep 30");
    let (call, evaluation) = ls_evaluated(&root);
    let said = user_hooks::run(&[entry(&slow, Some(1))], &root, &call, &evaluation).await;
    let [(_, HookSaid::Failed { problem })] = said.as_slice() else {
        panic!("{said:?}");
    };
    assert!(problem.contains("within 1 s"), "{problem}");
}

/// `ls` as a `terminal` call, and its evaluation in `ask` mode under the built-in
/// policy in `root`: what the hooks below are given.
fn ls_evaluated(root: &Path) -> (ToolCall, warden_permissions::Evaluation) {
    let engine = Engine::with_policy(Policy::from_sources(&[], false), root, None);
    let call = ToolCall::new("terminal", serde_json::json!({"command": "ls"}));
    let evaluation = engine.evaluate(
        &call,
        &Context::new(root),
        Mode::Ask,
        &SessionGrants::new("s"),
    );
    (call, evaluation)
}

/// Whether the process is gone: no such process, or one that has exited and waits to be
/// reaped by whoever inherited it.
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Waits (up to a bound, for the kill to be delivered) until the process is gone.
fn ends(pid: &str) -> bool {
    for _ in 0..500 {
        if gone(pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    false
}

/// What a hook left running in the background is ended with the hook: one that keeps
/// the hook's output open (so the hook runs out of time), one that let go of it (so the
/// hook answers at once), and one started by a hook that runs out of time itself.
#[tokio::test(flavor = "current_thread")]
async fn regression_nothing_a_hook_started_in_the_background_outlives_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (call, evaluation) = ls_evaluated(&root);
    let cases = [
        (
            "holds the output",
            "sleep 60 & echo $! > pid; echo '{\"decision\": \"allow\"}'",
            false,
        ),
        (
            "lets go of the output",
            "sleep 60 > /dev/null 2>&1 & echo $! > pid; echo '{\"decision\": \"allow\"}'",
            true,
        ),
        ("runs out of time", "sleep 60 & echo $! > pid; wait", false),
    ];
    for (i, (what, body, answers)) in cases.into_iter().enumerate() {
        let hook = script(&root, &format!("background-{i}.sh"), body);
        let said = user_hooks::run(&[entry(&hook, Some(1))], &root, &call, &evaluation).await;
        assert_eq!(
            matches!(said.as_slice(), [(_, HookSaid::Answered { .. })]),
            answers,
            "{what}: {said:?}"
        );
        let pid = std::fs::read_to_string(root.join("pid")).unwrap();
        let pid = pid.trim();
        assert!(
            ends(pid),
            "{what}: the hook's background process {pid} outlived it"
        );
        std::fs::remove_file(root.join("pid")).unwrap();
    }
}
