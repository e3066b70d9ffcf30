//! Warden's agent: the only face of Warden that speaks ACP. It opens and restores
//! sessions, runs each turn with the turn crate's driver, and is the turn's outlet
//! (`to_acp`: what a turn shows and asks, as protocol messages) and its journal
//! (`checkpoint`: the session's journal on disk).

mod agent;
mod audit;
mod checkpoint;
mod commands;
mod config_options;
mod editor;
mod engine_gate;
mod mcp;
mod modes;
mod registry;
mod restore;
mod sandbox;
mod services;
mod session;
mod stored;
mod to_acp;
mod user_config;

pub use agent::{AgentConfig, WardenAgent};
pub use audit::answerer;
pub use checkpoint::Checkpoints;
pub use editor::ClientEditor;
pub use engine_gate::{EngineGate, ModeCell};
pub use sandbox::SessionSandbox;
pub use services::EnvReader;
pub use user_config::{
    ConfigError, McpServerEntry, TelemetryConfig, UserConfig, read as read_user_config,
};
