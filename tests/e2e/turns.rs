//! The prompt turn through the real binary: every outcome of a permission request
//! (docs/contract.md, section 5), batches, the `_meta.warden` extension and each mode.
//!
//! Calls are `terminal` commands that create files in the project, so that whether a
//! call ran is read off the disk, not only off what the agent says.

use serde_json::{Value, json};

use super::support::{Answer, Client, Spawn};

fn selected(option: &str) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option}})
}

fn touch(name: &str) -> String {
    format!(r#"/call terminal {{"command": "touch {name}"}}"#)
}

/// Every agent request, answered `option` if it is a permission request.
fn always(option: &'static str) -> impl FnMut(&Value) -> Answer {
    move |request: &Value| {
        assert_eq!(request["method"], "session/request_permission", "{request}");
        Answer::Result(selected(option))
    }
}

fn permission_requests(client: &Client) -> Vec<Value> {
    client.agent_requests("session/request_permission")
}

fn statuses(client: &Client, call_id: &str) -> Vec<String> {
    client
        .session_updates()
        .iter()
        .filter(|u| u["toolCallId"] == call_id)
        .filter_map(
            // Warden writes out even the first `pending`, which the schema's default
            // would leave out.
            |u| u["status"].as_str().map(str::to_owned),
        )
        .collect()
}

fn exists(client: &Client, name: &str) -> bool {
    client.process().project().join(name).exists()
}

#[test]
fn allow_once_runs_the_call_after_its_pending_tool_call() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("allow-once"));
    let result = client.prompt(&session, &touch("made"));
    assert_eq!(result["stopReason"], "end_turn");
    assert!(exists(&client, "made"));
    assert_eq!(
        statuses(&client, "call_1"),
        ["pending", "in_progress", "completed"]
    );
    // The tool_call notification comes before the permission request for it.
    let order: Vec<&str> = client
        .transcript()
        .iter()
        .filter_map(|e| e.message.as_ref())
        .filter_map(|m| {
            match (
                m["method"].as_str(),
                m["params"]["update"]["sessionUpdate"].as_str(),
            ) {
                (Some("session/request_permission"), _) => Some("request"),
                (Some("session/update"), Some("tool_call")) => Some("tool_call"),
                _ => None,
            }
        })
        .collect();
    assert_eq!(order, ["tool_call", "request"]);
    let request = &permission_requests(&client)[0];
    let options: Vec<&str> = request["params"]["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["optionId"].as_str())
        .collect();
    assert!(
        options.contains(&"allow-once") && options.contains(&"reject-once"),
        "{options:?}"
    );
    let warden = &request["params"]["_meta"]["warden"];
    assert_eq!(warden["risk"], "medium", "{request}");
    // `touch` changes files: its grant names exactly this command.
    assert_eq!(warden["grant"], "exactly \"touch made\"", "{request}");
    // The deciding part's sentence, not the title.
    let reason = warden["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("writes /") && reason.ends_with("/made inside the workspace"),
        "{request}"
    );
    // Why it asks: what decided it, in the names of `warden policy check`.
    assert_eq!(
        warden["evaluation"]["decided_by"],
        json!({"kind": "mode", "mode": "ask"}),
        "{request}"
    );
    assert_eq!(
        warden["evaluation"]["explanation"], "Mode `ask` asks medium-risk calls.",
        "{request}"
    );
    assert!(
        warden["evaluation"]["matched_rules"].is_array(),
        "{request}"
    );
    assert!(
        client.agent_text().contains("terminal: completed"),
        "{}",
        client.agent_text()
    );
}

#[test]
fn allow_for_the_session_lets_the_next_matching_call_run_unasked() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("allow-session"));
    client.prompt(&session, &touch("first"));
    assert_eq!(permission_requests(&client).len(), 1);
    std::fs::remove_file(client.process().project().join("first")).unwrap_or_default();
    client.prompt(&session, &touch("first"));
    assert!(exists(&client, "first"));
    assert_eq!(
        permission_requests(&client).len(),
        1,
        "the second call asked again"
    );
    // A command that changes files is granted exactly: another file still asks.
    client.prompt(&session, &touch("second"));
    assert_eq!(
        permission_requests(&client).len(),
        2,
        "a grant for `touch first` covered `touch second`"
    );
}

#[test]
fn allow_for_the_session_without_a_narrow_grant_covers_exactly_that_call() {
    // No grant is proposed for a script (`bash -c`), so "allow for the session" stands
    // for this exact call only: the same call runs unasked, a different one asks.
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("allow-session"));
    let call = |text: &str| {
        format!(
            r#"/call terminal {}"#,
            json!({"command": format!("bash -c 'echo {text} >> log'")})
        )
    };
    client.prompt(&session, &call("a"));
    assert_eq!(permission_requests(&client).len(), 1);
    let request = &permission_requests(&client)[0];
    assert!(
        request["params"]["_meta"]["warden"]["grant"].is_null(),
        "{request}"
    );
    client.prompt(&session, &call("a"));
    assert_eq!(
        permission_requests(&client).len(),
        1,
        "the same call asked again"
    );
    client.prompt(&session, &call("b"));
    assert_eq!(
        permission_requests(&client).len(),
        2,
        "a different call ran unasked"
    );
    let log = std::fs::read_to_string(client.process().project().join("log")).unwrap_or_default();
    assert_eq!(log, "a\na\nb\n");
}

#[test]
fn allow_for_the_project_survives_a_restart() {
    let mut first = Client::spawn();
    let session = first.ready_session();
    first.on_request(always("allow-project"));
    first.prompt(&session, &touch("first"));
    assert_eq!(permission_requests(&first).len(), 1);
    assert_eq!(first.finish().code(), Some(0));

    let home = first.process().home().display().to_string();
    let project = first.process().project();
    let mut second = Client::spawn_with(&Spawn::default().env("WARDEN_HOME", home));
    second.initialize();
    let result = second.request_ok(
        "session/new",
        json!({"cwd": project.display().to_string(), "mcpServers": []}),
    );
    let session = result["sessionId"].as_str().unwrap_or_default().to_owned();
    second.on_request(always("reject-once"));
    std::fs::remove_file(project.join("first")).unwrap_or_default();
    second.prompt(&session, &touch("first"));
    assert!(project.join("first").exists(), "{}", second.agent_text());
    assert!(permission_requests(&second).is_empty());
}

/// Runs `warden ARGS` as a second process next to the agent; returns its stdout.
fn warden_cli(client: &Client, args: &[&str]) -> String {
    let output = client.process().cli(args, &[]);
    assert!(
        output.status.success(),
        "warden {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_grant_revoked_from_another_process_stops_allowing_in_the_running_agent() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("allow-project"));
    // `touch` changes files, so its grant names exactly this command: the same
    // command again is what the grant allows.
    client.prompt(&session, &touch("first"));
    assert_eq!(permission_requests(&client).len(), 1);
    let first = client.process().project().join("first");
    std::fs::remove_file(&first).expect("remove");
    client.prompt(&session, &touch("first"));
    assert!(exists(&client, "first"));
    assert_eq!(
        permission_requests(&client).len(),
        1,
        "the stored grant did not allow the call unasked"
    );

    let listed = warden_cli(&client, &["grants", "list", "--json"]);
    let grants: Vec<Value> = listed
        .lines()
        .map(|line| serde_json::from_str(line).expect("a grant as JSON"))
        .collect();
    assert_eq!(grants.len(), 1, "{listed}");
    let id = grants[0]["id"].as_str().expect("the grant's id");
    warden_cli(&client, &["grants", "revoke", id]);

    client.on_request(always("reject-once"));
    std::fs::remove_file(&first).expect("remove");
    client.prompt(&session, &touch("first"));
    assert_eq!(
        permission_requests(&client).len(),
        2,
        "the revoked grant still allowed the call"
    );
    assert!(!exists(&client, "first"));
}

#[test]
fn a_malformed_risk_level_makes_the_call_invalid_with_the_policy_checks_message() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("allow-once"));
    client.prompt(
        &session,
        r#"/call terminal {"command": "touch made", "risk_level": "critical"}"#,
    );
    assert!(permission_requests(&client).is_empty());
    assert!(!exists(&client, "made"));
    assert_eq!(
        statuses(&client, "call_1").last().map(String::as_str),
        Some("failed")
    );
    // `warden policy check` reports the same text as the malformed call's problem
    // (`cli_policy.rs`).
    let expected =
        r#"Invalid call: invalid risk_level "critical": expected "low", "medium" or "high""#;
    fn texts(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(text) => out.push(text.clone()),
            Value::Array(items) => items.iter().for_each(|v| texts(v, out)),
            Value::Object(map) => map.values().for_each(|v| texts(v, out)),
            _ => {}
        }
    }
    let mut said = Vec::new();
    for update in client.session_updates() {
        if update["toolCallId"] == "call_1" {
            texts(&update, &mut said);
        }
    }
    assert!(said.iter().any(|t| t == expected), "{said:?}");
}

#[test]
fn reject_once_does_not_run_the_call_and_tells_the_model() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("reject-once"));
    let result = client.prompt(&session, &touch("made"));
    assert_eq!(result["stopReason"], "end_turn");
    assert!(!exists(&client, "made"));
    assert_eq!(
        statuses(&client, "call_1").last().map(String::as_str),
        Some("failed")
    );
    assert!(
        client.agent_text().contains("User denied tool invocation"),
        "{}",
        client.agent_text()
    );
}

#[test]
fn reject_for_the_project_denies_later_calls_without_asking() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("reject-project"));
    client.prompt(&session, &touch("first"));
    client.prompt(&session, &touch("first"));
    assert!(!exists(&client, "first"));
    assert_eq!(permission_requests(&client).len(), 1);
}

#[test]
fn cancel_while_a_request_is_pending_ends_the_turn_cancelled() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let prompt = client.send_prompt(&session, &touch("made"));
    let request = client.agent_request("session/request_permission");
    client.notify("session/cancel", json!({"sessionId": session}));
    // The spec has the client answer its open permission requests `cancelled`.
    client.respond(&request, json!({"outcome": {"outcome": "cancelled"}}));
    let response = client.response(&prompt);
    assert_eq!(response["result"]["stopReason"], "cancelled", "{response}");
    assert!(!exists(&client, "made"));
    assert_eq!(
        statuses(&client, "call_1").last().map(String::as_str),
        Some("failed")
    );
}

/// Regression: the `$/cancel_request` of a withdrawn permission request used to follow
/// the prompt's `cancelled` answer, so something about the turn came after its end.
#[test]
fn the_withdrawal_of_an_unanswered_request_precedes_the_cancelled_answer() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let prompt = client.send_prompt(&session, &touch("made"));
    let request = client.agent_request("session/request_permission");
    client.notify("session/cancel", json!({"sessionId": session}));
    let withdrawn = client.wait_for("the $/cancel_request for the permission request", |m| {
        m["method"] == "$/cancel_request"
    });
    assert_eq!(
        withdrawn["params"]["requestId"], request["id"],
        "{withdrawn}"
    );
    let response = client.response(&prompt);
    assert_eq!(response["result"]["stopReason"], "cancelled", "{response}");
    // Both are in the transcript now, in the order they arrived.
    let position = |wanted: &dyn Fn(&Value) -> bool| {
        client
            .transcript()
            .iter()
            .position(|e| e.message.as_ref().is_some_and(wanted))
    };
    let withdrawn_at = position(&|m| m["method"] == "$/cancel_request");
    let answered_at = position(&|m| m["id"] == prompt && m.get("result").is_some());
    assert!(
        withdrawn_at < answered_at,
        "{withdrawn_at:?} {answered_at:?}"
    );
    assert!(!exists(&client, "made"));
}

/// Every answer that is not a well-formed choice of an offered option is a denial:
/// the call does not run and the model hears it was denied.
#[test]
fn unknown_malformed_and_error_answers_are_denials() {
    let answers: [(&str, Answer); 4] = [
        (
            "an unknown option id",
            Answer::Result(selected("allow-always-and-forever")),
        ),
        (
            "an unknown outcome",
            Answer::Result(json!({"outcome": {"outcome": "maybe"}})),
        ),
        (
            "a result without an outcome",
            Answer::Result(json!({"optionId": "allow-once"})),
        ),
        (
            "an error response",
            Answer::Error {
                code: -32603,
                message: "the dialog crashed".to_owned(),
            },
        ),
    ];
    for (what, answer) in answers {
        let mut client = Client::spawn();
        let session = client.ready_session();
        client.on_request(move |_| answer.clone());
        client.prompt(&session, &touch("made"));
        assert!(!exists(&client, "made"), "{what} ran the call");
        let text = client.agent_text();
        assert!(text.contains("terminal: denied"), "{what}: {text}");
    }
}

#[test]
fn no_answer_within_the_timeout_fails_the_call_and_withdraws_the_request() {
    let mut client = Client::spawn();
    std::fs::write(
        client.process().home().join("policy.toml"),
        "approval_timeout_secs = 1\n",
    )
    .expect("write the user policy");
    let session = client.ready_session();
    let prompt = client.send_prompt(&session, &touch("made"));
    let request = client.agent_request("session/request_permission");
    let withdrawn = client.wait_for("the $/cancel_request of the timed-out request", |m| {
        m["method"] == "$/cancel_request"
    });
    assert_eq!(withdrawn["params"]["requestId"], request["id"]);
    let response = client.response(&prompt);
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert!(!exists(&client, "made"));
    assert!(
        client.agent_text().contains("terminal: timed out"),
        "{}",
        client.agent_text()
    );
    // The audit log is written by its own thread; it is complete once Warden exits.
    assert!(client.finish().success());
    let audit =
        std::fs::read_to_string(client.process().home().join("audit.jsonl")).unwrap_or_default();
    assert!(audit.contains("timed_out"), "{audit}");
}

#[test]
fn a_batch_with_mixed_outcomes_asks_everything_at_once() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let prompt = client.send_prompt(
        &session,
        &[
            touch("a"),
            touch("b"),
            touch("c"),
            r#"/call terminal {"command": "ls"}"#.to_owned(),
        ]
        .join("\n"),
    );
    // All three questions are open at the same time before any is answered.
    let requests: Vec<Value> = (0..3)
        .map(|_| client.agent_request("session/request_permission"))
        .collect();
    for request in &requests {
        let command = request["params"]["toolCall"]["rawInput"]["command"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let option = if command.ends_with('b') {
            "reject-once"
        } else {
            "allow-once"
        };
        client.respond(request, selected(option));
    }
    let response = client.response(&prompt);
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert!(exists(&client, "a") && !exists(&client, "b") && exists(&client, "c"));
    let text = client.agent_text();
    assert_eq!(text.matches("terminal: completed").count(), 3, "{text}");
    assert_eq!(text.matches("terminal: denied").count(), 1, "{text}");
}

#[test]
fn edited_input_runs_instead_and_a_denial_note_reaches_the_model() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| {
        Answer::Result(json!({
            "outcome": {"outcome": "selected", "optionId": "allow-once"},
            "_meta": {"warden": {"editedInput": {"command": "touch edited"}}}
        }))
    });
    client.prompt(&session, &touch("original"));
    assert!(exists(&client, "edited") && !exists(&client, "original"));

    client.on_request(|_| {
        Answer::Result(json!({
            "outcome": {"outcome": "selected", "optionId": "reject-once"},
            "_meta": {"warden": {"note": "not on a Friday"}}
        }))
    });
    client.prompt(&session, &touch("friday"));
    assert!(!exists(&client, "friday"));
    assert!(
        client.agent_text().contains("not on a Friday"),
        "{}",
        client.agent_text()
    );
}

#[test]
fn a_malformed_extension_is_a_denial() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| {
        Answer::Result(json!({
            "outcome": {"outcome": "selected", "optionId": "allow-once"},
            "_meta": {"warden": {"editedInput": "touch sneaky"}}
        }))
    });
    client.prompt(&session, &touch("made"));
    assert!(!exists(&client, "made") && !exists(&client, "sneaky"));
}

fn in_mode(mode: &str, prompt: &str) -> Client {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.request_ok(
        "session/set_mode",
        json!({"sessionId": session, "modeId": mode}),
    );
    client.on_request(always("allow-once"));
    client.prompt(&session, prompt);
    client
}

#[test]
fn each_mode_decides_as_the_contract_says() {
    let read_only = in_mode("read-only", &touch("made"));
    assert!(!exists(&read_only, "made"));
    assert!(permission_requests(&read_only).is_empty());

    let auto_deny = in_mode("auto-deny", &touch("made"));
    assert!(!exists(&auto_deny, "made"));
    assert!(permission_requests(&auto_deny).is_empty());

    let auto_approve = in_mode("auto-approve", &touch("made"));
    assert!(exists(&auto_approve, "made"));
    assert!(permission_requests(&auto_approve).is_empty());

    let write = r#"/call fs_write {"path": "notes.txt", "content": "hi"}"#;
    let accept_edits = in_mode("accept-edits", write);
    assert!(exists(&accept_edits, "notes.txt"));
    assert!(permission_requests(&accept_edits).is_empty());

    let ask = in_mode("ask", write);
    assert!(exists(&ask, "notes.txt"));
    assert_eq!(permission_requests(&ask).len(), 1);
}

#[test]
fn critical_calls_offer_no_always_options() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("reject-once"));
    client.prompt(&session, r#"/call terminal {"command": "sudo rm -rf /"}"#);
    let request = &permission_requests(&client)[0];
    let kinds: Vec<&str> = request["params"]["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["kind"].as_str())
        .collect();
    assert!(!kinds.contains(&"allow_always"), "{kinds:?}");
    assert_eq!(request["params"]["_meta"]["warden"]["risk"], "critical");
}
