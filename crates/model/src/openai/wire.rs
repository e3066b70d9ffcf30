//! The parts of a Chat Completions stream chunk Warden reads. Every field is optional, so
//! that servers which leave some out (Ollama, llama.cpp) still parse.

use serde::Deserialize;

/// One `data:` payload of the stream.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Chunk {
    #[serde(default)]
    pub(crate) choices: Vec<Choice>,
    /// Some servers (OpenRouter) report failures mid-stream this way.
    #[serde(default)]
    pub(crate) error: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Choice {
    #[serde(default)]
    pub(crate) index: u32,
    /// A streamed chunk's `delta`; a non-streamed completion's `message` has the same shape.
    #[serde(default, alias = "message")]
    pub(crate) delta: Option<Delta>,
    #[serde(default)]
    pub(crate) finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Delta {
    #[serde(default)]
    pub(crate) content: Option<String>,
    #[serde(default)]
    pub(crate) refusal: Option<String>,
    #[serde(default)]
    pub(crate) tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ToolCallDelta {
    #[serde(default)]
    pub(crate) index: Option<u32>,
    #[serde(default)]
    pub(crate) id: Option<String>,
    #[serde(default)]
    pub(crate) function: Option<FunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct FunctionDelta {
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// Usually a piece of JSON text; a few servers send the whole object instead.
    #[serde(default)]
    pub(crate) arguments: Option<serde_json::Value>,
}

/// The human-readable part of an error object: `{"error": {"message": ...}}`,
/// `{"error": "..."}`, `{"message": ...}` or `{"detail": ...}`.
pub(crate) fn error_message(value: &serde_json::Value) -> Option<String> {
    let error = value.get("error").unwrap_or(value);
    if let Some(text) = error.as_str() {
        return Some(text.to_owned());
    }
    ["message", "detail"]
        .iter()
        .find_map(|key| error.get(*key).and_then(|m| m.as_str()))
        .map(str::to_owned)
}
