//! `lint`: what it finds, and that a clean file has no findings.

use warden_permissions::policy::Source;
use warden_permissions::{Finding, Layer, Severity, lint};

fn findings(text: &str) -> Vec<(Severity, &'static str, Option<String>)> {
    lint(&[Source::text(Layer::User, "p.toml", text)])
        .into_iter()
        .map(|f| (f.severity, f.kind, f.rule))
        .collect()
}

fn check(text: &str, expected: &[(Severity, &'static str, Option<&str>)]) {
    let expected: Vec<(Severity, &'static str, Option<String>)> = expected
        .iter()
        .map(|(s, k, r)| (*s, *k, r.map(str::to_owned)))
        .collect();
    assert_eq!(findings(text), expected, "{text}");
}

/// The only finding of one file.
fn the_one_finding(source: Source) -> Finding {
    let mut found = lint(&[source]);
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

use Severity::{Error, Warning};

#[test]
fn a_clean_file_has_no_findings() {
    check(
        r#"
mode = "ask"
[[rule]]
id = "git-read"
tool = "terminal"
command = "git status"
decision = "allow"
match = ["git status -s"]
not_match = ["git push"]

[[rule]]
tool = "fs_write"
path = "src/**"
decision = "allow"

[[rule]]
tool = "http_fetch"
domain = "*.example.com"
decision = "allow"
"#,
        &[],
    );
}

#[test]
fn parse_errors_are_errors() {
    check("[[rule]\n", &[(Error, "parse", None)]);
    check("[[rule]]\ntool = \"x\"\n", &[(Error, "parse", None)]);
    check("modee = \"ask\"\n", &[(Error, "parse", None)]);
}

#[test]
fn rules_that_do_not_compile_and_failed_examples_are_errors() {
    check(
        "[[rule]]\ntool = \"terminal\"\ncommand = \"ls && rm\"\ndecision = \"deny\"\n",
        &[(Error, "rule", None)],
    );
    check(
        "[[rule]]\ntool = \"[\"\ndecision = \"deny\"\n",
        &[(Error, "rule", None)],
    );
    check(
        "[[rule]]\ndomain = \"*.*.com\"\ndecision = \"deny\"\n",
        &[(Error, "rule", None)],
    );
    check(
        "[[rule]]\ntool = \"terminal\"\ncommand = \"git push\"\ndecision = \"deny\"\nmatch = [\"git pull\"]\n",
        &[(Error, "example", None)],
    );
    check(
        "[[rule]]\ntool = \"http_fetch\"\ndomain = \"*.x.org\"\ndecision = \"deny\"\nnot_match = [\"https://a.x.org/\"]\n",
        &[(Error, "example", None)],
    );
    // The kind comes from the error's type, not its text: a broken glob whose own text
    // reads "example `" is still a rule that does not compile.
    check(
        "[[rule]]\ntool = \"example `[\"\ndecision = \"deny\"\n",
        &[(Error, "rule", None)],
    );
}

#[test]
fn dead_rules_are_errors() {
    check(
        "[[rule]]\ntool = \"fs_*\"\ncommand = \"rm\"\ndecision = \"deny\"\n",
        &[(Error, "dead", Some("user#1"))],
    );
    check(
        "[[rule]]\ntool = \"terminal\"\ndomain = \"x.org\"\ndecision = \"deny\"\n",
        &[(Error, "dead", Some("user#1"))],
    );
    check(
        "[[rule]]\ntool = \"http_fetch\"\npath = \"/etc/**\"\ndecision = \"deny\"\n",
        &[(Error, "dead", Some("user#1"))],
    );
    check(
        "[[rule]]\nid = \"crit\"\nrisk = \"critical\"\ndecision = \"allow\"\n",
        &[(Error, "dead", Some("crit"))],
    );
    // `terminal*` can be `terminal`: not dead.
    check(
        "[[rule]]\ntool = \"term*\"\ncommand = \"rm\"\ndecision = \"deny\"\n",
        &[],
    );
}

#[test]
fn duplicates_and_shadowed_rules_are_warnings() {
    check(
        "[[rule]]\ntool = \"terminal\"\ncommand = \"ls\"\ndecision = \"allow\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"ls\"\ndecision = \"allow\"\nreason = \"again\"\n",
        &[(Warning, "duplicate", Some("user#2"))],
    );
    check(
        "[[rule]]\ntool = \"terminal\"\ncommand = \"git\"\ndecision = \"ask\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"git push\"\ndecision = \"ask\"\n",
        &[(Warning, "shadowed", Some("user#2"))],
    );
    check(
        "[[rule]]\ntool = \"mcp__*\"\ndecision = \"deny\"\n\n[[rule]]\ntool = \"mcp__github__x\"\ndecision = \"deny\"\n",
        &[(Warning, "shadowed", Some("user#2"))],
    );
    // The later, broader rule is not shadowed.
    check(
        "[[rule]]\ntool = \"terminal\"\ncommand = \"git push\"\ndecision = \"ask\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"git\"\ndecision = \"ask\"\n",
        &[],
    );
    // Different decisions do not shadow each other.
    check(
        "[[rule]]\ntool = \"terminal\"\ncommand = \"git\"\ndecision = \"ask\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\n",
        &[],
    );
}

#[test]
fn an_allow_rule_that_a_deny_rule_covers_is_a_warning_across_files() {
    let found = lint(&[
        Source::text(
            Layer::User,
            "user.toml",
            "[[rule]]\nid = \"npm-i\"\ntool = \"terminal\"\ncommand = \"npm install\"\ndecision = \"allow\"\n",
        ),
        Source::text(
            Layer::Managed,
            "managed.toml",
            "[[rule]]\nid = \"no-npm\"\ntool = \"terminal\"\ncommand = \"npm\"\ndecision = \"deny\"\n",
        ),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].kind, found[0].file.as_str()),
        ("covered", "user.toml")
    );
    assert!(found[0].message.contains("no-npm"));
}

/// `client` and `[[client]]` are known keys; rules for different clients neither
/// duplicate nor shadow nor cover each other.
#[test]
fn client_keys_are_known_and_rules_for_other_clients_do_not_shadow() {
    check(
        "[[client]]\nname = \"ci-*\"\nmode = \"auto-deny\"\napproval_timeout_secs = 5\n\n[[rule]]\nclient = \"ci-*\"\ntool = \"terminal\"\ndecision = \"deny\"\n\n[[rule]]\nclient = \"zed\"\ntool = \"terminal\"\ndecision = \"deny\"\n",
        &[],
    );
    check(
        "[[client]]\nname = \"ci-*\"\nmodee = \"auto-deny\"\n",
        &[(Error, "parse", None)],
    );
    let found = lint(&[
        Source::text(
            Layer::User,
            "user.toml",
            "[[rule]]\nid = \"ls\"\ntool = \"terminal\"\ncommand = \"ls\"\ndecision = \"allow\"\n",
        ),
        Source::text(
            Layer::Managed,
            "managed.toml",
            "[[rule]]\nclient = \"ci-*\"\ntool = \"terminal\"\ndecision = \"deny\"\n",
        ),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_projects_client_table_is_an_error() {
    let found = the_one_finding(Source::text(
        Layer::Project,
        ".warden/policy.toml",
        "[[client]]\nname = \"*\"\nmode = \"auto-approve\"\n",
    ));
    assert_eq!((found.severity, found.kind), (Error, "client"));
    assert!(
        found.message.contains("never a project"),
        "{}",
        found.message
    );
}

#[test]
fn a_deny_or_ask_rule_for_one_risk_warns_about_the_riskier_calls_it_leaves() {
    // `risk` matches one risk exactly: denying High leaves Critical calls asked.
    check(
        "[[rule]]\nrisk = \"high\"\ndecision = \"deny\"\n",
        &[(Warning, "riskier", Some("user#1"))],
    );
    check(
        "[[rule]]\ntool = \"terminal\"\nrisk = \"medium\"\ndecision = \"ask\"\n\n[[rule]]\ntool = \"terminal\"\nrisk = \"high\"\ndecision = \"deny\"\n",
        &[
            (Warning, "riskier", Some("user#1")),
            (Warning, "riskier", Some("user#2")),
        ],
    );
    // Each riskier call is treated at least as strictly by a sibling rule: no warning.
    check(
        "[[rule]]\nrisk = \"high\"\ndecision = \"deny\"\n\n[[rule]]\nrisk = \"critical\"\ndecision = \"deny\"\n",
        &[],
    );
    check(
        "[[rule]]\ntool = \"terminal\"\nrisk = \"high\"\ndecision = \"ask\"\n\n[[rule]]\ntool = \"terminal\"\nrisk = \"critical\"\ndecision = \"deny\"\n",
        &[],
    );
    // A broader sibling covers the riskier calls too: a deny rule for High calls of any
    // tool covers the High terminal calls an ask rule for Medium ones leaves.
    check(
        "[[rule]]\nrisk = \"high\"\ndecision = \"deny\"\n\n[[rule]]\nrisk = \"critical\"\ndecision = \"deny\"\n\n[[rule]]\ntool = \"terminal\"\nrisk = \"medium\"\ndecision = \"ask\"\n",
        &[],
    );
    // An allow rule for one risk leaves riskier calls stricter, which is the safe side;
    // a sibling with other conditions does not cover this rule's calls.
    check("[[rule]]\nrisk = \"low\"\ndecision = \"allow\"\n", &[]);
    check(
        "[[rule]]\ntool = \"terminal\"\nrisk = \"high\"\ndecision = \"deny\"\n\n[[rule]]\ntool = \"fs_*\"\nrisk = \"critical\"\ndecision = \"deny\"\n",
        &[(Warning, "riskier", Some("user#1"))],
    );
}

#[test]
fn the_riskier_warning_names_what_the_rule_leaves() {
    let found = the_one_finding(Source::text(
        Layer::User,
        "p.toml",
        "[[rule]]\nrisk = \"medium\"\ndecision = \"deny\"\n\n[[rule]]\nrisk = \"critical\"\ndecision = \"deny\"\n",
    ));
    assert!(
        found.message.contains("deny high calls"),
        "{}",
        found.message
    );
}
