//! MCP servers as a source of a session's tools.
//!
//! A session connects every MCP server its editor names ([`ServerConfig`]), each in a
//! [`Server`]: a stdio server runs as a child process in a process group of its own,
//! with Warden's environment less Warden's secrets plus the editor's variables, its
//! stderr going to Warden's log; an HTTP server is spoken to over streamable HTTP with
//! the editor's headers, never following a redirect away from its URL. The server's tools are offered to the model as
//! `mcp__<server>__<tool>` ([`naming`]) through the tools crate's `ToolSource` seam
//! ([`McpSource`]); their results become the tools' own content ([`result`]).
//!
//! The client side of the official SDK (`rmcp`) speaks the protocol. What the server
//! asks of the client is answered by [`handler`]: the roots are the session's
//! workspace, elicitation is relayed to the editor when it can show forms (else
//! declined), sampling is never offered.
//!
//! Nothing a server says is trusted: its annotations are hints for the permission
//! engine, its names are checked, its results are cut to the output limit, and a server
//! that crashes or hangs fails the call and is started again by the next one. No server
//! process (nor any process it started) outlives its session or Warden.

mod config;
mod handler;
mod http;
pub mod naming;
mod process;
mod relay;
pub mod result;
mod server;
mod source;
mod tool_list;

pub use config::{ConnectError, Options, ServerConfig, Transport};
pub use naming::NameError;
pub use relay::{ElicitAnswer, Relay};
pub use server::{Connected, Server, connect_all};
pub use source::McpSource;
