//! The journal's own words for what a session's records hold: the conversation as it is
//! stored, what became of a call, and the kinds of tools and options. They are written
//! exactly as the first journals were, so those journals keep loading; the session turns
//! its in-memory types into these (and back) in one place, so a refactor of the model's
//! conversation or the protocol's kinds cannot change the file format unnoticed.

use serde::{Deserialize, Serialize};

/// One stored entry of the conversation as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// A prompt from the user; it starts a turn.
    User { text: String },
    /// A note the user attached to an answer, sent to the model as an instruction.
    UserNote { call_id: String, text: String },
    /// A reply of the model: text and the tool calls it asked for.
    Assistant {
        text: String,
        tool_calls: Vec<ToolCall>,
    },
    /// What became of one tool call, as the model was told.
    ToolResult {
        call_id: String,
        tool: String,
        outcome: CallStatus,
        content: String,
    },
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model sent them (a JSON string when they were not JSON).
    pub arguments: serde_json::Value,
}

/// What became of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    Completed,
    Failed,
    Denied,
    TimedOut,
    Cancelled,
}

impl CallStatus {
    /// The status in words, e.g. `timed out`.
    pub fn as_words(self) -> &'static str {
        match self {
            CallStatus::Completed => "completed",
            CallStatus::Failed => "failed",
            CallStatus::Denied => "denied",
            CallStatus::TimedOut => "timed out",
            CallStatus::Cancelled => "cancelled",
        }
    }
}

/// The kind of a tool, as the client was shown it (the protocol's tool kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    /// Any other kind, including one a later version writes.
    #[serde(other)]
    Other,
}

/// The kind of a permission option (the protocol's option kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
    /// A kind this build does not know: never taken for consent.
    #[serde(other)]
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stored_messages_keep_the_first_journals_shape() {
        let message = Message::Assistant {
            text: "on it".to_owned(),
            tool_calls: vec![ToolCall {
                id: "c1".to_owned(),
                name: "terminal".to_owned(),
                arguments: json!({"command": "ls"}),
            }],
        };
        let written = serde_json::to_value(&message).expect("serialises");
        assert_eq!(
            written,
            json!({"role": "assistant", "text": "on it",
                   "tool_calls": [{"id": "c1", "name": "terminal", "arguments": {"command": "ls"}}]})
        );
        let result: Message = serde_json::from_value(json!({"role": "tool_result",
            "call_id": "c1", "tool": "terminal", "outcome": "timed_out", "content": "late"}))
        .expect("reads");
        assert!(matches!(
            result,
            Message::ToolResult {
                outcome: CallStatus::TimedOut,
                ..
            }
        ));
    }

    #[test]
    fn unknown_kinds_read_as_other_and_unknown() {
        let kind: ToolKind = serde_json::from_value(json!("teleport")).expect("reads");
        assert_eq!(kind, ToolKind::Other);
        let option: OptionKind = serde_json::from_value(json!("allow_forever")).expect("reads");
        assert_eq!(option, OptionKind::Unknown);
        assert_eq!(
            serde_json::to_value(ToolKind::SwitchMode).ok(),
            Some(json!("switch_mode"))
        );
    }
}
