//! Warden's tools: the [`ToolSource`] seam every session's tools come through (the
//! built-in tools are its first implementation, [`Builtins`]; MCP servers are another),
//! and the built-in tools themselves: their definitions (name, description, kind, JSON
//! Schema of the arguments), the validation of a model's arguments into a typed
//! [`ParsedCall`], a title and the locations of a call for people, and the execution.
//!
//! The crate has its own small content and kind types ([`Content`], [`ToolKind`]); the
//! session layer maps them to the protocol's.
//!
//! File tools and `terminal` go through the editor (the ACP client's `fs/*` and `terminal/*`
//! methods, behind the [`Editor`] trait) when it offers them, and run locally otherwise.
//! Tool processes never inherit Warden's own secrets, and tool output is redacted of their
//! values ([`Secrets`]). Execution never panics: every failure becomes a [`ToolOutput`] with `ok == false` and a text
//! that tells the model what went wrong.

mod builtin;
mod call;
mod content;
mod def;
mod describe;
mod editor;
mod exec;
mod launch;
mod output;
mod paths;
mod place;
mod secrets;
mod source;

pub use builtin::Builtins;
pub use call::{
    FsDeleteArgs, FsEditArgs, FsListArgs, FsMoveArgs, FsReadArgs, FsSearchArgs, FsWriteArgs,
    HttpFetchArgs, HttpMethod, ParsedCall, TerminalArgs, ValidationError, validate,
};
pub use content::{Content, ToolKind};
pub use def::{MAX_TIMEOUT_SECS, ToolDef, builtin_tools, find};
pub use describe::{locations, title};
pub use editor::{Editor, EditorError, TerminalExit, TerminalOutput, TerminalRequest};
pub use exec::{
    CommandShell, ExecContext, Limits, SHELL_STARTUP_ENV, SecretFiles, command_shell, execute,
    execute_with,
};
pub use launch::{Confined, Launch};
pub use output::ToolOutput;
pub use paths::resolve;
pub use place::Place;
pub use secrets::{BUILTIN_SECRET_ENV, Secrets};
pub use source::{Annotations, Origin, PreparedCall, ToolInfo, ToolSource, Toolbox};
