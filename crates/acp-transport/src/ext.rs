//! Warden's extension of the protocol, `_meta.warden`, as types: what the agent adds to
//! its `initialize` answer and to each permission request, and what a client may add to
//! its answer. The agent writes these and `warden chat` reads them; neither spells the
//! keys itself.

use agent_client_protocol::v1::schema::{
    SessionId, SessionInfoUpdate, SessionNotification, SessionUpdate,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use warden_verdict::Risk;

use crate::permission_meta::PermissionMeta;

/// The key of Warden's extension in any `_meta` object.
pub const WARDEN: &str = "warden";

/// `agentCapabilities._meta.warden` in the `initialize` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentExtension {
    pub version: String,
    /// What a permission answer may carry in its own `_meta.warden`.
    #[serde(default)]
    pub permission_response_meta: AnswerSupport,
    /// The ids of every option Warden may offer, in the contract's order.
    #[serde(default)]
    pub permission_options: Vec<String>,
}

/// Which parts of [`AnswerExtension`] the agent reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerSupport {
    #[serde(default)]
    pub edited_input: bool,
    #[serde(default)]
    pub note: bool,
}

/// `_meta.warden` on a `session/request_permission` request: the engine's judgement in
/// words and as data. A reader takes the evaluation as JSON (`E` = [`Value`]); the agent
/// writes it from its own typed form, which serialises to the same JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestExtension<E = Value> {
    /// The question as a sentence: `Allow tool call from github?`, `Run make test?`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The tool's own name, for clients that lay out "Run `<tool>` from `<server>`".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The MCP server the tool comes from; absent for Warden's built-in tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<RiskMark>,
    /// The risk in words: why the call has its risk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The words of the grant an "always" answer would store; null when no answer may
    /// remember the call.
    #[serde(default)]
    pub grant: Option<String>,
    /// The engine's explained evaluation, as `warden policy check --json` prints it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<E>,
}

/// A permission request's whole `_meta`: Warden's extension, then the adapters'
/// `_meta.permission` convention. The agent hands it to the transport beside the
/// request, which writes it as the request's last member, serialised straight from
/// these types: the evaluation is never built as JSON values on an asked call's path
/// (decision 0024). The member names are [`WARDEN`] and [`PERMISSION`](crate::PERMISSION)
/// (a test holds it).
#[derive(Debug, Serialize)]
pub struct RequestMeta<'a, E> {
    pub warden: &'a RequestExtension<E>,
    pub permission: &'a PermissionMeta,
}

/// A risk as a request carries it: one of the four levels, or something else, which a
/// client must treat as the strictest (a malformed rating never makes a call look safe).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RiskMark {
    Rated(Risk),
    Unreadable(Value),
}

impl RiskMark {
    /// The risk to act on: an unreadable rating counts as Critical.
    pub fn or_critical(&self) -> Risk {
        match self {
            RiskMark::Rated(risk) => *risk,
            RiskMark::Unreadable(_) => Risk::Critical,
        }
    }
}

/// `_meta.warden` on a client's `session/request_permission` answer (on the response
/// or on its selected outcome): arguments the user edited before approving, and a note.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerExtension {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_input: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `_meta.warden` on a `session_info_update` that carries no title: the turn a restored
/// session resumed on its own (the calls it left waiting, asked or run again after a
/// restart) has ended. No prompt answers such a turn, so without this a client can only
/// guess from silence when to give the person the prompt back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEnded {
    /// Always `true`; a marker with anything else is not this marker.
    pub resumed_turn_ended: bool,
}

impl TurnEnded {
    /// The update Warden's agent sends when a resumed turn of `session` ends: a
    /// `session_info_update` with nothing but this marker, which changes nothing for a
    /// client that does not read it.
    pub fn update(session: &SessionId) -> SessionNotification {
        let info = SessionInfoUpdate::new().meta(to_meta(&TurnEnded {
            resumed_turn_ended: true,
        }));
        SessionNotification::new(session.clone(), SessionUpdate::SessionInfoUpdate(info))
    }

    /// Whether `update` is that marker.
    pub fn is(update: &SessionUpdate) -> bool {
        let SessionUpdate::SessionInfoUpdate(info) = update else {
            return false;
        };
        extension(info.meta.as_ref())
            .and_then(|value| TurnEnded::deserialize(value).ok())
            .is_some_and(|marker| marker.resumed_turn_ended)
    }
}

/// Why `_meta.warden` cannot be read. An answer whose extension is malformed is a
/// denial, never ignored into consent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtensionError {
    #[error("`_meta.warden` is not an object")]
    NotAnObject,
    #[error("`_meta.warden.editedInput` is not an object")]
    EditedInputNotAnObject,
    #[error("`_meta.warden.note` is not a string")]
    NoteNotAString,
    #[error("`_meta.warden` does not have the expected shape: {0}")]
    Shape(String),
}

/// The raw `_meta.warden` value of a `_meta` object, if any.
pub fn extension(meta: Option<&Map<String, Value>>) -> Option<&Value> {
    meta.and_then(|meta| meta.get(WARDEN))
}

/// A `_meta` object holding `value` as Warden's extension.
pub fn to_meta(value: &impl Serialize) -> Map<String, Value> {
    let mut meta = Map::new();
    // Serialising these plain structs cannot fail; a null would only drop the extension.
    meta.insert(
        WARDEN.to_owned(),
        serde_json::to_value(value).unwrap_or(Value::Null),
    );
    meta
}

impl RequestExtension {
    /// Reads a request's `_meta.warden`: `None` when there is none (another agent).
    pub fn read(meta: Option<&Map<String, Value>>) -> Result<Option<Self>, ExtensionError> {
        extension(meta)
            .map(|value| {
                if !value.is_object() {
                    return Err(ExtensionError::NotAnObject);
                }
                RequestExtension::deserialize(value)
                    .map_err(|err| ExtensionError::Shape(err.to_string()))
            })
            .transpose()
    }
}

impl AgentExtension {
    /// Reads an `initialize` answer's `agentCapabilities._meta.warden`, if readable.
    pub fn read(meta: Option<&Map<String, Value>>) -> Option<Self> {
        extension(meta).and_then(|value| AgentExtension::deserialize(value).ok())
    }
}

impl AnswerExtension {
    /// Reads an answer's extension strictly: every part it names must have its type.
    pub fn read(value: &Value) -> Result<Self, ExtensionError> {
        let Some(ext) = value.as_object() else {
            return Err(ExtensionError::NotAnObject);
        };
        let edited_input = match ext.get("editedInput") {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map.clone()),
            Some(_) => return Err(ExtensionError::EditedInputNotAnObject),
        };
        let note = match ext.get("note") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(ExtensionError::NoteNotAString),
        };
        Ok(AnswerExtension { edited_input, note })
    }

    pub fn is_empty(&self) -> bool {
        self.edited_input.is_none() && self.note.is_none()
    }
}

/// A request's `_meta` for the tests of this crate: an extension with a typed evaluation,
/// and the same built of JSON values, as the agent built it before `RequestMeta`.
#[cfg(test)]
pub(crate) mod sample {
    use super::*;

    /// A typed evaluation, as the engine's reasons are.
    #[derive(Serialize)]
    pub struct Why {
        explanation: &'static str,
        matched_rules: Vec<u32>,
    }

    impl Default for Why {
        fn default() -> Self {
            Why {
                explanation: "asked",
                matched_rules: vec![7],
            }
        }
    }

    fn extension<E>(evaluation: Option<E>) -> RequestExtension<E> {
        RequestExtension {
            prompt: Some("Run `make`?".to_owned()),
            tool: Some("terminal".to_owned()),
            server: None,
            risk: Some(RiskMark::Rated(Risk::Medium)),
            reason: Some("runs make".to_owned()),
            grant: Some("exactly \"make\"".to_owned()),
            evaluation,
        }
    }

    /// The extension with `why` and with its JSON values, written out, then both
    /// without one.
    pub fn extensions(why: &Why) -> [(RequestExtension<&Why>, RequestExtension); 2] {
        let values = serde_json::json!({"explanation": "asked", "matched_rules": [7]});
        [
            (extension(Some(why)), extension(Some(values))),
            (extension(None), extension(None)),
        ]
    }

    pub fn permission() -> PermissionMeta {
        PermissionMeta::request("Run `make`?".to_owned(), "Risk Medium".to_owned())
    }

    /// The `_meta` object of `extension` and `permission`, built of JSON values.
    pub fn meta_of(
        extension: &RequestExtension,
        permission: &PermissionMeta,
    ) -> Map<String, Value> {
        let mut meta = to_meta(extension);
        permission.insert_into(&mut meta);
        meta
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PERMISSION;
    use serde_json::json;

    fn meta(value: Value) -> Map<String, Value> {
        json!({ "warden": value })
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn a_request_extension_reads_back_what_the_agent_writes() {
        let written = RequestExtension {
            prompt: Some("Allow tool call from github?".to_owned()),
            tool: Some("create_issue".to_owned()),
            server: Some("github".to_owned()),
            risk: Some(RiskMark::Rated(Risk::High)),
            reason: Some("writes outside the workspace".to_owned()),
            grant: None,
            evaluation: Some(json!({"decision": "ask"})),
        };
        let meta = to_meta(&written);
        assert_eq!(meta[WARDEN]["risk"], "high");
        assert_eq!(RequestExtension::read(Some(&meta)), Ok(Some(written)));
    }

    /// What the agent writes from its typed evaluation is what a `_meta` object built of
    /// JSON values holds, member for member and in the same order, named by the keys.
    #[test]
    fn a_request_meta_writes_what_a_meta_object_of_values_holds() {
        let (why, permission) = (sample::Why::default(), sample::permission());
        for (written, values) in sample::extensions(&why) {
            let expected =
                serde_json::to_string(&sample::meta_of(&values, &permission)).unwrap_or_default();
            let meta = RequestMeta {
                warden: &written,
                permission: &permission,
            };
            assert_eq!(serde_json::to_string(&meta).unwrap_or_default(), expected);
        }
        assert_eq!((WARDEN, PERMISSION), ("warden", "permission"));
    }

    #[test]
    fn an_unreadable_risk_counts_as_critical_and_no_extension_is_none() {
        let read = RequestExtension::read(Some(&meta(json!({"risk": "trivial"}))));
        let risk = read.ok().flatten().and_then(|ext| ext.risk);
        assert_eq!(risk.map(|r| r.or_critical()), Some(Risk::Critical));
        assert_eq!(RequestExtension::read(None), Ok(None));
        assert_eq!(
            RequestExtension::read(Some(&meta(json!("high")))),
            Err(ExtensionError::NotAnObject)
        );
    }

    #[test]
    fn an_answer_extension_is_read_strictly() {
        let ok = AnswerExtension::read(&json!({"editedInput": {"command": "ls"}, "note": " "}));
        let ok = ok.expect("readable");
        assert_eq!(
            ok.edited_input,
            json!({"command": "ls"}).as_object().cloned()
        );
        assert_eq!(ok.note, None, "a blank note is no note");
        assert_eq!(
            AnswerExtension::read(&json!({"editedInput": "ls"})),
            Err(ExtensionError::EditedInputNotAnObject)
        );
        assert_eq!(
            AnswerExtension::read(&json!({"note": 3})),
            Err(ExtensionError::NoteNotAString)
        );
        assert_eq!(
            AnswerExtension::read(&json!([])),
            Err(ExtensionError::NotAnObject)
        );
    }

    #[test]
    fn the_resumed_turn_marker_is_a_session_info_update_read_back_as_itself() {
        let sent = TurnEnded::update(&SessionId::new("s1"));
        let wire = serde_json::to_value(&sent).expect("serialises");
        assert_eq!(wire["update"]["sessionUpdate"], "session_info_update");
        assert_eq!(wire["update"]["_meta"]["warden"]["resumedTurnEnded"], true);
        assert!(
            wire["update"].get("title").is_none(),
            "the title is untouched"
        );
        let read: SessionNotification = serde_json::from_value(wire).expect("parses");
        assert!(TurnEnded::is(&read.update));
        let titled = SessionUpdate::SessionInfoUpdate(SessionInfoUpdate::new().title("t"));
        assert!(!TurnEnded::is(&titled));
        let other = SessionInfoUpdate::new().meta(meta(json!({"resumedTurnEnded": false})));
        assert!(!TurnEnded::is(&SessionUpdate::SessionInfoUpdate(other)));
    }

    #[test]
    fn the_agent_extension_names_what_answers_may_carry() {
        let written = AgentExtension {
            version: "0.1.0".to_owned(),
            permission_response_meta: AnswerSupport {
                edited_input: true,
                note: true,
            },
            permission_options: vec!["allow-once".to_owned()],
        };
        let meta = to_meta(&written);
        assert_eq!(meta[WARDEN]["permissionResponseMeta"]["editedInput"], true);
        assert_eq!(AgentExtension::read(Some(&meta)), Some(written));
    }
}
