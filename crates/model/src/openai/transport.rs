//! Sends a request, retrying 429 and 5xx answers with exponential backoff, and turns every
//! failure into a [`ModelError`] the user can act on.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER};

use super::OpenAiConfig;
use super::wire::error_message;
use crate::ModelError;

/// The longest error body read for its explanation.
const MAX_DETAIL_BYTES: usize = 4096;

/// The HTTP client of one configured endpoint.
#[derive(Debug)]
pub(crate) struct Transport {
    config: OpenAiConfig,
    client: reqwest::Client,
    url: String,
}

impl Transport {
    pub(crate) fn new(config: OpenAiConfig) -> Result<Transport, ModelError> {
        let client = warden_http::http_client()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|source| ModelError::Connection {
                url: config.base_url.clone(),
                source,
            })?;
        Ok(Transport {
            url: config.completions_url(),
            config,
            client,
        })
    }

    pub(crate) fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// Posts `body` and returns the successful response, its body not yet read.
    pub(crate) async fn send(&self, body: &[u8]) -> Result<reqwest::Response, ModelError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut request = self
                .client
                .post(&self.url)
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "text/event-stream")
                .body(body.to_vec());
            if let Some(key) = &self.config.api_key {
                request = request.bearer_auth(key);
            }
            let response =
                match tokio::time::timeout(self.config.idle_timeout, request.send()).await {
                    Err(_) => return Err(self.timeout("waiting for the response")),
                    Ok(Err(error)) => return Err(self.send_error(error)),
                    Ok(Ok(response)) => response,
                };
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            let retry_after = retry_after(&response);
            let detail = self.detail(response).await;
            let retryable = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
            if retryable && attempt < self.config.max_attempts {
                let delay = self.backoff(attempt, retry_after);
                tracing::warn!(%status, attempt, ?delay, %detail, "model endpoint busy, retrying");
                tokio::time::sleep(delay).await;
                continue;
            }
            return Err(match status.as_u16() {
                401 | 403 => ModelError::Unauthorized {
                    url: self.url.clone(),
                    status: status.as_u16(),
                    detail,
                },
                404 => ModelError::NotFound {
                    model: self.config.model.clone(),
                    url: self.url.clone(),
                    detail,
                },
                429 => ModelError::RateLimited {
                    attempts: attempt,
                    detail,
                },
                code if status.is_server_error() => ModelError::Server {
                    status: code,
                    attempts: attempt,
                    detail,
                },
                code => ModelError::Rejected {
                    status: code,
                    detail,
                },
            });
        }
    }

    pub(crate) fn timeout(&self, stage: &'static str) -> ModelError {
        ModelError::Timeout {
            url: self.url.clone(),
            stage,
            after: self.config.idle_timeout,
        }
    }

    fn send_error(&self, error: reqwest::Error) -> ModelError {
        if error.is_timeout() {
            return ModelError::Timeout {
                url: self.url.clone(),
                stage: "connecting",
                after: self.config.connect_timeout,
            };
        }
        ModelError::Connection {
            url: self.url.clone(),
            source: error,
        }
    }

    /// The delay before retry number `attempt`: what `Retry-After` asks for, or an
    /// exponential backoff, never more than `max_backoff`.
    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let exponential = self
            .config
            .initial_backoff
            .saturating_mul(1 << (attempt - 1).min(16));
        retry_after
            .unwrap_or(exponential)
            .min(self.config.max_backoff)
    }

    /// The endpoint's explanation of a failure, read from at most [`MAX_DETAIL_BYTES`] of
    /// the body.
    async fn detail(&self, mut response: reqwest::Response) -> String {
        let status = response.status();
        let mut body = Vec::new();
        let read = async {
            while body.len() < MAX_DETAIL_BYTES {
                match response.chunk().await {
                    Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                    _ => break,
                }
            }
        };
        // A slow error body must not hang the turn; what arrived in time is enough.
        let _ = tokio::time::timeout(self.config.idle_timeout, read).await;
        body.truncate(MAX_DETAIL_BYTES);
        let text = String::from_utf8_lossy(&body);
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| error_message(&v))
            .unwrap_or_else(|| text.trim().chars().take(300).collect());
        if message.is_empty() {
            status
                .canonical_reason()
                .unwrap_or("no explanation")
                .to_owned()
        } else {
            message
        }
    }
}

/// `Retry-After` in seconds (the HTTP-date form is rare for APIs and is ignored).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?;
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(3600.0)))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Transport;
    use crate::OpenAiConfig;

    fn check(attempt: u32, retry_after: Option<u64>, expected_ms: u64) {
        let mut config = OpenAiConfig::new("m", "http://127.0.0.1:9/v1", None);
        config.initial_backoff = Duration::from_millis(500);
        config.max_backoff = Duration::from_secs(20);
        let transport = Transport::new(config).expect("client");
        let delay = transport.backoff(attempt, retry_after.map(Duration::from_secs));
        assert_eq!(
            delay,
            Duration::from_millis(expected_ms),
            "attempt {attempt}"
        );
    }

    #[test]
    fn backoff_doubles_and_honours_retry_after_up_to_the_cap() {
        check(1, None, 500);
        check(2, None, 1000);
        check(3, None, 2000);
        check(7, None, 20_000);
        check(40, None, 20_000);
        check(1, Some(3), 3000);
        check(1, Some(0), 0);
        check(1, Some(600), 20_000);
    }
}
