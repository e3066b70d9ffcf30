//! `warden chat`: an ACP client on the transport's client side, talking to an agent the
//! binary serves in process (Warden's own, handed over as [`InProcess`]) or to any agent
//! started as a child. It depends on the transport and small leaf crates only; Warden's
//! `_meta.warden` is read through the transport's types, and every update is read once
//! into a [`View`] that the screen and the log lay out. On a terminal it is interactive:
//! prompts with line editing and history, the agent's text as Markdown, tool calls, diffs
//! and plans, and the contract's permission prompt (section 9) answered on keys. Without
//! one it sends `--prompt` or the lines of stdin, prints a plain log, and answers
//! permission requests under `--approve ask|all|none`. What the chat itself writes for
//! a person comes from its message catalog, in the reader's language; what the agent
//! sends is shown as sent.

mod approvals;
mod approve;
mod clean;
mod diff;
mod exit;
mod interactive;
mod interrupts;
mod markdown;
mod render;
mod request;
mod run;
mod screen;
mod servers;
mod style;
mod terminal;
mod transcript;
mod view;

pub use agent_client_protocol::v1::schema::McpServer;
pub use approvals::{Batch, Button, Buttons, Disposition, Key, Step, disposition};
pub use approve::{Approve, Picked, pick};
pub use clean::clean;
pub use diff::whole_diff;
pub use exit::Exit;
pub use markdown::Markdown;
pub use request::marked_critical;
pub use run::{AgentSpec, ChatError, ChatOptions, InProcess, Prompts, run, split_command};
pub use screen::{Commands, PromptView, Screen};
pub use servers::{ServerEntry, ServersError, from_entries, from_json_file};
pub use style::Style;
pub use transcript::{Approvals, Transcript};
pub use view::{CallView, View};
