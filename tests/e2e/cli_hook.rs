//! `warden hook --for claude|codex|gemini` through the binary, and the user's own
//! hooks (`[[hook]]`) in `warden policy check`, with WARDEN_HOME in a tempdir. Hook
//! scripts are written by the tests themselves.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

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
        fs::create_dir_all(&project).expect("mkdir");
        fs::write(project.join("README.md"), "# hi\n").expect("write");
        Env {
            _dir: dir,
            home,
            project,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .args(args)
            .current_dir(&self.project)
            .env("WARDEN_HOME", &self.home)
            .env("WARDEN_MANAGED_POLICY", self.home.join("managed.toml"))
            .env("HOME", self.home.parent().unwrap_or(Path::new("/")))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("RUST_LOG");
        command
    }

    /// Runs `warden hook --for <agent>` with `input` on stdin.
    fn hook(&self, agent: &str, input: &[u8]) -> Output {
        let mut child = self
            .command(&["hook", "--for", agent])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run warden hook");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input).expect("write the payload");
        drop(stdin);
        let out = child.wait_with_output().expect("wait");
        assert_eq!(
            out.status.code(),
            Some(0),
            "warden hook always exits 0: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The answer to `tool_name` / `tool_input` in the project, parsed (Null when
    /// nothing was printed).
    fn answer(&self, agent: &str, tool: &str, input: Value) -> Value {
        let payload = json!({
            "session_id": "s-1", "cwd": self.project, "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input, "tool_use_id": "call-1",
        });
        let out = self.hook(agent, payload.to_string().as_bytes());
        parse(&out)
    }

    fn policy(&self, text: &str) {
        fs::write(self.home.join("policy.toml"), text).expect("write the policy");
    }

    /// An executable script in the Warden home folder.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.home.join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write the script");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    fn audit(&self) -> Vec<Value> {
        fs::read_to_string(self.home.join("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("an audit line"))
            .collect()
    }

    fn check(&self, tool: &str, args: &str) -> Value {
        let out = self
            .command(&["policy", "check", "--tool", tool, "--args", args])
            .output()
            .expect("run policy check");
        assert!(out.status.success());
        parse(&out)
    }
}

fn parse(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    if text.is_empty() {
        return Value::Null;
    }
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not one JSON answer ({e}): {text}"))
}

fn claude_decision(answer: &Value) -> (&str, &str) {
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse", "{answer}");
    (
        out["permissionDecision"].as_str().unwrap_or_default(),
        out["permissionDecisionReason"].as_str().unwrap_or_default(),
    )
}

#[test]
fn warden_hook_answers_each_agent_in_its_format_and_audits_it_with_the_agent_as_client() {
    let env = Env::new();
    env.policy(
        "[[rule]]\nid = \"no-force-push\"\ntool = \"terminal\"\ncommand = \"git push --force\"\ndecision = \"deny\"\n",
    );
    let answer = env.answer("claude", "Bash", json!({"command": "ls"}));
    assert_eq!(claude_decision(&answer).0, "allow", "{answer}");
    let answer = env.answer("claude", "Bash", json!({"command": "rm -rf ~"}));
    let (decision, reason) = claude_decision(&answer);
    assert_eq!(decision, "ask");
    assert!(reason.contains("Critical risk"), "{reason}");
    // Codex cannot ask: a refusal that says the risk and how to approve.
    let answer = env.answer("codex", "Bash", json!({"command": "rm -rf ~"}));
    let (decision, reason) = claude_decision(&answer);
    assert_eq!(decision, "deny");
    assert!(
        reason.contains("Critical risk") && reason.contains("warden policy check"),
        "{reason}"
    );
    // Codex's allow is no objection: nothing printed.
    assert_eq!(
        env.answer("codex", "Bash", json!({"command": "ls"})),
        Value::Null
    );
    let answer = env.answer(
        "gemini",
        "run_shell_command",
        json!({"command": "git push --force"}),
    );
    assert_eq!(answer["decision"], "deny", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .is_some_and(|r| r.contains("no-force-push")),
        "{answer}"
    );
    let audit = env.audit();
    let clients: Vec<&str> = audit
        .iter()
        .filter(|l| l["kind"] == "evaluation")
        .filter_map(|l| l["client"].as_str())
        .map(|c| match c {
            "claude-code" | "codex" | "gemini-cli" => c,
            other => panic!("unexpected client {other}"),
        })
        .collect();
    assert_eq!(
        clients,
        ["claude-code", "claude-code", "codex", "codex", "gemini-cli"]
    );
}

#[test]
fn warden_hook_answers_input_it_cannot_read() {
    let env = Env::new();
    for (agent, input) in [
        ("claude", &b"{\"tool_name\": "[..]),
        ("codex", b"\xff\xfe not even text"),
        ("gemini", b""),
    ] {
        let out = env.hook(agent, input);
        let answer = parse(&out);
        let decision = match agent {
            "gemini" => answer["decision"].as_str(),
            _ => answer["hookSpecificOutput"]["permissionDecision"].as_str(),
        };
        let expected = if agent == "codex" { "deny" } else { "ask" };
        assert_eq!(decision, Some(expected), "{agent}: {answer}");
    }
}

#[test]
fn a_user_hook_decides_in_warden_hook_and_policy_check_lists_what_it_said() {
    let env = Env::new();
    let deny = env.script(
        "deny-pushes.sh",
        r#"case "$(cat)" in
  *'git push'*) echo '{"decision": "deny", "reason": "no pushes today"}' ;;
  *) echo '{"decision": "allow", "reason": "fine"}' ;;
esac"#,
    );
    env.policy(&format!("[[hook]]\ncommand = \"{}\"\n", deny.display()));
    // Stricter: a push the mode would only ask about is denied.
    let answer = env.answer("claude", "Bash", json!({"command": "git push origin main"}));
    let (decision, reason) = claude_decision(&answer);
    assert_eq!(decision, "deny", "{answer}");
    assert!(reason.contains("no pushes today"), "{reason}");
    // Looser within bounds: a write the mode would ask about is allowed.
    let v = env.check("fs_write", r#"{"path": "notes.txt", "content": "x"}"#);
    assert_eq!(v["decision"], "allow", "{v}");
    assert_eq!(v["decided_by"]["kind"], "hook", "{v}");
    assert_eq!(v["hooks"][0]["said"], "answered", "{v}");
    assert_eq!(v["hooks"][0]["decision"], "allow", "{v}");
    assert_eq!(v["hooks"][0]["applied"], true, "{v}");
    // Never past a Critical risk.
    let v = env.check("terminal", r#"{"command": "rm -rf ~"}"#);
    assert_eq!(v["decision"], "ask", "{v}");
    assert_eq!(v["hooks"][0]["applied"], false, "{v}");
}

#[test]
fn a_failing_user_hook_counts_as_ask_and_a_projects_hook_is_refused() {
    let env = Env::new();
    let fail = env.script("fail.sh", "exit 3");
    env.policy(&format!("[[hook]]\ncommand = \"{}\"\n", fail.display()));
    let v = env.check("fs_read", r#"{"path": "README.md"}"#);
    assert_eq!(v["decision"], "ask", "{v}");
    assert_eq!(v["hooks"][0]["said"], "failed", "{v}");
    // A project may not bring its own hook.
    fs::create_dir_all(env.project.join(".warden")).expect("mkdir");
    fs::write(
        env.project.join(".warden/policy.toml"),
        "[[hook]]\ncommand = \"touch pwned\"\n",
    )
    .expect("write");
    let out = env
        .command(&["policy", "lint", "--json"])
        .output()
        .expect("run lint");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"kind\":\"hook\""), "{text}");
    env.check("fs_read", r#"{"path": "README.md"}"#);
    assert!(!env.project.join("pwned").exists(), "a project's hook ran");
}
