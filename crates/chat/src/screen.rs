//! What the interactive chat draws: the agent's text as Markdown, tool calls with their
//! status as it changes, diffs (coloured, folded when long), plans, the agent's slash
//! commands, and the permission prompt of the contract (section 9). Everything from the agent passes
//! [`clean`] first. Nothing is wider than the text it shows, so a narrow terminal only
//! wraps lines, and without escape codes ([`Style::PLAIN`]) it is plain text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::RequestPermissionRequest;
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::approvals::Buttons;
use crate::markdown::Markdown;
use crate::render::{REVIEW, WARNING, clean, risk_line, server, tool_name};
use crate::style::Style;

/// The most lines of one diff shown; the rest is folded into a count.
pub const DIFF_LINES: usize = 24;
/// The most lines of a tool call's text output shown.
const OUTPUT_LINES: usize = 12;

/// The agent's slash commands (`available_commands_update`), shared with the line
/// editor's completion.
pub type Commands = Arc<Mutex<Vec<String>>>;

#[derive(Debug, Default)]
struct Call {
    title: String,
    /// The call's diffs, shown once: with its permission prompt, or when it completes.
    diffs: Vec<Value>,
    diff_shown: bool,
    status: String,
}

/// The screen's memory of the session.
#[derive(Debug)]
pub struct Screen {
    style: Style,
    markdown: Markdown,
    calls: HashMap<String, Call>,
    commands: Commands,
}

fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

impl Screen {
    pub fn new(style: Style, commands: Commands) -> Screen {
        Screen {
            style,
            markdown: Markdown::new(style),
            calls: HashMap::new(),
            commands,
        }
    }

    pub fn style(&self) -> Style {
        self.style
    }

    /// Ends the agent's streamed text, drawing what is left of it.
    pub fn end_text(&mut self) -> String {
        self.markdown.finish()
    }

    /// Draws one `session/update` (its `update` object, as JSON).
    pub fn update(&mut self, update: &Value) -> String {
        let style = self.style;
        let kind = str_of(update, "sessionUpdate");
        if kind == Some("agent_message_chunk") {
            return match update.get("content").and_then(|c| str_of(c, "text")) {
                Some(text) => self.markdown.push(text),
                None => String::new(),
            };
        }
        let mut out = self.markdown.finish();
        let mut lines: Vec<String> = Vec::new();
        match kind {
            Some("tool_call") | Some("tool_call_update") => {
                let id = str_of(update, "toolCallId").unwrap_or("?").to_owned();
                let call = self.calls.entry(id.clone()).or_default();
                if let Some(title) = str_of(update, "title") {
                    call.title = clean(title);
                }
                if call.title.is_empty() {
                    call.title = clean(&id);
                }
                let status = match str_of(update, "status") {
                    Some(status) => Some(status),
                    // The schema's default for a new call, which the SDK leaves out.
                    None if kind == Some("tool_call") => Some("pending"),
                    None => None,
                };
                let mut texts = Vec::new();
                for item in update
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match str_of(item, "type") {
                        Some("diff") => call.diffs.push(item.clone()),
                        Some("content") => {
                            if let Some(text) = item.get("content").and_then(|c| str_of(c, "text"))
                            {
                                texts.push(text.to_owned());
                            }
                        }
                        _ => {}
                    }
                }
                let changed = status.is_some_and(|s| s != call.status);
                if let Some(status) = status {
                    call.status = status.to_owned();
                }
                if changed || kind == Some("tool_call") {
                    lines.push(status_line(style, &call.title, &call.status));
                }
                // A call that ran without a prompt shows what it changed when it is done.
                if call.status == "completed" && !call.diff_shown && !call.diffs.is_empty() {
                    call.diff_shown = true;
                    for diff in &call.diffs {
                        diff_lines(style, diff, &mut lines);
                    }
                }
                // The risk sentence of a pending call is shown by its prompt.
                if call.status != "pending" {
                    for text in texts {
                        folded(style, &text, OUTPUT_LINES, &mut lines);
                    }
                }
            }
            Some("plan") => {
                lines.push(style.bold("Plan"));
                for entry in update
                    .get("entries")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let content = clean(str_of(entry, "content").unwrap_or(""));
                    lines.push(match str_of(entry, "status") {
                        Some("completed") => {
                            format!("  {} {}", style.green("[x]"), style.dim(&content))
                        }
                        Some("in_progress") => format!("  {} {}", style.yellow("[~]"), content),
                        _ => format!("  [ ] {content}"),
                    });
                }
            }
            Some("available_commands_update") => {
                let names: Vec<String> = update
                    .get("availableCommands")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|c| str_of(c, "name"))
                    .map(|name| format!("/{}", clean(name)))
                    .collect();
                if !names.is_empty() {
                    lines
                        .push(style.dim(&format!("Commands (Tab completes): {}", names.join(" "))));
                }
                if let Ok(mut commands) = self.commands.lock() {
                    *commands = names;
                }
            }
            Some("current_mode_update") => {
                if let Some(mode) = str_of(update, "currentModeId") {
                    lines.push(style.dim(&format!("Mode: {}", clean(mode))));
                }
            }
            Some("user_message_chunk") => {
                if let Some(text) = update.get("content").and_then(|c| str_of(c, "text")) {
                    for line in text.lines() {
                        lines.push(style.bold(&format!("> {}", clean(line))));
                    }
                }
            }
            _ => {}
        }
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// The permission prompt for `request`, laid out as the contract says, with the
    /// buttons of `buttons` and what the person has added so far.
    pub fn prompt(
        &mut self,
        request: &RequestPermissionRequest,
        agent: &str,
        view: &PromptView<'_>,
    ) -> Vec<String> {
        let style = self.style;
        let server = clean(server(request, agent));
        let tool = tool_name(request);
        let mut lines = Vec::new();
        let count = if view.total > 1 {
            style.dim(&format!("  ({} of {})", view.index + 1, view.total))
        } else {
            String::new()
        };
        lines.push(format!(
            "{}{count}",
            style.bold(&format!("Allow tool call from {server}?"))
        ));
        let args = request.tool_call.fields.raw_input.as_ref();
        let shown_args = view.edited.or(args);
        if view.show_args {
            lines.push(format!(
                "  Run {tool} from {server}  {}",
                style.dim("(> hides the arguments)")
            ));
            if let Some(args) = shown_args {
                let pretty = serde_json::to_string_pretty(args).unwrap_or_default();
                for line in pretty.lines() {
                    lines.push(format!("    {}", clean(line)));
                }
            }
        } else {
            lines.push(format!(
                "  Run {tool} from {server}  {}",
                style.dim("(> shows the arguments)")
            ));
        }
        if view.edited.is_some() {
            lines.push(
                style.yellow("  Arguments edited: the agent checks them again before running"),
            );
        }
        let risk = risk_line(request);
        if let Some(line) = &risk {
            let painted = if line.starts_with("Critical") {
                style.bold_red(line)
            } else if line.starts_with("High") {
                style.red(line)
            } else {
                style.yellow(line)
            };
            lines.push(painted);
        }
        // The call's diff, and any other text the agent sends with it but the risk again.
        let id = request.tool_call.tool_call_id.to_string();
        let content = serde_json::to_value(&request.tool_call.fields.content).ok();
        let mut diffs: Vec<Value> = Vec::new();
        for item in content
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match str_of(item, "type") {
                Some("diff") => diffs.push(item.clone()),
                Some("content") => {
                    if let Some(text) = item.get("content").and_then(|c| str_of(c, "text")) {
                        let first = text.lines().next().map(clean);
                        if first.is_some() && first != risk {
                            folded(style, text, OUTPUT_LINES, &mut lines);
                        }
                    }
                }
                _ => {}
            }
        }
        let call = self.calls.entry(id).or_default();
        if diffs.is_empty() {
            diffs = call.diffs.clone();
        }
        call.diff_shown = true;
        if view.edited.is_some() && !diffs.is_empty() {
            lines.push(style.dim("  (the diff shows the agent's arguments, before your edit)"));
        }
        for diff in &diffs {
            diff_lines(style, diff, &mut lines);
        }
        if let Some(note) = view.note {
            lines.push(style.yellow(&format!("  Note: {}", clean(note))));
        }
        lines.push(WARNING.to_owned());
        lines.push(style.bold(REVIEW));
        lines.push(view.buttons.line(style));
        if let Some(scope) = view.buttons.scope() {
            lines.insert(lines.len() - 1, style.dim(&scope));
        }
        lines.push(style.dim(&view.buttons.keys(view.extras, view.undo)));
        lines
    }
}

/// What the person has done with the prompt on screen.
#[derive(Debug)]
pub struct PromptView<'a> {
    pub index: usize,
    pub total: usize,
    pub show_args: bool,
    pub edited: Option<&'a Value>,
    pub note: Option<&'a str>,
    pub buttons: &'a Buttons,
    /// Whether editing and notes are offered (the agent reads Warden's `_meta`).
    pub extras: bool,
    /// Whether an earlier answer of this batch can be undone.
    pub undo: bool,
}

fn status_line(style: Style, title: &str, status: &str) -> String {
    let (mark, word) = match status {
        "completed" => (style.green("✓"), style.green(status)),
        "failed" => (style.red("✗"), style.red(status)),
        "in_progress" => (style.yellow("…"), style.yellow("running")),
        other => (style.dim("·"), style.dim(&clean(other))),
    };
    format!("{mark} {} {word}", style.bold(title))
}

/// `text` indented, at most `max` lines, the rest counted.
fn folded(style: Style, text: &str, max: usize, lines: &mut Vec<String>) {
    let all: Vec<&str> = text.lines().collect();
    for line in all.iter().take(max) {
        lines.push(format!("  {} {}", style.dim("│"), clean(line)));
    }
    if all.len() > max {
        lines.push(style.dim(&format!("  … {} more lines (folded)", all.len() - max)));
    }
}

/// One diff item (`{path, oldText, newText}`) as a coloured unified diff, folded after
/// [`DIFF_LINES`] lines.
pub fn diff_lines(style: Style, diff: &Value, lines: &mut Vec<String>) {
    let path = clean(str_of(diff, "path").unwrap_or("?"));
    let old = str_of(diff, "oldText");
    let new = str_of(diff, "newText").unwrap_or("");
    let header = match old {
        None => format!("{path} (new file)"),
        Some(_) => path,
    };
    lines.push(format!("  {}", style.bold(&header)));
    let mut body: Vec<String> = Vec::new();
    let diff = TextDiff::from_lines(old.unwrap_or(""), new);
    for (i, group) in diff.grouped_ops(3).iter().enumerate() {
        if (i > 0 || old.is_some())
            && let (Some(first), Some(last)) = (group.first(), group.last())
        {
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            body.push(style.cyan(&format!(
                "@@ -{},{} +{},{} @@",
                old_range.start + 1,
                old_range.len(),
                new_range.start + 1,
                new_range.len()
            )));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let text = clean(change.value().trim_end_matches(['\n', '\r']));
                body.push(match change.tag() {
                    ChangeTag::Delete => style.red(&format!("-{text}")),
                    ChangeTag::Insert => style.green(&format!("+{text}")),
                    ChangeTag::Equal => format!(" {text}"),
                });
            }
        }
    }
    if body.is_empty() {
        body.push(style.dim("(no change)"));
    }
    let total = body.len();
    for line in body.into_iter().take(DIFF_LINES) {
        lines.push(format!("  {line}"));
    }
    if total > DIFF_LINES {
        lines.push(style.dim(&format!("  … {} more lines (folded)", total - DIFF_LINES)));
    }
}

#[cfg(test)]
mod tests;
