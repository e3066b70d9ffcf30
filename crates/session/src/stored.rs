//! The one place where the session's in-memory types become the journal's records and
//! back: the model's conversation, what became of a call, and the protocol's kinds. The
//! journal has its own types so that a change here is a change of the file format only
//! when this file says so.

use warden_acp_transport::schema::{PermissionOptionKind, ToolKind as AcpToolKind};
use warden_journal::{
    CallStatus, FinishedCall, Message as Stored, OfferedOption, OptionKind, ProposedCall, Record,
    ToolCall, ToolKind,
};
use warden_model::{Message, ToolCallRequest, ToolOutcome};
use warden_turn::{CallRecord, Entry};

pub fn message(message: &Message) -> Stored {
    match message {
        Message::User { text } => Stored::User { text: text.clone() },
        Message::UserNote { call_id, text } => Stored::UserNote {
            call_id: call_id.clone(),
            text: text.clone(),
        },
        Message::Assistant { text, tool_calls } => Stored::Assistant {
            text: text.clone(),
            tool_calls: tool_calls.iter().map(tool_call).collect(),
        },
        Message::ToolResult {
            call_id,
            tool,
            outcome,
            content,
        } => Stored::ToolResult {
            call_id: call_id.clone(),
            tool: tool.clone(),
            outcome: status(*outcome),
            content: content.clone(),
        },
    }
}

/// The journal's record of one entry of a turn; `None` for a `finished` entry that is
/// not a tool result.
pub fn record(entry: Entry<'_>) -> Option<Record> {
    Some(match entry {
        Entry::Prompt(text) => Record::UserMessage {
            text: text.to_owned(),
        },
        Entry::AgentText(text) => Record::AgentText {
            text: text.to_owned(),
        },
        Entry::Conversation(m) => Record::Conversation {
            message: message(m),
        },
        // Built from the tool result itself: converting the whole message again would
        // copy its output once more.
        Entry::Finished(Message::ToolResult {
            call_id,
            outcome,
            content,
            ..
        }) => finished_call(call_id, status(*outcome), content),
        Entry::Finished(_) => return None,
        Entry::Proposed(call) => Record::Proposed(proposed(call)),
        Entry::Asked {
            call,
            request,
            question,
            edited,
        } => Record::Asked {
            call: call.to_owned(),
            request: request.to_string(),
            question,
            edited,
        },
        Entry::Grant(grant) => Record::Grant {
            grant: grant.clone(),
        },
    })
}

/// The `finished` record of a call whose result joined the conversation.
pub fn finished(message: &Stored) -> Option<Record> {
    let Stored::ToolResult {
        call_id,
        outcome,
        content,
        ..
    } = message
    else {
        return None;
    };
    Some(finished_call(call_id, *outcome, content))
}

/// The `finished` record of a call: what became of it, and what the model was told.
fn finished_call(call_id: &str, status: CallStatus, content: &str) -> Record {
    let mut summary: String = content.chars().take(400).collect();
    if summary.len() < content.len() {
        summary.push('…');
    }
    Record::Finished(FinishedCall {
        call: call_id.to_owned(),
        status,
        summary,
        told: content.to_owned(),
    })
}

/// A call as the journal records it, with its options as the question labelled them.
fn proposed(call: &CallRecord) -> ProposedCall {
    ProposedCall {
        id: call.id.clone(),
        tool: call.tool.clone(),
        args: call.args.clone(),
        title: call.title.clone(),
        kind: tool_kind(crate::to_acp::content::kind(call.kind)),
        risk: call.risk,
        reason: call.reason.clone(),
        options: call
            .offered
            .iter()
            .map(|o| OfferedOption {
                id: o.choice.option_id().to_owned(),
                name: o.label.clone(),
                kind: option_kind(crate::to_acp::permission::option_kind(o.choice)),
            })
            .collect(),
        grant: call.grant.clone(),
        at_ms: warden_journal::millis(call.at),
    }
}

pub fn restored_message(message: Stored) -> Message {
    match message {
        Stored::User { text } => Message::User { text },
        Stored::UserNote { call_id, text } => Message::UserNote { call_id, text },
        Stored::Assistant { text, tool_calls } => Message::Assistant {
            text,
            tool_calls: tool_calls.into_iter().map(restored_tool_call).collect(),
        },
        Stored::ToolResult {
            call_id,
            tool,
            outcome,
            content,
        } => Message::ToolResult {
            call_id,
            tool,
            outcome: restored_status(outcome),
            content,
        },
    }
}

fn tool_call(call: &ToolCallRequest) -> ToolCall {
    ToolCall {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
    }
}

pub fn restored_tool_call(call: ToolCall) -> ToolCallRequest {
    ToolCallRequest {
        id: call.id,
        name: call.name,
        arguments: call.arguments,
    }
}

pub fn status(outcome: ToolOutcome) -> CallStatus {
    match outcome {
        ToolOutcome::Completed => CallStatus::Completed,
        ToolOutcome::Failed => CallStatus::Failed,
        ToolOutcome::Denied => CallStatus::Denied,
        ToolOutcome::TimedOut => CallStatus::TimedOut,
        ToolOutcome::Cancelled => CallStatus::Cancelled,
    }
}

fn restored_status(status: CallStatus) -> ToolOutcome {
    match status {
        CallStatus::Completed => ToolOutcome::Completed,
        CallStatus::Failed => ToolOutcome::Failed,
        CallStatus::Denied => ToolOutcome::Denied,
        CallStatus::TimedOut => ToolOutcome::TimedOut,
        CallStatus::Cancelled => ToolOutcome::Cancelled,
    }
}

pub fn tool_kind(kind: AcpToolKind) -> ToolKind {
    match kind {
        AcpToolKind::Read => ToolKind::Read,
        AcpToolKind::Edit => ToolKind::Edit,
        AcpToolKind::Delete => ToolKind::Delete,
        AcpToolKind::Move => ToolKind::Move,
        AcpToolKind::Search => ToolKind::Search,
        AcpToolKind::Execute => ToolKind::Execute,
        AcpToolKind::Think => ToolKind::Think,
        AcpToolKind::Fetch => ToolKind::Fetch,
        AcpToolKind::SwitchMode => ToolKind::SwitchMode,
        _ => ToolKind::Other,
    }
}

pub fn shown_kind(kind: ToolKind) -> AcpToolKind {
    match kind {
        ToolKind::Read => AcpToolKind::Read,
        ToolKind::Edit => AcpToolKind::Edit,
        ToolKind::Delete => AcpToolKind::Delete,
        ToolKind::Move => AcpToolKind::Move,
        ToolKind::Search => AcpToolKind::Search,
        ToolKind::Execute => AcpToolKind::Execute,
        ToolKind::Think => AcpToolKind::Think,
        ToolKind::Fetch => AcpToolKind::Fetch,
        ToolKind::SwitchMode => AcpToolKind::SwitchMode,
        ToolKind::Other => AcpToolKind::Other,
    }
}

pub fn option_kind(kind: PermissionOptionKind) -> OptionKind {
    match kind {
        PermissionOptionKind::AllowOnce => OptionKind::AllowOnce,
        PermissionOptionKind::AllowAlways => OptionKind::AllowAlways,
        PermissionOptionKind::RejectOnce => OptionKind::RejectOnce,
        PermissionOptionKind::RejectAlways => OptionKind::RejectAlways,
        _ => OptionKind::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_conversation_survives_the_journal_unchanged() {
        let messages = vec![
            Message::User {
                text: "hi".to_owned(),
            },
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCallRequest {
                    id: "c1".to_owned(),
                    name: "terminal".to_owned(),
                    arguments: json!({"command": "ls"}),
                }],
            },
            Message::UserNote {
                call_id: "c1".to_owned(),
                text: "use -la".to_owned(),
            },
            Message::ToolResult {
                call_id: "c1".to_owned(),
                tool: "terminal".to_owned(),
                outcome: ToolOutcome::TimedOut,
                content: "late".to_owned(),
            },
        ];
        for original in messages {
            let stored = message(&original);
            // The journal writes what the model's own serialisation wrote before it had
            // types of its own: old journals keep loading.
            assert_eq!(
                serde_json::to_value(&stored).ok(),
                serde_json::to_value(&original).ok()
            );
            assert_eq!(restored_message(stored), original);
        }
    }

    #[test]
    fn every_kind_the_protocol_names_is_stored_as_itself() {
        for kind in [
            AcpToolKind::Read,
            AcpToolKind::Edit,
            AcpToolKind::Delete,
            AcpToolKind::Move,
            AcpToolKind::Search,
            AcpToolKind::Execute,
            AcpToolKind::Think,
            AcpToolKind::Fetch,
            AcpToolKind::SwitchMode,
            AcpToolKind::Other,
        ] {
            assert_eq!(
                serde_json::to_value(tool_kind(kind)).ok(),
                serde_json::to_value(kind).ok()
            );
            assert_eq!(shown_kind(tool_kind(kind)), kind);
        }
        for kind in [
            PermissionOptionKind::AllowOnce,
            PermissionOptionKind::AllowAlways,
            PermissionOptionKind::RejectOnce,
            PermissionOptionKind::RejectAlways,
        ] {
            assert_eq!(
                serde_json::to_value(option_kind(kind)).ok(),
                serde_json::to_value(kind).ok()
            );
        }
    }
}
