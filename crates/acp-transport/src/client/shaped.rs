//! Messages to the client that Warden writes with fields the schema would leave out.
//!
//! The SDK turns every outgoing message into JSON when it takes it
//! ([`JsonRpcMessage::to_untyped_message`], which borrows the message); an
//! [`UntypedMessage`] handed to it is copied there whole. A [`Shaped`] message is made
//! JSON once, when Warden makes it, with its fields written out then, and that JSON is
//! moved to the SDK when it takes it: a permission request's `_meta` (half of its
//! JSON) is moved in too, never copied.

use std::sync::Mutex;

use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, SessionNotification, SessionUpdate,
};
use agent_client_protocol::{JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, UntypedMessage};

/// A message's method and its parameters as JSON, until the SDK takes them.
#[derive(Debug)]
pub(crate) struct Shaped {
    method: &'static str,
    params: Mutex<Option<Result<serde_json::Value, agent_client_protocol::Error>>>,
}

impl Shaped {
    fn new(
        method: &'static str,
        params: Result<serde_json::Value, agent_client_protocol::Error>,
    ) -> Self {
        Shaped {
            method,
            params: Mutex::new(Some(params)),
        }
    }

    /// A `tool_call` update with the fields the schema leaves out when they hold their
    /// default written out: its `status` (`pending`), because some clients show a call
    /// without one as running while it waits for the user, and a new file's `oldText`
    /// (`null`) in its diffs.
    pub(crate) fn tool_call(notification: &SessionNotification) -> Self {
        debug_assert!(matches!(notification.update, SessionUpdate::ToolCall(_)));
        let params = to_json(notification).map(|mut params| {
            if let Some(update) = params.get_mut("update").and_then(|u| u.as_object_mut()) {
                update
                    .entry("status")
                    .or_insert_with(|| serde_json::Value::from("pending"));
                explicit_old_text(update.get_mut("content"));
            }
            params
        });
        Shaped::new("session/update", params)
    }

    /// `session/request_permission` with a new file's `oldText: null` written out in the
    /// diffs of its tool call, and its `_meta` moved into its JSON.
    pub(crate) fn permission_request(mut request: RequestPermissionRequest) -> Self {
        let meta = request.meta.take();
        let params = to_json(&request).map(|mut params| {
            explicit_old_text(
                params
                    .get_mut("toolCall")
                    .and_then(|t| t.get_mut("content")),
            );
            if let Some(meta) = meta
                && let Some(object) = params.as_object_mut()
            {
                // In its place: the schema's last field, written as `null` without it.
                object.insert("_meta".to_owned(), serde_json::Value::Object(meta));
            }
            params
        });
        Shaped::new("session/request_permission", params)
    }
}

fn to_json(
    message: &impl serde::Serialize,
) -> Result<serde_json::Value, agent_client_protocol::Error> {
    serde_json::to_value(message).map_err(agent_client_protocol::Error::into_internal_error)
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

/// A copy holds its own copy of the JSON (the SDK does not copy the messages it sends).
impl Clone for Shaped {
    fn clone(&self) -> Self {
        let params = self
            .params
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Shaped {
            method: self.method,
            params: Mutex::new(params),
        }
    }
}

impl JsonRpcMessage for Shaped {
    /// Only ever sent: no incoming message is read as one.
    fn matches_method(_method: &str) -> bool {
        false
    }

    fn method(&self) -> &str {
        self.method
    }

    /// Hands the JSON over. The SDK asks once, as it sends the message; asked again, the
    /// message has nothing left to send and says so, rather than go out without its
    /// parameters.
    fn to_untyped_message(&self) -> Result<UntypedMessage, agent_client_protocol::Error> {
        let taken = self
            .params
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let params = taken.unwrap_or_else(|| {
            Err(agent_client_protocol::Error::internal_error()
                .data(format!("`{}` was already handed to the SDK", self.method)))
        })?;
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

impl JsonRpcRequest for Shaped {
    /// Read by the caller, fail closed: an answer that does not parse is no consent.
    type Response = serde_json::Value;
}

impl JsonRpcNotification for Shaped {}

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
            let message = Shaped::tool_call(&notification)
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

    /// The `_meta` moved into the request's JSON is the one it was made with, in the
    /// schema's place for it (last); without one, the JSON says `null` as the schema
    /// writes it.
    #[test]
    fn a_permission_request_keeps_its_meta_in_its_place() {
        let request = |meta: Option<serde_json::Value>| {
            RequestPermissionRequest::new(
                "s",
                ToolCallUpdate::new("call_1", ToolCallUpdateFields::new()),
                Vec::new(),
            )
            .meta(meta.and_then(|m| m.as_object().cloned()))
        };
        let meta = serde_json::json!({"warden": {"risk": "high", "why": ["a", "b"]}});
        let with = Shaped::permission_request(request(Some(meta.clone())))
            .to_untyped_message()
            .expect("JSON");
        assert_eq!(with.params["_meta"], meta);
        let keys: Vec<&String> = with.params.as_object().expect("an object").keys().collect();
        assert_eq!(keys.last().map(|k| k.as_str()), Some("_meta"));
        let typed = serde_json::to_value(request(Some(meta))).expect("JSON");
        assert_eq!(with.params, typed);
        let without = Shaped::permission_request(request(None))
            .to_untyped_message()
            .expect("JSON");
        assert_eq!(
            without.params,
            serde_json::to_value(request(None)).expect("JSON")
        );
    }

    /// The JSON is handed over once: asked again, the message is an error, never a
    /// message without its parameters. A copy made before holds its own.
    #[test]
    fn a_message_hands_its_json_over_once() {
        let notification = SessionNotification::new(
            "s",
            SessionUpdate::ToolCall(ToolCall::new("call_1", "Write a")),
        );
        let message = Shaped::tool_call(&notification);
        let copy = message.clone();
        assert_eq!(
            message.to_untyped_message().expect("JSON").params["update"]["toolCallId"],
            "call_1"
        );
        assert!(message.to_untyped_message().is_err());
        assert_eq!(
            copy.to_untyped_message().expect("JSON").params["update"]["status"],
            "pending"
        );
    }
}
