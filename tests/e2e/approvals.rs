//! What a person sees before approving (docs/contract.md, section 5, "Order and content"):
//! diffs on the pending call and in the request, the risk in words, a safe first option
//! for Critical calls, an explicit `pending` status, and the deciding reason.

use serde_json::{Value, json};

use super::support::{Answer, Client, Direction, Spawn};

fn selected(option: &str) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option}})
}

/// The first `tool_call` notification and the first permission request, as sent.
fn first_call_and_request(client: &Client) -> (Value, Value) {
    let messages: Vec<&Value> = client
        .transcript()
        .iter()
        .filter_map(|e| e.message.as_ref())
        .collect();
    let call = messages
        .iter()
        .find(|m| m["params"]["update"]["sessionUpdate"] == "tool_call")
        .map(|m| m["params"]["update"].clone())
        .unwrap_or_else(|| client.fail("no tool_call notification"));
    let request = messages
        .iter()
        .find(|m| m["method"] == "session/request_permission" && m.get("id").is_some())
        .map(|m| m["params"].clone())
        .unwrap_or_else(|| client.fail("no permission request"));
    (call, request)
}

/// The options as `id kind "label"`, one per line.
fn options(request: &Value) -> Vec<String> {
    request["options"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| {
            format!(
                "{} {} {}",
                o["optionId"].as_str().unwrap_or("?"),
                o["kind"].as_str().unwrap_or("?"),
                o["name"]
            )
        })
        .collect()
}

fn write_prompt(path: &str, content: &str) -> String {
    format!(
        "/call fs_write {}",
        json!({"path": path, "content": content})
    )
}

#[test]
fn a_new_files_write_shows_its_diff_and_risk_before_it_runs() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(selected("reject-once")));
    let result = client.prompt(&session, &write_prompt("notes.txt", "hello\n"));
    assert_eq!(result["stopReason"], "end_turn");
    let (call, request) = first_call_and_request(&client);
    let path = client.process().project().join("notes.txt");
    // The status is written out: a client must not show the call as running.
    assert_eq!(call["status"], "pending", "{call}");
    assert_eq!(call["title"], "Write 6 bytes to notes.txt", "{call}");
    let diff = json!({
        "type": "diff",
        "path": path.display().to_string(),
        "oldText": null,
        "newText": "hello\n"
    });
    assert_eq!(call["content"][0], diff, "{call}");
    assert!(
        call["content"][0]
            .as_object()
            .is_some_and(|d| d.contains_key("oldText")),
        "a new file's oldText is null, not left out: {call}"
    );
    let risk = call["content"][1]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        risk.starts_with("Medium: writes ") && risk.ends_with("notes.txt inside the workspace"),
        "{risk}"
    );
    // The request's tool call carries the same content.
    assert_eq!(request["toolCall"]["content"], call["content"], "{request}");
    assert_eq!(request["toolCall"]["status"], "pending", "{request}");
    assert_eq!(
        request["_meta"]["warden"]["reason"],
        risk.trim_start_matches("Medium: ")
    );
    assert_eq!(
        options(&request),
        [
            r#"allow-once allow_once "Allow once""#,
            r#"allow-session allow_always "Always allow fs_write on notes.txt in this session""#,
            r#"allow-project allow_always "Always allow fs_write on notes.txt in this project""#,
            r#"reject-once reject_once "Reject""#,
            r#"reject-and-stop reject_once "Reject and stop""#,
            r#"reject-project reject_always "Always reject fs_write on notes.txt in this project""#,
        ]
    );
    assert!(!path.exists(), "rejected, so nothing was written");
}

#[test]
fn an_existing_files_write_and_delete_show_the_old_text() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let project = client.process().project().to_path_buf();
    std::fs::write(project.join("a.txt"), "old\n").expect("write a.txt");
    client.on_request(|_| Answer::Result(selected("reject-once")));
    client.prompt(&session, &write_prompt("a.txt", "new\n"));
    client.prompt(&session, r#"/call fs_delete {"path": "a.txt"}"#);
    let calls: Vec<Value> = client
        .session_updates()
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "tool_call")
        .collect();
    let path = project.join("a.txt").display().to_string();
    assert_eq!(
        calls[0]["content"][0],
        json!({"type": "diff", "path": path, "oldText": "old\n", "newText": "new\n"})
    );
    assert_eq!(
        calls[1]["content"][0],
        json!({"type": "diff", "path": path, "oldText": "old\n", "newText": ""})
    );
    assert_eq!(
        std::fs::read_to_string(project.join("a.txt"))
            .ok()
            .as_deref(),
        Some("old\n")
    );
}

#[test]
fn rm_rf_home_lists_reject_first_and_says_why_in_words() {
    let home = tempfile::tempdir().expect("a home folder for the test");
    std::fs::write(home.path().join("keep"), "precious").expect("write keep");
    let mut client =
        Client::spawn_with(&Spawn::default().env("HOME", home.path().display().to_string()));
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(selected("reject-once")));
    let result = client.prompt(
        &session,
        r#"/call terminal {"command": "cd /tmp && rm -rf ~"}"#,
    );
    assert_eq!(result["stopReason"], "end_turn");
    let (call, request) = first_call_and_request(&client);
    assert_eq!(
        options(&request),
        [
            r#"reject-once reject_once "Reject""#,
            r#"reject-and-stop reject_once "Reject and stop""#,
            r#"allow-once allow_once "Allow once""#,
        ]
    );
    let home_shown = home.path().display().to_string();
    let reason = format!("recursively deletes {home_shown}, the home folder");
    assert_eq!(request["_meta"]["warden"]["reason"], reason.as_str());
    assert_eq!(request["_meta"]["warden"]["risk"], "critical");
    let text = call["content"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        text,
        format!(
            "Critical: {reason}\n\nDecided by the part `rm -rf ~`.\n\n```sh\ncd /tmp && rm -rf ~\n```"
        )
    );
    assert_eq!(request["toolCall"]["content"], call["content"]);
    assert!(home.path().join("keep").exists());
}

/// A `cancelled` answer ends the turn; every call still open is marked failed before
/// the prompt's answer, the answered one included.
#[test]
fn a_cancelled_answer_fails_every_open_call_before_the_prompt_answer() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(json!({"outcome": {"outcome": "cancelled"}})));
    let prompt = [
        r#"/call terminal {"command": "touch one"}"#,
        r#"/call terminal {"command": "touch two"}"#,
    ]
    .join("\n");
    let id = client.send_prompt(&session, &prompt);
    let result = client.response(&id);
    assert_eq!(result["result"]["stopReason"], "cancelled", "{result}");
    // Positions among what the agent wrote.
    let position = |wanted: &dyn Fn(&Value) -> bool| {
        client
            .transcript()
            .iter()
            .filter(|e| matches!(e.direction, Direction::FromAgent) && !e.agent_request_id)
            .filter_map(|e| e.message.as_ref())
            .position(wanted)
    };
    let answer = position(&|m: &Value| {
        m["id"] == id && m.get("result").is_some() && m.get("method").is_none()
    });
    for call_id in ["call_1", "call_2"] {
        let failed = position(&|m: &Value| {
            m["params"]["update"]["toolCallId"] == call_id
                && m["params"]["update"]["status"] == "failed"
        });
        assert!(
            failed.is_some() && failed < answer,
            "{call_id}: failed at {failed:?}, answer at {answer:?}"
        );
    }
    assert!(!client.process().project().join("one").exists());
}

/// A client that shows forms gets `edit-or-note`; the form (`elicitation/create`) edits
/// the arguments, and the edited call is evaluated again before it runs.
#[test]
fn approve_with_edits_through_a_form() {
    let mut client = Client::spawn();
    let mut params = super::support::initialize_params();
    params["clientCapabilities"]["elicitation"] = json!({"form": {}});
    client.request_ok("initialize", params);
    let session = client.new_session();
    client.commands_update();
    client.on_request(|request| match request["method"].as_str() {
        Some("session/request_permission") => Answer::Result(selected("edit-or-note")),
        Some("elicitation/create") => {
            let schema = &request["params"]["requestedSchema"]["properties"];
            assert_eq!(schema["command"]["default"], "touch asked", "{request}");
            assert_eq!(schema["decision"]["default"], "deny", "{request}");
            Answer::Result(json!({
                "action": "accept",
                "content": {"decision": "approve", "command": "touch edited", "note": "renamed"}
            }))
        }
        other => panic!("unexpected request {other:?}"),
    });
    let result = client.prompt(&session, r#"/call terminal {"command": "touch asked"}"#);
    assert_eq!(result["stopReason"], "end_turn");
    let (_, request) = first_call_and_request(&client);
    let last = options(&request).pop().unwrap_or_default();
    assert_eq!(
        last,
        r#"edit-or-note reject_once "Edit and approve, or deny with a note…""#
    );
    let project = client.process().project();
    assert!(project.join("edited").exists());
    assert!(!project.join("asked").exists());
}

/// Colours and `\r\n` from a command's output do not reach the model or the client.
#[test]
fn terminal_output_arrives_as_plain_text() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(selected("allow-once")));
    let command = r"printf '\033[1;31mred\033[0m\r\nnext\r\n'";
    let result = client.prompt(
        &session,
        &format!("/call terminal {}", json!({ "command": command })),
    );
    assert_eq!(result["stopReason"], "end_turn");
    let completed = client
        .session_updates()
        .into_iter()
        .find(|u| u["status"] == "completed")
        .unwrap_or_else(|| client.fail("no completed call"));
    assert_eq!(
        completed["content"][0]["content"]["text"],
        "Exit code 0.\n```\nred\nnext\n```"
    );
    assert_eq!(
        completed["rawOutput"]["output"],
        "\u{1b}[1;31mred\u{1b}[0m\r\nnext\r\n"
    );
}

/// `reject-and-stop` ("no, and stop"): the call fails, the turn's other open questions
/// are withdrawn, nothing else runs, and the turn ends `end_turn` saying the user
/// stopped it.
#[test]
fn reject_and_stop_fails_the_call_withdraws_the_others_and_ends_the_turn() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(
        |request| match request["params"]["toolCall"]["toolCallId"].as_str() {
            Some("call_1") => Answer::Result(selected("reject-and-stop")),
            // The second question is withdrawn before anyone answers it.
            _ => Answer::Hold,
        },
    );
    let prompt = [
        r#"/call terminal {"command": "touch one"}"#,
        r#"/call terminal {"command": "touch two"}"#,
    ]
    .join("\n");
    let result = client.prompt(&session, &prompt);
    assert_eq!(result["stopReason"], "end_turn", "{result}");
    let failed: Vec<String> = client
        .notifications("session/update")
        .iter()
        .filter(|n| n["params"]["update"]["status"] == "failed")
        .map(|n| {
            n["params"]["update"]["toolCallId"]
                .as_str()
                .unwrap_or("?")
                .to_owned()
        })
        .collect();
    assert_eq!(failed, ["call_1", "call_2"]);
    let withdrawn = client.notifications("$/cancel_request");
    assert_eq!(withdrawn.len(), 1, "{withdrawn:?}");
    assert!(
        client.agent_text().contains("You stopped this turn"),
        "{}",
        client.agent_text()
    );
    let project = client.process().project();
    assert!(!project.join("one").exists() && !project.join("two").exists());
}

/// The whole permission flow in Simplified Chinese, chosen by the locale or by
/// `language` in `config.toml` (which wins): the question, its options and their
/// `_meta.permission`, the risk line and the denial, while option ids, the tool's name
/// and the command stay as they are.
#[test]
fn the_permission_flow_reads_in_simplified_chinese() {
    for (lang, config) in [
        ("zh_CN.UTF-8", None),
        ("en_US.UTF-8", Some("language = \"zh-CN\"\n")),
    ] {
        let mut client = Client::spawn_with(&Spawn::default().env("LANG", lang));
        if let Some(config) = config {
            std::fs::write(client.process().home().join("config.toml"), config)
                .expect("write config.toml");
        }
        let session = client.ready_session();
        client.on_request(|_| Answer::Result(selected("reject-once")));
        let result = client.prompt(&session, r#"/call terminal {"command": "touch asked"}"#);
        assert_eq!(result["stopReason"], "end_turn");
        let (call, request) = first_call_and_request(&client);
        let labels: Vec<String> = options(&request);
        let expected = [
            r#"allow-once allow_once "仅允许这一次""#,
            r#"reject-once reject_once "拒绝""#,
            r#"reject-and-stop reject_once "拒绝并停止""#,
        ];
        for label in expected {
            assert!(
                labels.iter().any(|l| l == label),
                "{lang}: {label} in {labels:?}"
            );
        }
        assert!(
            labels
                .iter()
                .any(|l| l.starts_with(r#"allow-session allow_always "在本会话中"#)),
            "{lang}: {labels:?}"
        );
        let meta = &request["_meta"]["permission"];
        assert_eq!(meta["version"], 1);
        // The call's title is in the language too; the command is not translated.
        assert_eq!(meta["title"], "运行 `touch asked`？", "{request}");
        assert!(
            request["options"][0]["_meta"]["permission"]["description"]
                .as_str()
                .is_some_and(|d| d.contains("现在运行这个调用")),
            "{request}"
        );
        let risk = call["content"][0]["content"]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            risk.starts_with("中风险：") || risk.starts_with("高风险："),
            "{risk}"
        );
        assert!(risk.contains("```sh\ntouch asked\n```"), "{risk}");
        assert_eq!(request["_meta"]["warden"]["tool"], "terminal");
        let denial = client
            .notifications("session/update")
            .into_iter()
            .find(|n| n["params"]["update"]["status"] == "failed")
            .map(|n| n["params"]["update"]["content"][0]["content"]["text"].clone());
        assert_eq!(denial, Some(json!("你拒绝了这个调用。")), "{lang}");
    }
}
