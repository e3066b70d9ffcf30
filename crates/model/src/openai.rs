//! The OpenAI-compatible backend: the Chat Completions API with `stream: true` and tools.
//!
//! It also covers Ollama, vLLM, llama.cpp's server, LM Studio and OpenRouter through
//! `OPENAI_BASE_URL`. See docs/decisions/0400-openai-client.md for why the wire format is
//! spoken with reqwest and a small SSE decoder rather than a client crate.

mod assemble;
mod reply;
mod request;
mod sse;
mod transport;
mod wire;

use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;

use crate::{Conversation, Model, ModelError, ModelEvent, ToolSpec};

/// The default endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The variable that sets [`OpenAiConfig::idle_timeout`] in seconds.
pub const TIMEOUT_VAR: &str = "WARDEN_MODEL_TIMEOUT_SECS";

/// How to reach an OpenAI-compatible endpoint, and how patiently.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The model name sent in each request, e.g. `gpt-4o-mini` or `qwen2.5-coder:7b`.
    pub model: String,
    /// The API base URL, without the trailing `/chat/completions`.
    pub base_url: String,
    /// The bearer token; `None` sends no `Authorization` header (local servers).
    pub api_key: Option<String>,
    /// The longest wait for a TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// The longest wait for the response headers, and then between two chunks of the stream.
    /// Local models can take long to load, so the default is generous.
    pub idle_timeout: Duration,
    /// How many requests to make at most when the endpoint answers 429 or 5xx.
    pub max_attempts: u32,
    /// The delay before the first retry; it doubles with each further retry.
    pub initial_backoff: Duration,
    /// The longest delay between two attempts, including one asked for by `Retry-After`.
    pub max_backoff: Duration,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The API key is a secret: never let it reach a log line.
        f.debug_struct("OpenAiConfig")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_attempts", &self.max_attempts)
            .field("initial_backoff", &self.initial_backoff)
            .field("max_backoff", &self.max_backoff)
            .finish()
    }
}

impl OpenAiConfig {
    /// A configuration with the default timeouts and retries.
    pub fn new(
        model: impl Into<String>,
        base_url: impl Into<String>,
        api_key: Option<String>,
    ) -> OpenAiConfig {
        OpenAiConfig {
            model: model.into(),
            base_url: base_url.into().trim().trim_end_matches('/').to_owned(),
            api_key,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(180),
            max_attempts: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
        }
    }

    /// Reads `OPENAI_BASE_URL` (default [`DEFAULT_BASE_URL`]), `OPENAI_API_KEY` and
    /// `WARDEN_MODEL_TIMEOUT_SECS` (the idle timeout, default 180) through `env`. The key is
    /// required only for the default endpoint, since local servers such as Ollama need none.
    pub fn from_env(
        model: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<OpenAiConfig, ModelError> {
        let non_empty = |name: &str| {
            env(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let base_url = non_empty("OPENAI_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        let api_key = non_empty("OPENAI_API_KEY");
        let mut config = OpenAiConfig::new(model, base_url, api_key);
        if let Some(text) = non_empty(TIMEOUT_VAR) {
            match text.parse::<u64>() {
                Ok(seconds) if seconds > 0 => config.idle_timeout = Duration::from_secs(seconds),
                _ => {
                    return Err(ModelError::InvalidSetting {
                        name: TIMEOUT_VAR,
                        value: text,
                        expected: "a whole number of seconds greater than 0",
                    });
                }
            }
        }
        if config.api_key.is_none() && config.base_url == DEFAULT_BASE_URL {
            return Err(ModelError::MissingApiKey {
                model: model.to_owned(),
            });
        }
        Ok(config)
    }

    /// The URL requests go to.
    pub fn completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }
}

/// Decodes a complete recorded Chat Completions stream body (`data: {...}` events up to
/// `data: [DONE]`) into the events a live reply would yield, for tests, benchmarks and
/// debugging of captured traffic. `first_call_number` numbers calls the server sent without
/// an id (`call_<n>`).
pub fn replay_stream(body: &[u8], first_call_number: usize) -> Vec<Result<ModelEvent, ModelError>> {
    reply::replay(body, first_call_number)
}

/// A model behind an OpenAI-compatible Chat Completions endpoint (spec `openai:<model>`).
#[derive(Debug)]
pub struct OpenAiModel {
    id: String,
    inner: Arc<transport::Transport>,
}

impl OpenAiModel {
    /// A model with this configuration. Fails only when the base URL is not http(s) or the
    /// HTTP client cannot be built.
    pub fn new(config: OpenAiConfig) -> Result<OpenAiModel, ModelError> {
        if !(config.base_url.starts_with("http://") || config.base_url.starts_with("https://")) {
            return Err(ModelError::InvalidBaseUrl {
                url: config.base_url,
            });
        }
        Ok(OpenAiModel {
            id: format!("openai:{}", config.model),
            inner: Arc::new(transport::Transport::new(config)?),
        })
    }

    /// The JSON body of the request for this conversation and these tools (for tests and
    /// debugging).
    pub fn request_body(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> serde_json::Value {
        request::body(&self.inner.config().model, conversation, tools)
    }
}

impl Model for OpenAiModel {
    fn id(&self) -> &str {
        &self.id
    }

    fn respond(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        let body = self.request_body(conversation, tools);
        reply::stream(
            Arc::clone(&self.inner),
            body,
            conversation.tool_call_count() + 1,
        )
    }
}
