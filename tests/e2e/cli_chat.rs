//! `warden chat` without a terminal, end to end through the binary: `--prompt`, prompts
//! on stdin, `--approve ask|all|none`, a Critical call under `--approve all`, `--agent`,
//! the exit codes, and no agent left running afterwards.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Output, Stdio};

use super::support::chat_env::ChatEnv as Env;

/// Runs `warden chat ARGS` with `stdin` as its input, to the end.
fn chat(env: &Env, args: &[&str], stdin: &str) -> Output {
    let mut child = env
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warden chat");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("wait for warden chat")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[track_caller]
fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(output),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_read_prints_the_result_and_exits_0() {
    let env = Env::new();
    std::fs::write(env.project.join("notes.txt"), "the content of the notes\n").expect("write");
    let output = chat(&env, &["--prompt", "read notes.txt"], "");
    assert_exit(&output, 0);
    let out = stdout(&output);
    assert!(out.contains("[tool] Read notes.txt: completed"), "{out}");
    assert!(out.contains("the content of the notes"), "{out}");
    assert!(out.contains("[turn ended: end_turn]"), "{out}");
    // A read is not asked about.
    assert!(!out.contains("Allow tool call"), "{out}");
    // Plain text for logs: no escape codes.
    assert!(!out.contains('\u{1b}'), "{out}");
}

#[test]
fn approve_all_allows_a_write_once_and_the_file_is_written() {
    let env = Env::new();
    let output = chat(
        &env,
        &["--approve", "all", "--prompt", "write out.txt: hello"],
        "",
    );
    assert_exit(&output, 0);
    assert_eq!(env.file("out.txt").as_deref(), Some("hello"));
    let out = stdout(&output);
    for line in [
        "Allow tool call from Warden?",
        "  Run fs_write from Warden",
        r#"  > {"path":"out.txt","content":"hello"}"#,
        "Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.",
        "Review each action carefully before approving",
        "Chosen: Allow once (--approve all)",
        "[tool] Write 5 bytes to out.txt: completed",
    ] {
        assert!(
            out.lines().any(|l| l == line),
            "missing {line:?} in:\n{out}"
        );
    }
}

#[test]
fn approve_all_never_approves_a_critical_call_and_nothing_runs() {
    let env = Env::new();
    // `warden policy check` rates a write to the shell's startup file Critical; with a
    // home folder of the test's own, running it would only create that file.
    let output = chat(
        &env,
        &["--approve", "all", "--prompt", "run echo pwned > ~/.bashrc"],
        "",
    );
    assert_exit(&output, 0);
    let out = stdout(&output);
    assert!(out.lines().any(|l| l.starts_with("Critical: ")), "{out}");
    assert!(
        out.contains("Denied: Reject (the agent marks this call Critical, which --approve all never approves)"),
        "{out}"
    );
    assert!(out.contains(": failed"), "{out}");
    assert!(!env.home().join(".bashrc").exists());
}

#[test]
fn approve_none_denies_a_write() {
    let env = Env::new();
    let output = chat(
        &env,
        &["--approve", "none", "--prompt", "write out.txt: hello"],
        "",
    );
    assert_exit(&output, 0);
    assert_eq!(env.file("out.txt"), None);
    let out = stdout(&output);
    assert!(out.contains("Denied: Reject (--approve none)"), "{out}");
    assert!(
        out.contains("[tool] Write 5 bytes to out.txt: failed"),
        "{out}"
    );
}

/// `language` in the user's config.toml chooses the chat's own words, over the locale;
/// the log's format (`[tool]`, status names) stays as it is.
#[test]
fn the_language_of_config_toml_chooses_the_chats_words() {
    let env = Env::new();
    std::fs::write(
        env.warden_home().join("config.toml"),
        "language = \"zh-CN\"\n",
    )
    .expect("config.toml");
    let output = chat(
        &env,
        &["--approve", "none", "--prompt", "write out.txt: hello"],
        "",
    );
    assert_exit(&output, 0);
    assert_eq!(env.file("out.txt"), None);
    let out = stdout(&output);
    for text in [
        "是否允许来自 Warden 的工具调用？",
        "  运行 Warden 的 fs_write",
        "批准前请仔细检查每个操作",
        "[允许一次] [本次对话内允许",
        "已拒绝：拒绝（--approve none）",
        "[拒绝] [拒绝并停止]",
        "[tool] 向 out.txt 写入 5 字节: failed",
    ] {
        assert!(out.contains(text), "{text} in {out}");
    }
}

#[test]
fn approve_ask_without_a_terminal_denies_and_says_so() {
    let env = Env::new();
    let output = chat(&env, &["--prompt", "write out.txt: hello"], "");
    assert_exit(&output, 0);
    assert_eq!(env.file("out.txt"), None);
    let out = stdout(&output);
    assert!(
        out.contains("Denied: Reject (cannot ask without an interactive terminal (--approve ask))"),
        "{out}"
    );
}

#[test]
fn prompts_are_read_line_by_line_from_stdin() {
    let env = Env::new();
    let output = chat(
        &env,
        &["--approve", "all"],
        "write a.txt: first\n\nwrite b.txt: second\n",
    );
    assert_exit(&output, 0);
    assert_eq!(env.file("a.txt").as_deref(), Some("first"));
    assert_eq!(env.file("b.txt").as_deref(), Some("second"));
    let out = stdout(&output);
    assert_eq!(out.matches("[turn ended: end_turn]").count(), 2, "{out}");
    assert!(out.contains("> write a.txt: first\n"), "{out}");
    assert!(out.contains("> write b.txt: second\n"), "{out}");
}

#[test]
fn a_bad_agent_command_is_a_clear_error() {
    let env = Env::new();
    let output = chat(&env, &["--agent", "\"unclosed", "--prompt", "hi"], "");
    assert_exit(&output, 2);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("unclosed quote"), "{err}");
}

/// Whether `pid` is a live process (a zombie is not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// The pid a chat printed for its child agent.
fn agent_pid(out: &str) -> u32 {
    out.split("(pid ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no agent pid in:\n{out}"))
}

fn warden_agent() -> String {
    format!("{} acp", env!("CARGO_BIN_EXE_warden"))
}

#[test]
fn an_agent_given_with_agent_runs_as_a_child_and_is_gone_after_chat_exits() {
    let env = Env::new();
    let agent = warden_agent();
    let output = chat(
        &env,
        &[
            "--agent",
            &agent,
            "--approve",
            "all",
            "--prompt",
            "write out.txt: from a child",
        ],
        "",
    );
    assert_exit(&output, 0);
    assert_eq!(env.file("out.txt").as_deref(), Some("from a child"));
    let out = stdout(&output);
    let pid = agent_pid(&out);
    // The chat reaped its child before exiting, so the pid is gone at once.
    assert!(!alive(pid), "the agent {pid} outlived the chat");
    // The agent's stderr went to the log, not over the chat's output.
    assert!(env.warden_home().join("chat-agent.log").exists());
}

/// Interrupts a chat during a long turn; returns its exit code, its output, and its child
/// agent's pid (when it has one).
fn interrupt_a_turn(
    signal: nix::sys::signal::Signal,
    agent: Option<&str>,
) -> (Option<i32>, String, Option<u32>) {
    let env = Env::new();
    let mut args = vec!["--approve", "all"];
    if let Some(agent) = agent {
        args.extend(["--agent", agent]);
    }
    let mut child: Child = env
        .command(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run warden chat");
    // stdin stays open: the chat is waiting in the turn, not at the end of its input.
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(b"run sleep 600\n")
        .expect("write the prompt");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut seen = Vec::new();
    loop {
        let line = lines
            .next()
            .expect("the chat ended early")
            .expect("read stdout");
        seen.push(line.clone());
        if line.ends_with(": in_progress") {
            break;
        }
    }
    let pid = agent.map(|_| agent_pid(&seen.join("\n")));
    let chat = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(chat, signal).expect("signal the chat");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().expect("wait for the chat");
    drop(input);
    (
        status.code(),
        format!("{}\n{}", seen.join("\n"), rest.join("\n")),
        pid,
    )
}

#[test]
fn an_interrupt_during_a_turn_cancels_it_and_exits_130() {
    use nix::sys::signal::Signal::{SIGINT, SIGTERM};
    let agent = warden_agent();
    for (signal, agent) in [
        (SIGINT, None),
        (SIGTERM, None),
        (SIGTERM, Some(agent.as_str())),
        (SIGINT, Some(agent.as_str())),
    ] {
        let (code, out, pid) = interrupt_a_turn(signal, agent);
        assert_eq!(code, Some(130), "{signal} {agent:?}:\n{out}");
        assert!(out.contains("Interrupted: cancelling the turn."), "{out}");
        assert!(out.contains("[turn ended: cancelled]"), "{out}");
        if let Some(pid) = pid {
            assert!(!alive(pid), "the agent {pid} outlived the chat");
        }
    }
}
