//! Assembles a streamed reply: text chunks pass through, tool calls are put together from
//! deltas that may be split across chunks and interleaved by `index`.

use std::collections::BTreeMap;

use crate::{FinishReason, ModelError, ModelEvent, ToolCallRequest};

use super::wire::{Chunk, ToolCallDelta, error_message};

#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// The state of one streamed reply.
#[derive(Debug)]
pub(crate) struct Assembler {
    calls: BTreeMap<u32, PartialCall>,
    last_index: Option<u32>,
    finish_reason: Option<String>,
    refused: bool,
    /// The number of the first call of this reply in the conversation, for calls whose id the
    /// server left out.
    first_call_number: usize,
}

impl Assembler {
    pub(crate) fn new(first_call_number: usize) -> Assembler {
        Assembler {
            calls: BTreeMap::new(),
            last_index: None,
            finish_reason: None,
            refused: false,
            first_call_number,
        }
    }

    /// Applies one chunk; returns the text it carried.
    pub(crate) fn apply(&mut self, chunk: Chunk) -> Result<Vec<ModelEvent>, ModelError> {
        if let Some(error) = chunk.error {
            return Err(ModelError::Provider {
                detail: error_message(&error).unwrap_or_else(|| error.to_string()),
            });
        }
        let mut events = Vec::new();
        // Only the first choice is read; Warden never asks for more than one.
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    events.push(ModelEvent::Text(text));
                }
                if let Some(text) = delta.refusal.filter(|t| !t.is_empty()) {
                    self.refused = true;
                    events.push(ModelEvent::Text(text));
                }
                for call in delta.tool_calls.unwrap_or_default() {
                    self.apply_call(call);
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason);
            }
        }
        Ok(events)
    }

    fn apply_call(&mut self, delta: ToolCallDelta) {
        // Servers that leave out `index` send a new id for each new call.
        let index = delta.index.unwrap_or_else(|| {
            let starts_new = match (&delta.id, self.last_index.and_then(|i| self.calls.get(&i))) {
                (Some(id), Some(last)) => last.id.as_deref() != Some(id.as_str()),
                (_, None) => true,
                (None, Some(_)) => false,
            };
            match (starts_new, self.last_index) {
                (true, Some(last)) => last + 1,
                (true, None) => 0,
                (false, last) => last.unwrap_or(0),
            }
        });
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if let Some(id) = delta.id.filter(|id| !id.is_empty())
            && call.id.is_none()
        {
            call.id = Some(id);
        }
        if let Some(function) = delta.function {
            if let Some(name) = function.name {
                // The name normally comes once; some servers repeat it in every delta.
                if call.name != name {
                    call.name.push_str(&name);
                }
            }
            match function.arguments {
                Some(serde_json::Value::String(piece)) => call.arguments.push_str(&piece),
                Some(serde_json::Value::Null) | None => {}
                Some(whole) => call.arguments.push_str(&whole.to_string()),
            }
        }
    }

    /// The closing events: the assembled tool calls and `Finished`. `done` tells whether the
    /// stream said `[DONE]`; a stream that simply stops without either `[DONE]` or a finish
    /// reason was cut off, which is an error rather than an answer.
    pub(crate) fn finish(self, done: bool) -> Vec<Result<ModelEvent, ModelError>> {
        if !done && self.finish_reason.is_none() {
            return vec![Err(ModelError::Protocol {
                detail: "the stream ended before the reply was complete".to_owned(),
            })];
        }
        let reason = match self.finish_reason.as_deref() {
            Some("length") => {
                // Calls cut off at the token limit have truncated arguments: never run them.
                return vec![Ok(ModelEvent::Finished(FinishReason::MaxTokens))];
            }
            Some("content_filter") => FinishReason::Refusal,
            _ if self.refused => FinishReason::Refusal,
            // Some servers (Ollama) say `stop` even when the reply holds tool calls.
            _ if !self.calls.is_empty() => FinishReason::ToolCalls,
            _ => FinishReason::EndTurn,
        };
        let mut events = Vec::new();
        if reason == FinishReason::ToolCalls {
            for (number, (index, call)) in (self.first_call_number..).zip(self.calls) {
                if call.name.is_empty() {
                    return vec![Err(ModelError::Protocol {
                        detail: format!("tool call #{index} has no function name"),
                    })];
                }
                events.push(Ok(ModelEvent::ToolCall(ToolCallRequest {
                    id: call.id.unwrap_or_else(|| format!("call_{number}")),
                    name: call.name,
                    arguments: parse_arguments(call.arguments),
                })));
            }
        }
        events.push(Ok(ModelEvent::Finished(reason)));
        events
    }
}

/// The arguments as a JSON object; text that is not a JSON object is kept as a JSON string so
/// that the caller fails the call and tells the model why.
fn parse_arguments(text: String) -> serde_json::Value {
    if text.trim().is_empty() {
        return serde_json::Value::Object(Default::default());
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        _ => serde_json::Value::String(text),
    }
}
