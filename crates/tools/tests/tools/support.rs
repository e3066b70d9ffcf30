//! Helpers shared by the tests.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use warden_tools::{Editor, ExecContext, Limits, ParsedCall, ToolOutput, execute, validate};

/// Validates `args` for `tool`, panicking with the error when invalid.
pub fn call(tool: &str, args: Value) -> ParsedCall {
    match validate(tool, &args) {
        Ok(call) => call,
        Err(err) => panic!("{tool} {args}: {err}"),
    }
}

fn ignore_progress(_: Vec<agent_client_protocol::v1::schema::ToolCallContent>) {}

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
    let call = call(tool, args);
    execute(
        &call,
        ExecContext {
            cwd,
            editor,
            cancel: CancellationToken::new(),
            limits,
            progress: &ignore_progress,
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
