//! A denial says why, to the model and to the client: a deny rule's own `reason`, or the
//! mode's words, travel in the tool's result and in the call's failed update.

use serde_json::{Value, json};

use super::support::Client;

/// The text of the failed `tool_call_update` of the session's last call.
fn failed_text(client: &Client) -> String {
    client
        .session_updates()
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == "failed")
        .flat_map(|u| u["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["content"]["text"].as_str().map(str::to_owned))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_deny_rules_reason_reaches_the_model_and_the_client() {
    let mut client = Client::spawn();
    std::fs::write(
        client.process().home().join("policy.toml"),
        "[[rule]]\ntool = \"terminal\"\ncommand = \"git push\"\ndecision = \"deny\"\nreason = \"pushing is done by CI\"\n",
    )
    .expect("write the user policy");
    let session = client.ready_session();
    let result = client.prompt(
        &session,
        r#"/call terminal {"command": "git push origin main"}"#,
    );
    assert_eq!(result["stopReason"], "end_turn");
    // Nothing was asked: the rule denies.
    assert!(
        client
            .agent_requests("session/request_permission")
            .is_empty(),
        "{:?}",
        client.agent_requests("session/request_permission")
    );
    let shown = failed_text(&client);
    assert!(shown.contains("Denied by policy"), "{shown}");
    assert!(shown.contains("pushing is done by CI"), "{shown}");
    // The scripted model quotes the tool result it was given: the reason reached it.
    let text = client.agent_text();
    assert!(
        text.contains("terminal: denied") && text.contains("pushing is done by CI"),
        "{text}"
    );
}

#[test]
fn read_only_mode_says_the_mode_denied_the_call() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let _: Value = client.request_ok(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "read-only"}),
    );
    client.prompt(&session, "write notes.txt: hello");
    let shown = failed_text(&client);
    assert!(shown.contains("Mode `read-only` denies"), "{shown}");
    assert!(
        client.agent_text().contains("Mode `read-only` denies"),
        "{}",
        client.agent_text()
    );
}
