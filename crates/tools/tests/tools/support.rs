//! Helpers shared by the tests.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use warden_tools::{
    Editor, ExecContext, Limits, ParsedCall, Secrets, ToolOutput, execute, validate,
};

/// Validates `args` for `tool`, panicking with the error when invalid.
pub fn call(tool: &str, args: Value) -> ParsedCall {
    match validate(tool, &args) {
        Ok(call) => call,
        Err(err) => panic!("{tool} {args}: {err}"),
    }
}

fn ignore_progress(_: Vec<warden_tools::Content>) {}

/// Runs a call locally (no editor) in `cwd` with the default limits.
pub async fn run(cwd: &Path, tool: &str, args: Value) -> ToolOutput {
    run_with(cwd, None, Limits::default(), tool, args).await
}

/// Runs a call with an optional editor and the given limits.
pub async fn run_with(
    cwd: &Path,
    editor: Option<Arc<dyn Editor>>,
    limits: Limits,
    tool: &str,
    args: Value,
) -> ToolOutput {
    execute_in(cwd, editor, limits, &Secrets::default(), tool, args).await
}

/// Runs a call locally with Warden's secrets given.
pub async fn run_with_secrets(
    cwd: &Path,
    secrets: &Secrets,
    tool: &str,
    args: Value,
) -> ToolOutput {
    execute_in(cwd, None, Limits::default(), secrets, tool, args).await
}

async fn execute_in(
    cwd: &Path,
    editor: Option<Arc<dyn Editor>>,
    limits: Limits,
    secrets: &Secrets,
    tool: &str,
    args: Value,
) -> ToolOutput {
    let call = call(tool, args);
    execute(
        &call,
        ExecContext {
            cwd,
            home: None,
            editor,
            cancel: CancellationToken::new(),
            limits,
            progress: &ignore_progress,
            secrets,
            secret_files: engine_secret_files(cwd),
        },
    )
    .await
}

/// A temporary working directory.
pub fn workspace() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => panic!("tempdir: {err}"),
    }
}

/// Writes a file under `dir`, creating parents.
pub fn put(dir: &Path, rel: &str, content: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent");
    }
    std::fs::write(path, content).expect("write file");
}

/// Reads a file under `dir`.
pub fn get(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).expect("read file")
}

/// Runs a call with everything chosen by the test: editor, limits, cancel token, and a sink
/// for progress content.
pub async fn run_full(
    cwd: &Path,
    editor: Option<Arc<dyn Editor>>,
    limits: Limits,
    cancel: CancellationToken,
    progress: &(dyn Fn(Vec<warden_tools::Content>) + Send + Sync),
    tool: &str,
    args: Value,
) -> ToolOutput {
    let call = call(tool, args);
    execute(
        &call,
        ExecContext {
            cwd,
            home: None,
            editor,
            cancel,
            limits,
            progress,
            secrets: &Secrets::default(),
            secret_files: engine_secret_files(cwd),
        },
    )
    .await
}

/// Whether a process is gone: no longer in /proc, or a zombie waiting for its parent (in a
/// container the init process may never reap it, but it runs no code).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            // The state follows the command name, which is in parentheses and may hold spaces.
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next());
            matches!(state, Some("Z" | "X"))
        }
    }
}

/// Waits (up to 10 s) for a process to be gone; killing is asynchronous in the kernel.
pub async fn wait_gone(pid: u32) -> bool {
    for _ in 0..200 {
        if process_gone(pid) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

/// Waits (up to 10 s) for a file to hold a pid written by a test command.
pub async fn wait_pid_file(path: &Path) -> u32 {
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no pid in {}", path.display());
}

/// A file change in a tool's content.
#[derive(Debug)]
pub struct Diff {
    pub path: std::path::PathBuf,
    pub old_text: Option<String>,
    pub new_text: String,
}

/// The diff a tool's content starts with; panics (failing the test) when it has none.
pub fn diff_of(content: &[warden_tools::Content]) -> Diff {
    match content.first() {
        Some(warden_tools::Content::Diff {
            path,
            old_text,
            new_text,
        }) => Diff {
            path: path.clone(),
            old_text: old_text.clone(),
            new_text: new_text.clone(),
        },
        other => panic!("expected a diff, got {other:?}"),
    }
}

/// The files that hold secrets as a session classifies them: the policy engine's
/// classification, in a workspace at `cwd`.
pub fn engine_secret_files(cwd: &std::path::Path) -> warden_tools::SecretFiles {
    let ctx = warden_permissions::Context::new(cwd);
    std::sync::Arc::new(move |path| warden_permissions::holds_secrets(path, &ctx))
}
