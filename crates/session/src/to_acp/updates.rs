//! The `session/update` notifications of a turn: a call shown, its progress and result,
//! and the reply's text.

use std::path::PathBuf;

use warden_acp_transport::schema::{
    ContentBlock, ContentChunk, SessionId, SessionNotification, SessionUpdate, TextContent,
    ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields,
};

use warden_turn::{CallView, ToolResult};

use super::content;

pub fn locations(paths: &[PathBuf]) -> Vec<ToolCallLocation> {
    paths.iter().cloned().map(ToolCallLocation::new).collect()
}

pub fn text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text.into()))
}

/// A chunk of the agent's reply.
pub fn message_chunk(session: &SessionId, chunk: impl Into<String>) -> SessionNotification {
    SessionNotification::new(
        session.clone(),
        SessionUpdate::AgentMessageChunk(ContentChunk::new(text(chunk))),
    )
}

/// The first notification about a call: pending (sent explicitly, though it is the
/// schema's default, because some clients show a call without a status as running),
/// with what it does and its `content` (the preview and the risk in words).
pub fn proposed(session: &SessionId, view: &CallView) -> SessionNotification {
    SessionNotification::new(
        session.clone(),
        SessionUpdate::ToolCall(
            ToolCall::new(view.call_id.clone(), view.title.clone())
                .kind(content::kind(view.kind))
                .status(ToolCallStatus::Pending)
                .content(content::content(view.content.clone()))
                .raw_input(view.args.clone())
                .locations(locations(&view.locations)),
        ),
    )
}

/// The first notification about a call that could not even be read.
/// A call the client was shown before (its `tool_call` went out before a restart),
/// shown again whole as it is asked again: a `tool_call_update` with everything a
/// `tool_call` carries, since a second `tool_call` with the same id would read as a new
/// call.
pub fn proposed_again(session: &SessionId, view: &CallView) -> SessionNotification {
    update(
        session,
        &view.call_id,
        ToolCallUpdateFields::new()
            .title(view.title.clone())
            .kind(content::kind(view.kind))
            .status(ToolCallStatus::Pending)
            .content(content::content(view.content.clone()))
            .raw_input(view.args.clone())
            .locations(locations(&view.locations)),
    )
}

/// A call shown again as the user edited it: what it now does, its content and its
/// arguments (its status is unchanged).
pub fn edited(session: &SessionId, view: &CallView) -> SessionNotification {
    update(
        session,
        &view.call_id,
        ToolCallUpdateFields::new()
            .title(view.title.clone())
            .content(content::content(view.content.clone()))
            .raw_input(view.args.clone())
            .locations(locations(&view.locations)),
    )
}

/// A call that ran: completed or failed, with its result.
pub fn finished(session: &SessionId, call_id: &str, result: ToolResult) -> SessionNotification {
    let status = if result.ok {
        ToolCallStatus::Completed
    } else {
        ToolCallStatus::Failed
    };
    update(
        session,
        call_id,
        ToolCallUpdateFields::new()
            .status(status)
            .content(content::content(result.content))
            .raw_output(result.raw_output),
    )
}

pub fn proposed_invalid(
    session: &SessionId,
    call_id: &str,
    tool: &str,
    args: &serde_json::Value,
) -> SessionNotification {
    SessionNotification::new(
        session.clone(),
        SessionUpdate::ToolCall(
            ToolCall::new(call_id.to_owned(), warden_turn::invalid_title(tool))
                .status(ToolCallStatus::Pending)
                .raw_input(args.clone()),
        ),
    )
}

pub fn status(session: &SessionId, call_id: &str, status: ToolCallStatus) -> SessionNotification {
    update(session, call_id, ToolCallUpdateFields::new().status(status))
}

/// A call that ends without running: failed, with the reason as its content.
pub fn failed(session: &SessionId, call_id: &str, reason: &str) -> SessionNotification {
    update(
        session,
        call_id,
        ToolCallUpdateFields::new()
            .status(ToolCallStatus::Failed)
            .content(vec![ToolCallContent::from(text(reason))]),
    )
}

pub fn update(
    session: &SessionId,
    call_id: &str,
    fields: ToolCallUpdateFields,
) -> SessionNotification {
    SessionNotification::new(
        session.clone(),
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(call_id.to_owned(), fields)),
    )
}
