//! `warden chat`: an ACP client on the transport's client side that runs Warden's own
//! agent in process (or any agent as a child). On a terminal it is interactive: prompts
//! with line editing and history, the agent's text as Markdown, tool calls, diffs and
//! plans, and the contract's permission prompt (section 9) answered on keys. Without one it sends
//! `--prompt` or the lines of stdin, prints a plain log, and answers permission requests
//! under `--approve ask|all|none`.

mod approvals;
mod approve;
mod interactive;
mod markdown;
mod render;
mod run;
mod screen;
mod servers;
mod style;
mod terminal;
mod transcript;

pub use agent_client_protocol::v1::schema::McpServer;
pub use approvals::{Batch, Button, Buttons, Key, Step, disposition};
pub use approve::{Approve, Picked, marked_critical, pick};
pub use markdown::Markdown;
pub use render::{REVIEW, WARNING, clean};
pub use run::{AgentSpec, ChatError, ChatOptions, Exit, Prompts, run, split_command};
pub use screen::{Commands, PromptView, Screen, whole_diff};
pub use servers::{ServersError, from_config, from_json_file};
pub use style::Style;
pub use transcript::{Approvals, Transcript};
