//! Warden's sessions and the prompt turn: a state machine that suspends tool calls
//! pending `session/request_permission`, and the async driver that carries it out.

mod agent;
mod audit;
mod checkpoint;
mod commands;
mod config_options;
mod content;
mod driver;
mod editor;
mod elicit;
mod engine_gate;
mod gate;
mod mcp;
mod modes;
mod notice;
mod permission;
mod preview;
mod registry;
mod restore;
mod sandbox;
mod session;
mod stored;
mod turn;
mod updates;
mod user_config;

pub use agent::{AgentConfig, EnvReader, WardenAgent};
pub use audit::answerer;
pub use checkpoint::Checkpoints;
pub use driver::{AuditContext, AuditSink, Driven, TurnSetup, drive};
pub use editor::ClientEditor;
pub use engine_gate::{EngineGate, ModeCell};
pub use gate::{
    Gate, GrantEffect, GrantScope, PrepareError, Prepared, Proposal, RememberError, Verdict,
};
pub use notice::{Notice, Severity};
pub use permission::{Answer, Choice};
pub use preview::{FileState, Files};
pub use sandbox::SessionSandbox;
pub use turn::{
    AnswerOutcome, AuditKind, AuditNote, Command, Event, Resumed, ResumedBatch, Stored,
    StoredAnswer, ToolResult, Turn, TurnLimits,
};
pub use user_config::{
    ConfigError, McpServerEntry, TelemetryConfig, UserConfig, read as read_user_config,
};
