//! The conversation: trimming long tool outputs, denial texts, offered models.

use expect_test::{Expect, expect};
use warden_model::{
    Conversation, Message, ToolOutcome, denied_content, offered_models, trim_output,
};

fn check_trim(text: &str, limit: usize, expected: Expect) {
    expected.assert_eq(&trim_output(text.to_owned(), limit));
}

#[test]
fn trimming_boundaries() {
    check_trim("0123456789", 10, expect!["0123456789"]);
    check_trim(
        "0123456789a",
        10,
        expect![[r#"
            01234
            [… 1 bytes omitted …]
            6789a"#]],
    );
    check_trim(
        &"x".repeat(100),
        4,
        expect![[r#"
            xx
            [… 96 bytes omitted …]
            xx"#]],
    );
    // Multi-byte characters are never cut in half: "é" is two bytes.
    check_trim(
        "ééééé",
        5,
        expect![[r#"
            é
            [… 6 bytes omitted …]
            é"#]],
    );
}

#[test]
fn push_tool_result_trims_and_says_so() {
    let mut conversation = Conversation::new().with_tool_output_limit(8);
    conversation.push_tool_result(
        "c1",
        "terminal",
        ToolOutcome::Completed,
        "head-----------tail",
    );
    conversation.push_tool_result("c2", "fs_read", ToolOutcome::Completed, "short");
    let contents: Vec<&str> = conversation
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    expect![[r#"
        [
            "head\n[… 11 bytes omitted …]\ntail",
            "short",
        ]
    "#]]
    .assert_debug_eq(&contents);
}

#[test]
fn default_limit_keeps_32_kib() {
    let conversation = Conversation::new();
    assert_eq!(conversation.tool_output_limit(), 32 * 1024);
}

#[test]
fn denial_texts() {
    assert_eq!(denied_content(None), "User denied tool invocation");
    assert_eq!(denied_content(Some("  ")), "User denied tool invocation");
    assert_eq!(
        denied_content(Some("not on main")),
        "User denied tool invocation: not on main"
    );
}

#[test]
fn offered_models_boundaries() {
    let render = |configured: &str| {
        offered_models(configured)
            .into_iter()
            .map(|m| format!("{} ({})", m.id, m.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    expect!["scripted (Scripted)"].assert_eq(&render("scripted"));
    expect!["scripted (Scripted)"].assert_eq(&render("openai:"));
    expect!["scripted (Scripted), openai:qwen2.5-coder:7b (qwen2.5-coder:7b)"]
        .assert_eq(&render("openai:qwen2.5-coder:7b"));
}

#[test]
fn a_conversation_round_trips_through_json() {
    let mut conversation = Conversation::new().with_tool_output_limit(100);
    conversation.push_user("read a");
    conversation.push_assistant(
        "",
        vec![warden_model::ToolCallRequest {
            id: "call_1".to_owned(),
            name: "fs_read".to_owned(),
            arguments: serde_json::json!({"path": "a"}),
        }],
    );
    conversation.push_user_note("call_1", "quick");
    conversation.push_tool_result("call_1", "fs_read", ToolOutcome::TimedOut, "late");
    let json = serde_json::to_string(&conversation).expect("serialize");
    expect![[r#"{"messages":[{"role":"user","text":"read a"},{"role":"assistant","text":"","tool_calls":[{"id":"call_1","name":"fs_read","arguments":{"path":"a"}}]},{"role":"user_note","call_id":"call_1","text":"quick"},{"role":"tool_result","call_id":"call_1","tool":"fs_read","outcome":"timed_out","content":"late"}],"tool_output_limit":100}"#]].assert_eq(&json);
    let back: Conversation = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, conversation);
    let without_limit: Conversation =
        serde_json::from_str(r#"{"messages":[]}"#).expect("deserialize");
    assert_eq!(without_limit.tool_output_limit(), 32 * 1024);
    assert_eq!(
        Conversation::from_messages(back.messages().to_vec()).messages(),
        conversation.messages()
    );
}
