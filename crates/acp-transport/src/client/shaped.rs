//! Messages to the client that Warden writes with fields the schema would leave out, or
//! writes as JSON text itself.
//!
//! The SDK turns every outgoing message into a JSON value when it takes it
//! ([`JsonRpcMessage::to_untyped_message`], which borrows the message), copies a
//! request's whole, and writes it out as text. A permission request and a `tool_call`
//! update, the two messages of a tool call's path, are written as JSON text when Warden
//! makes them, with the fields the schema leaves out written in, and the SDK carries a
//! placeholder that the line writer replaces with that text (see [`Splices`], decision
//! 0024).

use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    Meta, RequestPermissionRequest, SessionId, SessionNotification, SessionUpdate, ToolCall,
    ToolCallContent, ToolCallStatus,
};
use agent_client_protocol::{JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, UntypedMessage};

use crate::ext::RequestMeta;
use crate::splice::Splices;

/// A message's method and its parameters as JSON text, until the SDK takes them and
/// they are held for the line writer.
#[derive(Debug)]
pub(crate) struct Shaped {
    method: &'static str,
    text: Mutex<Option<Result<String, agent_client_protocol::Error>>>,
    splices: Arc<Splices>,
}

impl Shaped {
    fn new(
        method: &'static str,
        text: Result<String, agent_client_protocol::Error>,
        splices: Arc<Splices>,
    ) -> Self {
        Shaped {
            method,
            text: Mutex::new(Some(text)),
            splices,
        }
    }

    /// A `tool_call` update with the fields the schema leaves out when they hold their
    /// default written out: its `status` (`pending`), because some clients show a call
    /// without one as running while it waits for the user, and a new file's `oldText`
    /// (`null`) in its diffs. It is written as JSON text to be spliced into the SDK's
    /// line through `splices`, straight from its typed form, or through JSON values when
    /// a new file's diff needs its `oldText`.
    pub(crate) fn tool_call(notification: &SessionNotification, splices: Arc<Splices>) -> Self {
        let SessionUpdate::ToolCall(call) = &notification.update else {
            // Any other update has nothing to add to the schema's form.
            return Shaped::new("session/update", to_text(notification), splices);
        };
        let text = if new_file(&call.content) {
            to_json(notification).and_then(|mut params| {
                if let Some(update) = params.get_mut("update").and_then(|u| u.as_object_mut()) {
                    update
                        .entry("status")
                        .or_insert_with(|| serde_json::Value::from("pending"));
                    explicit_old_text(update.get_mut("content"));
                }
                to_text(&params)
            })
        } else {
            to_text(&ToolCallParams {
                session_id: &notification.session_id,
                update: PendingToolCall {
                    tag: "tool_call",
                    call,
                    status: (call.status == ToolCallStatus::Pending).then_some("pending"),
                },
                meta: notification.meta.as_ref(),
            })
        };
        Shaped::new("session/update", text, splices)
    }

    /// `session/request_permission` with its `_meta`, written as JSON text (see
    /// [`permission_request_text`]) to be spliced into the SDK's line through `splices`.
    pub(crate) fn permission_request<E: serde::Serialize>(
        request: &RequestPermissionRequest,
        meta: &RequestMeta<'_, E>,
        splices: Arc<Splices>,
    ) -> Self {
        let text = permission_request_text(request, meta)
            .map_err(agent_client_protocol::Error::into_internal_error);
        Shaped::new("session/request_permission", text, splices)
    }
}

/// A `session/request_permission`'s parameters as JSON text: the request as its type
/// serialises it, or, when its tool call shows a new file's diff, through JSON values
/// that write that diff's `oldText` as `null`, which the schema would leave out; then
/// `meta` as its last member, `_meta`, where the schema writes it. The request must not
/// carry a `_meta` of its own: the one it is sent with is `meta`.
pub fn permission_request_text<E: serde::Serialize>(
    request: &RequestPermissionRequest,
    meta: &RequestMeta<'_, E>,
) -> Result<String, serde_json::Error> {
    if request.meta.is_some() {
        return Err(serde::ser::Error::custom(
            "a permission request carries a `_meta` beside the one it is sent with",
        ));
    }
    let mut text = if request
        .tool_call
        .fields
        .content
        .as_deref()
        .is_some_and(new_file)
    {
        let mut params = serde_json::to_value(request)?;
        explicit_old_text(
            params
                .get_mut("toolCall")
                .and_then(|t| t.get_mut("content")),
        );
        serde_json::to_vec(&params)?
    } else {
        serde_json::to_vec(request)?
    };
    // The request is an object with members; its closing brace gives way to `_meta`.
    if text.pop() != Some(b'}') {
        return Err(serde::ser::Error::custom(
            "a permission request is not an object",
        ));
    }
    text.extend_from_slice(b",\"_meta\":");
    serde_json::to_writer(&mut text, meta)?;
    text.push(b'}');
    // Serde writes valid UTF-8 and the bytes added are ASCII.
    String::from_utf8(text).map_err(serde::ser::Error::custom)
}

fn to_json(
    message: &impl serde::Serialize,
) -> Result<serde_json::Value, agent_client_protocol::Error> {
    serde_json::to_value(message).map_err(agent_client_protocol::Error::into_internal_error)
}

/// A `tool_call` update's parameters as the schema writes them (`SessionNotification`
/// with its `ToolCall` tagged by `sessionUpdate`), and the call's `status` after its
/// fields when the schema leaves it out. A test holds it to the schema's own form.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallParams<'a> {
    session_id: &'a SessionId,
    update: PendingToolCall<'a>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Meta>,
}

#[derive(serde::Serialize)]
struct PendingToolCall<'a> {
    #[serde(rename = "sessionUpdate")]
    tag: &'static str,
    #[serde(flatten)]
    call: &'a ToolCall,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
}

/// Whether content shows a new file's diff, whose `oldText` the schema leaves out.
fn new_file(content: &[ToolCallContent]) -> bool {
    content
        .iter()
        .any(|c| matches!(c, ToolCallContent::Diff(diff) if diff.old_text.is_none()))
}

fn to_text(message: &impl serde::Serialize) -> Result<String, agent_client_protocol::Error> {
    serde_json::to_string(message).map_err(agent_client_protocol::Error::into_internal_error)
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

/// A copy holds its own copy of the text (the SDK does not copy the messages it sends).
impl Clone for Shaped {
    fn clone(&self) -> Self {
        let text = self
            .text
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Shaped {
            method: self.method,
            text: Mutex::new(text),
            splices: self.splices.clone(),
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

    /// Hands the text over to the line writer and the placeholder to the SDK. The SDK
    /// asks once, as it sends the message; asked again, the message has nothing left to
    /// send and says so, rather than go out without its parameters.
    fn to_untyped_message(&self) -> Result<UntypedMessage, agent_client_protocol::Error> {
        let taken = self
            .text
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let text = taken.unwrap_or_else(|| {
            Err(agent_client_protocol::Error::internal_error()
                .data(format!("`{}` was already handed to the SDK", self.method)))
        })?;
        Ok(UntypedMessage {
            method: self.method.to_owned(),
            params: self.splices.hold(text),
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
        Diff, PermissionOption, PermissionOptionKind, ToolCallUpdate, ToolCallUpdateFields,
    };

    use crate::RequestExtension;
    use crate::ext::sample;

    fn diff(old: Option<&str>) -> ToolCallContent {
        ToolCallContent::Diff(Diff::new("/w/a", "new").old_text(old.map(str::to_owned)))
    }

    fn has_old_text(item: &serde_json::Value) -> bool {
        item.as_object().is_some_and(|d| d.contains_key("oldText"))
    }

    /// The parameters a message's line carries once the writer has spliced them in,
    /// as text: what the client reads.
    fn written_text(message: Shaped, splices: &Splices) -> String {
        let untyped = message.to_untyped_message().expect("JSON");
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"{}","params":{}}}"#,
            untyped.method, untyped.params
        );
        let line: serde_json::Value =
            serde_json::from_str(&splices.apply(line)).expect("a JSON line");
        serde_json::to_string(&line["params"]).expect("JSON")
    }

    fn written(message: impl FnOnce(Arc<Splices>) -> Shaped) -> serde_json::Value {
        let splices = Arc::new(Splices::new());
        let text = written_text(message(splices.clone()), &splices);
        serde_json::from_str(&text).expect("JSON")
    }

    fn tool_call(status: ToolCallStatus, content: Vec<ToolCallContent>) -> SessionNotification {
        SessionNotification::new(
            "s",
            SessionUpdate::ToolCall(
                ToolCall::new("call_1", "Write a")
                    .status(status)
                    .content(content),
            ),
        )
    }

    #[test]
    fn a_pending_tool_call_names_its_status_and_a_new_files_old_text() {
        let check = |status: ToolCallStatus, expect: &str| {
            let notification = tool_call(status, vec![diff(None), diff(Some("old"))]);
            let params = written(|s| Shaped::tool_call(&notification, s));
            let update = &params["update"];
            assert_eq!(update["status"], expect);
            assert_eq!(update["toolCallId"], "call_1");
            assert_eq!(update["content"][0]["oldText"], serde_json::Value::Null);
            assert!(has_old_text(&update["content"][0]));
            assert_eq!(update["content"][1]["oldText"], "old");
        };
        check(ToolCallStatus::Pending, "pending");
        check(ToolCallStatus::InProgress, "in_progress");
    }

    /// Written straight from its typed form, a tool call's update is the schema's own
    /// serialisation, key for key and in its order, with `status` added after the
    /// call's fields when the schema leaves it out: what the JSON values wrote.
    #[test]
    fn a_tool_call_written_as_text_is_the_schemas_form_with_its_status() {
        let meta = serde_json::json!({"warden": {"risk": "low"}});
        for (status, meta) in [
            (ToolCallStatus::Pending, None),
            (ToolCallStatus::Pending, meta.as_object().cloned()),
            (ToolCallStatus::InProgress, None),
        ] {
            let mut notification = tool_call(status, vec![diff(Some("old"))]);
            notification.meta = meta;
            let splices = Arc::new(Splices::new());
            let text = written_text(Shaped::tool_call(&notification, splices.clone()), &splices);
            let mut expected = serde_json::to_value(&notification).expect("JSON");
            if let Some(update) = expected.get_mut("update").and_then(|u| u.as_object_mut()) {
                update.entry("status").or_insert("pending".into());
            }
            assert_eq!(text, serde_json::to_string(&expected).expect("JSON"));
        }
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
        let (extension, permission) = (RequestExtension::default(), sample::permission());
        let meta = RequestMeta {
            warden: &extension,
            permission: &permission,
        };
        let params = written(|s| Shaped::permission_request(&request, &meta, s));
        let content = &params["toolCall"]["content"];
        assert!(has_old_text(&content[0]));
        assert_eq!(content[0]["oldText"], serde_json::Value::Null);
        assert_eq!(content[1]["oldText"], "old");
        assert_eq!(params["options"][0]["optionId"], "allow-once");
        let keys: Vec<&String> = params.as_object().expect("an object").keys().collect();
        assert_eq!(keys.last().map(|k| k.as_str()), Some("_meta"));
        assert_eq!(
            params["_meta"],
            serde_json::Value::Object(sample::meta_of(&extension, &permission))
        );
    }

    /// The request's line carries, byte for byte, what the typed request with its
    /// `_meta` serialises to: `_meta` in the schema's place for it (last), with a
    /// typed evaluation written as its JSON values would be, and without one.
    #[test]
    fn a_permission_request_is_written_as_its_typed_form_with_its_meta() {
        let request = RequestPermissionRequest::new(
            "s",
            ToolCallUpdate::new("call_1", ToolCallUpdateFields::new().title("Run `ls`")),
            vec![PermissionOption::new(
                "reject-once",
                "Reject",
                PermissionOptionKind::RejectOnce,
            )],
        );
        let (why, permission) = (sample::Why::default(), sample::permission());
        for (typed, values) in sample::extensions(&why) {
            let meta = RequestMeta {
                warden: &typed,
                permission: &permission,
            };
            let splices = Arc::new(Splices::new());
            let text = written_text(
                Shaped::permission_request(&request, &meta, splices.clone()),
                &splices,
            );
            let expected = request.clone().meta(sample::meta_of(&values, &permission));
            assert_eq!(text, serde_json::to_string(&expected).expect("JSON"));
        }
    }

    /// A request that carries a `_meta` of its own is not sent with another beside it:
    /// the message is an error, which fails the question closed.
    #[test]
    fn a_permission_request_with_a_meta_of_its_own_is_refused() {
        let request = RequestPermissionRequest::new(
            "s",
            ToolCallUpdate::new("call_1", ToolCallUpdateFields::new()),
            Vec::new(),
        )
        .meta(crate::to_meta(&"x"));
        let (extension, permission): (RequestExtension, _) =
            (RequestExtension::default(), sample::permission());
        let meta = RequestMeta {
            warden: &extension,
            permission: &permission,
        };
        assert!(permission_request_text(&request, &meta).is_err());
        let splices = Arc::new(Splices::new());
        let message = Shaped::permission_request(&request, &meta, splices);
        assert!(message.to_untyped_message().is_err());
    }

    /// The JSON is handed over once: asked again, the message is an error, never a
    /// message without its parameters. A copy made before holds its own.
    #[test]
    fn a_message_hands_its_json_over_once() {
        let splices = Arc::new(Splices::new());
        let notification = tool_call(ToolCallStatus::Pending, Vec::new());
        let message = Shaped::tool_call(&notification, splices.clone());
        let copy = message.clone();
        assert!(message.to_untyped_message().is_ok());
        assert!(message.to_untyped_message().is_err());
        let copied: serde_json::Value =
            serde_json::from_str(&written_text(copy, &splices)).expect("JSON");
        assert_eq!(copied["update"]["toolCallId"], "call_1");
        assert_eq!(copied["update"]["status"], "pending");
    }
}
