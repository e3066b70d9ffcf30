//! What a non-interactive chat prints: plain text for logs, never an escape code, and
//! nothing from the agent printed raw (its control characters are shown escaped).

use std::collections::HashMap;

use agent_client_protocol::v1::schema::{PermissionOptionKind, RequestPermissionRequest};
use serde_json::Value;

use crate::approve::Picked;

/// The most lines of one tool call's content or diff side shown; the rest is counted.
const MAX_LINES: usize = 40;

/// The warning of the permission prompt, word for word.
pub const WARNING: &str = "Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.";
/// The line the prompt shows in bold (here as plain text).
pub const REVIEW: &str = "Review each action carefully before approving";

/// Text from the agent, safe to print: every control character but newline and tab is
/// shown as a `\u{..}` escape, so an agent cannot move the cursor, recolour or clear a
/// terminal, or forge lines in a log with a carriage return.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// What one `session/update` prints: streamed text, and whole lines.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub lines: Vec<String>,
}

/// Tool call titles by id, remembered so that a status change can name its call.
#[derive(Debug, Default)]
pub struct Titles(HashMap<String, String>);

fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// Lines of `text`, each indented, at most [`MAX_LINES`] of them.
fn indented(text: &str, prefix: &str, lines: &mut Vec<String>) {
    let all: Vec<&str> = text.lines().collect();
    for line in all.iter().take(MAX_LINES) {
        lines.push(format!("{prefix}{}", clean(line)));
    }
    if all.len() > MAX_LINES {
        lines.push(format!("{prefix}… {} more lines", all.len() - MAX_LINES));
    }
}

/// A tool call's `content`: text blocks and diffs.
fn content(items: Option<&Value>, lines: &mut Vec<String>) {
    let Some(items) = items.and_then(Value::as_array) else {
        return;
    };
    for item in items {
        match str_of(item, "type") {
            Some("content") => {
                if let Some(text) = item.get("content").and_then(|c| str_of(c, "text")) {
                    indented(text, "  | ", lines);
                }
            }
            Some("diff") => {
                let path = str_of(item, "path").unwrap_or("?");
                match str_of(item, "oldText") {
                    None => lines.push(format!("  diff {} (new file)", clean(path))),
                    Some(old) => {
                        lines.push(format!("  diff {}", clean(path)));
                        indented(old, "  - ", lines);
                    }
                }
                indented(str_of(item, "newText").unwrap_or(""), "  + ", lines);
            }
            Some("terminal") => lines.push(format!(
                "  (terminal {})",
                clean(str_of(item, "terminalId").unwrap_or("?"))
            )),
            _ => {}
        }
    }
}

/// Renders one `session/update` (its `update` object, as JSON).
pub fn update(update: &Value, titles: &mut Titles) -> Rendered {
    let mut out = Rendered::default();
    match str_of(update, "sessionUpdate") {
        Some("agent_message_chunk") => {
            if let Some(text) = update.get("content").and_then(|c| str_of(c, "text")) {
                out.text = clean(text);
            }
        }
        Some("tool_call") => {
            let id = str_of(update, "toolCallId").unwrap_or("?").to_owned();
            let title = clean(str_of(update, "title").unwrap_or(&id));
            // The schema's default status, which the SDK leaves out of the JSON.
            let status = str_of(update, "status").unwrap_or("pending");
            out.lines.push(format!("[tool] {title}: {status}"));
            content(update.get("content"), &mut out.lines);
            titles.0.insert(id, title);
        }
        Some("tool_call_update") => {
            let id = str_of(update, "toolCallId").unwrap_or("?").to_owned();
            if let Some(title) = str_of(update, "title") {
                titles.0.insert(id.clone(), clean(title));
            }
            let title = titles.0.get(&id).cloned().unwrap_or_else(|| clean(&id));
            if let Some(status) = str_of(update, "status") {
                out.lines.push(format!("[tool] {title}: {}", clean(status)));
            }
            content(update.get("content"), &mut out.lines);
        }
        Some("plan") => {
            out.lines.push("[plan]".to_owned());
            for entry in update
                .get("entries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.lines.push(format!(
                    "  [{}] {}",
                    clean(str_of(entry, "status").unwrap_or("?")),
                    clean(str_of(entry, "content").unwrap_or(""))
                ));
            }
        }
        Some("current_mode_update") => {
            if let Some(mode) = str_of(update, "currentModeId") {
                out.lines.push(format!("[mode] {}", clean(mode)));
            }
        }
        _ => {}
    }
    out
}

/// The server a call comes from: the one Warden names in its prompt
/// (`Allow tool call from <server>?`, for MCP tools), else the agent itself.
pub(crate) fn server<'a>(request: &'a RequestPermissionRequest, agent: &'a str) -> &'a str {
    request
        .meta
        .as_ref()
        .and_then(|meta| meta.get("warden"))
        .and_then(|warden| warden.get("prompt"))
        .and_then(Value::as_str)
        .and_then(|prompt| prompt.strip_prefix("Allow tool call from "))
        .and_then(|rest| rest.strip_suffix('?'))
        .unwrap_or(agent)
}

/// The tool's name where the agent gives it (Warden does, in `_meta.warden.tool`), else
/// the title people read, cleaned.
pub(crate) fn tool_name(request: &RequestPermissionRequest) -> String {
    let fields = &request.tool_call.fields;
    request
        .meta
        .as_ref()
        .and_then(|meta| meta.get("warden"))
        .and_then(|warden| warden.get("tool"))
        .and_then(Value::as_str)
        .or(fields.name.as_deref())
        .or(fields.title.as_deref())
        .map(clean)
        .unwrap_or_else(|| clean(&request.tool_call.tool_call_id.to_string()))
}

/// The risk and reason line, when the agent sends them (Warden's `_meta.warden.risk` and
/// `_meta.warden.reason`): `Medium: writes a file`.
pub(crate) fn risk_line(request: &RequestPermissionRequest) -> Option<String> {
    let warden = request.meta.as_ref().and_then(|meta| meta.get("warden"))?;
    let risk = warden.get("risk").and_then(Value::as_str);
    let reason = warden.get("reason").and_then(Value::as_str);
    match (risk, reason) {
        (Some(risk), Some(reason)) => {
            Some(format!("{}: {}", capitalised(&clean(risk)), clean(reason)))
        }
        (Some(risk), None) => Some(format!("Risk: {}", capitalised(&clean(risk)))),
        (None, Some(reason)) => Some(clean(reason)),
        (None, None) => None,
    }
}

/// The permission prompt, laid out as the interactive one is, with the option picked.
pub fn permission(request: &RequestPermissionRequest, agent: &str, picked: &Picked) -> Vec<String> {
    let fields = &request.tool_call.fields;
    let server = clean(server(request, agent));
    let tool = tool_name(request);
    let mut lines = vec![
        format!("Allow tool call from {server}?"),
        format!("  Run {tool} from {server}"),
    ];
    if let Some(args) = &fields.raw_input {
        lines.push(format!("  > {}", clean(&args.to_string())));
    }
    let risk_line = risk_line(request);
    if let Some(line) = &risk_line {
        lines.push(line.clone());
    }
    // The agent may say the risk again in the call's content (Warden does, for clients
    // that do not read `_meta`): that line is not printed a second time, the rest of its
    // block (the deciding part, the command) is.
    let mut shown = serde_json::to_value(&fields.content).ok();
    if let (Some(line), Some(Value::Array(items))) = (&risk_line, shown.as_mut()) {
        for item in items.iter_mut() {
            let Some(text) = item.get("content").and_then(|c| str_of(c, "text")) else {
                continue;
            };
            if text.lines().next().map(clean).as_deref() == Some(line) {
                let rest: Vec<&str> = text.lines().skip(1).collect();
                let command = fields
                    .raw_input
                    .as_ref()
                    .and_then(|a| a.get("command"))
                    .and_then(Value::as_str);
                // The command is on the arguments' line already.
                let rest = crate::screen::without_fence_of(&rest.join("\n"), command);
                let rest = rest.trim().to_owned();
                item["content"]["text"] = Value::String(rest);
            }
        }
        items.retain(|item| {
            item.get("content")
                .and_then(|c| str_of(c, "text"))
                .is_none_or(|text| !text.is_empty())
        });
    }
    content(shown.as_ref(), &mut lines);
    lines.push(WARNING.to_owned());
    lines.push(REVIEW.to_owned());
    let mut session_offered = false;
    let options: Vec<String> = request
        .options
        .iter()
        .map(|option| {
            let label = match option.kind {
                PermissionOptionKind::AllowOnce => "Allow once".to_owned(),
                PermissionOptionKind::RejectOnce => "Deny".to_owned(),
                // The first "always" option is the prompt's "Allow for this chat"; its
                // label says what it would allow from now on.
                PermissionOptionKind::AllowAlways if !session_offered => {
                    session_offered = true;
                    if option.name == "Allow for this chat" {
                        option.name.clone()
                    } else {
                        format!("Allow for this chat: {}", option.name)
                    }
                }
                _ => option.name.clone(),
            };
            format!("[{}]", clean(&label))
        })
        .collect();
    lines.push(options.join(" "));
    lines.push(match (&picked.option, picked.allowed) {
        (Some(option), true) => format!("Chosen: {} ({})", clean(&option.name), picked.why),
        (Some(option), false) => format!("Denied: {} ({})", clean(&option.name), picked.why),
        (None, _) => format!("Denied: answered cancelled ({})", picked.why),
    });
    lines
}

/// `critical` as `Critical`, as a risk reads at the start of a line.
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
