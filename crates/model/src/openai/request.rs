//! Maps a conversation and the tools to a Chat Completions request body.

use serde_json::{Value, json};

use crate::{Conversation, Message, ToolOutcome, ToolSpec, system_prompt, with_risk_hint};

/// The tool message sent for a call the conversation holds no result for (a turn that was
/// cancelled before the call ran). The API rejects an assistant message whose calls are not
/// all answered.
const NO_RESULT: &str = "The tool call did not run: the turn ended before it was executed.";

/// The request body: the system prompt first, then the conversation; every tool schema gets
/// the optional `risk_level` property.
pub(crate) fn body(model: &str, conversation: &Conversation, tools: &[ToolSpec]) -> Value {
    let mut body = json!({
        "model": model,
        "stream": true,
        "messages": messages(conversation),
    });
    if !tools.is_empty() {
        body["tools"] = tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": with_risk_hint(&tool.input_schema),
                    }
                })
            })
            .collect();
    }
    body
}

/// The chat messages. Tool messages must directly follow the assistant message that asked for
/// them, so user notes that arrive while a batch is open are sent after the batch's results,
/// and calls without a result get one that says they did not run.
fn messages(conversation: &Conversation) -> Vec<Value> {
    let mut out = vec![json!({"role": "system", "content": system_prompt()})];
    let mut open: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for message in conversation.messages() {
        match message {
            Message::User { text } => {
                close_batch(&mut out, &mut open, &mut notes);
                out.push(json!({"role": "user", "content": text}));
            }
            Message::UserNote { text, .. } => {
                if open.is_empty() {
                    out.push(json!({"role": "user", "content": text}));
                } else {
                    notes.push(text.clone());
                }
            }
            Message::Assistant { text, tool_calls } => {
                close_batch(&mut out, &mut open, &mut notes);
                if tool_calls.is_empty() {
                    out.push(json!({"role": "assistant", "content": text}));
                    continue;
                }
                let calls: Vec<Value> = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": arguments_text(&call.arguments)},
                        })
                    })
                    .collect();
                let content = if text.is_empty() {
                    Value::Null
                } else {
                    json!(text)
                };
                out.push(json!({"role": "assistant", "content": content, "tool_calls": calls}));
                open = tool_calls.iter().map(|c| c.id.clone()).collect();
            }
            Message::ToolResult {
                call_id,
                outcome,
                content,
                ..
            } => {
                let Some(position) = open.iter().position(|id| id == call_id) else {
                    // A result for no open call would make the API reject the whole request.
                    tracing::warn!(%call_id, "dropping a tool result that answers no open call");
                    continue;
                };
                open.remove(position);
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": result_text(*outcome, content),
                }));
            }
        }
    }
    close_batch(&mut out, &mut open, &mut notes);
    out
}

fn close_batch(out: &mut Vec<Value>, open: &mut Vec<String>, notes: &mut Vec<String>) {
    for call_id in open.drain(..) {
        out.push(json!({"role": "tool", "tool_call_id": call_id, "content": NO_RESULT}));
    }
    for note in notes.drain(..) {
        out.push(json!({"role": "user", "content": note}));
    }
}

/// The arguments as the API wants them: a JSON text. Unparsable arguments the model sent are
/// wrapped in an object, since some servers (Ollama) reject a request whose history holds
/// arguments that are not JSON.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => json!({ "_invalid_json": raw }).to_string(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

fn result_text(outcome: ToolOutcome, content: &str) -> String {
    if !content.trim().is_empty() {
        return content.to_owned();
    }
    match outcome {
        ToolOutcome::Completed => "(the tool printed nothing)".to_owned(),
        other => format!("The tool call {}.", other.as_words()),
    }
}
