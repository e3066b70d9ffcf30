//! The scripted model's closing message after a batch: a Markdown list, one item per call.

use crate::{Message, ToolCallRequest, ToolOutcome, one_line};

/// One list item per call of the batch, in the order the calls were proposed, e.g.
/// `- terminal: denied (User denied tool invocation: not now)`, followed by the notes the
/// user attached. A failure's detail is quoted whole, on one line (see [`one_line`]).
/// `tail` is everything after the batch's assistant message.
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
                match detail(content) {
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
            line.push_str(&format!(" (user note: {})", one_line(note)));
        }
        lines.push(format!("- {line}"));
    }
    // A note for a call that is not in this batch still reached the model: say so.
    for (call_id, text) in tail.iter().filter_map(|m| match m {
        Message::UserNote { call_id, text } if !calls.iter().any(|c| c.id == *call_id) => {
            Some((call_id, text))
        }
        _ => None,
    }) {
        lines.push(format!("- user note on {call_id}: {}", one_line(text)));
    }
    lines.join("\n")
}

fn detail(content: &str) -> Option<String> {
    let line = one_line(content);
    (!line.is_empty()).then_some(line)
}
