//! The built-in tools of Warden: their definitions (name, description, ACP kind, JSON Schema of
//! the arguments), the validation of a model's arguments into a typed [`ParsedCall`], a title and
//! the locations of a call for people, and the execution.
//!
//! File tools and `terminal` go through the editor (the ACP client's `fs/*` and `terminal/*`
//! methods, behind the [`Editor`] trait) when it offers them, and run locally otherwise.
//! Tool processes never inherit Warden's own secrets, and tool output is redacted of their
//! values ([`Secrets`]). Execution never panics: every failure becomes a [`ToolOutput`] with `ok == false` and a text
//! that tells the model what went wrong.

mod call;
mod def;
mod describe;
mod editor;
mod exec;
mod paths;
mod secrets;

pub use call::{
    FsDeleteArgs, FsEditArgs, FsListArgs, FsMoveArgs, FsReadArgs, FsSearchArgs, FsWriteArgs,
    HttpFetchArgs, HttpMethod, MAX_TIMEOUT_SECS, ParsedCall, TerminalArgs, ValidationError,
    validate,
};
pub use def::{ToolDef, builtin_tools, find};
pub use describe::{locations, title};
pub use editor::{Editor, EditorError, TerminalExit, TerminalOutput, TerminalRequest};
pub use exec::{
    CommandShell, ExecContext, Limits, SHELL_STARTUP_ENV, ToolOutput, command_shell, execute,
};
pub use paths::resolve;
pub use secrets::{BUILTIN_SECRET_ENV, Secrets};
