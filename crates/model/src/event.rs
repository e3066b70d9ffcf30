//! What a model's streamed reply is made of.

use crate::ToolCallRequest;

/// One event of a streamed model reply.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// A chunk of the reply's text.
    Text(String),
    /// A complete tool call, its arguments assembled.
    ToolCall(ToolCallRequest),
    /// The reply is complete. Always the last event of a successful reply.
    Finished(FinishReason),
}

/// Why a model reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FinishReason {
    /// The model finished its turn.
    EndTurn,
    /// The model asked for tool calls and waits for their results.
    ToolCalls,
    /// The reply was cut off at the token limit (ACP stop reason `max_tokens`).
    MaxTokens,
    /// The model or its provider refused to answer (ACP stop reason `refusal`).
    Refusal,
}
