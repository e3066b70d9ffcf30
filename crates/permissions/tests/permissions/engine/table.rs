//! The decision table: one line a case, in `table.txt`.
//!
//! A line is `RISK DECISION [OPTIONS] | TOOL | ARGS`. ARGS is JSON in which `$WS`
//! (the workspace), `$HOME` and `$ROOT` are replaced, or for `terminal` a bare
//! command line (which may itself contain ` | `). OPTIONS are `mode=ID` (default
//! `ask`) and `policy=NAME`, one of [`POLICIES`] (default: no policy files, the
//! built-in defaults only). `#` starts a comment line.

use warden_permissions::{Decision, Layer, Mode, Risk};

use super::support::World;

/// Named policies the table refers to: layers, weakest first, and whether the
/// project is trusted.
/// A named policy: its layers (weakest first) and whether the project is trusted.
type NamedPolicy = (&'static str, &'static [(Layer, &'static str)], bool);

const POLICIES: &[NamedPolicy] = &[
    (
        "deny_rm_rf",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"terminal\"\ncommand = \"rm -rf\"\ndecision = \"deny\"\n",
        )],
        false,
    ),
    (
        "allow_git_status",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "allow_npm",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"terminal\"\ncommand = \"npm *\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "allow_cargo_test",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"terminal\"\ncommand = \"cargo test\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "deny_git_push",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"terminal\"\ncommand = \"git push\"\ndecision = \"deny\"\n",
        )],
        false,
    ),
    (
        "mcp_github",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"mcp__github__delete_*\"\ndecision = \"deny\"\n\n[[rule]]\ntool = \"mcp__github__*\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "mcp_args",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"mcp__github__*\"\nargs = { repo = \"acme/*\" }\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "allow_src_writes",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"fs_*\"\npath = \"src/**\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "deny_env",
        &[(
            Layer::User,
            "[[rule]]\npath = \"**/.env*\"\ndecision = \"deny\"\n",
        )],
        false,
    ),
    (
        "domains",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"http_fetch\"\ndomain = \"docs.rs\"\ndecision = \"allow\"\n\n[[rule]]\ntool = \"http_fetch\"\ndomain = \"*.example.com\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "deny_critical",
        &[(
            Layer::User,
            "[[rule]]\nrisk = \"critical\"\ndecision = \"deny\"\n",
        )],
        false,
    ),
    (
        "allow_high",
        &[(
            Layer::User,
            "[[rule]]\nrisk = \"high\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "allow_everything",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"*\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "project_allow_untrusted",
        &[(
            Layer::Project,
            "[[rule]]\ntool = \"terminal\"\ndecision = \"allow\"\n\n[[rule]]\ntool = \"fs_read\"\npath = \"README.md\"\ndecision = \"deny\"\n",
        )],
        false,
    ),
    (
        "project_allow_trusted",
        &[(
            Layer::Project,
            "[[rule]]\ntool = \"terminal\"\ndecision = \"allow\"\n",
        )],
        true,
    ),
    (
        "managed_ask_user_allow",
        &[
            (
                Layer::User,
                "[[rule]]\ntool = \"http_fetch\"\ndecision = \"allow\"\n",
            ),
            (
                Layer::Managed,
                "[[rule]]\ntool = \"http_fetch\"\ndecision = \"ask\"\n",
            ),
        ],
        true,
    ),
    (
        "broken",
        &[(
            Layer::User,
            "[[rule]]\ntool = \"terminal\"\ncommnd = \"ls\"\ndecision = \"allow\"\n",
        )],
        false,
    ),
    (
        "auto_read",
        &[(
            Layer::User,
            "auto_approved_tools = [\"fs_read\", \"mcp__*\"]\n",
        )],
        false,
    ),
    (
        "hints_trust",
        &[(Layer::User, "model_risk_hints = \"trust\"\n")],
        false,
    ),
    (
        "hints_ignore",
        &[(Layer::User, "model_risk_hints = \"ignore\"\n")],
        false,
    ),
];

struct Case {
    line: usize,
    risk: Risk,
    decision: Decision,
    tool: String,
    args: String,
    mode: Mode,
    policy: Option<String>,
}

fn parse(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.splitn(3, " | ").map(str::trim).collect();
        assert!(cols.len() == 3, "line {line_no}: needs 3 columns: {line}");
        let mut head = cols[0].split_whitespace();
        let (Some(risk), Some(decision)) = (head.next(), head.next()) else {
            panic!("line {line_no}: `RISK DECISION`");
        };
        let mut case = Case {
            line: line_no,
            risk: Risk::parse(risk).unwrap_or_else(|| panic!("line {line_no}: risk {risk}")),
            decision: serde_json::from_value(serde_json::Value::String(decision.into()))
                .unwrap_or_else(|_| panic!("line {line_no}: decision {decision}")),
            tool: cols[1].to_owned(),
            args: cols[2].to_owned(),
            mode: Mode::Ask,
            policy: None,
        };
        for opt in head {
            match opt.split_once('=') {
                Some(("mode", m)) => {
                    case.mode = Mode::parse(m).unwrap_or_else(|| panic!("line {line_no}: mode {m}"))
                }
                Some(("policy", p)) => case.policy = Some(p.to_owned()),
                _ => panic!("line {line_no}: unknown option {opt}"),
            }
        }
        cases.push(case);
    }
    cases
}

#[test]
fn decision_table() {
    let world = World::new();
    let cases = parse(include_str!("table.txt"));
    let mut engines = std::collections::HashMap::new();
    let mut failures = Vec::new();
    for case in &cases {
        let key = case.policy.clone().unwrap_or_default();
        let engine = engines
            .entry(key.clone())
            .or_insert_with(|| match &case.policy {
                None => world.engine(&[], false),
                Some(name) => {
                    let (_, layers, trusted) = POLICIES
                        .iter()
                        .find(|(n, _, _)| n == name)
                        .unwrap_or_else(|| panic!("line {}: no policy {name}", case.line));
                    world.engine(layers, *trusted)
                }
            });
        let args = if case.args.starts_with('{')
            || case.args.starts_with('[')
            || case.args.starts_with('"')
            || case.args == "null"
        {
            case.args.clone()
        } else {
            // A bare command line for `terminal`.
            serde_json::json!({ "command": case.args }).to_string()
        };
        let e = world.eval(engine, &case.tool, &args, case.mode);
        if e.risk != case.risk || e.decision != case.decision {
            failures.push(format!(
                "line {}: {} {}: expected {} {}, got {} {} ({}; {}; segments: {:?})",
                case.line,
                case.tool,
                case.args,
                case.risk,
                case.decision,
                e.risk,
                e.decision,
                e.reason,
                e.explanation,
                e.segments
                    .iter()
                    .map(|s| format!("{} => {} {}", s.text, s.risk, s.decision))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 200, "only {} cases", cases.len());
}
