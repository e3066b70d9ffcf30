//! The scripted model's closing message after a batch: one line per call.

use crate::{Message, ToolCallRequest, ToolOutcome};

/// The longest detail quoted from a tool result, in characters.
const DETAIL_CHARS: usize = 160;

/// One line per call of the batch, in the order the calls were proposed, e.g.
/// `terminal: denied (User denied tool invocation: not now)`, followed by the notes the user
/// attached. `tail` is everything after the batch's assistant message.
pub(crate) fn summarize(calls: &[ToolCallRequest], tail: &[Message]) -> String {
    let mut lines = Vec::new();
    for call in calls {
        // The last result wins, should the session ever record a call twice.
        let result = tail.iter().rev().find_map(|m| match m {
            Message::ToolResult {
                call_id,
                outcome,
                content,
                ..
            } if *call_id == call.id => Some((*outcome, content.as_str())),
            _ => None,
        });
        let mut line = match result {
            None => format!("{}: no result", call.name),
            Some((outcome @ (ToolOutcome::Failed | ToolOutcome::Denied), content)) => {
                match first_line(content) {
                    Some(detail) => format!("{}: {} ({detail})", call.name, outcome.as_words()),
                    None => format!("{}: {}", call.name, outcome.as_words()),
                }
            }
            Some((outcome, _)) => format!("{}: {}", call.name, outcome.as_words()),
        };
        for note in tail.iter().filter_map(|m| match m {
            Message::UserNote { call_id, text } if *call_id == call.id => Some(text),
            _ => None,
        }) {
            line.push_str(&format!(" [user note: {}]", note.trim()));
        }
        lines.push(line);
    }
    // A note for a call that is not in this batch still reached the model: say so.
    for (call_id, text) in tail.iter().filter_map(|m| match m {
        Message::UserNote { call_id, text } if !calls.iter().any(|c| c.id == *call_id) => {
            Some((call_id, text))
        }
        _ => None,
    }) {
        lines.push(format!("user note on {call_id}: {}", text.trim()));
    }
    lines.join("\n")
}

fn first_line(content: &str) -> Option<String> {
    let line = content.lines().map(str::trim).find(|l| !l.is_empty())?;
    if line.chars().count() <= DETAIL_CHARS {
        return Some(line.to_owned());
    }
    let cut: String = line.chars().take(DETAIL_CHARS).collect();
    Some(format!("{cut}…"))
}
