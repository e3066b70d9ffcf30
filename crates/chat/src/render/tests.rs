use expect_test::expect;
use serde_json::json;

use super::update as update_of;
use super::*;

fn en() -> &'static warden_i18n::Catalog {
    warden_i18n::catalog(warden_i18n::Language::English)
}

fn rendered(updates: &[Value]) -> String {
    let mut titles = Titles::default();
    let mut out = String::new();
    for u in updates {
        let update: agent_client_protocol::v1::schema::SessionUpdate =
            serde_json::from_value(u.clone()).expect("a session update");
        let r = update_of(&View::of(&update), &mut titles, en());
        out.push_str(&r.text);
        for line in r.lines {
            out.push_str(&format!("\n{line}"));
        }
    }
    out
}

#[test]
fn updates_render_as_plain_lines() {
    let out = rendered(&[
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hello, "}}),
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "world"}}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Write a.txt", "kind": "edit",
               "content": [{"type": "diff", "path": "/p/a.txt", "oldText": null, "newText": "one\ntwo"},
                           {"type": "content", "content": {"type": "text", "text": "Medium: writes a file"}}]}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed",
               "content": [{"type": "diff", "path": "/p/b.txt", "oldText": "old", "newText": "new"}]}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "unknown", "status": "failed"}),
        json!({"sessionUpdate": "plan", "entries": [{"content": "look", "priority": "high", "status": "completed"}]}),
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "read-only"}),
        json!({"sessionUpdate": "usage_update", "used": 1, "size": 2}),
    ]);
    expect![[r#"
        Hello, world
        [tool] Write a.txt: pending
          diff /p/a.txt (new file)
          + one
          + two
          | Medium: writes a file
        [tool] Write a.txt: in_progress
        [tool] Write a.txt: completed
          diff /p/b.txt
          - old
          + new
        [tool] unknown: failed
        [plan]
          [completed] look
        [mode] read-only"#]]
    .assert_eq(&out);
}

/// Regression guard: an agent's text must not reach a terminal or a log with its
/// escape sequences or carriage returns intact.
#[test]
fn control_characters_from_the_agent_are_escaped() {
    let out = rendered(&[
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok\u{1b}[2J\rfake line\n\tindented"}}),
        json!({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "x\u{1b}]0;title\u{7}"}),
    ]);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\r') && !out.contains('\u{7}'),
        "{out:?}"
    );
    expect![[r#"
        ok\u{1b}[2J\u{d}fake line
        	indented
        [tool] x\u{1b}]0;title\u{7}: pending"#]]
    .assert_eq(&out);
}

#[test]
fn long_content_is_cut_with_a_count() {
    let text: String = (1..=45).map(|i| format!("line {i}\n")).collect();
    let out = rendered(&[
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c",
        "content": [{"type": "content", "content": {"type": "text", "text": text}}]}),
    ]);
    assert!(out.contains("  | line 40\n  | … 5 more lines"), "{out}");
    assert!(!out.contains("line 41"), "{out}");
}

fn permission_request(meta: Option<Value>) -> RequestPermissionRequest {
    use agent_client_protocol::v1::schema::{
        PermissionOption, ToolCallUpdate, ToolCallUpdateFields,
    };
    let fields = ToolCallUpdateFields::new()
        .title("Execute command: rm -rf ~".to_owned())
        .raw_input(json!({"command": "rm -rf ~"}));
    let request = RequestPermissionRequest::new(
        "s".to_owned(),
        ToolCallUpdate::new("c".to_owned(), fields),
        vec![
            PermissionOption::new(
                "reject-once".to_owned(),
                "Reject".to_owned(),
                PermissionOptionKind::RejectOnce,
            ),
            PermissionOption::new(
                "allow-once".to_owned(),
                "Allow once".to_owned(),
                PermissionOptionKind::AllowOnce,
            ),
            PermissionOption::new(
                "always".to_owned(),
                "Always allow `rm`".to_owned(),
                PermissionOptionKind::AllowAlways,
            ),
        ],
    );
    match meta {
        Some(meta) => request.meta(meta.as_object().cloned()),
        None => request,
    }
}

#[test]
fn the_permission_prompt_follows_the_chat_layout() {
    let mut request = permission_request(Some(json!({"warden": {
        "prompt": "Execute command: rm -rf ~?", "tool": "terminal", "risk": "critical",
        "reason": "recursively deletes your home folder"}})));
    // The risk said again in the content is printed once; other content stays.
    request.tool_call.fields.content = Some(vec![
        "Critical: recursively deletes your home folder\n\n```sh\nrm -rf ~\n```"
            .to_owned()
            .into(),
        "Another note".to_owned().into(),
    ]);
    let picked = crate::approve::pick(crate::Approve::All, &request);
    expect![[r#"
        Allow tool call from Warden?
          Run terminal from Warden
          > {"command":"rm -rf ~"}
        Critical: recursively deletes your home folder
          | Another note
        Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.
        Review each action carefully before approving
        [Deny] [Allow once] [Allow for this chat: Always allow `rm`]
        Denied: Reject (the agent marks this call Critical, which --approve all never approves)"#]]
    .assert_eq(&permission(&request, "Warden", &picked, en()).join("\n"));
}

#[test]
fn the_server_is_the_one_the_agent_names_else_the_agent() {
    let mcp = permission_request(Some(
        json!({"warden": {"prompt": "Allow tool call from github?", "server": "github"}}),
    ));
    let picked = crate::approve::pick(crate::Approve::None, &mcp);
    let lines = permission(&mcp, "Warden", &picked, en());
    assert_eq!(lines[0], "Allow tool call from github?");
    assert_eq!(lines[1], "  Run Execute command: rm -rf ~ from github");
    let other = permission_request(None);
    let lines = permission(&other, "Example Agent", &picked, en());
    assert_eq!(lines[0], "Allow tool call from Example Agent?");
}
