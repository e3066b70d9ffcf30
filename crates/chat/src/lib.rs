//! `warden chat` without a terminal: an ACP client on the transport's client side that
//! runs Warden's own agent in process (or any agent as a child), sends prompts, prints
//! what the agent does as plain text for logs, and answers permission requests under
//! `--approve ask|all|none`.

mod approve;
mod render;
mod run;
mod transcript;

pub use approve::{Approve, Picked, marked_critical, pick};
pub use render::{REVIEW, WARNING, clean};
pub use run::{AgentSpec, ChatError, ChatOptions, Exit, Prompts, run, split_command};
pub use transcript::Transcript;
