//! The conversation a model answers: prompts, replies, tool calls and what became of them.

use serde::{Deserialize, Serialize};

/// The default byte limit for one tool output sent back to the model (32 KiB).
pub const DEFAULT_TOOL_OUTPUT_LIMIT: usize = 32 * 1024;

/// The text the model receives for a call the user denied (the note, if any, follows after ": ").
pub const DENIED_TEXT: &str = "User denied tool invocation";

/// A tool call the model asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    /// The call id, unique within a conversation.
    pub id: String,
    /// The tool's name, e.g. `fs_read` or `mcp__github__search`.
    pub name: String,
    /// The arguments: a JSON object. When the model sent text that is not valid JSON, this holds
    /// that text as a JSON string, and the caller must fail the call rather than guess.
    pub arguments: serde_json::Value,
}

/// What became of a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    /// The tool ran and finished.
    Completed,
    /// The tool ran (or was invalid) and failed.
    Failed,
    /// The user, a rule or the mode denied the call; it did not run.
    Denied,
    /// The call did not finish in time (the approval or the tool itself).
    TimedOut,
    /// The turn was cancelled before or while the call ran.
    Cancelled,
}

impl ToolOutcome {
    /// The outcome in words, e.g. `timed out`.
    pub fn as_words(self) -> &'static str {
        match self {
            ToolOutcome::Completed => "completed",
            ToolOutcome::Failed => "failed",
            ToolOutcome::Denied => "denied",
            ToolOutcome::TimedOut => "timed out",
            ToolOutcome::Cancelled => "cancelled",
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// A prompt from the user. It starts a new turn.
    User {
        /// The prompt's text.
        text: String,
    },
    /// A note the user attached to an answer to a permission request, sent to the model as a
    /// user instruction. Unlike [`Message::User`] it does not start a new turn.
    UserNote {
        /// The call the note was attached to.
        call_id: String,
        /// The note's text.
        text: String,
    },
    /// A reply of the model: text and any tool calls it asked for.
    Assistant {
        /// The reply's text (possibly empty).
        text: String,
        /// The tool calls of the reply, proposed together as one batch.
        tool_calls: Vec<ToolCallRequest>,
    },
    /// What became of one tool call.
    ToolResult {
        /// The id of the call (from [`ToolCallRequest::id`]).
        call_id: String,
        /// The tool's name.
        tool: String,
        /// What became of the call.
        outcome: ToolOutcome,
        /// The output, or a sentence the model can act on (see [`denied_content`]).
        content: String,
    },
}

/// The content of a tool result for a denied call: "User denied tool invocation", with the
/// user's note after a colon when there is one.
pub fn denied_content(note: Option<&str>) -> String {
    match note.map(str::trim).filter(|n| !n.is_empty()) {
        Some(note) => format!("{DENIED_TEXT}: {note}"),
        None => DENIED_TEXT.to_owned(),
    }
}

/// A conversation: the messages a model answers, oldest first. It serializes as
/// `{"messages": [...], "tool_output_limit": N}`, so that a session can be stored and loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    messages: Vec<Message>,
    #[serde(default = "default_limit")]
    tool_output_limit: usize,
}

fn default_limit() -> usize {
    DEFAULT_TOOL_OUTPUT_LIMIT
}

impl Default for Conversation {
    fn default() -> Self {
        Conversation::new()
    }
}

impl Conversation {
    /// An empty conversation with the default tool output limit.
    pub fn new() -> Conversation {
        Conversation {
            messages: Vec::new(),
            tool_output_limit: DEFAULT_TOOL_OUTPUT_LIMIT,
        }
    }

    /// A conversation holding `messages` as they are (for a stored session).
    pub fn from_messages(messages: Vec<Message>) -> Conversation {
        Conversation {
            messages,
            tool_output_limit: DEFAULT_TOOL_OUTPUT_LIMIT,
        }
    }

    /// Sets the byte limit above which [`Conversation::push_tool_result`] trims an output.
    pub fn with_tool_output_limit(mut self, bytes: usize) -> Conversation {
        self.tool_output_limit = bytes;
        self
    }

    /// The byte limit for one tool output.
    pub fn tool_output_limit(&self) -> usize {
        self.tool_output_limit
    }

    /// The messages, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Appends a message as it is (no trimming).
    pub fn push(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// Appends a user prompt.
    pub fn push_user(&mut self, text: impl Into<String>) {
        self.push(Message::User { text: text.into() });
    }

    /// Appends a note the user attached to a permission answer for `call_id`.
    pub fn push_user_note(&mut self, call_id: impl Into<String>, text: impl Into<String>) {
        self.push(Message::UserNote {
            call_id: call_id.into(),
            text: text.into(),
        });
    }

    /// Appends a model reply.
    pub fn push_assistant(&mut self, text: impl Into<String>, tool_calls: Vec<ToolCallRequest>) {
        self.push(Message::Assistant {
            text: text.into(),
            tool_calls,
        });
    }

    /// Appends what became of a tool call. A content longer than the tool output limit is
    /// trimmed to its head and tail, and the trimming is said in the text.
    pub fn push_tool_result(
        &mut self,
        call_id: impl Into<String>,
        tool: impl Into<String>,
        outcome: ToolOutcome,
        content: impl Into<String>,
    ) {
        let content = trim_output(content.into(), self.tool_output_limit);
        self.push(Message::ToolResult {
            call_id: call_id.into(),
            tool: tool.into(),
            outcome,
            content,
        });
    }

    /// The number of tool calls the model has asked for so far.
    pub fn tool_call_count(&self) -> usize {
        self.messages
            .iter()
            .map(|m| match m {
                Message::Assistant { tool_calls, .. } => tool_calls.len(),
                _ => 0,
            })
            .sum()
    }
}

/// Trims `text` to at most about `limit` bytes, keeping its head and tail and saying how many
/// bytes were left out. The model needs both ends: the head holds what a command printed
/// first, the tail its final errors and summary.
pub fn trim_output(text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let head_end = floor_char_boundary(&text, limit / 2);
    let tail_start = ceil_char_boundary(&text, text.len() - (limit - limit / 2));
    let omitted = tail_start - head_end;
    format!(
        "{}\n[… {omitted} bytes omitted …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}
