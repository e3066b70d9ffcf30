//! The scripted model, driven through the `Model` trait: one `check` per grammar boundary.

use expect_test::{Expect, expect};
use futures::StreamExt;
use warden_model::{
    Conversation, Model, ModelEvent, ScriptedModel, ToolCallRequest, ToolOutcome, denied_content,
};

/// The reply to `conversation`, one line per event.
fn render(conversation: &Conversation) -> String {
    let events: Vec<_> = futures::executor::block_on(
        ScriptedModel::new()
            .respond(conversation, &[])
            .collect::<Vec<_>>(),
    );
    let mut out = String::new();
    for event in events {
        match event.expect("the scripted model never fails") {
            ModelEvent::Text(text) => out.push_str(&format!("text {text:?}\n")),
            ModelEvent::ToolCall(call) => out.push_str(&format!(
                "call {} {} {}\n",
                call.id, call.name, call.arguments
            )),
            ModelEvent::Finished(reason) => out.push_str(&format!("finished {reason:?}\n")),
        }
    }
    out
}

fn check(prompt: &str, expected: Expect) {
    let mut conversation = Conversation::new();
    conversation.push_user(prompt);
    expected.assert_eq(&render(&conversation));
}

/// Runs the reply to `prompt`, records it, answers each call with `results` (in order), and
/// checks the closing message.
fn check_batch(prompt: &str, results: &[(ToolOutcome, &str, Option<&str>)], expected: Expect) {
    let mut conversation = Conversation::new();
    conversation.push_user(prompt);
    let calls = calls_of(&conversation);
    conversation.push_assistant("", calls.clone());
    for (call, (outcome, content, note)) in calls.iter().zip(results) {
        if let Some(note) = note {
            conversation.push_user_note(&call.id, *note);
        }
        conversation.push_tool_result(&call.id, &call.name, *outcome, *content);
    }
    expected.assert_eq(&render(&conversation));
}

fn calls_of(conversation: &Conversation) -> Vec<ToolCallRequest> {
    futures::executor::block_on(
        ScriptedModel::new()
            .respond(conversation, &[])
            .collect::<Vec<_>>(),
    )
    .into_iter()
    .filter_map(|e| match e {
        Ok(ModelEvent::ToolCall(call)) => Some(call),
        _ => None,
    })
    .collect()
}

#[test]
fn call_line_proposes_one_call() {
    check(
        r#"/call fs_read {"path": "README.md"}"#,
        expect![[r#"
            call call_1 fs_read {"path":"README.md"}
            finished ToolCalls
        "#]],
    );
}

#[test]
fn all_call_lines_of_a_prompt_form_one_batch() {
    check(
        "/call fs_read {\"path\": \"a\"}\n\n/call terminal {\"command\": \"ls\", \"risk_level\": \"low\"}",
        expect![[r#"
            call call_1 fs_read {"path":"a"}
            call call_2 terminal {"command":"ls","risk_level":"low"}
            finished ToolCalls
        "#]],
    );
}

#[test]
fn say_replies_with_the_text() {
    check(
        "/say hello there\n/say second line",
        expect![[r#"
            text "hello there\n"
            text "second line"
            finished EndTurn
        "#]],
    );
}

#[test]
fn say_then_call_says_first() {
    check(
        "/call fs_list {\"path\": \".\"}\n/say looking",
        expect![[r#"
            text "looking"
            call call_1 fs_list {"path":"."}
            finished ToolCalls
        "#]],
    );
}

#[test]
fn plain_language_forms() {
    check(
        "read src/main.rs\nlist .\nrun cargo test --quiet\nwrite notes.txt: hello: world\ndelete old.txt\nfetch https://docs.rs",
        expect![[r#"
            call call_1 fs_read {"path":"src/main.rs"}
            call call_2 fs_list {"path":"."}
            call call_3 terminal {"command":"cargo test --quiet"}
            call call_4 fs_write {"path":"notes.txt","content":"hello: world"}
            call call_5 fs_delete {"path":"old.txt"}
            call call_6 http_fetch {"url":"https://docs.rs"}
            finished ToolCalls
        "#]],
    );
}

#[test]
fn write_with_empty_text() {
    check(
        "write empty.txt:",
        expect![[r#"
            call call_1 fs_write {"path":"empty.txt","content":""}
            finished ToolCalls
        "#]],
    );
}

#[test]
fn anything_else_gets_help() {
    check(
        "hello, what can you do?",
        expect![[r#"
            text "I am Warden's scripted model: I follow a small grammar, one command per line.\n"
            text "\n"
            text "- `/call <tool> <json-object>`: propose a tool call, e.g. `/call fs_read {\"path\": \"README.md\"}`\n"
            text "- `/say <text>`: reply with the text\n"
            text "- `read <path>`, `list <path>`, `run <command>`, `write <path>: <text>`, `delete <path>`, `fetch <url>`: the same in plain words\n"
            text "\n"
            text "All tool calls of one prompt are proposed together. Set `WARDEN_MODEL=openai:<model>` to use a real model."
            finished EndTurn
        "#]],
    );
}

#[test]
fn an_empty_prompt_gets_help() {
    check(
        "  \n ",
        expect![[r#"
            text "I am Warden's scripted model: I follow a small grammar, one command per line.\n"
            text "\n"
            text "- `/call <tool> <json-object>`: propose a tool call, e.g. `/call fs_read {\"path\": \"README.md\"}`\n"
            text "- `/say <text>`: reply with the text\n"
            text "- `read <path>`, `list <path>`, `run <command>`, `write <path>: <text>`, `delete <path>`, `fetch <url>`: the same in plain words\n"
            text "\n"
            text "All tool calls of one prompt are proposed together. Set `WARDEN_MODEL=openai:<model>` to use a real model."
            finished EndTurn
        "#]],
    );
}

#[test]
fn an_unknown_line_among_calls_calls_nothing() {
    check(
        "read a.txt\nplease also tidy up",
        expect![[r#"
            text "I do not understand line 2: `please also tidy up`. Nothing was called.\n"
            text "\n"
            text "I am Warden's scripted model: I follow a small grammar, one command per line.\n"
            text "\n"
            text "- `/call <tool> <json-object>`: propose a tool call, e.g. `/call fs_read {\"path\": \"README.md\"}`\n"
            text "- `/say <text>`: reply with the text\n"
            text "- `read <path>`, `list <path>`, `run <command>`, `write <path>: <text>`, `delete <path>`, `fetch <url>`: the same in plain words\n"
            text "\n"
            text "All tool calls of one prompt are proposed together. Set `WARDEN_MODEL=openai:<model>` to use a real model."
            finished EndTurn
        "#]],
    );
}

#[test]
fn call_with_invalid_json_says_why() {
    check(
        "/call fs_read {\"path\": }",
        expect![[r#"
            text "I cannot follow line 1: the arguments of `/call fs_read` are not valid JSON (expected value at line 1 column 10). Nothing was called."
            finished EndTurn
        "#]],
    );
}

#[test]
fn call_with_a_non_object_says_why() {
    check(
        "/call fs_read [\"a\"]",
        expect![[r#"
            text "I cannot follow line 1: the arguments of `/call fs_read` must be a JSON object, not an array. Nothing was called."
            finished EndTurn
        "#]],
    );
}

#[test]
fn call_without_arguments_says_why() {
    check(
        "/say first\n/call fs_read",
        expect![[r#"
            text "I cannot follow line 2: `/call fs_read` needs a JSON object of arguments; the form is `/call <tool> <json-object>`, e.g. `/call fs_read {\"path\": \"README.md\"}`. Nothing was called."
            finished EndTurn
        "#]],
    );
}

#[test]
fn call_without_a_tool_says_why() {
    check(
        "/call",
        expect![[r#"
            text "I cannot follow line 1: `/call` needs a tool name; the form is `/call <tool> <json-object>`, e.g. `/call fs_read {\"path\": \"README.md\"}`. Nothing was called."
            finished EndTurn
        "#]],
    );
}

#[test]
fn unknown_slash_command_says_why() {
    check(
        "/cal fs_read {}",
        expect![[r#"
            text "I cannot follow line 1: unknown command `/cal`: the commands are `/call <tool> <json-object>` and `/say <text>`. Nothing was called."
            finished EndTurn
        "#]],
    );
}

#[test]
fn plain_form_without_argument_says_why() {
    check(
        "read",
        expect![[r#"
            text "I cannot follow line 1: `read <path>` needs its argument. Nothing was called."
            finished EndTurn
        "#]],
    );
}

#[test]
fn write_without_colon_says_why() {
    check(
        "write notes.txt hello",
        expect![[r#"
            text "I cannot follow line 1: `write` needs the form `write <path>: <text>`. Nothing was called."
            finished EndTurn
        "#]],
    );
}

/// An error used to be cut at its first newline or 160 characters ("… Internal error: {").
#[test]
fn an_error_is_quoted_whole_on_one_line() {
    let error = format!(
        "fs/write_text_file failed: Internal error: {{\n  \"details\": \"{}\"\n}}",
        "x".repeat(300)
    );
    let events = ScriptedModel::new().reply(&{
        let mut conversation = Conversation::new();
        conversation.push_user("/call fs_write {\"path\": \"a\", \"content\": \"\"}".to_owned());
        conversation.push_assistant(
            String::new(),
            vec![ToolCallRequest {
                id: "call_1".to_owned(),
                name: "fs_write".to_owned(),
                arguments: serde_json::json!({}),
            }],
        );
        conversation.push_tool_result(
            "call_1".to_owned(),
            "fs_write".to_owned(),
            ToolOutcome::Failed,
            error.clone(),
        );
        conversation
    });
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        text,
        format!(
            "- fs_write: failed (fs/write_text_file failed: Internal error: {{ \"details\": \"{}\" }})",
            "x".repeat(300)
        )
    );
}

#[test]
fn batch_ends_with_one_line_per_call() {
    check_batch(
        "read a.txt\nrun rm -rf build\nwrite b.txt: x\n/call fs_list {\"path\": \"/\"}\n/call fs_move {\"from\": \"a\", \"to\": \"b\"}",
        &[
            (ToolOutcome::Completed, "file contents", None),
            (ToolOutcome::Denied, &denied_content(Some("not now")), None),
            (
                ToolOutcome::TimedOut,
                "The user did not answer within 30 s.",
                None,
            ),
            (
                ToolOutcome::Failed,
                "\n  permission denied: /\nmore detail",
                None,
            ),
            (ToolOutcome::Cancelled, "", None),
        ],
        expect![[r#"
            text "- fs_read: completed\n"
            text "- terminal: denied (User denied tool invocation: not now)\n"
            text "- fs_write: timed out\n"
            text "- fs_list: failed (permission denied: / more detail)\n"
            text "- fs_move: cancelled"
            finished EndTurn
        "#]],
    );
}

#[test]
fn a_call_without_result_is_named() {
    check_batch(
        "read a\nread b",
        &[(ToolOutcome::Completed, "x", None)],
        expect![[r#"
            text "- fs_read: completed\n"
            text "- fs_read: no result"
            finished EndTurn
        "#]],
    );
}

#[test]
fn user_notes_reach_the_closing_message() {
    check_batch(
        "write a.txt: hi\nrun make",
        &[
            (
                ToolOutcome::Completed,
                "",
                Some("and add a newline next time"),
            ),
            (ToolOutcome::Denied, &denied_content(None), None),
        ],
        expect![[r#"
            text "- fs_write: completed (user note: and add a newline next time)\n"
            text "- terminal: denied (User denied tool invocation)"
            finished EndTurn
        "#]],
    );
}

#[test]
fn call_ids_count_all_calls_of_the_conversation() {
    let mut conversation = Conversation::new();
    conversation.push_user("read a\nread b");
    let first = calls_of(&conversation);
    conversation.push_assistant("", first.clone());
    for call in &first {
        conversation.push_tool_result(&call.id, &call.name, ToolOutcome::Completed, "ok");
    }
    conversation.push_assistant("fs_read: completed\nfs_read: completed", vec![]);
    conversation.push_user("list .");
    expect![[r#"
        call call_3 fs_list {"path":"."}
        finished ToolCalls
    "#]]
    .assert_eq(&render(&conversation));
}

#[test]
fn a_new_prompt_after_a_cancelled_batch_is_a_prompt() {
    let mut conversation = Conversation::new();
    conversation.push_user("run sleep 100");
    let calls = calls_of(&conversation);
    conversation.push_assistant("", calls);
    conversation.push_user("/say fresh start");
    expect![[r#"
        text "fresh start"
        finished EndTurn
    "#]]
    .assert_eq(&render(&conversation));
}
