//! warden-model: the models that drive Warden.
//!
//! A [`Model`] streams one reply to a [`Conversation`] as [`ModelEvent`]s: text chunks,
//! complete tool calls, and the reason it finished. Two backends exist: the deterministic
//! [`ScriptedModel`] (the default, spec `scripted`) and [`OpenAiModel`] for any
//! OpenAI-compatible Chat Completions endpoint (spec `openai:<model>`). [`from_spec`] builds
//! either. The model's own risk estimate travels as the optional `risk_level` argument
//! ([`with_risk_hint`]). Agent text is Markdown; [`code_span`],
//! [`code_block`] and [`one_line`] quote text in it safely.

mod conversation;
mod error;
mod event;
mod markdown;
mod model;
mod openai;
mod risk_hint;
mod scripted;
mod system_prompt;
#[cfg(feature = "test-support")]
pub mod testing;
mod tool_spec;

pub use conversation::{
    Conversation, DEFAULT_TOOL_OUTPUT_LIMIT, DENIED_TEXT, Message, ToolCallRequest, ToolOutcome,
    denied_content, trim_output,
};
pub use error::ModelError;
pub use event::{FinishReason, ModelEvent};
pub use markdown::{MAX_QUOTED_ERROR, code_block, code_span, one_line};
pub use model::{Model, ModelOption, from_spec, offered_models};
pub use openai::{DEFAULT_BASE_URL, OpenAiConfig, OpenAiModel, TIMEOUT_VAR, replay_stream};
pub use risk_hint::{RISK_LEVEL_ARG, RISK_LEVEL_DESCRIPTION, with_risk_hint};
pub use scripted::{HELP_TEXT, ScriptedModel};
pub use system_prompt::system_prompt;
pub use tool_spec::ToolSpec;
