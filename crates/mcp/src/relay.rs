//! How a server's elicitation request reaches the user: the session hands each server a
//! [`Relay`] to the editor's forms, and the user's answer comes back as an
//! [`ElicitAnswer`].

use futures::future::BoxFuture;
use serde_json::Value;

/// The user's answer to a server's elicitation request, in MCP's terms.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    /// The user filled in the form: its content, when it has one.
    Accept { content: Option<Value> },
    /// The user refused, or the request could not be shown.
    Decline,
    /// The user dismissed the form without choosing.
    Cancel,
}

/// Shows a server's elicitation request to the user (the editor's
/// `elicitation/create`). `request` is the MCP request's parameters as JSON
/// (`message`, `requestedSchema`, ...).
pub trait Relay: Send + Sync {
    fn elicit(&self, server: &str, request: Value) -> BoxFuture<'static, ElicitAnswer>;
}
