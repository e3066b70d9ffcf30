//! `terminal` through the editor's `terminal/*`.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use warden_tools::Content;
use warden_tools::{Editor, Limits, ToolOutput};

use super::fake_editor::{Command, FakeEditor};
use super::support::{run_full, workspace};

async fn run_in(
    editor: Arc<FakeEditor>,
    args: serde_json::Value,
    cancel: CancellationToken,
) -> (ToolOutput, Vec<String>, Vec<String>) {
    run_in_with(editor, args, cancel, Limits::default()).await
}

async fn run_in_with(
    editor: Arc<FakeEditor>,
    args: serde_json::Value,
    cancel: CancellationToken,
    limits: Limits,
) -> (ToolOutput, Vec<String>, Vec<String>) {
    let dir = workspace();
    let progress = Mutex::new(Vec::new());
    let sink = |content: Vec<Content>| {
        for c in content {
            let shown = match c {
                Content::Terminal { id } => format!("terminal {id}"),
                other => format!("{other:?}"),
            };
            progress.lock().expect("lock").push(shown);
        }
    };
    let dyn_editor: Arc<dyn Editor> = editor.clone();
    let out = run_full(
        dir.path(),
        Some(dyn_editor),
        limits,
        cancel,
        &sink,
        "terminal",
        args,
    )
    .await;
    let log = editor
        .log()
        .into_iter()
        .map(|l| l.replace(&dir.path().display().to_string(), "$CWD"))
        .collect();
    let progress = progress.lock().expect("lock").clone();
    (out, log, progress)
}

#[tokio::test]
async fn a_command_runs_in_the_editor_terminal_which_is_embedded_and_released() {
    let editor =
        Arc::new(FakeEditor::new(false, false, true).with_command(Command::Exits(0, "done\n")));
    let (out, log, progress) = run_in(
        editor,
        json!({"command": "npm test"}),
        CancellationToken::new(),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    // The shell Warden runs local commands with, so the editor runs the dialect that
    // was judged.
    let shell = if warden_tools::command_shell().is_bash {
        "bash"
    } else {
        "sh"
    };
    assert_eq!(
        log,
        [
            // No environment from Warden: the editor's own applies.
            format!(r#"create {shell} ["-c", "npm test"] in $CWD env [] limit Some(65536)"#)
                .as_str(),
            "wait term-1",
            "output term-1",
            "release term-1",
        ]
    );
    assert_eq!(progress, ["terminal term-1"]);
    assert!(matches!(&out.content[..], [Content::Terminal { id }] if id == "term-1"));
    assert_eq!(out.for_model, "Exit code 0.\ndone\n");
    assert_eq!(out.raw_output["terminal_id"], "term-1");
}

/// An editor's terminal is a PTY: colours and `\r\n` must not reach the model.
#[tokio::test]
async fn pty_output_reaches_the_model_without_escapes_or_carriage_returns() {
    let editor = Arc::new(
        FakeEditor::new(false, false, true).with_command(Command::Exits(
            1,
            "\u{1b}[1;31merror\u{1b}[0m: failed\r\n\u{1b}]0;title\u{7}50%\r100%\r\n",
        )),
    );
    let (out, _, _) = run_in(
        editor,
        json!({"command": "cargo build"}),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.for_model, "Exit code 1.\nerror: failed\n50%\n100%\n");
}

#[tokio::test]
async fn a_failing_command_is_a_failed_call() {
    let editor =
        Arc::new(FakeEditor::new(false, false, true).with_command(Command::Exits(2, "boom\n")));
    let (out, log, _) = run_in(
        editor,
        json!({"command": "false"}),
        CancellationToken::new(),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(out.for_model, "Exit code 2.\nboom\n");
    assert_eq!(log.last().map(String::as_str), Some("release term-1"));
}

#[tokio::test]
async fn timeout_kills_then_releases_the_terminal() {
    let editor = Arc::new(FakeEditor::new(false, false, true).with_command(Command::Hangs));
    let (out, log, _) = run_in(
        editor,
        json!({"command": "sleep 30", "timeout_secs": 1}),
        CancellationToken::new(),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "Timed out after 1 s; the command was killed.\npartial\n"
    );
    assert_eq!(out.raw_output["timed_out"], true);
    assert!(out.timed_out, "the typed result says it timed out");
    assert_eq!(
        log[1..],
        [
            "wait term-1",
            "kill term-1",
            "output term-1",
            "release term-1"
        ]
    );
}

#[tokio::test]
async fn cancel_kills_then_releases_the_terminal() {
    let editor = Arc::new(FakeEditor::new(false, false, true).with_command(Command::Hangs));
    let cancel = CancellationToken::new();
    let later = cancel.clone();
    let watched = editor.clone();
    // Cancelled once the command runs in the editor's terminal (the tool waits for its
    // exit): a hook, not a guess at how long that takes.
    tokio::spawn(async move {
        while !watched.log().iter().any(|l| l.starts_with("wait")) {
            tokio::task::yield_now().await;
        }
        later.cancel();
    });
    let (out, log, _) = run_in(editor, json!({"command": "sleep 30"}), cancel).await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "Cancelled; the command was killed.\npartial\n"
    );
    assert_eq!(
        log[1..],
        [
            "wait term-1",
            "kill term-1",
            "output term-1",
            "release term-1"
        ]
    );
}

#[tokio::test]
async fn a_failed_wait_still_releases_the_terminal() {
    let editor = Arc::new(FakeEditor::new(false, false, true).with_command(Command::WaitFails));
    let (out, log, _) = run_in(editor, json!({"command": "x"}), CancellationToken::new()).await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "terminal: terminal/wait_for_exit: the connection to the editor is closed"
    );
    assert_eq!(log[1..], ["wait term-1", "output term-1", "release term-1"]);
}

#[tokio::test]
async fn a_failed_create_releases_nothing() {
    let mut fake = FakeEditor::new(false, false, true);
    fake.create_fails = true;
    let (out, log, progress) = run_in(
        Arc::new(fake),
        json!({"command": "x"}),
        CancellationToken::new(),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(out.for_model, "terminal: terminal/create failed: no shell");
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(progress.is_empty());
}

#[tokio::test]
async fn dropping_the_call_kills_and_releases_the_terminal() {
    let dir = workspace();
    let editor = Arc::new(FakeEditor::new(false, false, true).with_command(Command::Hangs));
    let dyn_editor: Arc<dyn Editor> = editor.clone();
    let running = run_full(
        dir.path(),
        Some(dyn_editor),
        Limits::default(),
        CancellationToken::new(),
        &|_| {},
        "terminal",
        json!({"command": "sleep 30"}),
    );
    tokio::select! {
        _ = running => panic!("the command ended by itself"),
        () = async { while !editor.log().iter().any(|l| l.starts_with("wait")) { tokio::task::yield_now().await } } => {}
    }
    // The release runs in a background task once the call is dropped.
    for _ in 0..200 {
        if editor.log().iter().any(|l| l == "release term-1") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        editor.log()[1..],
        ["wait term-1", "kill term-1", "release term-1"]
    );
}

#[tokio::test]
async fn an_editor_that_stops_answering_cannot_hold_the_call() {
    let editor = Arc::new(FakeEditor::new(false, false, true).with_command(Command::Unresponsive));
    let limits = Limits {
        editor_step_timeout: std::time::Duration::from_millis(100),
        ..Limits::default()
    };
    let (out, log, _) = run_in_with(
        editor,
        json!({"command": "sleep 30", "timeout_secs": 1}),
        CancellationToken::new(),
        limits,
    )
    .await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "terminal: terminal/output failed: no answer within 100 ms"
    );
    assert_eq!(
        log[1..],
        [
            "wait term-1",
            "kill term-1",
            "output term-1",
            "release term-1"
        ]
    );
}

/// Confined, the editor is asked to run Warden's sandbox helper around the shell, with
/// the call's confinement; a refusal the command reports is explained after its
/// terminal.
#[tokio::test]
async fn a_confined_command_runs_in_the_editor_through_the_sandbox_helper() {
    use warden_tools::{Confined, ExecContext, Launch, Secrets, validate};
    let editor = Arc::new(
        FakeEditor::new(false, false, true).with_command(Command::Exits(
            1,
            "bash: line 1: /home/u/.bashrc: Permission denied\n",
        )),
    );
    let dir = workspace();
    let confinement = warden_sandbox_profile(dir.path());
    let launch = Launch::Confined(Confined {
        helper: Arc::new(warden_sandbox::Helper::warden_only(
            "/opt/warden/bin/warden".into(),
        )),
        confinement: confinement.clone(),
    });
    let call = validate("terminal", &json!({"command": "echo x >> ~/.bashrc"})).expect("valid");
    let ignore = |_: Vec<Content>| {};
    let dyn_editor: Arc<dyn Editor> = editor.clone();
    let out = warden_tools::execute_with(
        &call,
        &launch,
        ExecContext {
            cwd: dir.path(),
            home: Some(std::path::Path::new("/home/u")),
            editor: Some(dyn_editor),
            cancel: CancellationToken::new(),
            limits: Limits::default(),
            progress: &ignore,
            secrets: &Secrets::default(),
            secret_files: std::sync::Arc::new(|_| false),
        },
    )
    .await;
    let created = editor
        .log()
        .into_iter()
        .next()
        .expect("a terminal was created");
    let shell = if warden_tools::command_shell().is_bash {
        "bash"
    } else {
        "sh"
    };
    let profile = serde_json::to_string(&confinement.to_arg()).expect("json");
    assert!(
        created.starts_with(&format!(
            r#"create /opt/warden/bin/warden ["sandbox-exec", {profile}, "--", "{shell}", "-c", "echo x >> ~/.bashrc"]"#
        )),
        "{created}"
    );
    assert!(!out.ok);
    assert!(
        out.for_model
            .contains("Sandbox: the sandbox refused a write to ~/.bashrc"),
        "{}",
        out.for_model
    );
}

fn warden_sandbox_profile(workspace: &std::path::Path) -> warden_sandbox::Confinement {
    warden_sandbox::Workspace {
        roots: vec![workspace.to_path_buf()],
        home: Some(std::path::PathBuf::from("/home/u")),
        temp_dirs: vec![std::path::PathBuf::from("/tmp")],
        max_processes: 512,
        ..warden_sandbox::Workspace::default()
    }
    .confinement()
}
