//! Why a model could not be set up or could not answer.

use std::time::Duration;

/// An error of a model: each message is written to be shown to the user as it is.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The model spec is neither `scripted` nor `openai:<model>`.
    #[error(
        "unknown model `{spec}`: expected `scripted` or `openai:<model>` (for example `openai:gpt-4o-mini`)"
    )]
    UnknownSpec {
        /// The spec as given.
        spec: String,
    },
    /// `OPENAI_BASE_URL` is not an http(s) URL.
    #[error("OPENAI_BASE_URL `{url}` is not an http:// or https:// URL")]
    InvalidBaseUrl {
        /// The URL as given.
        url: String,
    },
    /// A setting has a value Warden cannot use.
    #[error("{name} is `{value}`: expected {expected}")]
    InvalidSetting {
        /// The variable's name.
        name: &'static str,
        /// The value as given.
        value: String,
        /// What would be accepted.
        expected: &'static str,
    },
    /// No API key for the default OpenAI endpoint.
    #[error(
        "OPENAI_API_KEY is not set: set it to use `{model}` on api.openai.com, or set OPENAI_BASE_URL to a local OpenAI-compatible server (such as Ollama), or use WARDEN_MODEL=scripted"
    )]
    MissingApiKey {
        /// The model that needed the key.
        model: String,
    },
    /// The endpoint refused the API key (HTTP 401 or 403).
    #[error(
        "the model endpoint {url} refused the API key (HTTP {status}): {detail}; check OPENAI_API_KEY"
    )]
    Unauthorized {
        /// The request URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The endpoint's own explanation.
        detail: String,
    },
    /// The model or the endpoint does not exist (HTTP 404).
    #[error(
        "model `{model}` was not found at {url}: {detail}; check the model name and OPENAI_BASE_URL (it usually ends in /v1)"
    )]
    NotFound {
        /// The model name.
        model: String,
        /// The request URL.
        url: String,
        /// The endpoint's own explanation.
        detail: String,
    },
    /// The endpoint could not be reached.
    #[error("cannot connect to the model endpoint {url}: {source}")]
    Connection {
        /// The request URL.
        url: String,
        /// The underlying error.
        #[source]
        source: reqwest::Error,
    },
    /// The endpoint did not answer in time.
    #[error("the model endpoint {url} sent nothing for {} s ({stage})", after.as_secs_f32())]
    Timeout {
        /// The request URL.
        url: String,
        /// What was awaited: the response, or the next chunk of the stream.
        stage: &'static str,
        /// How long Warden waited.
        after: Duration,
    },
    /// The endpoint kept answering HTTP 429.
    #[error(
        "the model endpoint is rate limiting requests (HTTP 429, {attempts} attempts): {detail}"
    )]
    RateLimited {
        /// How many requests were made.
        attempts: u32,
        /// The endpoint's own explanation.
        detail: String,
    },
    /// The endpoint kept failing with a server error.
    #[error("the model endpoint failed with HTTP {status} ({attempts} attempts): {detail}")]
    Server {
        /// The last HTTP status.
        status: u16,
        /// How many requests were made.
        attempts: u32,
        /// The endpoint's own explanation.
        detail: String,
    },
    /// The endpoint rejected the request (another 4xx status).
    #[error("the model endpoint rejected the request (HTTP {status}): {detail}")]
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The endpoint's own explanation.
        detail: String,
    },
    /// The endpoint reported an error in the middle of the stream.
    #[error("the model endpoint reported an error: {detail}")]
    Provider {
        /// The endpoint's own explanation.
        detail: String,
    },
    /// The endpoint's answer did not follow the wire format.
    #[error("the model endpoint sent a malformed reply: {detail}")]
    Protocol {
        /// What was wrong.
        detail: String,
    },
    /// The connection broke while the reply was streaming.
    #[error("the connection to the model endpoint broke mid-reply: {source}")]
    Stream {
        /// The underlying error.
        #[source]
        source: reqwest::Error,
    },
}
