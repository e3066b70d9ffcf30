//! The editor's capabilities that the tools use, implemented by the transport over the ACP
//! client's `fs/*` and `terminal/*` requests.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;

/// The editor (ACP client) as the tools see it.
///
/// `can_*` report what the client advertised in `initialize` (`clientCapabilities.fs` and
/// `terminal`); the tools call a method only when its capability is offered.
pub trait Editor: Send + Sync {
    /// The client offers `fs/read_text_file`.
    fn can_read(&self) -> bool;
    /// The client offers `fs/write_text_file`.
    fn can_write(&self) -> bool;
    /// The client offers `terminal/*`.
    fn can_terminal(&self) -> bool;
    /// `fs/read_text_file`: the file's text as the editor has it (unsaved buffers included),
    /// from the 1-based `line`, at most `limit` lines.
    fn read_text_file(
        &self,
        path: &Path,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> BoxFuture<'_, Result<String, EditorError>>;
    /// `fs/write_text_file`.
    fn write_text_file(&self, path: &Path, content: &str)
    -> BoxFuture<'_, Result<(), EditorError>>;
    /// `terminal/create`; returns the terminal id.
    fn create_terminal(&self, req: TerminalRequest) -> BoxFuture<'_, Result<String, EditorError>>;
    /// `terminal/wait_for_exit`.
    fn wait_for_terminal_exit(&self, id: &str) -> BoxFuture<'_, Result<TerminalExit, EditorError>>;
    /// `terminal/output`.
    fn terminal_output(&self, id: &str) -> BoxFuture<'_, Result<TerminalOutput, EditorError>>;
    /// `terminal/kill`.
    fn kill_terminal(&self, id: &str) -> BoxFuture<'_, Result<(), EditorError>>;
    /// `terminal/release`.
    fn release_terminal(&self, id: &str) -> BoxFuture<'_, Result<(), EditorError>>;
}

/// The parameters of `terminal/create` (the session id is the transport's business).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalRequest {
    /// The program; the tools always send `sh`.
    pub command: String,
    /// Its arguments; the tools send `["-c", <command line>]`.
    pub args: Vec<String>,
    /// The absolute working directory.
    pub cwd: PathBuf,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// The most output the client should retain, in bytes.
    pub output_byte_limit: Option<u64>,
}

/// How a terminal's command ended (`terminal/wait_for_exit`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerminalExit {
    /// The exit code, if it exited normally.
    pub exit_code: Option<u32>,
    /// The signal that ended it, if any.
    pub signal: Option<String>,
}

/// A terminal's output (`terminal/output`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerminalOutput {
    /// The output the client retained.
    pub output: String,
    /// Whether the client dropped output to stay within the byte limit.
    pub truncated: bool,
    /// The exit status, once the command has ended.
    pub exit: Option<TerminalExit>,
}

/// A failed request to the editor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditorError {
    /// The client answered with an error.
    #[error("{method} failed: {message}")]
    Failed {
        /// The ACP method, e.g. `fs/read_text_file`.
        method: &'static str,
        /// The client's error message.
        message: String,
    },
    /// The connection to the client is gone.
    #[error("{method}: the connection to the editor is closed")]
    Closed {
        /// The ACP method.
        method: &'static str,
    },
}
