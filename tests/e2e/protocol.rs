//! The agent's methods on the happy path and their specified errors: `initialize`,
//! `session/new`, `session/prompt`, `session/set_mode`, `session/cancel`.

use expect_test::expect;
use serde_json::{Value, json};

use super::support::{Client, prompt_params};

/// The contract's session modes, in the order `session/new` lists them.
const MODES: [&str; 5] = [
    "ask",
    "accept-edits",
    "read-only",
    "auto-approve",
    "auto-deny",
];

/// ACP's "resource not found" code, which the SDK uses for an unknown session.
const RESOURCE_NOT_FOUND: i64 = -32002;
const INVALID_PARAMS: i64 = -32602;

#[test]
fn initialize_reports_protocol_1_and_the_warden_version() {
    let mut client = Client::spawn();
    let result = client.initialize();
    assert_eq!(result["protocolVersion"], json!(1), "{result}");
    assert_eq!(result["agentInfo"]["name"], json!("warden"), "{result}");
    assert_eq!(
        result["agentInfo"]["version"],
        json!(env!("CARGO_PKG_VERSION")),
        "{result}"
    );
    assert!(client.finish().success());
}

#[test]
fn session_new_lists_the_contract_modes_with_ask_current() {
    let mut client = Client::spawn();
    client.initialize();
    let result = client.new_session_result();
    let modes = &result["modes"];
    assert_eq!(modes["currentModeId"], json!("ask"), "{result}");
    let ids: Vec<&str> = modes["availableModes"]
        .as_array()
        .map(|modes| {
            modes
                .iter()
                .filter_map(|mode| mode["id"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(ids, MODES, "{result}");
}

/// One `session/new` params object per boundary of the `cwd` rule: absolute only.
#[test]
fn session_new_refuses_a_relative_or_missing_cwd() {
    let mut client = Client::spawn();
    client.initialize();
    let project = client.process().project().display().to_string();
    let cases = [
        (
            json!({"cwd": "project", "mcpServers": []}),
            Some(INVALID_PARAMS),
        ),
        (
            json!({"cwd": "./project", "mcpServers": []}),
            Some(INVALID_PARAMS),
        ),
        (json!({"cwd": "", "mcpServers": []}), Some(INVALID_PARAMS)),
        (json!({"mcpServers": []}), Some(INVALID_PARAMS)),
        (json!({"cwd": 42, "mcpServers": []}), Some(INVALID_PARAMS)),
        (json!({"cwd": project, "mcpServers": []}), None),
    ];
    for (params, expected) in cases {
        let response = client.request("session/new", params.clone());
        let code = response["error"]["code"].as_i64();
        assert_eq!(code, expected, "session/new {params} -> {response}");
        if expected.is_some() {
            let message = response["error"]["message"].as_str().unwrap_or_default();
            assert!(
                !message.is_empty(),
                "an error without a message: {response}"
            );
        }
    }
}

/// Warden does not advertise `sessionCapabilities.systemPrompt`, so a client's system
/// prompt is refused rather than dropped without a word (ACP schema 1.16 and later).
#[test]
fn session_new_refuses_a_client_system_prompt_it_does_not_advertise() {
    let mut client = Client::spawn();
    let init = client.initialize();
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"].get("systemPrompt"),
        None,
        "{init}"
    );
    let project = client.process().project().display().to_string();
    let prompt = json!({"mode": "append", "content": [{"type": "text", "text": "be brief"}]});
    let response = client.request(
        "session/new",
        json!({"cwd": project, "mcpServers": [], "systemPrompt": prompt}),
    );
    assert_eq!(
        response["error"]["code"].as_i64(),
        Some(INVALID_PARAMS),
        "{response}"
    );
    let without = client.request("session/new", json!({"cwd": project, "mcpServers": []}));
    assert!(without["result"]["sessionId"].is_string(), "{without}");
}

#[test]
fn prompt_say_hello_streams_chunks_and_ends_the_turn() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let mark = client.mark();
    let result = client.prompt(&session, "/say hello");
    assert_eq!(result["stopReason"], json!("end_turn"), "{result}");
    assert_eq!(client.agent_text(), "hello");
    expect![[r#"
        -> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"<session-1>","prompt":[{"type":"text","text":"/say hello"}]}}
        <- {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"<session-1>","update":{"sessionUpdate":"session_info_update","title":"/say hello"}}}
        <- {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"<session-1>","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}
        <- {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}
    "#]].assert_eq(&client.snapshot_since(mark));
}

#[test]
fn set_mode_announces_the_change_and_answers() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    for mode in ["read-only", "auto-approve", "ask"] {
        let result = client.request_ok(
            "session/set_mode",
            json!({"sessionId": session, "modeId": mode}),
        );
        assert_eq!(result, json!({}), "set_mode {mode}");
        let update = client.wait_for("a current_mode_update", |message| {
            message["params"]["update"]["sessionUpdate"] == "current_mode_update"
        });
        assert_eq!(update["params"]["sessionId"], json!(session), "{update}");
        assert_eq!(
            update["params"]["update"]["currentModeId"],
            json!(mode),
            "{update}"
        );
    }
}

#[test]
fn set_mode_with_an_unknown_mode_is_invalid_params() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    for mode in ["yolo", "", "ASK"] {
        let error = client.request_err(
            "session/set_mode",
            json!({"sessionId": session, "modeId": mode}),
        );
        assert_eq!(
            error["code"],
            json!(INVALID_PARAMS),
            "mode {mode:?}: {error}"
        );
    }
    assert!(
        client
            .notifications("session/update")
            .iter()
            .all(|m| m["params"]["update"]["sessionUpdate"] != "current_mode_update"),
        "a refused mode change must not be announced"
    );
}

#[test]
fn unknown_session_id_gets_resource_not_found() {
    let mut client = Client::spawn();
    client.ready_session();
    let cases = [
        (
            "session/prompt",
            prompt_params("no-such-session", "/say hello"),
        ),
        (
            "session/set_mode",
            json!({"sessionId": "no-such-session", "modeId": "ask"}),
        ),
    ];
    for (method, params) in cases {
        let error = client.request_err(method, params);
        assert_eq!(
            error["code"],
            json!(RESOURCE_NOT_FOUND),
            "{method}: {error}"
        );
    }
}

/// The file the command of [`turn_waiting_for_permission`] would create.
const MARKER: &str = "ran-after-cancel";

/// Starts a turn that waits for the user: a medium-risk shell command in `ask` mode
/// needs a permission. Returns the prompt's request id and the permission request.
fn turn_waiting_for_permission(client: &mut Client, session: &str) -> (Value, Value) {
    let command = format!(r#"/call terminal {{"command":"touch {MARKER}"}}"#);
    let prompt = client.send_prompt(session, &command);
    let permission = client.agent_request("session/request_permission");
    (prompt, permission)
}

/// Nothing of a cancelled turn runs: the command's file must not exist.
#[track_caller]
fn assert_nothing_ran(client: &Client) {
    let marker = client.process().project().join(MARKER);
    assert!(
        !marker.exists(),
        "the cancelled command ran: {}",
        marker.display()
    );
}

/// A client that follows the spec: after `session/cancel` it answers its open
/// permission request with the `cancelled` outcome.
#[test]
fn cancel_while_permission_is_pending_ends_the_turn_cancelled() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let (prompt, permission) = turn_waiting_for_permission(&mut client, &session);
    client.notify("session/cancel", json!({"sessionId": session}));
    client.respond(&permission, json!({"outcome": {"outcome": "cancelled"}}));
    let response = client.response(&prompt);
    assert_eq!(
        response["result"]["stopReason"],
        json!("cancelled"),
        "{response}"
    );
    let failed = client.session_updates().into_iter().any(|update| {
        update["sessionUpdate"] == "tool_call_update" && update["status"] == "failed"
    });
    client.ensure(
        failed,
        "the cancelled call must be marked failed before the response",
    );
    let answered = client.mark();
    client.finish();
    let late = client.received_since(answered);
    client.ensure(
        late.is_empty(),
        format!("messages about the turn after its response: {late:?}"),
    );
    assert_nothing_ran(&client);
}

/// A client that sends `session/cancel` but never answers the permission request:
/// the agent must not hang; it withdraws the request and ends the turn cancelled.
/// Regression: the `$/cancel_request` came after the prompt's response.
#[test]
fn permission_is_withdrawn_before_the_cancelled_prompt_response() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let (prompt, permission) = turn_waiting_for_permission(&mut client, &session);
    client.notify("session/cancel", json!({"sessionId": session}));
    let response = client.response(&prompt);
    assert_eq!(
        response["result"]["stopReason"],
        json!("cancelled"),
        "{response}"
    );
    let withdrawn = client
        .notifications("$/cancel_request")
        .iter()
        .any(|message| message["params"]["requestId"] == permission["id"]);
    client.ensure(
        withdrawn,
        "the pending permission request was not withdrawn",
    );
    client.finish();
    assert_nothing_ran(&client);
}
