//! Warden's sessions and the prompt turn: a state machine that suspends tool calls
//! pending `session/request_permission`, and the async driver that carries it out.

mod gate;
mod permission;
mod turn;
mod updates;

pub use gate::{Gate, GrantEffect, GrantScope, Prepared, Verdict};
pub use permission::{Answer, Choice};
pub use turn::{AuditKind, AuditNote, Command, Event, ToolResult, Turn, TurnLimits};
