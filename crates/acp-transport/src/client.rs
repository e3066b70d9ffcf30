//! The session layer's handle on the client: notifications and requests, each request
//! with a timeout and a way to withdraw it.

use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, SessionNotification, SessionUpdate,
};
use agent_client_protocol::v1::{ConnectionTo, SentRequest};
use agent_client_protocol::{Client, JsonRpcRequest};
use tokio_util::sync::CancellationToken;

mod shaped;

use shaped::Shaped;
pub use shaped::permission_request_text;

use crate::ext::RequestMeta;
use crate::splice::Splices;

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

/// A cloneable handle on the client side of the connection.
#[derive(Debug, Clone)]
pub struct ClientHandle {
    cx: ConnectionTo<Client>,
    /// Where this connection's line writer finds the parameters Warden wrote as text.
    splices: Arc<Splices>,
}

impl ClientHandle {
    pub(crate) fn new(cx: ConnectionTo<Client>, splices: Arc<Splices>) -> ClientHandle {
        ClientHandle { cx, splices }
    }

    /// Sends a `session/update` notification. Failure means the connection is closing,
    /// which the turn will learn from its cancellation; it is logged, not returned.
    pub fn notify(&self, notification: SessionNotification) {
        let sent = if matches!(notification.update, SessionUpdate::ToolCall(_)) {
            self.cx
                .send_notification(Shaped::tool_call(&notification, self.splices.clone()))
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

    /// Sends `session/request_permission` with `meta` as its `_meta`, written as JSON
    /// text straight from their typed forms (decision 0024), with a new file's `oldText:
    /// null` in the diffs of its tool call. The answer comes back as JSON for the caller
    /// to read, fail closed.
    pub fn send_permission_request<E: serde::Serialize>(
        &self,
        request: &RequestPermissionRequest,
        meta: &RequestMeta<'_, E>,
    ) -> PendingRequest<serde_json::Value> {
        self.send(Shaped::permission_request(
            request,
            meta,
            self.splices.clone(),
        ))
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
