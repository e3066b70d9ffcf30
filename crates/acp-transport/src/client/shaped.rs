//! Messages to the client that Warden writes with fields the schema would leave out.
//!
//! The SDK turns every outgoing message into JSON when it takes it
//! ([`JsonRpcMessage::to_untyped_message`]); an [`UntypedMessage`] handed to it is copied
//! there whole. A [`Shaped`] message is typed until then and becomes JSON once, with its
//! fields written out at the same time.

use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, SessionNotification, SessionUpdate,
};
use agent_client_protocol::{JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, UntypedMessage};
use serde::Serialize;

/// A typed message, the method it is sent as, and what is written into its JSON.
#[derive(Debug, Clone)]
pub(crate) struct Shaped<T> {
    method: &'static str,
    message: T,
    shape: fn(&mut serde_json::Value),
}

impl Shaped<SessionNotification> {
    /// A `tool_call` update with the fields the schema leaves out when they hold their
    /// default written out: its `status` (`pending`), because some clients show a call
    /// without one as running while it waits for the user, and a new file's `oldText`
    /// (`null`) in its diffs.
    pub(crate) fn tool_call(notification: SessionNotification) -> Self {
        debug_assert!(matches!(notification.update, SessionUpdate::ToolCall(_)));
        Shaped {
            method: "session/update",
            message: notification,
            shape: |params| {
                if let Some(update) = params.get_mut("update").and_then(|u| u.as_object_mut()) {
                    update
                        .entry("status")
                        .or_insert_with(|| serde_json::Value::from("pending"));
                    explicit_old_text(update.get_mut("content"));
                }
            },
        }
    }
}

impl Shaped<RequestPermissionRequest> {
    /// `session/request_permission` with a new file's `oldText: null` written out in the
    /// diffs of its tool call.
    pub(crate) fn permission_request(request: RequestPermissionRequest) -> Self {
        Shaped {
            method: "session/request_permission",
            message: request,
            shape: |params| {
                explicit_old_text(
                    params
                        .get_mut("toolCall")
                        .and_then(|t| t.get_mut("content")),
                );
            },
        }
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

impl<T> JsonRpcMessage for Shaped<T>
where
    T: Serialize + std::fmt::Debug + Clone + Send + 'static,
{
    /// Only ever sent: no incoming message is read as one.
    fn matches_method(_method: &str) -> bool {
        false
    }

    fn method(&self) -> &str {
        self.method
    }

    fn to_untyped_message(&self) -> Result<UntypedMessage, agent_client_protocol::Error> {
        let mut params = serde_json::to_value(&self.message)
            .map_err(agent_client_protocol::Error::into_internal_error)?;
        (self.shape)(&mut params);
        Ok(UntypedMessage {
            method: self.method.to_owned(),
            params,
        })
    }

    fn parse_message(
        _method: &str,
        _params: &serde_json::Value,
    ) -> Result<Self, agent_client_protocol::Error> {
        Err(agent_client_protocol::Error::method_not_found())
    }
}

impl JsonRpcRequest for Shaped<RequestPermissionRequest> {
    /// Read by the caller, fail closed: an answer that does not parse is no consent.
    type Response = serde_json::Value;
}

impl JsonRpcNotification for Shaped<SessionNotification> {}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{
        Diff, PermissionOption, PermissionOptionKind, ToolCall, ToolCallContent, ToolCallStatus,
        ToolCallUpdate, ToolCallUpdateFields,
    };

    fn diff(old: Option<&str>) -> ToolCallContent {
        ToolCallContent::Diff(Diff::new("/w/a", "new").old_text(old.map(str::to_owned)))
    }

    fn has_old_text(item: &serde_json::Value) -> bool {
        item.as_object().is_some_and(|d| d.contains_key("oldText"))
    }

    #[test]
    fn a_pending_tool_call_names_its_status_and_a_new_files_old_text() {
        let check = |status: ToolCallStatus, expect: &str| {
            let notification = SessionNotification::new(
                "s",
                SessionUpdate::ToolCall(
                    ToolCall::new("call_1", "Write a")
                        .status(status)
                        .content(vec![diff(None), diff(Some("old"))]),
                ),
            );
            let message = Shaped::tool_call(notification)
                .to_untyped_message()
                .expect("JSON");
            assert_eq!(message.method, "session/update");
            let update = &message.params["update"];
            assert_eq!(update["status"], expect);
            assert_eq!(update["toolCallId"], "call_1");
            assert_eq!(update["content"][0]["oldText"], serde_json::Value::Null);
            assert!(has_old_text(&update["content"][0]));
            assert_eq!(update["content"][1]["oldText"], "old");
        };
        check(ToolCallStatus::Pending, "pending");
        check(ToolCallStatus::InProgress, "in_progress");
    }

    #[test]
    fn a_permission_request_names_a_new_files_old_text() {
        let request = RequestPermissionRequest::new(
            "s",
            ToolCallUpdate::new(
                "call_1",
                ToolCallUpdateFields::new().content(vec![diff(None), diff(Some("old"))]),
            ),
            vec![PermissionOption::new(
                "allow-once",
                "Allow once",
                PermissionOptionKind::AllowOnce,
            )],
        );
        let message = Shaped::permission_request(request)
            .to_untyped_message()
            .expect("JSON");
        assert_eq!(message.method, "session/request_permission");
        let content = &message.params["toolCall"]["content"];
        assert!(has_old_text(&content[0]));
        assert_eq!(content[0]["oldText"], serde_json::Value::Null);
        assert_eq!(content[1]["oldText"], "old");
        assert_eq!(message.params["options"][0]["optionId"], "allow-once");
    }
}
