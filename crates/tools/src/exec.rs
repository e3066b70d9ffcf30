//! Running a validated call.

mod capture;
mod fs_dir;
mod fs_file;
mod http;
mod local_process;
mod plain_text;
mod refusal;
mod search;
mod shell;
mod terminal;

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use tokio_util::sync::CancellationToken;

use crate::call::ParsedCall;
use crate::content::Content;
use crate::editor::Editor;
use crate::launch::Launch;
use crate::output::ToolOutput;

pub use shell::{CommandShell, SHELL_STARTUP_ENV, command_shell};

/// The limits the tools enforce. [`Limits::default`] holds the documented defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The most text `fs_read` returns, in bytes; longer text is cut at a line boundary.
    pub read_bytes: usize,
    /// The largest file `fs_edit` and `fs_write` read back for the diff, in bytes.
    pub edit_bytes: usize,
    /// The most entries `fs_list` returns.
    pub list_entries: usize,
    /// The most matching lines `fs_search` returns.
    pub search_matches: usize,
    /// Files larger than this are skipped by `fs_search`, in bytes.
    pub search_file_bytes: u64,
    /// The most command output `terminal` keeps, in bytes (head and tail).
    pub output_bytes: usize,
    /// The timeout of `terminal` when the call gives none.
    pub terminal_timeout: Duration,
    /// The largest timeout `terminal` honours; longer requests are cut to it.
    pub terminal_max_timeout: Duration,
    /// How long a local command has between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
    /// How long the editor may take to answer `terminal/kill`, `terminal/output` and
    /// `terminal/release`; past it the call goes on without the answer.
    pub editor_step_timeout: Duration,
    /// The timeout of a whole `http_fetch` request, body included.
    pub http_timeout: Duration,
    /// The most response body `http_fetch` reads, in bytes.
    pub http_max_bytes: usize,
    /// The most redirects `http_fetch` follows (same host only).
    pub http_max_redirects: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            read_bytes: 1024 * 1024,
            edit_bytes: 4 * 1024 * 1024,
            list_entries: 1000,
            search_matches: 200,
            search_file_bytes: 4 * 1024 * 1024,
            output_bytes: 64 * 1024,
            terminal_timeout: Duration::from_secs(120),
            terminal_max_timeout: Duration::from_secs(600),
            kill_grace: Duration::from_secs(2),
            editor_step_timeout: Duration::from_secs(10),
            http_timeout: Duration::from_secs(30),
            http_max_bytes: 1024 * 1024,
            http_max_redirects: 5,
        }
    }
}

/// Whether a file holds secrets (a `.env` file, a key, a credentials file), as the
/// session's policy engine classifies it. The tools cannot know: the classification is the
/// engine's, handed in so that the tools need not compile it.
pub type SecretFiles = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// Everything a call needs from the session.
pub struct ExecContext<'a> {
    /// The session's working directory (absolute); relative paths are resolved against it.
    pub cwd: &'a Path,
    /// The user's home folder, as the permission engine knows it: `~` in a path argument
    /// means it (see [`crate::resolve`]).
    pub home: Option<&'a Path>,
    /// The editor, when the session has one. Shared ownership lets a dropped `terminal` call
    /// still release its editor terminal in the background.
    pub editor: Option<Arc<dyn Editor>>,
    /// Cancelled when the turn is cancelled; running tools stop promptly.
    pub cancel: CancellationToken,
    /// The limits to enforce.
    pub limits: Limits,
    /// Receives content to show in the tool call while it runs (e.g. the editor terminal as soon
    /// as it exists, so the user watches the command's output live).
    pub progress: &'a (dyn Fn(Vec<Content>) + Send + Sync),
    /// Warden's own secrets: kept out of local processes' environments and redacted
    /// from their output as it is read.
    pub secrets: &'a crate::secrets::Secrets,
    /// Which files hold secrets: `fs_search` leaves them out of a search.
    pub secret_files: SecretFiles,
}

impl fmt::Debug for ExecContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecContext")
            .field("cwd", &self.cwd)
            .field("home", &self.home)
            .field("editor", &self.editor.is_some())
            .field("cancelled", &self.cancel.is_cancelled())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// Runs a validated call; a `terminal` command runs unconfined (a session's calls run
/// through [`crate::Builtins`], which confines them as their [`Launch`] says). Never
/// panics: every failure, a panic inside a tool included, becomes a [`ToolOutput`]
/// with `ok == false` and a clear text for the model.
pub async fn execute(call: &ParsedCall, cx: ExecContext<'_>) -> ToolOutput {
    execute_with(call, &Launch::Unconfined, cx).await
}

/// Runs a validated call whose processes start as `launch` says.
pub async fn execute_with(call: &ParsedCall, launch: &Launch, cx: ExecContext<'_>) -> ToolOutput {
    let tool = call.tool_name();
    if cx.cancel.is_cancelled() {
        return ToolOutput::cancelled(tool);
    }
    match AssertUnwindSafe(dispatch(call, launch, &cx))
        .catch_unwind()
        .await
    {
        Ok(output) => output,
        Err(_) => {
            tracing::error!(tool, "a tool panicked");
            ToolOutput::failed(
                tool,
                "internal error (the tool panicked); nothing more is known",
            )
        }
    }
}

async fn dispatch(call: &ParsedCall, launch: &Launch, cx: &ExecContext<'_>) -> ToolOutput {
    let tool = call.tool_name();
    match call {
        ParsedCall::FsRead(a) => cancellable(tool, cx, fs_file::read(a, cx)).await,
        ParsedCall::FsList(a) => cancellable(tool, cx, fs_dir::list(a, cx)).await,
        ParsedCall::FsSearch(a) => search::search(a, cx).await,
        // Writes, edits, deletes and moves are short and are not interrupted half-way: a cancel
        // that arrives while they run must not leave a half-written file.
        ParsedCall::FsWrite(a) => fs_file::write(a, cx).await,
        ParsedCall::FsEdit(a) => fs_file::edit(a, cx).await,
        ParsedCall::FsDelete(a) => fs_dir::delete(a, cx).await,
        ParsedCall::FsMove(a) => fs_dir::rename(a, cx).await,
        ParsedCall::Terminal(a) => terminal::run(a, launch, cx).await,
        ParsedCall::HttpFetch(a) => cancellable(tool, cx, http::fetch(a, cx)).await,
    }
}

async fn cancellable(
    tool: &str,
    cx: &ExecContext<'_>,
    work: impl Future<Output = ToolOutput>,
) -> ToolOutput {
    tokio::select! {
        biased;
        () = cx.cancel.cancelled() => ToolOutput::cancelled(tool),
        output = work => output,
    }
}
