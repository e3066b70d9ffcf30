//! Each agent's payloads, judged and answered.

use std::path::PathBuf;

use serde_json::Value;
use warden_hook::{Agent, Payload, audit_events, judge, render};
use warden_permissions::policy::Source;
use warden_permissions::{Context, Engine, Layer, Mode, Policy, SessionGrants};

/// The user's policy in these tests: one deny rule with a reason.
const POLICY: &str = r#"
[[rule]]
id = "no-force-push"
tool = "terminal"
command = "git push --force"
decision = "deny"
reason = "force pushes rewrite shared history"
"#;

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    engine: Engine,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("README.md"), "# hi\n").unwrap();
        let policy = Policy::from_sources(&[Source::text(Layer::User, "user.toml", POLICY)], false);
        let engine = Engine::with_policy(policy, &root, None);
        Project {
            _dir: dir,
            root,
            engine,
        }
    }

    /// Judges `payload` (with `$CWD` replaced) for `agent` and returns the answer's
    /// stdout parsed (Null for an empty answer) and the audit events.
    fn answer(&self, agent: Agent, payload: &str) -> (Value, Vec<warden_audit::AuditEvent>) {
        let text = payload.replace("$CWD", &self.root.display().to_string());
        let parsed = Payload::parse(text.as_bytes());
        let ctx = Context::new(&self.root);
        let grants = SessionGrants::new("test");
        let mut evaluate = |call: &warden_permissions::ToolCall| {
            self.engine.evaluate(call, &ctx, Mode::Ask, &grants)
        };
        let judged = judge(agent, parsed.as_ref(), &mut evaluate);
        let answer = render(agent, &judged);
        assert_eq!(answer.exit_code, 0, "every answer exits 0");
        let stdout = if answer.stdout.is_empty() {
            Value::Null
        } else {
            assert!(answer.stdout.ends_with('\n') && answer.stdout.matches('\n').count() == 1);
            serde_json::from_str(&answer.stdout).unwrap()
        };
        let events = audit_events(agent, parsed.as_ref().ok(), &judged);
        (stdout, events)
    }
}

/// The decision an answer carries, in Warden's words; `allow` for Codex's silence.
fn decision_of(agent: Agent, answer: &Value) -> String {
    let field = match agent {
        Agent::Claude | Agent::Codex => &answer["hookSpecificOutput"]["permissionDecision"],
        Agent::Gemini => &answer["decision"],
    };
    match (agent, field) {
        (Agent::Codex, Value::Null) if answer.is_null() => "allow".to_owned(),
        (_, Value::String(s)) => s.clone(),
        _ => panic!("no decision in {answer}"),
    }
}

fn reason_of(agent: Agent, answer: &Value) -> String {
    let field = match agent {
        Agent::Claude | Agent::Codex => &answer["hookSpecificOutput"]["permissionDecisionReason"],
        Agent::Gemini => &answer["reason"],
    };
    field.as_str().unwrap_or_default().to_owned()
}

const CLAUDE_BASH: &str = r#"{"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": "$CWD",
  "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
  "tool_input": {"command": "COMMAND", "description": "Run it", "timeout": 120000, "run_in_background": false},
  "tool_use_id": "toolu_01ABC"}"#;

fn claude_bash(command: &str) -> String {
    CLAUDE_BASH.replace("COMMAND", command)
}

const CODEX_BASH: &str = r#"{"session_id": "s-1", "turn_id": "t-1", "transcript_path": null, "cwd": "$CWD",
  "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
  "tool_name": "Bash", "tool_input": {"command": COMMAND}, "tool_use_id": "call_1"}"#;

fn codex_bash(command: &str) -> String {
    CODEX_BASH.replace("COMMAND", command)
}

const GEMINI: &str = r#"{"session_id": "test-123", "transcript_path": "/tmp/t.json", "cwd": "$CWD",
  "hook_event_name": "BeforeTool", "timestamp": "2026-11-27T10:00:00Z",
  "tool_name": "TOOL", "tool_input": INPUT}"#;

fn gemini(tool: &str, input: &str) -> String {
    GEMINI.replace("TOOL", tool).replace("INPUT", input)
}

#[test]
fn claude_payloads_get_the_expected_decision_and_reason() {
    let claude_write = r#"{"session_id": "abc", "cwd": "$CWD", "hook_event_name": "PreToolUse",
      "tool_name": "Write", "tool_input": {"file_path": "$CWD/notes.txt", "content": "hi"}, "tool_use_id": "t"}"#;
    let claude_mcp = r#"{"cwd": "$CWD", "hook_event_name": "PreToolUse", "tool_name": "mcp__github__create_issue",
      "tool_input": {"title": "x"}, "tool_use_id": "t"}"#;
    let claude_unknown = r#"{"cwd": "$CWD", "hook_event_name": "PreToolUse", "tool_name": "Agent",
      "tool_input": {"prompt": "go"}}"#;
    let claude_multi = r#"{"cwd": "$CWD", "hook_event_name": "PreToolUse", "tool_name": "MultiEdit",
      "tool_input": {"file_path": "$CWD/README.md", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}}"#;
    check_cases(vec![
        (
            Agent::Claude,
            "allow",
            claude_bash("ls"),
            "allow",
            &["Low risk"],
        ),
        (
            Agent::Claude,
            "deny with reason",
            claude_bash("git push --force origin main"),
            "deny",
            &["no-force-push"],
        ),
        (
            Agent::Claude,
            "ask",
            claude_write.to_owned(),
            "ask",
            &["Medium risk"],
        ),
        (
            Agent::Claude,
            "malformed",
            "{\"tool_name\": ".to_owned(),
            "ask",
            &["could not read"],
        ),
        (
            Agent::Claude,
            "not an object",
            "[1, 2]".to_owned(),
            "ask",
            &["could not read"],
        ),
        (
            Agent::Claude,
            "MCP tool",
            claude_mcp.to_owned(),
            "ask",
            &["Warden:"],
        ),
        (
            Agent::Claude,
            "unknown tool",
            claude_unknown.to_owned(),
            "ask",
            &["does not know the tool `Agent`"],
        ),
        (
            Agent::Claude,
            "multi-edit",
            claude_multi.to_owned(),
            "ask",
            &["README.md"],
        ),
    ]);
}

#[test]
fn codex_payloads_get_the_expected_decision_and_reason() {
    let codex_mcp = r#"{"cwd": "$CWD", "hook_event_name": "PreToolUse", "tool_name": "mcp__fs__read",
      "tool_input": {"path": "x"}, "tool_use_id": "c"}"#;
    let codex_unknown = r#"{"cwd": "$CWD", "hook_event_name": "PreToolUse", "tool_name": "web_search",
      "tool_input": {"query": "x"}}"#;
    check_cases(vec![
        (
            Agent::Codex,
            "allow",
            codex_bash(r#"["bash", "-lc", "ls"]"#),
            "allow",
            &[],
        ),
        (
            Agent::Codex,
            "deny with reason",
            codex_bash(r#""git push --force""#),
            "deny",
            &["no-force-push"],
        ),
        (
            Agent::Codex,
            "ask becomes a deny",
            codex_bash(r#""rm -rf ~""#),
            "deny",
            &[
                "cannot ask",
                "Critical risk",
                "warden policy check --tool terminal",
            ],
        ),
        (
            Agent::Codex,
            "malformed",
            "not json".to_owned(),
            "deny",
            &["could not read", "cannot ask"],
        ),
        (
            Agent::Codex,
            "command missing",
            codex_bash("null"),
            "deny",
            &["tool_input.command"],
        ),
        (
            Agent::Codex,
            "MCP tool",
            codex_mcp.to_owned(),
            "deny",
            &["cannot ask"],
        ),
        (
            Agent::Codex,
            "unknown tool",
            codex_unknown.to_owned(),
            "deny",
            &["does not know the tool `web_search`"],
        ),
    ]);
}

#[test]
fn gemini_payloads_get_the_expected_decision_and_reason() {
    let gemini_mcp = r#"{"session_id": "g", "cwd": "$CWD", "hook_event_name": "BeforeTool",
      "tool_name": "mcp_my_server_create", "tool_input": {"name": "x"},
      "mcp_context": {"server_name": "my_server", "tool_name": "create", "command": "node"}}"#;
    check_cases(vec![
        (
            Agent::Gemini,
            "allow",
            gemini("run_shell_command", r#"{"command": "ls"}"#),
            "allow",
            &["Low risk"],
        ),
        (
            Agent::Gemini,
            "deny with reason",
            gemini("run_shell_command", r#"{"command": "git push --force"}"#),
            "deny",
            &["no-force-push"],
        ),
        (
            Agent::Gemini,
            "ask",
            gemini(
                "write_file",
                r#"{"file_path": "test.txt", "content": "Test content"}"#,
            ),
            "ask",
            &["Medium risk"],
        ),
        (
            Agent::Gemini,
            "malformed",
            gemini("run_shell_command", r#"{"dir_path": "."}"#),
            "ask",
            &["tool_input.command"],
        ),
        (
            Agent::Gemini,
            "MCP tool",
            gemini_mcp.to_owned(),
            "ask",
            &["Warden:"],
        ),
        (
            Agent::Gemini,
            "unknown tool",
            gemini("google_web_search", r#"{"query": "x"}"#),
            "ask",
            &["google_web_search"],
        ),
        (
            Agent::Gemini,
            "fetch without a URL",
            gemini("web_fetch", r#"{"prompt": "summarise it"}"#),
            "ask",
            &["no http"],
        ),
    ]);
}

/// One payload: (agent, what, payload, the decision answered, words the reason must
/// hold).
type Case<'a> = (Agent, &'a str, String, &'a str, &'a [&'a str]);

/// Answers each payload in a fresh project and fails with every case that got another
/// decision, a reason without its words, or no audit event from its agent.
fn check_cases(cases: Vec<Case>) {
    let p = Project::new();
    let mut failures = Vec::new();
    for (agent, what, payload, decision, words) in cases {
        let (answer, events) = p.answer(agent, &payload);
        let got = decision_of(agent, &answer);
        if got != decision {
            failures.push(format!(
                "{agent} {what}: {got}, expected {decision}: {answer}"
            ));
        }
        let reason = reason_of(agent, &answer);
        for word in words {
            if !reason.contains(word) {
                failures.push(format!(
                    "{agent} {what}: the reason lacks `{word}`: {reason}"
                ));
            }
        }
        if events.is_empty()
            || events
                .iter()
                .any(|e| e.client.as_deref() != Some(agent.client()))
        {
            failures.push(format!("{agent} {what}: audit events {events:?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn gemini_mcp_names_come_from_the_mcp_context_and_claude_mcp_names_as_they_are() {
    let p = Project::new();
    let payload = r#"{"cwd": "$CWD", "tool_name": "mcp_my_server_create", "tool_input": {"name": "x"},
      "mcp_context": {"server_name": "my_server", "tool_name": "create"}}"#;
    let (_, events) = p.answer(Agent::Gemini, payload);
    assert_eq!(events[0].tool.as_deref(), Some("mcp__my_server__create"));
    let payload = r#"{"cwd": "$CWD", "tool_name": "mcp__github__create_issue", "tool_input": {}}"#;
    let (_, events) = p.answer(Agent::Claude, payload);
    assert_eq!(events[0].tool.as_deref(), Some("mcp__github__create_issue"));
}

#[test]
fn a_codex_patch_is_judged_file_by_file_and_the_strictest_file_decides() {
    let p = Project::new();
    let patch = [
        "*** Begin Patch",
        "*** Add File: src/new.rs",
        "+fn main() {}",
        "*** Update File: README.md",
        "@@",
        "-# hi",
        "+# hello",
        "*** Delete File: /etc/passwd",
        "*** End Patch",
    ]
    .join("\n");
    let payload = serde_json::json!({
        "session_id": "s", "cwd": p.root, "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "c",
    });
    let (answer, events) = p.answer(Agent::Codex, &payload.to_string());
    assert_eq!(decision_of(Agent::Codex, &answer), "deny", "{answer}");
    let reason = reason_of(Agent::Codex, &answer);
    assert!(reason.contains("/etc/passwd"), "{reason}");
    let tools: Vec<&str> = events
        .iter()
        .filter(|e| e.kind == warden_audit::AuditKind::Evaluation)
        .filter_map(|e| e.tool.as_deref())
        .collect();
    assert_eq!(tools, ["fs_write", "fs_edit", "fs_delete"]);
}
