//! The scripted model: Warden's embedded default. No network, no key, deterministic.
//!
//! It reads the latest prompt line by line (see [`grammar`]) and, after the results of a batch
//! of tool calls, ends the turn with one line per call saying what became of it (see
//! [`summary`]).

mod grammar;
mod summary;

use futures::StreamExt;
use futures::stream::BoxStream;

use crate::{Conversation, FinishReason, Message, Model, ModelError, ModelEvent, ToolSpec};

pub use grammar::HELP_TEXT;

/// The scripted model (spec `scripted`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ScriptedModel;

impl ScriptedModel {
    /// The scripted model.
    pub fn new() -> ScriptedModel {
        ScriptedModel
    }

    /// The events of the reply to `conversation`, computed at once.
    pub fn reply(&self, conversation: &Conversation) -> Vec<ModelEvent> {
        let messages = conversation.messages();
        let last_assistant = messages
            .iter()
            .rposition(|m| matches!(m, Message::Assistant { .. }));
        let after = last_assistant.map_or(0, |i| i + 1);
        let prompt: Vec<&str> = messages[after..]
            .iter()
            .filter_map(|m| match m {
                Message::User { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if prompt.is_empty()
            && let Some(Message::Assistant { tool_calls, .. }) =
                last_assistant.map(|i| &messages[i])
            && !tool_calls.is_empty()
        {
            let text = summary::summarize(tool_calls, &messages[after..]);
            return text_events(&text, FinishReason::EndTurn);
        }
        let plan = grammar::parse(&prompt.join("\n"));
        match plan {
            grammar::Plan::Reply { say, calls } => {
                let first_id = conversation.tool_call_count() + 1;
                let calls: Vec<_> = calls
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, arguments))| crate::ToolCallRequest {
                        id: format!("call_{}", first_id + i),
                        name,
                        arguments,
                    })
                    .collect();
                if calls.is_empty() {
                    return text_events(&say, FinishReason::EndTurn);
                }
                let mut events = text_chunks(&say);
                events.extend(calls.into_iter().map(ModelEvent::ToolCall));
                events.push(ModelEvent::Finished(FinishReason::ToolCalls));
                events
            }
            grammar::Plan::Explain(text) => text_events(&text, FinishReason::EndTurn),
        }
    }
}

impl Model for ScriptedModel {
    fn id(&self) -> &str {
        "scripted"
    }

    fn respond(
        &self,
        conversation: &Conversation,
        _tools: &[ToolSpec],
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        futures::stream::iter(self.reply(conversation).into_iter().map(Ok)).boxed()
    }
}

fn text_events(text: &str, reason: FinishReason) -> Vec<ModelEvent> {
    let mut events = text_chunks(text);
    events.push(ModelEvent::Finished(reason));
    events
}

/// Splits a text into one chunk per line, so that clients see a streamed reply.
fn text_chunks(text: &str) -> Vec<ModelEvent> {
    text.split_inclusive('\n')
        .map(|line| ModelEvent::Text(line.to_owned()))
        .collect()
}
