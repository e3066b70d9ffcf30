//! Stored sessions with the real binary: what a turn leaves in its journal, answers
//! from another terminal (`warden pending`) applied by the running Warden, and what a
//! `kill -9` leaves behind.

use serde_json::{Value, json};

use super::support::{Answer, Client};

fn selected(option: &str) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option}})
}

/// A prompt whose one call appends a line to `out.txt` in the project: a call that
/// asks in the default mode, and whose runs can be counted.
fn append_prompt() -> String {
    format!(
        "/call terminal {}",
        json!({"command": "echo line >> out.txt"})
    )
}

fn lines(client: &Client) -> usize {
    std::fs::read_to_string(client.process().project().join("out.txt"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn cli(client: &Client, args: &[&str]) -> std::process::Output {
    client.process().cli(args, &[])
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The running Warden sees the answer file within its poll, withdraws the editor's
/// request, and runs the call once; the editor's late answer and a second `approve`
/// change nothing.
#[test]
fn an_approval_from_another_terminal_runs_the_waiting_call_once() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let prompt = client.send_prompt(&session, &append_prompt());
    let request = client.agent_request("session/request_permission");

    let list = cli(&client, &["pending", "list", "--json"]);
    let pending: Value = serde_json::from_str(stdout(&list).trim()).expect("one json line");
    let id = format!("{session}/call_1");
    assert_eq!(pending["id"], json!(id), "{pending}");
    assert_eq!(pending["tool"], "terminal");

    let out = cli(&client, &["pending", "approve", &id, "--note", "go ahead"]);
    assert!(out.status.success(), "{out:?}");

    let cancel = client.wait_for("the withdrawal of the editor's request", |m| {
        m["method"] == "$/cancel_request"
    });
    assert_eq!(cancel["params"]["requestId"], request["id"], "{cancel}");
    let result = client.response(&prompt);
    assert_eq!(result["result"]["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&client), 1);

    // The editor answers after all: the request was withdrawn, the call ran once.
    client.respond(&request, selected("allow-once"));
    let out = cli(&client, &["pending", "approve", &id]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    client.prompt(&session, "/say done");
    assert_eq!(lines(&client), 1);

    // The journal tells the story, and the audit log who answered.
    let show = stdout(&cli(&client, &["sessions", "show", &session]));
    assert!(show.contains("(completed)"), "{show}");
    let audit = stdout(&cli(&client, &["audit", "tail", "--json"]));
    assert!(audit.contains("warden pending"), "{audit}");
}

/// The editor's answer is claimed before its call runs: `warden pending` then finds
/// the call answered and is refused.
#[test]
fn an_editor_s_answer_is_claimed_so_a_later_one_is_refused() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(selected("allow-once")));
    client.prompt(&session, &append_prompt());
    assert_eq!(lines(&client), 1);
    let answers = client
        .process()
        .home()
        .join("sessions")
        .join(format!("{session}.answers"))
        .join("call_1");
    let claim: Value =
        serde_json::from_slice(&std::fs::read(&answers).expect("the claim file")).expect("json");
    assert_eq!(
        (&claim["option"], &claim["by"]),
        (&json!("allow-once"), &json!("editor"))
    );
    let out = cli(&client, &["pending", "deny", &format!("{session}/call_1")]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(lines(&client), 1);
}

/// Killed while a call waits for approval: the journal holds the session, the call
/// waits in `warden pending list`, and answering it changes no file (no Warden runs).
#[test]
fn a_kill_while_a_call_waits_leaves_it_pending_and_unrun() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let _prompt = client.send_prompt(&session, &append_prompt());
    let _request = client.agent_request("session/request_permission");
    client.process_mut().kill();

    let list = stdout(&cli(&client, &["pending", "list"]));
    assert!(list.contains(&format!("{session}/call_1")), "{list}");
    let sessions = stdout(&cli(&client, &["sessions", "list", "--json"]));
    let line: Value = serde_json::from_str(sessions.trim()).expect("one session");
    assert_eq!(
        (&line["id"], &line["prompts"], &line["waiting"]),
        (&json!(session), &json!(1), &json!(1))
    );
    let out = cli(&client, &["pending", "deny", &format!("{session}/call_1")]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(lines(&client), 0);
    assert_eq!(
        stdout(&cli(&client, &["pending", "list"])),
        "No tool call is waiting for approval.\n"
    );
}
