//! Slash commands through the real binary: the commands a session advertises, and
//! Warden's own (`/grants`, `/revoke ID`, `/why`, `/mode MODE`), answered without the
//! model.

use serde_json::{Value, json};

use super::support::{Answer, Client, Direction};

fn selected(option: &str) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option}})
}

const TOUCH: &str = r#"/call terminal {"command": "touch made"}"#;

/// The text the agent said since `mark`.
fn said_since(client: &Client, mark: usize) -> String {
    client
        .received_since(mark)
        .iter()
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|m| m["params"]["update"]["content"]["text"].as_str())
        .collect()
}

#[test]
fn the_commands_list_follows_the_new_sessions_answer() {
    let mut client = Client::spawn();
    client.initialize();
    let session = client.new_session();
    let update = client.commands_update();
    assert_eq!(update["params"]["sessionId"], session.as_str());
    let commands: Vec<String> = update["params"]["update"]["availableCommands"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| match c["input"]["hint"].as_str() {
            Some(hint) => format!("{} {hint}", c["name"].as_str().unwrap_or("?")),
            None => c["name"].as_str().unwrap_or("?").to_owned(),
        })
        .collect();
    assert_eq!(
        commands,
        [
            "call <tool> <json-object>",
            "say <text>",
            "grants",
            "revoke ID",
            "why",
            "mode ask | accept-edits | read-only | auto-approve | auto-deny",
            "tools"
        ]
    );
    // After the answer that told the client the session's id.
    let from_agent: Vec<&Value> = client
        .transcript()
        .iter()
        .filter(|e| matches!(e.direction, Direction::FromAgent))
        .filter_map(|e| e.message.as_ref())
        .collect();
    let answer = from_agent
        .iter()
        .position(|m| m["result"]["sessionId"] == session.as_str());
    let listed = from_agent
        .iter()
        .position(|m| m["params"]["update"]["sessionUpdate"] == "available_commands_update");
    assert!(answer.is_some() && answer < listed, "{answer:?} {listed:?}");
}

#[test]
fn grants_are_listed_with_ids_and_revoked_by_id() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(selected("allow-session")));
    client.prompt(&session, TOUCH);
    let mark = client.mark();
    let result = client.prompt(&session, "/grants");
    assert_eq!(result["stopReason"], "end_turn");
    let listed = said_since(&client, mark);
    assert!(
        listed.starts_with("**Grants that apply here** (mode `ask`):\n\n- `"),
        "{listed}"
    );
    assert!(
        listed.contains(": allow exactly \"touch made\" for this session, up to medium risk"),
        "{listed}"
    );
    let id = listed
        .split('`')
        .nth(3)
        .unwrap_or_else(|| client.fail(&format!("no grant id in {listed}")))
        .to_owned();
    let mark = client.mark();
    client.prompt(&session, &format!("/revoke {id}"));
    assert_eq!(
        said_since(&client, mark),
        format!("Revoked `{id}`: calls it allowed or denied are asked about again.")
    );
    // Asked again now that the grant is gone.
    let asked_before = client.agent_requests("session/request_permission").len();
    client.prompt(&session, TOUCH);
    assert_eq!(
        client.agent_requests("session/request_permission").len(),
        asked_before + 1
    );
    let mark = client.mark();
    client.prompt(&session, &format!("/revoke {id}"));
    assert_eq!(
        said_since(&client, mark),
        format!("There is no grant `{id}`; `/grants` lists them.")
    );
    // The revocation is in the audit log (once: the second `/revoke` found nothing),
    // which is complete once Warden exits.
    assert!(client.finish().success());
    let audit =
        std::fs::read_to_string(client.process().home().join("audit.jsonl")).unwrap_or_default();
    let revocations: Vec<serde_json::Value> = audit
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|r: &serde_json::Value| r["kind"] == "revocation")
        .collect();
    assert_eq!(revocations.len(), 1, "{audit}");
    assert_eq!(revocations[0]["decided_by"]["grant_id"], id.as_str());
    assert_eq!(revocations[0]["decided_by"]["revoked_by"], "/revoke");
    assert_eq!(revocations[0]["session_id"], session.as_str());
}

/// A stored grant (made by "Always allow … in this project") revoked with `/revoke` is
/// gone from the grants file for every later call, and the audit log has the line.
#[test]
fn a_stored_grant_revoked_with_revoke_leaves_an_audit_line() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(selected("allow-project")));
    client.prompt(&session, TOUCH);
    let mark = client.mark();
    client.prompt(&session, "/grants");
    let listed = said_since(&client, mark);
    let id = listed
        .split('`')
        .nth(3)
        .unwrap_or_else(|| client.fail(&format!("no grant id in {listed}")))
        .to_owned();
    let mark = client.mark();
    client.prompt(&session, &format!("/revoke {id}"));
    assert_eq!(
        said_since(&client, mark),
        format!("Revoked `{id}`: calls it allowed or denied are asked about again.")
    );
    let grants =
        std::fs::read_to_string(client.process().home().join("grants.jsonl")).unwrap_or_default();
    assert!(grants.contains("\"revoke\""), "{grants}");
    assert!(client.finish().success());
    let audit =
        std::fs::read_to_string(client.process().home().join("audit.jsonl")).unwrap_or_default();
    let revocations: Vec<Value> = audit
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|r: &Value| r["kind"] == "revocation")
        .collect();
    assert_eq!(revocations.len(), 1, "{audit}");
    assert_eq!(revocations[0]["decided_by"]["grant_id"], id.as_str());
    assert_eq!(revocations[0]["session_id"], session.as_str());
}

#[test]
fn why_explains_the_last_call_as_policy_check_would() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let mark = client.mark();
    client.prompt(&session, "/why");
    assert_eq!(
        said_since(&client, mark),
        "No call has been evaluated in this session yet."
    );
    client.on_request(|_| Answer::Result(selected("reject-once")));
    client.prompt(
        &session,
        r#"/call terminal {"command": "cd /tmp && rm -rf /"}"#,
    );
    let mark = client.mark();
    client.prompt(&session, "/why");
    let text = said_since(&client, mark);
    assert!(
        text.starts_with(
            "**Last call**: `` Run `cd /tmp && rm -rf /` ``\n\n**Decision**: ask, risk critical: recursively deletes /, the whole file system; writes outside the workspace: /\n\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("- `rm -rf /`: ask, risk critical: "),
        "{text}"
    );
    let json = text
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap_or_else(|| client.fail(&format!("no JSON in {text}")));
    let evaluation: Value = serde_json::from_str(json).unwrap_or_default();
    assert_eq!(evaluation["decision"], "ask");
    assert_eq!(evaluation["risk"], "critical");
    assert_eq!(evaluation["segments"][1]["text"], "rm -rf /");
}

#[test]
fn mode_changes_the_mode_without_the_model() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let mark = client.mark();
    client.prompt(&session, "/mode read-only");
    let updates: Vec<Value> = client
        .received_since(mark)
        .into_iter()
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "current_mode_update")
        .collect();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0]["params"]["update"]["currentModeId"], "read-only");
    assert_eq!(said_since(&client, mark), "The mode is now `read-only`.");
    // A write is now denied without asking.
    client.prompt(&session, TOUCH);
    assert_eq!(client.agent_requests("session/request_permission").len(), 0);
    assert!(!client.process().project().join("made").exists());
    let mark = client.mark();
    client.prompt(&session, "/mode yolo");
    assert_eq!(
        said_since(&client, mark),
        "The mode did not change: unknown mode `yolo`; the modes are: ask, accept-edits, read-only, auto-approve, auto-deny."
    );
}
