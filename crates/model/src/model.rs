//! The `Model` trait and choosing a model from its spec.

use std::sync::Arc;

use futures::stream::BoxStream;

use crate::{
    Conversation, ModelError, ModelEvent, OpenAiConfig, OpenAiModel, ScriptedModel, ToolSpec,
};

/// A language model (or the scripted stand-in) that answers a conversation.
pub trait Model: Send + Sync + std::fmt::Debug {
    /// The model's spec: `scripted` or `openai:<model>`.
    fn id(&self) -> &str;

    /// Streams one model reply to `conversation`, offering `tools`.
    ///
    /// A successful reply ends with [`ModelEvent::Finished`]; an error ends the stream.
    /// Dropping the stream cancels the reply (and aborts its HTTP request).
    fn respond(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>>;
}

/// Builds the model named by `spec`: `scripted`, or `openai:<model>` (which reads
/// `OPENAI_API_KEY` and `OPENAI_BASE_URL` through `env`).
pub fn from_spec(
    spec: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Arc<dyn Model>, ModelError> {
    let spec = spec.trim();
    if spec.is_empty() || spec == "scripted" {
        return Ok(Arc::new(ScriptedModel::new()));
    }
    match spec.strip_prefix("openai:").map(str::trim) {
        Some(model) if !model.is_empty() => {
            let config = OpenAiConfig::from_env(model, env)?;
            Ok(Arc::new(OpenAiModel::new(config)?))
        }
        _ => Err(ModelError::UnknownSpec {
            spec: spec.to_owned(),
        }),
    }
}

/// A model the editor may offer in its model selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelOption {
    /// The spec, used as the option's value: `scripted` or `openai:<model>`.
    pub id: String,
    /// A short human-readable name.
    pub name: String,
    /// One sentence about the model.
    pub description: String,
}

/// The models to offer in an ACP session config option of category `model`: the scripted
/// model, and the configured OpenAI-compatible model if there is one.
///
/// Pass the configured spec (from `WARDEN_MODEL` or the config file), not the session's
/// current choice, so that a user who switched to `scripted` can switch back.
pub fn offered_models(configured: &str) -> Vec<ModelOption> {
    let mut options = vec![ModelOption {
        id: "scripted".to_owned(),
        name: "Scripted".to_owned(),
        description:
            "Warden's built-in deterministic model: no network, follows /call and /say lines"
                .to_owned(),
    }];
    if let Some(model) = configured
        .trim()
        .strip_prefix("openai:")
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        options.push(ModelOption {
            id: format!("openai:{model}"),
            name: model.to_owned(),
            description: "An OpenAI-compatible model (OPENAI_BASE_URL)".to_owned(),
        });
    }
    options
}
