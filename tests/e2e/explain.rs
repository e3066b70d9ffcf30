//! `warden policy check` explains what the running agent decides: for the same call in
//! the same project (a trusted project policy, a home folder reached through a
//! symlink), the command's evaluation is the agent's.

use std::path::Path;

use serde_json::{Value, json};

use super::support::{Answer, Client, Spawn};

/// The project's policy: an allow rule that applies only once the project is trusted,
/// and an ask rule anchored at the home folder.
const PROJECT_POLICY: &str = r#"
[[rule]]
tool = "terminal"
command = "touch"
path = "made"
decision = "allow"

[[rule]]
tool = "fs_read"
path = "~/notes/**"
decision = "ask"
reason = "notes are private"
"#;

/// What `warden policy check` says about a call.
fn check(client: &Client, home: &Path, tool: &str, args: &Value) -> Value {
    let project = client.process().project();
    let args = args.to_string();
    let argv = [
        "policy",
        "check",
        "--tool",
        tool,
        "--args",
        &args,
        "--cwd",
        project.to_str().expect("a UTF-8 path"),
    ];
    let output = client.process().cli(&argv, &[("HOME", home)]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one evaluation as JSON")
}

/// What the agent did with the same call: its permission request's evaluation, or,
/// when it did not ask, whether the call ran.
fn agent(client: &mut Client, session: &str, tool: &str, args: &Value) -> Value {
    let mark = client.mark();
    client.prompt(session, &format!("/call {tool} {args}"));
    let received = client.received_since(mark);
    if let Some(request) = received
        .iter()
        .find(|m| m["method"] == "session/request_permission")
    {
        let warden = &request["params"]["_meta"]["warden"];
        return json!({
            "decision": "ask",
            "risk": warden["risk"],
            "reason": warden["reason"],
            "explanation": warden["evaluation"]["explanation"],
            "decided_by": warden["evaluation"]["decided_by"],
            "matched_rules": warden["evaluation"]["matched_rules"],
        });
    }
    let status = received
        .iter()
        .filter(|m| m["method"] == "session/update")
        .filter_map(|m| m["params"]["update"]["status"].as_str())
        .next_back()
        .unwrap_or_default()
        .to_owned();
    json!({"decision": if status == "completed" { "allow" } else { "deny" }})
}

/// The fields of the command's evaluation that the agent's answer shows.
fn shown(evaluation: &Value, asked: bool) -> Value {
    if !asked {
        return json!({"decision": evaluation["decision"]});
    }
    json!({
        "decision": evaluation["decision"],
        "risk": evaluation["risk"],
        // The request's reason is the deciding part's sentence, printed as `risk_reason`.
        "reason": evaluation["risk_reason"],
        "explanation": evaluation["explanation"],
        "decided_by": evaluation["decided_by"],
        "matched_rules": evaluation["matched_rules"],
    })
}

#[test]
fn policy_check_gives_the_running_agents_evaluation() {
    // The home folder is reached through a symlink, as with a home on another volume.
    let homes = tempfile::tempdir().expect("tempdir");
    let real_home = homes.path().join("real-home");
    std::fs::create_dir_all(real_home.join("notes")).expect("mkdir");
    std::fs::write(real_home.join("notes/todo.txt"), "x\n").expect("write");
    std::fs::write(real_home.join(".bashrc"), "# rc\n").expect("write");
    let home = homes.path().join("home-link");
    std::os::unix::fs::symlink(&real_home, &home).expect("symlink");

    let mut client = Client::spawn_with(&Spawn::default().env("HOME", home.display().to_string()));
    let project = client.process().project();
    std::fs::create_dir_all(project.join(".warden")).expect("mkdir");
    std::fs::write(project.join(".warden/policy.toml"), PROJECT_POLICY).expect("write");
    let trusted = client
        .process()
        .cli(&["trust", project.to_str().expect("UTF-8")], &[]);
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );

    let session = client.ready_session();
    client.on_request(|request: &Value| {
        assert_eq!(request["method"], "session/request_permission", "{request}");
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "reject-once"}}))
    });
    let calls = [
        // Allowed by the trusted project's rule.
        ("terminal", json!({"command": "touch made"})),
        // The ask rule, through the home folder's real path and through `~`.
        (
            "fs_read",
            json!({"path": real_home.join("notes/todo.txt").display().to_string()}),
        ),
        ("fs_read", json!({"path": "~/notes/todo.txt"})),
        // A sensitive file in the home folder.
        ("fs_read", json!({"path": "~/.bashrc"})),
        // The mode decides.
        ("fs_write", json!({"path": "new.txt", "content": "x"})),
    ];
    for (tool, args) in &calls {
        let agent = agent(&mut client, &session, tool, args);
        let asked = agent["decision"] == "ask";
        let check = shown(&check(&client, &home, tool, args), asked);
        assert_eq!(agent, check, "{tool} {args}");
    }
    assert!(
        project.join("made").exists(),
        "the allowed call did not run"
    );
}

/// The engine and the tools resolve a path with the same function: the file `~/x` that
/// the user was asked about is the file the tool writes, not `./~/x`.
#[test]
fn a_tilde_path_is_written_where_the_engine_judged_it() {
    let homes = tempfile::tempdir().expect("tempdir");
    let home = homes.path().canonicalize().expect("real");
    let mut client = Client::spawn_with(&Spawn::default().env("HOME", home.display().to_string()));
    let session = client.ready_session();
    client.on_request(|request: &Value| {
        assert_eq!(request["method"], "session/request_permission", "{request}");
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}}))
    });
    client.prompt(
        &session,
        r#"/call fs_write {"path": "~/made.txt", "content": "x"}"#,
    );
    let requests: Vec<Value> = client
        .transcript()
        .iter()
        .filter_map(|entry| entry.message.clone())
        .filter(|m| m["method"] == "session/request_permission")
        .collect();
    assert_eq!(requests.len(), 1);
    let judged = home.join("made.txt").display().to_string();
    assert_eq!(
        requests[0]["params"]["toolCall"]["locations"][0]["path"], judged,
        "{}",
        requests[0]
    );
    assert!(home.join("made.txt").exists(), "{}", client.agent_text());
    assert!(!client.process().project().join("~").exists());
}
