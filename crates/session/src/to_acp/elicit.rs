//! "Approve with edits" and "deny with a note" through the standard form elicitation
//! (`elicitation/create`), for clients that advertise `elicitation.form`.
//!
//! Such a client is offered one more option, `edit-or-note` (kind `reject_once`, listed
//! last, so it never becomes the default and never counts as consent). Choosing it opens a
//! form with the call's arguments, a decision and a note. The form's answer is read into
//! the same [`Answer`] as the `_meta.warden` extension gives: `allow-once` with the edited
//! input and the note, or `reject-once` with the note. The edited input is then validated
//! and evaluated again exactly like the extension's. Anything else (declined, cancelled,
//! malformed, a value that does not parse) is a denial.

use serde_json::{Map, Value, json};
use warden_acp_transport::schema::{
    CreateElicitationRequest, CreateElicitationResponse, ElicitationAction,
    ElicitationContentValue, SessionId,
};

use warden_i18n::Args;
use warden_turn::{Answer, Form, Words};
use warden_verdict::option_id::{ALLOW_ONCE, REJECT_ONCE};

const DECISION: &str = "decision";
const NOTE: &str = "note";
const APPROVE: &str = "approve";
const DENY: &str = "deny";

/// Whether the client can show forms.
pub fn supported(capabilities: &warden_acp_transport::schema::ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|e| e.form.is_some())
}

/// The form field of an argument: its own name, unless it collides with the decision or
/// the note.
fn field(arg: &str) -> String {
    if arg == DECISION || arg == NOTE {
        format!("arg_{arg}")
    } else {
        arg.to_owned()
    }
}

/// Why a form cannot be shown, or its answer cannot be read (then it is a denial).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    #[error("the form cannot be built: {0}")]
    Build(String),
    #[error("the form's `{0}` is not text")]
    NotText(String),
    #[error("the form's decision is {0}")]
    Decision(String),
    #[error("the edited `{name}` is not valid JSON ({error})")]
    EditedNotJson { name: String, error: String },
}

/// The form for a call: the decision (deny by default), each argument (strings as they
/// are, other values as JSON text), and a note.
pub fn request(
    session: &SessionId,
    form: &Form,
    words: Words,
) -> Result<CreateElicitationRequest, FormError> {
    let mut properties = Map::new();
    properties.insert(
        DECISION.to_owned(),
        json!({
            "type": "string",
            "title": words.plain("agent-form-decision"),
            "enum": [APPROVE, DENY],
            "default": DENY,
        }),
    );
    if let Some(args) = form.args.as_object() {
        for (name, value) in args {
            let (text, description) = match value {
                Value::String(s) => (s.clone(), words.plain("agent-form-string")),
                other => (other.to_string(), words.plain("agent-form-json")),
            };
            properties.insert(
                field(name),
                json!({
                    "type": "string",
                    "title": name,
                    "description": description,
                    "default": text,
                }),
            );
        }
    }
    properties.insert(
        NOTE.to_owned(),
        json!({
            "type": "string",
            "title": words.plain("agent-form-note"),
            "description": words.plain("agent-form-note-description"),
        }),
    );
    let form = json!({
        "mode": "form",
        "sessionId": session,
        "toolCallId": form.call_id,
        "message": words.text(
            "agent-form-message",
            &Args::new().with("title", form.title.clone()),
        ),
        "requestedSchema": {
            "type": "object",
            "title": form.title,
            "properties": properties,
            "required": [DECISION],
        },
    });
    serde_json::from_value(form).map_err(|err| FormError::Build(err.to_string()))
}

/// Reads the form's answer, fail closed. `args` are the arguments the form showed.
pub fn read(response: CreateElicitationResponse, args: &Value) -> Answer {
    let content = match response.action {
        ElicitationAction::Accept(accept) => accept.content.unwrap_or_default(),
        ElicitationAction::Decline | ElicitationAction::Cancel => {
            return Answer::Selected {
                option_id: REJECT_ONCE.to_owned(),
                edited_input: None,
                note: None,
            };
        }
        _ => {
            return Answer::Failed {
                reason: "the client answered the form with an action Warden does not know"
                    .to_owned(),
            };
        }
    };
    let text = |name: &str| match content.get(name) {
        None => Ok(None),
        Some(ElicitationContentValue::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(FormError::NotText(name.to_owned())),
    };
    let parsed = (|| -> Result<Answer, FormError> {
        let note = text(NOTE)?.filter(|n| !n.trim().is_empty());
        let decision = text(DECISION)?;
        let option_id = match decision.as_deref() {
            Some(APPROVE) => ALLOW_ONCE,
            Some(DENY) => REJECT_ONCE,
            other => return Err(FormError::Decision(format!("{other:?}"))),
        };
        if option_id == REJECT_ONCE {
            return Ok(Answer::Selected {
                option_id: option_id.to_owned(),
                edited_input: None,
                note,
            });
        }
        let mut edited = args.as_object().cloned().unwrap_or_default();
        for (name, value) in edited.iter_mut() {
            let Some(new) = text(&field(name))? else {
                continue;
            };
            *value = match value {
                Value::String(_) => Value::String(new),
                _ => serde_json::from_str(&new).map_err(|err| FormError::EditedNotJson {
                    name: name.clone(),
                    error: err.to_string(),
                })?,
            };
        }
        let edited = Value::Object(edited);
        Ok(Answer::Selected {
            option_id: option_id.to_owned(),
            edited_input: (edited != *args).then_some(edited),
            note,
        })
    })();
    parsed.unwrap_or_else(|err| Answer::Failed {
        reason: err.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> Form {
        Form {
            call_id: "call_1".to_owned(),
            question: 1,
            title: "Run `rm -rf build`".to_owned(),
            args: json!({"command": "rm -rf build", "timeout_secs": 30}),
            timeout: None,
        }
    }

    #[test]
    fn the_form_shows_the_arguments_a_decision_and_a_note() {
        let request = request(&SessionId::new("s"), &form(), Words::default()).expect("a form");
        let value = serde_json::to_value(&request).unwrap_or_default();
        assert_eq!(value["mode"], "form");
        assert_eq!(value["sessionId"], "s");
        assert_eq!(value["toolCallId"], "call_1");
        let schema = &value["requestedSchema"];
        let fields: Vec<&String> = schema["properties"]
            .as_object()
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        assert_eq!(fields, ["command", "decision", "note", "timeout_secs"]);
        assert_eq!(schema["properties"]["decision"]["default"], "deny");
        assert_eq!(schema["properties"]["command"]["default"], "rm -rf build");
        assert_eq!(schema["properties"]["timeout_secs"]["default"], "30");
        assert_eq!(schema["required"], json!(["decision"]));
    }

    fn answer(response: Value) -> Answer {
        match serde_json::from_value::<CreateElicitationResponse>(response) {
            Ok(response) => read(response, &form().args),
            Err(err) => Answer::Failed {
                reason: err.to_string(),
            },
        }
    }

    #[test]
    fn the_answer_is_read_fail_closed() {
        let check = |response: Value, expect: Answer| {
            assert_eq!(answer(response.clone()), expect, "{response}");
        };
        let selected = |id: &str, edited: Option<Value>, note: Option<&str>| Answer::Selected {
            option_id: id.to_owned(),
            edited_input: edited,
            note: note.map(str::to_owned),
        };
        check(
            json!({"action": "accept", "content": {"decision": "approve", "command": "rm -rf build/tmp", "timeout_secs": "5", "note": "only tmp"}}),
            selected(
                "allow-once",
                Some(json!({"command": "rm -rf build/tmp", "timeout_secs": 5})),
                Some("only tmp"),
            ),
        );
        check(
            json!({"action": "accept", "content": {"decision": "approve", "command": "rm -rf build"}}),
            selected("allow-once", None, None),
        );
        check(
            json!({"action": "accept", "content": {"decision": "deny", "note": "use make clean"}}),
            selected("reject-once", None, Some("use make clean")),
        );
        check(
            json!({"action": "decline"}),
            selected("reject-once", None, None),
        );
        check(
            json!({"action": "cancel"}),
            selected("reject-once", None, None),
        );
        for bad in [
            json!({"action": "accept", "content": {"command": "ls"}}),
            json!({"action": "accept", "content": {"decision": "yes"}}),
            json!({"action": "accept", "content": {"decision": "approve", "timeout_secs": "five"}}),
            json!({"action": "accept", "content": {"decision": true}}),
        ] {
            assert!(
                matches!(answer(bad.clone()), Answer::Failed { .. }),
                "{bad}"
            );
        }
    }
}
