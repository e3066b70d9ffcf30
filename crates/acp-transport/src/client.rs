//! The session layer's handle on the client: notifications and requests, each request
//! with a timeout and a way to withdraw it.

use std::time::Duration;

use agent_client_protocol::UntypedMessage;
use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, SessionNotification, SessionUpdate,
};
use agent_client_protocol::v1::{ConnectionTo, SentRequest};
use agent_client_protocol::{Client, JsonRpcRequest};
use tokio_util::sync::CancellationToken;

/// Why a request to the client produced no usable answer.
///
/// Every variant means "no answer" to the caller: a permission request that ends in
/// any of them must be treated as a denial (or, for `Withdrawn`, as the cancellation
/// that caused it), never as consent.
#[derive(Debug, thiserror::Error)]
pub enum ClientRequestError {
    /// No answer within the timeout; the request was withdrawn with `$/cancel_request`.
    #[error("the client did not answer `{method}` within {timeout:?}")]
    Timeout { method: String, timeout: Duration },
    /// Warden withdrew the request itself (the turn was cancelled).
    #[error("`{method}` was withdrawn")]
    Withdrawn { method: String },
    /// The client answered with an error, or with a result that does not parse.
    #[error("the client answered `{method}` with an error: {error}")]
    Rejected {
        method: String,
        error: agent_client_protocol::Error,
    },
    /// The connection is gone.
    #[error("the connection closed before `{method}` was answered")]
    Disconnected { method: String },
}

/// A `tool_call` update with the fields the schema leaves out when they hold their
/// default written out: its `status` (`pending`), because some clients show a call
/// without one as running while it waits for the user, and a new file's `oldText`
/// (`null`) in its diffs.
fn with_explicit_status(notification: &SessionNotification) -> UntypedMessage {
    let mut params = serde_json::to_value(notification).unwrap_or_default();
    if let Some(update) = params.get_mut("update").and_then(|u| u.as_object_mut()) {
        update
            .entry("status")
            .or_insert_with(|| serde_json::Value::from("pending"));
        explicit_old_text(update.get_mut("content"));
    }
    UntypedMessage {
        method: "session/update".to_owned(),
        params,
    }
}

/// Writes `oldText: null` into every diff of a tool call's content that has none.
fn explicit_old_text(content: Option<&mut serde_json::Value>) {
    let Some(items) = content.and_then(|c| c.as_array_mut()) else {
        return;
    };
    for item in items.iter_mut().filter_map(|i| i.as_object_mut()) {
        if item.get("type").and_then(|t| t.as_str()) == Some("diff") {
            item.entry("oldText").or_insert(serde_json::Value::Null);
        }
    }
}

/// A cloneable handle on the client side of the connection.
#[derive(Debug, Clone)]
pub struct ClientHandle {
    cx: ConnectionTo<Client>,
}

impl ClientHandle {
    pub(crate) fn new(cx: ConnectionTo<Client>) -> ClientHandle {
        ClientHandle { cx }
    }

    /// Sends a `session/update` notification. Failure means the connection is closing,
    /// which the turn will learn from its cancellation; it is logged, not returned.
    pub fn notify(&self, notification: SessionNotification) {
        let sent = if matches!(notification.update, SessionUpdate::ToolCall(_)) {
            self.cx
                .send_notification(with_explicit_status(&notification))
        } else {
            self.cx.send_notification(notification)
        };
        if let Err(err) = sent {
            tracing::debug!(%err, "could not send session/update");
        }
    }

    /// Sends a request now and returns a handle to wait for its answer. Sending is
    /// synchronous so that a caller can be sure the request went out before anything
    /// it sends afterwards (a turn's last words, say).
    pub fn send<R>(&self, request: R) -> PendingRequest<R::Response>
    where
        R: JsonRpcRequest,
    {
        let method = request.method().to_owned();
        PendingRequest {
            method,
            sent: self.cx.send_request(request),
        }
    }

    /// Sends `session/request_permission` with a new file's `oldText: null` written out
    /// in the diffs of its tool call (see [`with_explicit_status`]). The answer comes back
    /// as JSON for the caller to read, fail closed.
    pub fn send_permission_request(
        &self,
        request: &RequestPermissionRequest,
    ) -> PendingRequest<serde_json::Value> {
        let mut params = serde_json::to_value(request).unwrap_or_default();
        explicit_old_text(
            params
                .get_mut("toolCall")
                .and_then(|t| t.get_mut("content")),
        );
        self.send(UntypedMessage {
            method: "session/request_permission".to_owned(),
            params,
        })
    }

    /// Sends a request and waits for its answer; see [`PendingRequest::wait`].
    pub async fn request<R>(
        &self,
        request: R,
        timeout: Option<Duration>,
        cancel: &CancellationToken,
    ) -> Result<R::Response, ClientRequestError>
    where
        R: JsonRpcRequest,
    {
        self.send(request).wait(timeout, cancel).await
    }
}

/// A request that was sent to the client and not answered yet. Dropping it withdraws
/// the request (`$/cancel_request`).
#[derive(Debug)]
pub struct PendingRequest<T: agent_client_protocol::JsonRpcResponse> {
    method: String,
    sent: SentRequest<T>,
}

impl<T: agent_client_protocol::JsonRpcResponse> PendingRequest<T> {
    /// Waits for the answer, at most `timeout` (none: for ever) and until `cancel`
    /// fires. On timeout or cancellation the request is withdrawn: the SDK sends
    /// `$/cancel_request` when the pending request is dropped.
    pub async fn wait(
        self,
        timeout: Option<Duration>,
        cancel: &CancellationToken,
    ) -> Result<T, ClientRequestError> {
        let PendingRequest { method, sent } = self;
        if cancel.is_cancelled() {
            return Err(ClientRequestError::Withdrawn { method });
        }
        let answer = sent.block_task();
        let timed = async {
            match timeout {
                Some(limit) => tokio::time::timeout(limit, answer).await.map_err(|_| limit),
                None => Ok(answer.await),
            }
        };
        let result = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ClientRequestError::Withdrawn { method }),
            result = timed => result,
        };
        match result {
            Err(limit) => Err(ClientRequestError::Timeout {
                method,
                timeout: limit,
            }),
            Ok(Ok(response)) => Ok(response),
            Ok(Err(error)) if agent_client_protocol::is_connection_terminated(&error) => {
                Err(ClientRequestError::Disconnected { method })
            }
            Ok(Err(error)) => Err(ClientRequestError::Rejected { method, error }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{Diff, ToolCall, ToolCallContent, ToolCallStatus};

    #[test]
    fn a_pending_tool_call_names_its_status_and_a_new_files_old_text() {
        let check = |status: ToolCallStatus, expect: &str| {
            let diff = |old: Option<&str>| {
                ToolCallContent::Diff(Diff::new("/w/a", "new").old_text(old.map(str::to_owned)))
            };
            let notification = SessionNotification::new(
                "s",
                SessionUpdate::ToolCall(
                    ToolCall::new("call_1", "Write a")
                        .status(status)
                        .content(vec![diff(None), diff(Some("old"))]),
                ),
            );
            let message = with_explicit_status(&notification);
            assert_eq!(message.method, "session/update");
            let update = &message.params["update"];
            assert_eq!(update["status"], expect);
            assert_eq!(update["toolCallId"], "call_1");
            assert_eq!(update["content"][0]["oldText"], serde_json::Value::Null);
            assert!(
                update["content"][0]
                    .as_object()
                    .is_some_and(|d| d.contains_key("oldText"))
            );
            assert_eq!(update["content"][1]["oldText"], "old");
        };
        check(ToolCallStatus::Pending, "pending");
        check(ToolCallStatus::InProgress, "in_progress");
    }
}
