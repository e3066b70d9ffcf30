//! The one view of a `session/update` the chat draws: read from the protocol's typed
//! update once, then laid out by the interactive screen or by the plain log. Nothing here
//! is cleaned yet; whoever prints a text cleans it.

use agent_client_protocol::v1::schema::{
    ContentBlock, Diff, PlanEntryStatus, RequestPermissionRequest, SessionUpdate, ToolCallContent,
    ToolCallStatus,
};
use warden_acp_transport::TurnEnded;

/// What one update shows.
#[derive(Debug, Clone, PartialEq)]
pub enum View {
    /// A piece of the agent's streamed reply.
    AgentText(String),
    /// The person's own words, as a loaded session replays them.
    UserText(String),
    /// A tool call, new or changed.
    Call(CallView),
    /// The agent's plan, whole.
    Plan(Vec<(PlanMark, String)>),
    /// The agent's slash commands, by name (without the slash).
    Commands(Vec<String>),
    /// The session's mode changed.
    Mode(String),
    /// Warden's agent says the turn it resumed after a restart has ended.
    ResumedTurnEnded,
    /// Anything the chat does not draw.
    Nothing,
}

/// A tool call as an update says it: only what the update carries.
#[derive(Debug, Clone, PartialEq)]
pub struct CallView {
    pub id: String,
    /// A `tool_call` (the call's first notification) rather than a `tool_call_update`.
    pub new: bool,
    pub title: Option<String>,
    pub status: Option<ToolCallStatus>,
    /// Its content, in order.
    pub content: Vec<Shown>,
}

/// One item of a tool call's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    Text(String),
    Diff(Diff),
    /// A terminal, by id.
    Terminal(String),
}

/// A plan entry's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanMark {
    Pending,
    InProgress,
    Completed,
}

impl View {
    /// Reads one update.
    pub fn of(update: &SessionUpdate) -> View {
        if TurnEnded::is(update) {
            return View::ResumedTurnEnded;
        }
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                text_of(&chunk.content).map_or(View::Nothing, View::AgentText)
            }
            SessionUpdate::UserMessageChunk(chunk) => {
                text_of(&chunk.content).map_or(View::Nothing, View::UserText)
            }
            SessionUpdate::ToolCall(call) => {
                let mut view = CallView::with_content(&call.content);
                view.id = call.tool_call_id.to_string();
                view.new = true;
                view.title = Some(call.title.clone());
                view.status = Some(call.status);
                View::Call(view)
            }
            SessionUpdate::ToolCallUpdate(update) => {
                let fields = &update.fields;
                let mut view = CallView::with_content(fields.content.as_deref().unwrap_or(&[]));
                view.id = update.tool_call_id.to_string();
                view.title = fields.title.clone();
                view.status = fields.status;
                View::Call(view)
            }
            SessionUpdate::Plan(plan) => View::Plan(
                plan.entries
                    .iter()
                    .map(|entry| {
                        let mark = match entry.status {
                            PlanEntryStatus::Completed => PlanMark::Completed,
                            PlanEntryStatus::InProgress => PlanMark::InProgress,
                            _ => PlanMark::Pending,
                        };
                        (mark, entry.content.clone())
                    })
                    .collect(),
            ),
            SessionUpdate::AvailableCommandsUpdate(update) => View::Commands(
                update
                    .available_commands
                    .iter()
                    .map(|command| command.name.clone())
                    .collect(),
            ),
            SessionUpdate::CurrentModeUpdate(update) => {
                View::Mode(update.current_mode_id.to_string())
            }
            _ => View::Nothing,
        }
    }
}

impl CallView {
    /// What a permission request's call carries: its texts and diffs.
    pub fn of_request(request: &RequestPermissionRequest) -> CallView {
        let fields = &request.tool_call.fields;
        let mut view = CallView::with_content(fields.content.as_deref().unwrap_or(&[]));
        view.id = request.tool_call.tool_call_id.to_string();
        view.title = fields.title.clone();
        view.status = fields.status;
        view
    }

    fn with_content(content: &[ToolCallContent]) -> CallView {
        let mut view = CallView {
            id: String::new(),
            new: false,
            title: None,
            status: None,
            content: Vec::new(),
        };
        for item in content {
            match item {
                ToolCallContent::Content(content) => {
                    if let Some(text) = text_of(&content.content) {
                        view.content.push(Shown::Text(text));
                    }
                }
                ToolCallContent::Diff(diff) => view.content.push(Shown::Diff(diff.clone())),
                ToolCallContent::Terminal(terminal) => view
                    .content
                    .push(Shown::Terminal(terminal.terminal_id.to_string())),
                _ => {}
            }
        }
        view
    }

    /// The texts of its content, in order.
    pub fn texts(&self) -> Vec<String> {
        self.content
            .iter()
            .filter_map(|item| match item {
                Shown::Text(text) => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    /// The diffs of its content, in order.
    pub fn diffs(&self) -> Vec<Diff> {
        self.content
            .iter()
            .filter_map(|item| match item {
                Shown::Diff(diff) => Some(diff.clone()),
                _ => None,
            })
            .collect()
    }
}

/// The text of a content block; other blocks (images, resources) are not drawn.
pub fn text_of(block: &ContentBlock) -> Option<String> {
    match block {
        ContentBlock::Text(text) => Some(text.text.clone()),
        _ => None,
    }
}

/// A status's name on the wire, as the log prints it and the screen keeps it.
pub fn status_name(status: ToolCallStatus) -> &'static str {
    match status {
        ToolCallStatus::Pending => "pending",
        ToolCallStatus::InProgress => "in_progress",
        ToolCallStatus::Completed => "completed",
        ToolCallStatus::Failed => "failed",
        _ => "unknown",
    }
}
