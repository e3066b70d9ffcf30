//! Hooks, both ways round.
//!
//! - Warden as another agent's pre-tool-use hook (`warden hook --for
//!   claude|codex|gemini`): the agent's payload is read ([`Payload`]), its call mapped
//!   to the Warden calls that do the same ([`map`]), each evaluated as `warden policy
//!   check` would ([`judge`]), and the verdict answered in the agent's format
//!   ([`render`]) and recorded in the audit log with the agent as the client
//!   ([`audit_events`]).
//! - The user's own hooks (`[[hook]]`) in Warden's decisions: [`user_hooks::run`] runs
//!   them; the rule that combines their answers with the evaluation is the permission
//!   engine's (`warden_permissions::combine`), pure and tested on its own.
//!
//! The crate knows no session and no protocol: the binary and the agent's session feed
//! it an evaluation function.

mod agent;
mod answer;
mod apply_patch;
mod audit;
mod judge;
mod mapping;
mod payload;
pub mod user_hooks;

pub use agent::{Agent, UnknownAgent};
pub use answer::{Answer, render};
pub use apply_patch::{FileCall, PatchError, parse as parse_patch};
pub use audit::events as audit_events;
pub use judge::{Judged, judge, sentence};
pub use mapping::{Mapped, map};
pub use payload::{MAX_PAYLOAD_BYTES, McpContext, Payload, PayloadError};
