//! `warden chat` at a terminal, end to end: the real binary on a real pseudo-terminal,
//! typed at as a person would, its screen read back. The contract's permission prompt (section 9), each decision
//! and its disposition, undo, a batch of three answered together, editing and a note,
//! Ctrl-C, leaving without an orphan agent, `NO_COLOR` and a narrow terminal.

pub(super) mod pty;

use std::path::Path;
use std::process::Command;

use pty::Pty;

use super::support::chat_env::ChatEnv as Env;

/// The chat on a terminal 100 columns wide, at its first prompt.
fn start(command: Command) -> Pty {
    start_cols(command, 100)
}

fn start_cols(command: Command, cols: u16) -> Pty {
    let mut pty = Pty::spawn(command, cols);
    pty.expect("Ctrl-D leaves.");
    pty.expect("> ");
    pty
}

/// Whether the process `pid` is still there (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Any SGR escape code (colour, bold, reverse) in what the chat wrote.
fn has_sgr(raw: &[u8]) -> bool {
    let text = String::from_utf8_lossy(raw);
    text.match_indices("\u{1b}[").any(|(at, _)| {
        let rest = &text[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(rest.len());
        rest[end..].starts_with('m')
    })
}

#[test]
fn a_newcomer_writes_notes_txt_sees_the_prompt_with_the_diff_allows_once() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    chat.send("write notes.txt: hello\r");
    for text in [
        "Allow tool call from Warden?",
        "  Run fs_write from Warden  (> shows the arguments)",
        "Medium: writes ",
        "notes.txt (new file)",
        "+hello",
        "Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.",
        "Review each action carefully before approving",
        "[a] Allow for this chat  [o] Allow once (Enter)  [d] Deny",
    ] {
        chat.expect(text);
    }
    // Nothing runs before the answer.
    assert_eq!(env.file("notes.txt"), None);
    chat.send("o");
    chat.expect("✓ Approved once");
    chat.expect("Write 5 bytes to notes.txt completed");
    chat.expect("\n> ");
    assert_eq!(env.file("notes.txt").as_deref(), Some("hello"));
    // Colour on a terminal (the Review line is bold) unless NO_COLOR says otherwise.
    assert!(has_sgr(&chat.raw()), "{:?}", chat.text());
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0), "{}", chat.text());
}

/// With a Chinese locale the chat's own words are Chinese: the prompt's frame, the
/// options it names, the keys' line and the answer; the keys stay `a`, `o`, `d`. What
/// the agent sends (the call's title, its risk reason) is shown as it sent it.
#[test]
fn the_chats_own_words_follow_a_chinese_locale_and_the_keys_stay() {
    let env = Env::new();
    let mut command = env.command(&[]);
    command
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "zh_CN.UTF-8");
    let mut chat = Pty::spawn(command, 100);
    chat.expect("Ctrl-D 退出。");
    chat.expect("> ");
    chat.send("write notes.txt: hello\r");
    for text in [
        "是否允许来自 Warden 的工具调用？",
        "运行 Warden 的 fs_write  （按 > 显示参数）",
        "中风险：",
        "notes.txt（新文件）",
        "+hello",
        "恶意的 MCP 服务器或对话内容可能诱使代理通过你安装的工具执行有害操作。",
        "批准前请仔细检查每个操作",
        "[a] 本次对话内允许  [o] 允许一次 （回车）  [d] 拒绝",
        "按键：> 参数",
    ] {
        chat.expect(text);
    }
    assert_eq!(env.file("notes.txt"), None);
    chat.send("o");
    chat.expect("✓ 已批准本次");
    chat.expect("已完成");
    chat.expect("\n> ");
    assert_eq!(env.file("notes.txt").as_deref(), Some("hello"));
    assert!(
        !chat.screen().contains("Allow tool call"),
        "{}",
        chat.screen()
    );
    chat.send("\x04");
    chat.expect("继续此会话：warden chat --resume sess_");
    assert_eq!(chat.wait().code(), Some(0), "{}", chat.text());
}

#[test]
fn a_batch_of_three_is_answered_one_at_a_time_with_undo_and_sent_together() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    // A backslash at the end of a line continues the prompt: one batch of three calls.
    chat.send("write a.txt: one\\\rwrite b.txt: two\\\rwrite c.txt: three\r");
    chat.expect("Allow tool call from Warden?  (1 of 3)");
    chat.expect("+one");
    chat.expect("[o] Allow once (Enter)");
    chat.send("a");
    chat.expect("✓ Approved for session  (u undoes)");
    chat.expect("(2 of 3)");
    chat.expect("u undo");
    chat.send("u");
    chat.expect("(1 of 3)");
    chat.expect("[o] Allow once (Enter)");
    // Undone in place: the first request's prompt is back where it was, its answer and
    // the second prompt gone from the screen.
    let screen = chat.screen();
    assert!(!screen.contains("Approved for session"), "{screen}");
    assert!(!screen.contains("(2 of 3)"), "{screen}");
    assert_eq!(screen.matches("(1 of 3)").count(), 1, "{screen}");
    chat.send("o");
    chat.expect("✓ Approved once  (u undoes)");
    chat.expect("(2 of 3)");
    chat.expect("+two");
    chat.send("d");
    chat.expect("✗ Denied  (u undoes)");
    chat.expect("(3 of 3)");
    chat.expect("+three");
    chat.expect("[o] Allow once (Enter)");
    // Two answered, none sent: nothing has run yet.
    assert_eq!(env.file("a.txt"), None);
    chat.send("\r");
    chat.expect("✓ Approved once");
    chat.expect("All 3 answers sent together; waiting for the agent…");
    // The model's Markdown list, drawn with bullets.
    chat.expect("• fs_write: completed");
    chat.expect("• fs_write: denied");
    chat.expect("• fs_write: completed");
    chat.expect("\n> ");
    assert_eq!(env.file("a.txt").as_deref(), Some("one"));
    assert_eq!(env.file("b.txt"), None);
    assert_eq!(env.file("c.txt").as_deref(), Some("three"));
    // The undone "Allow for this chat" stored nothing.
    let grants =
        std::fs::read_to_string(env.warden_home().join("grants.jsonl")).unwrap_or_default();
    assert_eq!(grants, "", "{grants}");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn enter_denies_a_critical_call() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    chat.send("run echo pwned > ~/.bashrc\r");
    chat.expect("Allow tool call from Warden?");
    // The command itself, in full, without a key press.
    chat.expect("$ echo pwned > ~/.bashrc");
    chat.expect("Critical: ");
    chat.expect("[o] Allow once  [d] Deny (Enter)");
    chat.send("\r");
    chat.expect("✗ Denied");
    chat.expect("\n> ");
    assert!(!env.home().join(".bashrc").exists());
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn arguments_edited_in_the_editor_and_a_note_reach_the_agent() {
    let env = Env::new();
    let mut command = env.command(&[]);
    // An editor that changes the file it is given, as a person would.
    command.env("EDITOR", "sed -i s/hello/edited/");
    let mut chat = start(command);
    chat.send("write notes.txt: hello\r");
    chat.expect("e edit · n note");
    chat.send("e");
    chat.expect(r#""content": "edited""#);
    chat.expect("Arguments edited: the agent checks them again before running");
    chat.send("n");
    chat.expect("note> ");
    chat.send("keep it short\r");
    chat.expect("Note: keep it short");
    chat.expect("[o] Allow once (Enter)");
    chat.send("o");
    chat.expect("✓ Approved once");
    // The scripted model repeats the note it was given: it reached the model.
    chat.expect("fs_write: completed (user note: keep it short)");
    chat.expect("\n> ");
    assert_eq!(env.file("notes.txt").as_deref(), Some("edited"));
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn arguments_edited_inline_as_json_without_an_editor() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    chat.send("write notes.txt: hello\r");
    chat.expect("e edit");
    chat.send("e");
    chat.expect("arguments> ");
    // Ctrl-U clears the line the arguments were put on.
    chat.send("\x15{\"path\": \"notes.txt\", \"content\": \"inline\"}\r");
    chat.expect("Arguments edited");
    chat.expect("[o] Allow once (Enter)");
    chat.send("\r");
    chat.expect("✓ Approved once");
    chat.expect("\n> ");
    assert_eq!(env.file("notes.txt").as_deref(), Some("inline"));
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn ctrl_c_cancels_the_turn_answers_open_requests_cancelled_and_a_second_one_leaves() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    chat.send("write a.txt: one\\\rwrite b.txt: two\r");
    chat.expect("(1 of 2)");
    chat.send("o");
    chat.expect("(2 of 2)");
    chat.send("\x03");
    chat.expect("Cancelling the turn; 2 open requests are answered cancelled.");
    chat.expect("[turn ended: cancelled]");
    chat.expect("\n> ");
    assert_eq!(env.file("a.txt"), None);
    assert_eq!(env.file("b.txt"), None);
    // At the prompt a Ctrl-C only warns; the second one leaves.
    chat.send("\x03");
    chat.expect("press Ctrl-C again to quit");
    chat.expect("\n> ");
    chat.send("\x03");
    assert_eq!(chat.wait().code(), Some(130), "{}", chat.text());
}

#[test]
fn leaving_stops_a_child_agent_and_its_stderr_goes_to_a_log() {
    let env = Env::new();
    let agent = format!("{} acp", env!("CARGO_BIN_EXE_warden"));
    let mut command = env.command(&["--agent", &agent]);
    // The child agent logs everything: that must land in the log file, not on the screen.
    command.env("RUST_LOG", "trace");
    let mut chat = Pty::spawn(command, 100);
    let screen = chat.expect("Ctrl-D leaves.");
    let pid: u32 = screen
        .split_once("(pid ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .and_then(|(pid, _)| pid.parse().ok())
        .expect("the session line names the agent's pid");
    assert!(alive(pid));
    chat.expect("> ");
    chat.send("/say hi there\r");
    chat.expect("hi there");
    chat.expect("\n> ");
    chat.send("\x03");
    chat.expect("press Ctrl-C again to quit");
    chat.expect("\n> ");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0), "{}", chat.text());
    assert!(!alive(pid), "the agent {pid} outlived the chat");
    let log = std::fs::read_to_string(env.warden_home().join("chat-agent.log")).unwrap_or_default();
    assert!(!log.is_empty(), "the agent's log is empty");
    // The chat's own logs go to a file of their own too.
    assert!(!chat.text().contains("TRACE"), "{}", chat.text());
    let own = std::fs::read_to_string(env.warden_home().join("chat.log")).unwrap_or_default();
    assert!(own.contains("TRACE"), "{own}");
    // Both logs are the user's own: 0600, like everything else Warden keeps.
    for name in ["chat.log", "chat-agent.log"] {
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(env.warden_home().join(name))
                .expect("log")
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{name}");
    }
}

#[test]
fn no_color_writes_no_colour_codes() {
    let env = Env::new();
    let mut command = env.command(&[]);
    command.env("NO_COLOR", "1");
    let mut chat = start(command);
    chat.send("write notes.txt: hello\r");
    chat.expect("Review each action carefully before approving");
    chat.expect("[o] Allow once (Enter)");
    chat.send("d");
    chat.expect("✗ Denied");
    chat.expect("\n> ");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
    assert!(
        !has_sgr(&chat.raw()),
        "{:?}",
        String::from_utf8_lossy(&chat.raw())
    );
}

#[test]
fn a_narrow_terminal_shows_the_whole_prompt() {
    let env = Env::new();
    let mut chat = start_cols(env.command(&[]), 40);
    chat.send("write notes.txt: hello\r");
    chat.expect("Allow tool call from Warden?");
    chat.expect("[o] Allow once (Enter)");
    chat.send("o");
    chat.expect("✓ Approved once");
    chat.expect("\n> ");
    assert_eq!(env.file("notes.txt").as_deref(), Some("hello"));
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn resume_loads_a_stored_session_and_an_unknown_one_is_an_error() {
    let env = Env::new();
    let first = env
        .command(&["--prompt", "write notes.txt: hello", "--approve", "all"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let stdout = String::from_utf8_lossy(&first.stdout);
    let id = stdout
        .split_whitespace()
        .skip_while(|w| *w != "Session")
        .nth(1)
        .unwrap_or_else(|| panic!("no session id in {stdout}"))
        .to_owned();
    // Loading it replays the conversation before the next prompt.
    let again = env
        .command(&["--resume", &id, "--prompt", "say done"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    let replayed = String::from_utf8_lossy(&again.stdout);
    assert!(
        replayed.contains("Write 5 bytes to notes.txt"),
        "{replayed}"
    );
    // An id no stored session has is an error, in one line.
    let unknown = env
        .command(&["--resume", "sess_nosuch", "--prompt", "hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(unknown.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert_eq!(
        stderr,
        "warden: no stored session has the id sess_nosuch (see `warden sessions list`)\n"
    );
}

#[test]
fn tab_completes_the_agents_commands_and_up_recalls_the_last_prompt() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    // Warden's `/say`, the only command starting `/sa`, completed by Tab.
    chat.send("/sa\t");
    chat.expect("/say ");
    chat.send("completed by tab\r");
    chat.expect("completed by tab");
    chat.expect("\n> ");
    // Up arrow: the same prompt again, from the history.
    chat.send("\x1b[A\r");
    chat.expect("completed by tab");
    chat.expect("completed by tab");
    chat.expect("\n> ");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
    // The history is kept for the next chat.
    let path = env.warden_home().join("chat-history");
    let history = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(history.contains("/say completed by tab"), "{history}");
    // Prompts are the user's own: the file is not readable by others.
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&path).expect("history").permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn what_is_typed_during_a_turn_is_neither_shown_nor_sent() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    // A call that runs for a while (and is not asked about), so that typing happens
    // while the turn runs.
    chat.send("run sleep 1\r");
    chat.expect("Run `sleep 1` running");
    chat.send("typed during the turn\r");
    chat.expect("• terminal: completed");
    chat.expect("\n> ");
    chat.send("/say after the turn\r");
    chat.expect("after the turn");
    chat.expect("\n> ");
    let screen = chat.text();
    assert!(!screen.contains("typed during"), "{screen}");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

/// `warden chat --agent` with the small agent of `chat_pty/fake_agent.py` (python3).
fn fake_agent(env: &Env) -> Pty {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/e2e/chat_pty/fake_agent.py"
    );
    let agent = format!("python3 {script}");
    start(env.command(&["--agent", &agent]))
}

/// What broke: a request an agent sent while the person typed a prompt sat unseen, and
/// on Enter the typed prompt went out while the request was drawn, so an agent busy
/// with its request lost the prompt and the chat waited for ever. The request waits for
/// Enter, is then answered first, and the prompt goes after it.
#[test]
fn regression_a_request_sent_while_typing_is_answered_after_enter_then_the_prompt_goes() {
    let env = Env::new();
    let mut chat = fake_agent(&env);
    chat.send("later\r");
    chat.expect("\n> ");
    chat.send("ping");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while env.file("asked.flag").is_none() {
        assert!(std::time::Instant::now() < deadline, "{}", chat.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Nothing is drawn over the line being typed.
    assert!(
        !chat.screen().contains("Just this once"),
        "{}",
        chat.screen()
    );
    chat.send("\r");
    chat.expect("The agent asked while you typed: answer first; your prompt is sent after.");
    chat.expect("[o] Just this once");
    chat.send("o");
    chat.expect("answered: once");
    chat.expect("pong");
    chat.expect("\n> ");
    let screen = chat.screen();
    let answered = screen.find("answered: once").expect("the answer");
    let pong = screen.rfind("pong").expect("the reply to the prompt");
    assert!(answered < pong, "{screen}");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0), "{}", chat.text());
}

/// How often `text` is on the screen a person sees now.
fn on_screen(chat: &Pty, text: &str) -> usize {
    chat.screen().matches(text).count()
}

#[test]
fn regression_the_command_is_on_screen_in_full_in_every_prompt() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    let command = "cd /tmp && echo one two three four five six seven eight nine ten > ~/.bashrc";
    chat.send(&format!("run {command}\r"));
    chat.expect("Allow tool call from Warden?");
    chat.expect(&format!("$ {command}"));
    chat.expect("Decided by the part");
    chat.expect("[d] Deny (Enter)");
    chat.send("d");
    chat.expect("✗ Denied");
    chat.expect("\n> ");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn the_prompt_redraws_in_place_on_arguments_and_a_note() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    chat.send("write notes.txt: hello\r");
    chat.expect("[o] Allow once (Enter)");
    chat.send(">");
    chat.expect("(> hides the arguments as JSON)");
    chat.expect("[o] Allow once (Enter)");
    assert_eq!(
        on_screen(&chat, "Allow tool call from Warden?"),
        1,
        "{}",
        chat.screen()
    );
    chat.send(">");
    chat.expect("(> shows the arguments)");
    chat.expect("[o] Allow once (Enter)");
    chat.send("n");
    chat.expect("note> ");
    chat.send("keep it short\r");
    chat.expect("Note: keep it short");
    chat.expect("[o] Allow once (Enter)");
    let screen = chat.screen();
    assert_eq!(
        screen.matches("Allow tool call from Warden?").count(),
        1,
        "{screen}"
    );
    assert_eq!(
        screen.matches("Review each action carefully").count(),
        1,
        "{screen}"
    );
    assert!(!screen.contains("note> "), "{screen}");
    chat.send("o");
    chat.expect("✓ Approved once");
    chat.expect("\n> ");
    assert_eq!(env.file("notes.txt").as_deref(), Some("hello"));
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn a_long_write_can_be_read_whole_before_it_is_approved() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    let content: String = (1..=40).map(|i| format!("line {i}\\n")).collect();
    chat.send(&format!(
        "/call fs_write {{\"path\": \"long.txt\", \"content\": \"{content}\"}}\r"
    ));
    chat.expect("… 16 more lines (folded)");
    chat.expect("v whole diff");
    assert!(!chat.screen().contains("+line 40"), "{}", chat.screen());
    chat.send("v");
    chat.expect("+line 40");
    chat.expect("(v folds the diff again)");
    chat.expect("[o] Allow once (Enter)");
    chat.send("o");
    chat.expect("✓ Approved once");
    chat.expect("\n> ");
    assert_eq!(env.file("long.txt").map(|t| t.lines().count()), Some(40));
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn a_running_tool_shows_a_spinner_with_its_time_and_its_streamed_output() {
    let env = Env::new();
    let mut chat = fake_agent(&env);
    chat.send("stream\r");
    chat.expect("Build running");
    // The live line: a spinner, the call and how long it has run.
    chat.expect("Build running · 1.");
    // The output as it streams, folded to its last lines.
    chat.expect("│ step 5");
    chat.expect("✓ Build completed");
    chat.expect("all 8 steps done");
    chat.expect("\n> ");
    // The live lines are gone once the call is done.
    let screen = chat.screen();
    assert!(!screen.contains("running ·"), "{screen}");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0), "{}", chat.text());
}

#[test]
fn another_agents_options_keep_their_names_and_enter_picks_nothing_without_a_risk() {
    let env = Env::new();
    let mut chat = fake_agent(&env);
    chat.send("ask\r");
    chat.expect("Allow tool call from fake-agent?");
    chat.expect("[a] Yes, and don't ask again  [o] Just this once");
    chat.expect("Enter picks nothing: choose an option's key");
    chat.expect("the agent offers no option to refuse: Ctrl-C cancels the turn");
    // Enter does nothing; a key answers.
    chat.send("\r");
    chat.send("o");
    chat.expect("answered: once");
    chat.expect("\n> ");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0), "{}", chat.text());
}

#[test]
fn markdown_keeps_list_numbers_and_lays_out_tables() {
    let env = Env::new();
    let mut chat = fake_agent(&env);
    chat.send("markdown\r");
    chat.expect("1. first");
    chat.expect("2. second");
    chat.expect("3. third");
    chat.expect("│ tool │ what        │");
    chat.expect("│ ls   │ lists files │");
    chat.expect("old");
    chat.expect("\n> ");
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0), "{}", chat.text());
}

#[test]
fn leaving_prints_how_to_resume_the_session() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    chat.send("/say hi\r");
    chat.expect("hi");
    chat.expect("\n> ");
    chat.send("\x04");
    chat.expect("resume with: warden chat --resume sess_");
    assert_eq!(chat.wait().code(), Some(0));
}

#[test]
fn help_lists_the_commands_and_the_keys_without_asking_the_agent() {
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    chat.send("/help\r");
    chat.expect("Commands");
    chat.expect("/say");
    chat.expect("/help  this help");
    chat.expect("At the prompt");
    chat.expect("Answering a permission request");
    chat.expect("[a] Allow for this chat  [o] Allow once  [d] Deny");
    chat.expect("\n> ");
    // Answered by the chat: no turn ran (the agent would have said it does not know it).
    assert!(!chat.text().contains("[turn ended"), "{}", chat.text());
    assert!(!chat.text().contains("Unknown command"), "{}", chat.text());
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}

/// A bare `warden` on a terminal is the ACP agent waiting for an editor: it says so and
/// points at `warden chat`; Ctrl-D leaves. Without a terminal it says nothing (an editor
/// reads only protocol lines).
#[test]
fn a_bare_warden_on_a_terminal_points_at_warden_chat() {
    let env = Env::new();
    let mut command = env.command(&[]);
    // `warden` with no subcommand, in the same environment as the chat.
    let mut bare = Command::new(command.get_program());
    bare.current_dir(&env.project);
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => bare.env(key, value),
            None => bare.env_remove(key),
        };
    }
    let mut warden = Pty::spawn(bare, 100);
    warden.expect("to talk to it yourself, run `warden chat`");
    warden.send("\x04");
    assert_eq!(warden.wait().code(), Some(0), "{}", warden.text());

    command = Command::new(env!("CARGO_BIN_EXE_warden"));
    let out = command
        .env("WARDEN_HOME", env.warden_home())
        .env("HOME", env.home())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warden chat"),
        "{out:?}"
    );
    assert!(out.stdout.is_empty(), "{out:?}");
}
/// The session's id, from the line the chat prints when it opens one.
fn session_id(screen: &str) -> String {
    screen
        .split_whitespace()
        .skip_while(|w| *w != "Session")
        .nth(1)
        .unwrap_or_else(|| panic!("no session id in {screen}"))
        .to_owned()
}

/// What broke: after `warden chat --resume` of a session whose call was waiting for an
/// answer when Warden died, the call was asked again only after the user typed
/// something, and without its diff. It is on screen at once, with the same content as
/// the first time (the diff of a write, the command of a `terminal` call), and the
/// answer given then is the one that counts.
#[test]
fn regression_resume_shows_a_call_left_waiting_at_once_with_the_same_content() {
    let cases: [(&str, &[&str], &str); 2] = [
        (
            "write notes.txt: hello",
            &["Run fs_write from Warden", "notes.txt (new file)", "+hello"],
            "o",
        ),
        (
            "run echo pwned > ~/.bashrc",
            &["$ echo pwned > ~/.bashrc", "Critical: "],
            "d",
        ),
    ];
    for (prompt, content, key) in cases {
        let env = Env::new();
        let mut chat = Pty::spawn(env.command(&[]), 100);
        let screen = chat.expect("Ctrl-D leaves.");
        let id = session_id(&screen);
        chat.expect("> ");
        chat.send(&format!("{prompt}\r"));
        chat.expect("Allow tool call from Warden?");
        for text in content {
            chat.expect(text);
        }
        chat.expect("[d] Deny");
        // Warden dies while the question is open: nothing winds down.
        chat.kill();
        assert_eq!(env.file("notes.txt"), None);

        let mut again = Pty::spawn(env.command(&["--resume", &id]), 100);
        // Nothing is typed: the question is back on its own, whole.
        again.expect(&format!("Session {id}"));
        again.expect("Allow tool call from Warden?");
        for text in content {
            again.expect(text);
        }
        again.expect("[d] Deny");
        // Drawn once, below the session's line.
        assert_eq!(
            on_screen(&again, "Allow tool call from Warden?"),
            1,
            "{}",
            again.screen()
        );
        again.send(key);
        if key == "o" {
            again.expect("✓ Approved once");
            again.expect("Write 5 bytes to notes.txt completed");
        } else {
            again.expect("✗ Denied");
        }
        again.expect("\n> ");
        if key == "o" {
            assert_eq!(env.file("notes.txt").as_deref(), Some("hello"));
        }
        assert!(!env.home().join(".bashrc").exists());
        again.send("\x04");
        assert_eq!(again.wait().code(), Some(0), "{}", again.text());
    }
}

/// What broke: after `warden chat --resume`, the chat guessed from half a second of
/// silence that the resumed turn was over and gave the prompt back, so a slow model's
/// reply was written over the `> ` line. Warden's agent now says when that turn ends;
/// here the model answers only well after the resumed call ran, and its reply comes
/// above the prompt, which comes once.
#[test]
fn regression_a_slow_models_reply_after_resume_comes_before_the_prompt() {
    use warden_model::testing::{Reply, Server, call_delta, done, finish, text_chunk};
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the model server");
    let server = runtime.block_on(Server::start(vec![
        Reply::Sse(vec![
            call_delta(
                0,
                Some("call_w"),
                Some("fs_write"),
                "{\"path\": \"notes.txt\", ",
            ),
            call_delta(0, None, None, "\"content\": \"hello\"}"),
            finish("tool_calls"),
            done(),
        ]),
        // Slower than any quiet spell the chat could take for the turn's end.
        Reply::Late(
            std::time::Duration::from_millis(2500),
            vec![
                text_chunk("Slow reply: notes.txt is written."),
                finish("stop"),
                done(),
            ],
        ),
    ]));
    let env = Env::new();
    let command = |args: &[&str]| {
        let mut command = env.command(args);
        command
            .env("WARDEN_MODEL", "openai:test-model")
            .env("OPENAI_BASE_URL", server.base_url())
            .env("OPENAI_API_KEY", "sk-test");
        command
    };
    let mut chat = Pty::spawn(command(&[]), 100);
    let id = session_id(&chat.expect("Ctrl-D leaves."));
    chat.expect("> ");
    chat.send("write the notes\r");
    chat.expect("Allow tool call from Warden?");
    chat.expect("[d] Deny");
    chat.kill();

    let mut again = Pty::spawn(command(&["--resume", &id]), 100);
    again.expect("Allow tool call from Warden?");
    again.expect("[d] Deny");
    again.send("o");
    again.expect("✓ Approved once");
    again.expect("Slow reply: notes.txt is written.");
    again.expect("\n> ");
    let screen = again.screen();
    let after: Vec<&str> = screen
        .lines()
        .skip_while(|line| !line.contains("Approved once"))
        .collect();
    let reply = after
        .iter()
        .position(|line| line.contains("Slow reply"))
        .unwrap_or_else(|| panic!("no reply in {screen}"));
    let prompts: Vec<usize> = (0..after.len())
        .filter(|&i| after[i].starts_with('>'))
        .collect();
    assert_eq!(prompts.len(), 1, "one prompt: {screen}");
    assert!(
        prompts[0] > reply,
        "the prompt comes after the reply: {screen}"
    );
    assert_eq!(server.requests().len(), 2, "{screen}");
    assert_eq!(env.file("notes.txt").as_deref(), Some("hello"));
    again.send("\x04");
    assert_eq!(again.wait().code(), Some(0), "{}", again.text());
}

/// The screen as docs/chat.md shows it: the project's folder as `/home/me/project`, the
/// session's id as `sess_771a_18ebce1602ff43c7_0`, and from the first line that holds
/// `from` on.
fn as_documented(env: &Env, screen: &str, from: &str) -> String {
    let id = session_id(screen);
    let screen = screen
        .replace(&env.project.display().to_string(), "/home/me/project")
        .replace(&id, "sess_771a_18ebce1602ff43c7_0");
    let start = screen
        .rfind(from)
        .map_or(0, |at| screen[..at].rfind('\n').map_or(0, |nl| nl + 1));
    screen[start..].trim_end().to_owned()
}

/// The screens docs/chat.md and the README show are a real session's, as this test sees
/// them through a terminal emulator (100 columns): a newcomer's write, its approval, a
/// command with its risk and the keys, and the way back. When the chat's screen changes, this fails with
/// the screen as it is now, to be copied into the page.
#[test]
fn the_screens_docs_chat_md_shows_are_what_a_session_shows() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/chat.md"))
        .expect("docs/chat.md");
    let env = Env::new();
    let mut chat = start(env.command(&[]));
    let mut shown = Vec::new();
    chat.send("write notes.txt: hello\r");
    chat.expect("keys: > arguments · e edit · n note");
    shown.push(as_documented(
        &env,
        &chat.screen(),
        "Commands (Tab completes)",
    ));
    chat.send("o");
    chat.expect("• fs_write: completed");
    chat.expect("\n> ");
    shown.push(as_documented(&env, &chat.screen(), "✓ Approved once"));
    chat.send("run git push origin main\r");
    chat.expect("keys: > arguments · e edit · n note");
    shown.push(as_documented(
        &env,
        &chat.screen(),
        "Allow tool call from Warden?",
    ));
    // The README's first screen: the same, from the prompt typed.
    let readme_shows = as_documented(&env, &chat.screen(), "> run git push origin main");
    chat.send("d");
    chat.expect("\n> ");
    chat.send("\x04");
    chat.expect("resume with: ");
    assert_eq!(chat.wait().code(), Some(0));
    shown.push(as_documented(&env, &chat.screen(), "resume with: "));
    let missing: Vec<String> = shown
        .into_iter()
        .filter(|screen| !docs.contains(&format!("```text\n{screen}\n```")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/chat.md does not show these screens as they are now:\n\n{}",
        missing.join("\n\n")
    );
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    assert!(
        readme.contains(&format!("```text\n{readme_shows}\n```")),
        "README.md does not show this screen as it is now:\n\n{readme_shows}"
    );
}

/// In a batch, what a call that runs without asking prints while another call's prompt
/// is on screen comes above the prompt, which is drawn again below it: the options stay
/// the last thing on screen, once.
#[test]
fn output_of_a_call_that_ran_in_a_batch_comes_above_the_prompt() {
    let env = Env::new();
    std::fs::write(env.project.join("a.txt"), "alpha\n").expect("write");
    let mut chat = start(env.command(&[]));
    chat.send("write b.txt: two\\\rread a.txt\r");
    chat.expect("[o] Allow once (Enter)");
    chat.expect("keys: ");
    chat.expect("completed");
    chat.expect("keys: ");
    let screen = chat.screen();
    let prompt = screen
        .rfind("Allow tool call from Warden?")
        .expect("a prompt");
    let read = screen.find("alpha").expect("the read's output on screen");
    assert!(read < prompt, "{screen}");
    assert_eq!(
        screen.matches("Allow tool call from Warden?").count(),
        1,
        "{screen}"
    );
    assert!(screen.trim_end().ends_with("n note"), "{screen}");
    chat.send("o");
    chat.expect("✓ Approved once");
    chat.expect("\n> ");
    assert_eq!(env.file("b.txt").as_deref(), Some("two"));
    chat.send("\x04");
    assert_eq!(chat.wait().code(), Some(0));
}
