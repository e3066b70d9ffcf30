//! The analysis horizon fails closed: a command the engine did not fully analyse (a
//! parse error, a limit on size, parts, tree depth or script nesting, a program only
//! known at run time) is Critical, so it never runs unasked in any mode, whatever the
//! allow rules, and modes that cannot ask deny it. Commands just inside every limit
//! are still judged on what they do (the guards against over-prompting).

use warden_permissions::shell::{MAX_NESTING, MAX_PARSE_BYTES, MAX_SEGMENTS};
use warden_permissions::{Decision, Layer, Mode, Risk};

use super::support::World;

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `bash -c` around `inner`, `levels` times.
fn nested(inner: &str, levels: usize) -> String {
    (0..levels).fold(inner.to_string(), |acc, _| {
        format!("bash -c {}", quote(&acc))
    })
}

/// `n` parts joined with `;`.
fn parts(part: &str, n: usize) -> String {
    vec![part; n].join("; ")
}

/// Commands the engine cannot fully read, each with what it is past.
fn unread() -> Vec<(&'static str, String)> {
    vec![
        ("nesting", nested("ls", MAX_NESTING + 1)),
        ("nesting", nested("true", MAX_NESTING + 3)),
        (
            "nesting",
            format!("echo ok && {}", nested("ls", MAX_NESTING + 1)),
        ),
        ("nesting", nested("eval ls", MAX_NESTING)),
        ("parts", parts("ls", MAX_SEGMENTS + 1)),
        ("parts", parts("echo ok", MAX_SEGMENTS * 2)),
        (
            "parts",
            format!("{}; rm -rf build", parts("ls", MAX_SEGMENTS)),
        ),
        (
            "tree depth",
            format!("{}ls{}", "(".repeat(300), ")".repeat(300)),
        ),
        (
            "tree depth",
            format!("{}ls{}", "$(".repeat(150), ")".repeat(150)),
        ),
        (
            "tree depth",
            format!("{}ls{}", "{ ".repeat(250), "; }".repeat(250)),
        ),
        ("size", format!("echo {}", "a".repeat(MAX_PARSE_BYTES + 1))),
        ("size", format!("ls; #{}", "x".repeat(MAX_PARSE_BYTES))),
        ("parse error", "echo \"unterminated".to_string()),
        ("parse error", "ls &&".to_string()),
        ("parse error", "if then fi".to_string()),
        ("parse error", "ls )".to_string()),
        ("parse error", "{rm,-rf,/}".to_string()),
        ("opaque program", "$EDITOR file.txt".to_string()),
        ("opaque program", "$X".to_string()),
        ("opaque program", "$(echo ls) src".to_string()),
        ("opaque program", "`echo ls`".to_string()),
        ("opaque program", "ls && ${TOOL} --flag".to_string()),
        ("opaque script", "bash -c \"$CMD\"".to_string()),
        ("opaque script", "eval \"$CMD\"".to_string()),
        ("opaque script", "sh -c \"$(cat script)\"".to_string()),
        ("unknown wrapper option", "timeout --bogus 5 ls".to_string()),
    ]
}

/// Commands just inside every limit, which stay Low and allowed in `ask`.
fn within() -> Vec<String> {
    vec![
        nested("ls", MAX_NESTING),
        parts("ls", MAX_SEGMENTS - 1),
        format!("{}ls{}", "( ".repeat(20), " )".repeat(20)),
        format!("{}ls{}", "echo $(".repeat(10), ")".repeat(10)),
        format!("echo {}", "a".repeat(9 * 1024)),
        "ls src && git status".to_string(),
        "for f in a b; do echo \"$f\"; done".to_string(),
        "echo $HOME".to_string(),
    ]
}

const POLICIES: &[(&str, &[(Layer, &str)])] = &[
    ("built-in only", &[]),
    (
        "allow everything",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"*\"\ndecision = \"allow\"\n",
        )],
    ),
    (
        "allow terminal",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"terminal\"\ndecision = \"allow\"\n",
        )],
    ),
    (
        "terminal auto-approved",
        &[(Layer::User, "auto_approved_tools = [\"terminal\"]\n")],
    ),
];

#[test]
fn what_was_not_analysed_never_runs_unasked() {
    let world = World::new();
    let mut failures = Vec::new();
    let mut cases = 0;
    for (name, layers) in POLICIES {
        let engine = world.engine(layers, false);
        for (why, command) in unread() {
            for mode in Mode::ALL {
                cases += 1;
                let e = world.eval_command(&engine, &command, mode);
                let expected = if mode.can_ask() {
                    Decision::Ask
                } else {
                    Decision::Deny
                };
                if e.risk != Risk::Critical || e.decision != expected {
                    failures.push(format!(
                        "{why} under {name} in {mode}: {}: expected critical {expected}, got {} {} ({})",
                        &command.chars().take(60).collect::<String>(),
                        e.risk,
                        e.decision,
                        e.explanation
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases >= 400, "only {cases} cases");
}

#[test]
fn what_was_not_analysed_is_denied_by_a_critical_deny_rule() {
    let world = World::new();
    let engine = world.engine(
        &[(
            Layer::User,
            "[[rule]]\nrisk = \"critical\"\ndecision = \"deny\"\n",
        )],
        false,
    );
    for (why, command) in unread() {
        for mode in Mode::ALL {
            let e = world.eval_command(&engine, &command, mode);
            assert_eq!(e.decision, Decision::Deny, "{why} in {mode}: {command:.60}");
        }
    }
}

#[test]
fn commands_inside_the_limits_are_judged_on_what_they_do() {
    let world = World::new();
    let engine = world.engine(&[], false);
    for command in within() {
        let e = world.eval_command(&engine, &command, Mode::Ask);
        assert_eq!(
            (e.risk, e.decision),
            (Risk::Low, Decision::Allow),
            "{:.80}: {}",
            command,
            e.explanation
        );
    }
}
