//! `terminal` as a local process.

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;
use warden_tools::Limits;

use super::fake_editor::FakeEditor;
use super::support::{put, run, run_full, run_with, wait_gone, wait_pid_file, workspace};

#[tokio::test]
async fn captures_stdout_and_stderr_and_reports_the_exit_code() {
    let dir = workspace();
    let out = run(
        dir.path(),
        "terminal",
        json!({"command": "echo out; echo err >&2; exit 3"}),
    )
    .await;
    assert!(!out.ok);
    assert!(
        out.for_model.starts_with("Exit code 3.\n"),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model.contains("out\n") && out.for_model.contains("err\n"),
        "{}",
        out.for_model
    );
    assert_eq!(out.raw_output["exit_code"], 3);
    assert_eq!(out.raw_output["timed_out"], false);
    assert!(!out.timed_out);

    let out = run(dir.path(), "terminal", json!({"command": "printf hi"})).await;
    assert!(out.ok);
    assert_eq!(out.for_model, "Exit code 0.\nhi\n");
}

#[tokio::test]
async fn a_signal_is_named() {
    let dir = workspace();
    let out = run(dir.path(), "terminal", json!({"command": "kill -9 $$"})).await;
    assert!(!out.ok);
    assert_eq!(out.for_model, "Killed by signal SIGKILL.\n(no output)");
    assert_eq!(out.raw_output["signal"], 9);
}

#[tokio::test]
async fn stdin_is_closed_and_cwd_is_relative_to_the_session() {
    let dir = workspace();
    put(dir.path(), "sub/marker", "");
    // `cat` would wait for ever on an inherited terminal or pipe; with stdin closed it ends.
    let out = run(
        dir.path(),
        "terminal",
        json!({"command": "cat; ls", "cwd": "sub"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(out.for_model, "Exit code 0.\nmarker\n");
    let out = run(
        dir.path(),
        "terminal",
        json!({"command": "true", "cwd": "nope"}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "terminal: the working directory nope is not a directory"
    );
    let out = run(dir.path(), "terminal", json!({"command": "true"})).await;
    assert_eq!(out.for_model, "Exit code 0.\n(no output)");
}

#[tokio::test]
async fn long_output_keeps_head_and_tail() {
    let dir = workspace();
    let limits = Limits {
        output_bytes: 100,
        ..Limits::default()
    };
    let out = run_with(
        dir.path(),
        None,
        limits,
        "terminal",
        json!({"command": "seq 1 10000"}),
    )
    .await;
    assert!(out.ok);
    assert_eq!(out.raw_output["truncated"], true);
    assert!(
        out.for_model.starts_with("Exit code 0.\n1\n2\n3\n"),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model.contains("bytes of output omitted"),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model
            .ends_with("10000\n[terminal: the output was truncated]"),
        "{}",
        out.for_model
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let dir = workspace();
    let pid_file = dir.path().join("pid");
    let command = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    let out = run(
        dir.path(),
        "terminal",
        json!({"command": command, "timeout_secs": 1}),
    )
    .await;
    assert!(!out.ok);
    assert!(
        out.for_model
            .starts_with("Timed out after 1 s; the command was killed."),
        "{}",
        out.for_model
    );
    assert_eq!(out.raw_output["timed_out"], true);
    assert!(out.timed_out, "the typed result says it timed out");
    let pid = wait_pid_file(&pid_file).await;
    assert!(wait_gone(pid).await, "the background sleep {pid} survived");
}

#[tokio::test]
async fn a_timeout_over_the_maximum_is_capped_and_says_so() {
    let dir = workspace();
    let limits = Limits {
        terminal_max_timeout: std::time::Duration::from_secs(1),
        ..Limits::default()
    };
    let out = run_with(
        dir.path(),
        None,
        limits,
        "terminal",
        json!({"command": "sleep 30", "timeout_secs": 60}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "Timed out after 1 s (the longest timeout allowed); the command was killed.\n(no output)"
    );
}

#[tokio::test]
async fn git_never_prompts_for_credentials() {
    let dir = workspace();
    let out = run(
        dir.path(),
        "terminal",
        json!({"command": "echo $GIT_TERMINAL_PROMPT"}),
    )
    .await;
    assert_eq!(out.for_model, "Exit code 0.\n0\n");
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group() {
    let dir = workspace();
    let pid_file = dir.path().join("pid");
    let command = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    let cancel = CancellationToken::new();
    let canceller = {
        let cancel = cancel.clone();
        let pid_file = pid_file.clone();
        tokio::spawn(async move {
            let pid = wait_pid_file(&pid_file).await;
            cancel.cancel();
            pid
        })
    };
    let out = run_full(
        dir.path(),
        None,
        Limits::default(),
        cancel,
        &|_| {},
        "terminal",
        json!({"command": command}),
    )
    .await;
    let pid = canceller.await.expect("canceller");
    assert!(!out.ok);
    assert!(
        out.for_model
            .starts_with("Cancelled; the command was killed."),
        "{}",
        out.for_model
    );
    assert_eq!(out.raw_output["cancelled"], true);
    assert!(wait_gone(pid).await, "the sleep {pid} survived the cancel");
}

#[tokio::test]
async fn background_processes_do_not_outlive_the_command() {
    let dir = workspace();
    let out = run(
        dir.path(),
        "terminal",
        json!({"command": "sleep 30 & echo $!"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    let pid: u32 = out
        .for_model
        .lines()
        .nth(1)
        .expect("pid line")
        .parse()
        .expect("pid");
    assert!(wait_gone(pid).await, "the background sleep {pid} survived");
}

#[tokio::test]
async fn dropping_the_call_kills_the_process_group() {
    let dir = workspace();
    let pid_file = dir.path().join("pid");
    let command = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    let running = run(dir.path(), "terminal", json!({"command": command}));
    let pid = tokio::select! {
        _ = running => panic!("the command ended by itself"),
        pid = wait_pid_file(&pid_file) => pid,
    };
    assert!(
        wait_gone(pid).await,
        "the sleep {pid} survived the dropped call"
    );
}

#[tokio::test]
async fn an_editor_without_terminals_means_a_local_run() {
    let dir = workspace();
    let editor = Arc::new(FakeEditor::new(true, true, false));
    let out = run_with(
        dir.path(),
        Some(editor.clone()),
        Limits::default(),
        "terminal",
        json!({"command": "echo local"}),
    )
    .await;
    assert_eq!(out.for_model, "Exit code 0.\nlocal\n");
    assert!(editor.log().is_empty(), "{:?}", editor.log());
}

#[tokio::test]
async fn commands_run_in_the_dialect_they_are_judged_in() {
    // The permission engine reads commands as bash does; where bash is installed the
    // command runs with it: braces expand, `[[ ]]` and `((…))` are bash's.
    let dir = workspace();
    let shell = warden_tools::command_shell();
    assert_eq!(
        shell.is_bash,
        std::path::Path::new("/bin/bash").exists()
            || std::path::Path::new("/usr/bin/bash").exists()
    );
    if !shell.is_bash {
        return;
    }
    let out = run(
        dir.path(),
        "terminal",
        json!({"command": "echo x{,.bak} {1..3}; [[ a == a ]] && echo double; ((1 + 1 == 2)) && echo arith"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        out.for_model,
        "Exit code 0.\nx x.bak 1 2 3\ndouble\narith\n"
    );
}

/// A session's call runs through its source with the launch the session decided; a
/// `terminal` call prepared without one (no sandbox was set up) runs nothing.
#[tokio::test]
async fn a_command_whose_sandbox_was_never_decided_does_not_run() {
    use warden_tools::{ExecContext, Place, Secrets, ToolSource};
    let dir = workspace();
    let place = Place {
        cwd: dir.path(),
        home: None,
        language: warden_i18n::Language::English,
    };
    let call = warden_tools::Builtins
        .prepare("terminal", json!({"command": "touch ran.txt"}), place)
        .expect("prepared");
    assert_eq!(call.launch, None);
    let ignore = |_: Vec<warden_tools::Content>| {};
    let secrets = Secrets::default();
    let out = warden_tools::Builtins
        .run(
            &call,
            ExecContext {
                cwd: dir.path(),
                home: None,
                editor: None,
                cancel: CancellationToken::new(),
                limits: Limits::default(),
                progress: &ignore,
                secrets: &secrets,
                secret_files: std::sync::Arc::new(|_| false),
            },
        )
        .await;
    assert!(!out.ok);
    assert!(
        out.for_model.contains("sandbox was not set up"),
        "{}",
        out.for_model
    );
    assert!(!dir.path().join("ran.txt").exists());
    // With a launch it runs.
    let call = call.with_launch(warden_tools::Launch::Unconfined);
    let out = warden_tools::Builtins
        .run(
            &call,
            ExecContext {
                cwd: dir.path(),
                home: None,
                editor: None,
                cancel: CancellationToken::new(),
                limits: Limits::default(),
                progress: &ignore,
                secrets: &secrets,
                secret_files: std::sync::Arc::new(|_| false),
            },
        )
        .await;
    assert!(out.ok, "{}", out.for_model);
    assert!(dir.path().join("ran.txt").exists());
}
