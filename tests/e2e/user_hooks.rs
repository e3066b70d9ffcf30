//! The user's own hooks (`[[hook]]`) in a real session: one that denies a call the
//! mode would allow, and one that allows a call the mode would ask about. The hook
//! scripts are written by the test.

use std::os::unix::fs::PermissionsExt as _;

use serde_json::json;

use super::support::{Answer, Client};

/// Writes an executable hook script into the agent's Warden home and names it in the
/// user's policy.
fn install_hook(client: &Client, body: &str) {
    let home = client.process().home();
    let script = home.join("hook.sh");
    std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).expect("write the hook");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        home.join("policy.toml"),
        format!("[[hook]]\ncommand = \"{}\"\n", script.display()),
    )
    .expect("write the user policy");
}

/// A client that refuses any permission request (the tests assert there is none).
fn refusing_client() -> Client {
    let mut client = Client::spawn();
    client.on_request(|_| {
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "reject-once"}}))
    });
    client
}

#[test]
fn a_user_hook_denies_a_call_the_mode_would_allow() {
    let mut client = refusing_client();
    install_hook(
        &client,
        r#"cat > /dev/null
echo '{"decision": "deny", "reason": "listing is off limits"}'"#,
    );
    let session = client.ready_session();
    client.prompt(&session, r#"/call terminal {"command": "ls"}"#);
    assert!(
        client
            .agent_requests("session/request_permission")
            .is_empty(),
        "nothing is asked"
    );
    let failed: Vec<String> = client
        .session_updates()
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == "failed")
        .map(|u| u.to_string())
        .collect();
    assert!(
        failed.iter().any(|u| u.contains("listing is off limits")),
        "{failed:?}"
    );
}

#[test]
fn a_user_hook_allows_a_call_the_mode_would_ask_about() {
    let mut client = refusing_client();
    install_hook(
        &client,
        r#"cat > /dev/null
echo '{"decision": "allow", "reason": "notes are fine"}'"#,
    );
    let session = client.ready_session();
    client.prompt(
        &session,
        r#"/call fs_write {"path": "notes.txt", "content": "hello"}"#,
    );
    assert!(
        client
            .agent_requests("session/request_permission")
            .is_empty(),
        "{:?}",
        client.agent_requests("session/request_permission")
    );
    let written = std::fs::read_to_string(client.process().project().join("notes.txt"))
        .expect("the hook allowed the write");
    assert_eq!(written, "hello");
}
