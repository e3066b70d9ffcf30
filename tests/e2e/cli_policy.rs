//! `warden policy check|lint`, `warden grants list|revoke` and `warden trust`, end to
//! end through the binary, with WARDEN_HOME and WARDEN_MANAGED_POLICY in a tempdir.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let home = root.join("warden-home");
        let project = root.join("project");
        fs::create_dir_all(&home).expect("mkdir");
        fs::create_dir_all(project.join("src")).expect("mkdir");
        fs::write(project.join("README.md"), "# hi\n").expect("write");
        Env {
            _dir: dir,
            home,
            project,
        }
    }

    fn managed(&self) -> PathBuf {
        self.home.join("managed.toml")
    }

    fn warden(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(args)
            .current_dir(&self.project)
            .env("WARDEN_HOME", &self.home)
            .env("WARDEN_MANAGED_POLICY", self.managed())
            .env("HOME", self.home.parent().unwrap_or(Path::new("/")))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("RUST_LOG")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("LANG")
            .output()
            .expect("run warden")
    }

    /// Runs `policy check` and parses its one JSON object.
    fn check(&self, tool: &str, args: &str, extra: &[&str]) -> Value {
        let mut argv = vec!["policy", "check", "--tool", tool, "--args", args];
        argv.extend_from_slice(extra);
        let out = self.warden(&argv);
        assert!(
            out.status.success(),
            "exit {:?}: {}",
            out.status,
            stderr(&out)
        );
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not one JSON object ({e}): {}", stdout(&out)))
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn policy_check_prints_the_evaluation_as_json() {
    let env = Env::new();
    let v = env.check("terminal", r#"{"command": "git status && rm -rf ~"}"#, &[]);
    assert_eq!(v["decision"], "ask");
    assert_eq!(v["risk"], "critical");
    assert_eq!(v["reason"], "Execute command: git status && rm -rf ~");
    assert_eq!(v["decided_by"]["kind"], "mode");
    assert_eq!(v["segments"][0]["decision"], "allow");
    assert_eq!(v["segments"][1]["risk"], "critical");
    assert!(v["matched_rules"].is_array());
    assert_eq!(v["once_only"], true);
}

#[test]
fn policy_check_exits_0_with_a_deny_for_malformed_calls() {
    let env = Env::new();
    for (tool, args, needle) in [
        ("fs_read", "{not json", "not valid JSON"),
        ("fs_read", "{}", "`path` is missing"),
        ("terminal", r#"{"command": 5}"#, "must be a string"),
        (
            "http_fetch",
            r#"{"url": "file:///etc/passwd"}"#,
            "only http and https",
        ),
        ("fs_read", "[1, 2]", "must be a JSON object"),
        // The agent reports the same message for the same hint (tests/e2e/turns.rs).
        (
            "fs_read",
            r#"{"path": "README.md", "risk_level": "critical"}"#,
            r#"invalid risk_level "critical": expected "low", "medium" or "high""#,
        ),
        (
            "fs_read",
            r#"{"path": "README.md", "risk_level": 3}"#,
            "invalid risk_level 3",
        ),
    ] {
        let v = env.check(tool, args, &[]);
        assert_eq!(v["decision"], "deny", "{tool} {args}");
        assert_eq!(v["decided_by"]["kind"], "malformed", "{tool} {args}");
        assert!(
            v["decided_by"]["problem"]
                .as_str()
                .is_some_and(|p| p.contains(needle)),
            "{tool} {args}: {v}"
        );
    }
}

#[test]
fn policy_check_takes_the_mode_and_the_cwd() {
    let env = Env::new();
    let write = r#"{"path": "src/main.rs", "content": "x"}"#;
    assert_eq!(env.check("fs_write", write, &[])["decision"], "ask");
    assert_eq!(
        env.check("fs_write", write, &["--mode", "accept-edits"])["decision"],
        "allow"
    );
    assert_eq!(
        env.check("fs_write", write, &["--mode", "read-only"])["decision"],
        "deny"
    );
    let cwd = env.project.join("src");
    let v = env.check(
        "fs_read",
        r#"{"path": "../README.md"}"#,
        &["--cwd", cwd.to_str().expect("utf-8")],
    );
    assert_eq!(v["risk"], "medium", "outside the cwd's workspace: {v}");
    let out = env.warden(&[
        "policy", "check", "--tool", "x", "--args", "{}", "--mode", "yolo",
    ]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
}

#[test]
fn user_project_and_managed_layers_apply_and_trust_unlocks_project_allows() {
    let env = Env::new();
    fs::write(
        env.home.join("policy.toml"),
        "[[rule]]\nid = \"user-docs\"\ntool = \"http_fetch\"\ndomain = \"docs.rs\"\ndecision = \"allow\"\n",
    )
    .expect("write");
    fs::create_dir_all(env.project.join(".warden")).expect("mkdir");
    fs::write(
        env.project.join(".warden/policy.toml"),
        "[[rule]]\nid = \"proj-npm\"\ntool = \"terminal\"\ncommand = \"npm test\"\ndecision = \"allow\"\n",
    )
    .expect("write");
    fs::write(
        env.managed(),
        "[[rule]]\nid = \"no-curl\"\ntool = \"terminal\"\ncommand = \"curl\"\ndecision = \"deny\"\n",
    )
    .expect("write");
    let v = env.check("http_fetch", r#"{"url": "https://docs.rs/x"}"#, &[]);
    assert_eq!(
        (v["decision"].as_str(), v["decided_by"]["id"].as_str()),
        (Some("allow"), Some("user-docs"))
    );
    let v = env.check("terminal", r#"{"command": "curl https://x.org"}"#, &[]);
    assert_eq!(
        (v["decision"].as_str(), v["decided_by"]["layer"].as_str()),
        (Some("deny"), Some("managed"))
    );
    // A project's rule never widens the sandbox, so the trusted rule is shown on a
    // command that needs nothing beyond it.
    let npm = r#"{"command": "npm test"}"#;
    assert_eq!(env.check("terminal", npm, &[])["decision"], "ask");

    let out = env.warden(&["trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Trusted"));
    let v = env.check("terminal", npm, &[]);
    assert_eq!(
        (v["decision"].as_str(), v["decided_by"]["id"].as_str()),
        (Some("allow"), Some("proj-npm"))
    );
}

#[test]
fn a_broken_policy_file_makes_calls_ask_and_lint_reports_it() {
    let env = Env::new();
    fs::write(
        env.home.join("policy.toml"),
        "[[rule]]\ntool = \"fs_read\"\ndecison = \"allow\"\n",
    )
    .expect("write");
    let v = env.check("fs_read", r#"{"path": "README.md"}"#, &[]);
    assert_eq!(v["decision"], "ask");
    assert_eq!(v["decided_by"]["kind"], "policy_error");
    assert!(
        v["decided_by"]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("policy.toml"))
    );

    let out = env.warden(&["policy", "lint"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("decison"), "{}", stdout(&out));
}

#[test]
fn lint_checks_named_files_and_exits_0_when_clean() {
    let env = Env::new();
    let good = env.home.join("good.toml");
    fs::write(&good, "[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\nmatch = [\"git status -s\"]\n").expect("write");
    let out = env.warden(&["policy", "lint", good.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("0 error(s), 0 warning(s)"),
        "{}",
        stdout(&out)
    );

    let bad = env.home.join("bad.toml");
    fs::write(&bad, "[[rule]]\ntool = \"fs_*\"\ncommand = \"rm\"\ndecision = \"deny\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\n\n[[rule]]\ntool = \"terminal\"\ncommand = \"git status\"\ndecision = \"allow\"\n").expect("write");
    let out = env.warden(&["policy", "lint", "--json", bad.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let kinds: Vec<String> = stdout(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("json line")["kind"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, ["dead", "duplicate"]);
    let missing = env.home.join("missing.toml");
    let out = env.warden(&["policy", "lint", missing.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
}

/// What broke: lint stopped at a file's first parse error, so fixing a file took one
/// run per mistake. Every error is reported, each with its line: two syntax errors, an
/// unknown key in a rule, a wrong type in another rule and a setting the format does
/// not know; the rule between them that is fine is not reported.
#[test]
fn regression_lint_reports_every_parse_error_of_a_file_with_its_line() {
    let env = Env::new();
    let bad = env.home.join("several.toml");
    let text = [
        "mode = \"ask\"",            // 1
        "approval_timeout_sec = 30", // 2: unknown setting
        "",                          // 3
        "[[rule]]",                  // 4
        "tool = \"terminal\"",       // 5
        "comand = \"git push\"",     // 6: unknown key
        "decision = \"deny\"",       // 7
        "",                          // 8
        "[[rule]]",                  // 9
        "tool = \"fs_read\"",        // 10
        "decision = \"allow\"",      // 11: fine
        "",                          // 12
        "[[rule]]",                  // 13
        "tool = \"fs_write\"",       // 14
        "decision = 3",              // 15: wrong type
        "",                          // 16
        "[[rule]]",                  // 17
        "tool = = \"x\"",            // 18: syntax
        "decision = \"deny\"",       // 19
        "",                          // 20
        "[[rule]]",                  // 21
        "tool = \"terminal\"",       // 22
        "decision = \"ask",          // 23: syntax (unterminated string)
    ]
    .join("\n");
    fs::write(&bad, format!("{text}\n")).expect("write");
    let out = env.warden(&["policy", "lint", "--json", bad.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let findings: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let lines: Vec<usize> = findings
        .iter()
        .map(|f| {
            assert_eq!(f["kind"], "parse", "{f}");
            let message = f["message"].as_str().unwrap_or_default();
            message
                .split_once("at line ")
                .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no line in {message}"))
        })
        .collect();
    assert_eq!(lines, [2, 6, 15, 18, 23], "{}", stdout(&out));
    let all = stdout(&out);
    for word in ["approval_timeout_sec", "comand"] {
        assert!(all.contains(word), "{all}");
    }
    // The readable form says the same, one finding each, and counts them.
    let out = env.warden(&["policy", "lint", bad.to_str().expect("utf-8")]);
    assert!(
        stdout(&out).contains(": 5 error(s), 0 warning(s)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn grants_list_and_revoke() {
    let env = Env::new();
    let out = env.warden(&["grants", "list"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("No stored grants"));
    let line = r#"{"grant":{"id":"g-0000000000000001","created_at":"2026-11-22T20:00:00Z","client":"zed","effect":"allow","scope":"user","matchers":[{"command":{"prefix":["npm","test"]}}],"max_risk":"medium","subject":"`npm test …`"}}"#;
    fs::write(env.home.join("grants.jsonl"), format!("{line}\n")).expect("write");
    let v = env.check("terminal", r#"{"command": "npm test"}"#, &[]);
    assert_eq!(v["decision"], "allow");
    assert_eq!(v["decided_by"]["id"], "g-0000000000000001");

    let out = env.warden(&["grants", "list"]);
    assert!(
        stdout(&out).contains("g-0000000000000001") && stdout(&out).contains("`npm test …`"),
        "{}",
        stdout(&out)
    );
    let out = env.warden(&["grants", "list", "--json"]);
    let g: Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    assert_eq!(g["id"], "g-0000000000000001");

    let out = env.warden(&["grants", "revoke", "g-0000000000000001"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(
        env.check("terminal", r#"{"command": "npm test"}"#, &[])["decision"],
        "ask"
    );
    let out = env.warden(&["grants", "revoke", "g-0000000000000001"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A session refuses a call of a tool it does not have as invalid; `policy check` says
/// the same, rather than ask about it.
#[test]
fn regression_policy_check_of_an_unknown_tool_agrees_with_the_session() {
    let env = Env::new();
    let v = env.check("nosuch", "{}", &[]);
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(
        v["explanation"]
            .as_str()
            .is_some_and(|e| e.contains("there is no tool `nosuch`")),
        "{v}"
    );
    // Built-in tools and MCP tools are evaluated as before.
    assert_eq!(
        env.check("fs_read", r#"{"path": "README.md"}"#, &[])["decision"],
        "allow"
    );
    assert_ne!(env.check("mcp__gh__list", "{}", &[])["decision"], "deny");
}
