use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, ToolCallUpdate, ToolCallUpdateFields,
};
use expect_test::expect;
use serde_json::json;

use super::*;

fn screen(ansi: bool) -> Screen {
    Screen::new(Style { ansi }, Commands::default())
}

fn drawn(screen: &mut Screen, updates: &[Value]) -> String {
    let mut out = String::new();
    for update in updates {
        out.push_str(&screen.update(update));
    }
    out.push_str(&screen.end_text());
    out
}

#[test]
fn updates_draw_markdown_tool_calls_plans_and_commands() {
    let mut s = screen(false);
    let out = drawn(
        &mut s,
        &[
            json!({"sessionUpdate": "available_commands_update", "availableCommands": [
                {"name": "say", "description": "d"}, {"name": "grants", "description": "d"}]}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "## Pl"}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "an\n- **one** `x`"}}),
            json!({"sessionUpdate": "plan", "entries": [
                {"content": "look", "priority": "high", "status": "completed"},
                {"content": "edit", "priority": "high", "status": "in_progress"},
                {"content": "test", "priority": "low", "status": "pending"}]}),
            json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Write a.txt", "kind": "edit",
                   "content": [{"type": "diff", "path": "/p/a.txt", "oldText": "one\ntwo\n", "newText": "one\n2\n"},
                               {"type": "content", "content": {"type": "text", "text": "Medium: writes a file"}}]}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}),
            json!({"sessionUpdate": "tool_call", "toolCallId": "c2", "title": "Run ls", "kind": "execute"}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "failed",
                   "content": [{"type": "content", "content": {"type": "text", "text": "denied"}}]}),
            json!({"sessionUpdate": "current_mode_update", "currentModeId": "read-only"}),
        ],
    );
    expect![[r#"
        Commands (Tab completes): /say /grants
        Plan
        • one `x`
        Plan
          [x] look
          [~] edit
          [ ] test
        · Write a.txt pending
        … Write a.txt running
        ✓ Write a.txt completed
          /p/a.txt
          @@ -1,2 +1,2 @@
           one
          -two
          +2
        · Run ls pending
        ✗ Run ls failed
          │ denied
        Mode: read-only
    "#]]
    .assert_eq(&out);
    assert_eq!(*s.commands.lock().expect("lock"), ["/say", "/grants"]);
}

#[test]
fn long_diffs_fold_with_a_count_and_colour_only_with_escape_codes() {
    let new: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let diff = json!({"type": "diff", "path": "/p/long.txt", "oldText": null, "newText": new});
    let mut lines = Vec::new();
    diff_lines(Style::PLAIN, &diff, &mut lines);
    assert_eq!(lines.len(), 1 + DIFF_LINES + 1, "{lines:#?}");
    assert_eq!(lines[0], "  /p/long.txt (new file)");
    assert_eq!(lines[1], "  +line 1");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("  … 16 more lines (folded)")
    );
    assert!(lines.iter().all(|l| !l.contains('\u{1b}')), "{lines:#?}");

    let mut coloured = Vec::new();
    diff_lines(Style { ansi: true }, &diff, &mut coloured);
    assert_eq!(coloured[1], "  \u{1b}[32m+line 1\u{1b}[0m");
}

fn permission_request(risk: &str, options: Vec<PermissionOption>) -> RequestPermissionRequest {
    let fields = ToolCallUpdateFields::new()
        .title("Write 5 bytes to notes.txt".to_owned())
        .raw_input(json!({"path": "notes.txt", "content": "hello"}))
        .content(vec![
            serde_json::from_value(json!({"type": "diff", "path": "/p/notes.txt", "oldText": null, "newText": "hello"}))
                .expect("diff"),
            serde_json::from_value(json!({"type": "content", "content": {"type": "text", "text": format!("{risk}: writes notes.txt")}}))
                .expect("text"),
        ]);
    RequestPermissionRequest::new("s".to_owned(), ToolCallUpdate::new("call_1".to_owned(), fields), options).meta(
        json!({"warden": {"risk": risk.to_lowercase(), "reason": "writes notes.txt", "tool": "fs_write"}})
            .as_object()
            .cloned(),
    )
}

#[test]
fn the_prompt_is_laid_out_as_seed_002_says() {
    let request = permission_request(
        "Medium",
        vec![
            PermissionOption::new(
                "allow-once".to_owned(),
                "Allow once".to_owned(),
                PermissionOptionKind::AllowOnce,
            ),
            PermissionOption::new(
                "allow-session".to_owned(),
                "Always allow in this session".to_owned(),
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new(
                "reject-once".to_owned(),
                "Reject".to_owned(),
                PermissionOptionKind::RejectOnce,
            ),
        ],
    );
    let buttons = Buttons::new(&request);
    let mut view = PromptView {
        index: 0,
        total: 2,
        show_args: false,
        edited: None,
        note: None,
        buttons: &buttons,
        extras: true,
        undo: false,
    };
    let out = screen(false).prompt(&request, "Warden", &view).join("\n");
    expect![[r#"
        Allow tool call from Warden?  (1 of 2)
          Run fs_write from Warden  (> shows the arguments)
        Medium: writes notes.txt
          /p/notes.txt (new file)
          +hello
        Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.
        Review each action carefully before approving
          Allow for this chat: Always allow in this session
        [Allow for this chat] [Allow once] [Deny]
        keys: a for this chat · o once · d deny · > arguments · e edit · n note · Enter Allow once"#]]
    .assert_eq(&out);

    let edited = json!({"path": "notes.txt", "content": "bye"});
    view.show_args = true;
    view.edited = Some(&edited);
    view.note = Some("short");
    view.undo = true;
    let out = screen(false).prompt(&request, "Warden", &view).join("\n");
    expect![[r#"
        Allow tool call from Warden?  (1 of 2)
          Run fs_write from Warden  (> hides the arguments)
            {
              "path": "notes.txt",
              "content": "bye"
            }
          Arguments edited: the agent checks them again before running
        Medium: writes notes.txt
          (the diff shows the agent's arguments, before your edit)
          /p/notes.txt (new file)
          +hello
          Note: short
        Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.
        Review each action carefully before approving
          Allow for this chat: Always allow in this session
        [Allow for this chat] [Allow once] [Deny]
        keys: a for this chat · o once · d deny · > arguments · e edit · n note · u undo · Enter Allow once"#]]
    .assert_eq(&out);

    // With escape codes: the review line is bold and the preselected button reversed.
    let out = screen(true).prompt(&request, "Warden", &view).join("\n");
    assert!(
        out.contains("\u{1b}[1mReview each action carefully before approving\u{1b}[0m"),
        "{out}"
    );
    assert!(out.contains("\u{1b}[7m[Allow once]\u{1b}[0m"), "{out}");
}
