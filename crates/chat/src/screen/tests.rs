use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, ToolCallUpdate, ToolCallUpdateFields,
};
use expect_test::expect;
use serde_json::json;

use super::*;

fn en() -> &'static Catalog {
    warden_i18n::catalog(warden_i18n::Language::English)
}

fn screen(ansi: bool) -> Screen {
    Screen::new(Style { ansi }, Commands::default(), en())
}

fn drawn(screen: &mut Screen, updates: &[Value]) -> String {
    let mut out = String::new();
    for update in updates {
        let update: agent_client_protocol::v1::schema::SessionUpdate =
            serde_json::from_value(update.clone()).expect("a session update");
        out.push_str(&screen.update(&View::of(&update)));
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
    assert_eq!(
        *s.commands.lock().expect("lock"),
        ["/say", "/grants", "/help"]
    );
}

#[test]
fn long_diffs_fold_with_a_count_and_colour_only_with_escape_codes() {
    let new: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let diff = Diff::new("/p/long.txt", new);
    let mut lines = Vec::new();
    diff_lines(Style::PLAIN, en(), &diff, &mut lines);
    assert_eq!(lines.len(), 1 + DIFF_LINES + 1, "{lines:#?}");
    assert_eq!(lines[0], "  /p/long.txt (new file)");
    assert_eq!(lines[1], "  +line 1");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("  … 16 more lines (folded)")
    );
    assert!(lines.iter().all(|l| !l.contains('\u{1b}')), "{lines:#?}");

    let mut coloured = Vec::new();
    diff_lines(Style { ansi: true }, en(), &diff, &mut coloured);
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
    let buttons = Buttons::new(&request, en());
    let mut view = PromptView {
        index: 0,
        total: 2,
        show_args: false,
        whole_diff: false,
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
          {"path":"notes.txt","content":"(5 bytes, in the diff below)"}
        Medium: writes notes.txt
          /p/notes.txt (new file)
          +hello
        Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.
        Review each action carefully before approving
          Allow for this chat: Always allow in this session
        [a] Allow for this chat  [o] Allow once (Enter)  [d] Deny
        keys: > arguments · e edit · n note"#]]
    .assert_eq(&out);

    let edited = json!({"path": "notes.txt", "content": "bye"});
    view.show_args = true;
    view.edited = Some(&edited);
    view.note = Some("short");
    view.undo = true;
    let out = screen(false).prompt(&request, "Warden", &view).join("\n");
    expect![[r#"
        Allow tool call from Warden?  (1 of 2)
          Run fs_write from Warden  (> hides the arguments as JSON)
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
        [a] Allow for this chat  [o] Allow once (Enter)  [d] Deny
        keys: > arguments · e edit · n note · u undo"#]]
    .assert_eq(&out);

    // With escape codes: the review line is bold and the preselected button reversed.
    let out = screen(true).prompt(&request, "Warden", &view).join("\n");
    assert!(
        out.contains("\u{1b}[1mReview each action carefully before approving\u{1b}[0m"),
        "{out}"
    );
    assert!(out.contains("\u{1b}[7m[o] Allow once\u{1b}[0m"), "{out}");
}

fn view(buttons: &Buttons) -> PromptView<'_> {
    PromptView {
        index: 0,
        total: 1,
        show_args: false,
        whole_diff: false,
        edited: None,
        note: None,
        buttons,
        extras: false,
        undo: false,
    }
}

/// Warden's request for a `terminal` call: the risk in `_meta`, and a content block that
/// says the risk again, then the deciding part and the command.
fn terminal_request(command: &str) -> RequestPermissionRequest {
    let text = format!(
        "Critical: writes to ~/.bashrc, a shell startup file\n\nDecided by the part `echo pwned > ~/.bashrc`.\n\n```sh\n{command}\n```"
    );
    let fields = ToolCallUpdateFields::new()
        .title(format!("Run `{command}`"))
        .raw_input(json!({"command": command}))
        .content(vec![
            serde_json::from_value(
                json!({"type": "content", "content": {"type": "text", "text": text}}),
            )
            .expect("text"),
        ]);
    RequestPermissionRequest::new(
        "s".to_owned(),
        ToolCallUpdate::new("call_9".to_owned(), fields),
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
        ],
    )
    .meta(
        json!({"warden": {"risk": "critical", "reason": "writes to ~/.bashrc, a shell startup file", "tool": "terminal"}})
            .as_object()
            .cloned(),
    )
}

#[test]
fn regression_the_prompt_shows_the_command_that_came_in_the_risk_block() {
    let command = "cd /tmp && echo pwned > ~/.bashrc";
    let request = terminal_request(command);
    let buttons = Buttons::new(&request, en());
    let out = screen(false)
        .prompt(&request, "Warden", &view(&buttons))
        .join("\n");
    expect![[r#"
        Allow tool call from Warden?
          Run terminal from Warden  (> shows the arguments)
          $ cd /tmp && echo pwned > ~/.bashrc
        Critical: writes to ~/.bashrc, a shell startup file
          Decided by the part `echo pwned > ~/.bashrc`.
        Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.
        Review each action carefully before approving
        [o] Allow once  [d] Deny (Enter)
        keys: > arguments"#]].assert_eq(&out);
    // Once, not twice: the command's code block in the risk text is not repeated.
    assert_eq!(out.matches(command).count(), 1, "{out}");
}

#[test]
fn a_command_of_several_lines_is_shown_whole() {
    let command = "for f in *.txt; do\n  rm \"$f\"\ndone";
    let request = terminal_request(command);
    let buttons = Buttons::new(&request, en());
    let out = screen(false)
        .prompt(&request, "Warden", &view(&buttons))
        .join("\n");
    for line in command.lines() {
        assert!(out.contains(line), "{line:?} missing in {out}");
    }
}

#[test]
fn a_long_diff_folds_and_v_shows_it_whole() {
    let new: String = (1..=60).map(|i| format!("line {i}\n")).collect();
    let fields = ToolCallUpdateFields::new()
        .raw_input(json!({"path": "long.txt", "content": new}))
        .content(vec![
            serde_json::from_value(
                json!({"type": "diff", "path": "/p/long.txt", "oldText": null, "newText": new}),
            )
            .expect("diff"),
        ]);
    let request = RequestPermissionRequest::new(
        "s".to_owned(),
        ToolCallUpdate::new("call_2".to_owned(), fields),
        vec![PermissionOption::new(
            "allow-once".to_owned(),
            "Allow once".to_owned(),
            PermissionOptionKind::AllowOnce,
        )],
    )
    .meta(
        json!({"warden": {"risk": "medium", "reason": "writes long.txt", "tool": "fs_write"}})
            .as_object()
            .cloned(),
    );
    let buttons = Buttons::new(&request, en());
    let mut v = view(&buttons);
    let folded = screen(false).prompt(&request, "Warden", &v).join("\n");
    assert!(folded.contains("… 36 more lines (folded)"), "{folded}");
    assert!(folded.contains("v whole diff"), "{folded}");
    assert!(!folded.contains("+line 60"), "{folded}");
    // The arguments are on screen in full, the written text pointed at in the diff.
    assert!(
        folded.contains(r#"{"path":"long.txt","content":"(471 bytes, in the diff below)"}"#),
        "{folded}"
    );
    v.whole_diff = true;
    let whole = screen(false).prompt(&request, "Warden", &v).join("\n");
    assert!(whole.contains("+line 60"), "{whole}");
    assert!(!whole.contains("more lines (folded)"), "{whole}");
    assert!(whole.contains("v whole diff"), "{whole}");
}

/// What broke: the fences of a code block in a tool's output were shown as text. The
/// output is indented already: its lines are shown, its fences are not.
#[test]
fn regression_code_fences_in_tool_output_are_not_shown() {
    let mut s = screen(false);
    let out = drawn(
        &mut s,
        &[
            json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Run ls", "kind": "execute"}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed",
                   "content": [{"type": "content", "content": {"type": "text",
                                "text": "```\na.txt\nb.txt\n```\n~~~sh\nexit 0\n~~~"}}]}),
        ],
    );
    assert!(!out.contains("```") && !out.contains("~~~"), "{out}");
    for line in ["│ a.txt", "│ b.txt", "│ exit 0"] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
}
