//! What the interactive chat draws: the agent's text as Markdown, tool calls with their
//! status as it changes, diffs (coloured, folded when long), plans, the agent's slash
//! commands, and the permission prompt of the contract (section 9). Everything from the agent passes
//! [`clean`] first. Nothing is wider than the text it shows, so a narrow terminal only
//! wraps lines, and without escape codes ([`Style::PLAIN`]) it is plain text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
    /// When the call started running, while it runs.
    started: Option<Instant>,
    /// The output it streamed while running (`tool_call_update` content while
    /// `in_progress`), shown folded in the live lines below everything else.
    streamed: String,
}

/// The frames of the spinner of a running tool.
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// How many of the last lines of a running tool's streamed output the live lines show.
const LIVE_OUTPUT_LINES: usize = 4;

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
            markdown: Markdown::with_width(style, crate::transcript::terminal_width()),
            calls: HashMap::new(),
            commands,
        }
    }

    pub fn style(&self) -> Style {
        self.style
    }

    /// The agent's slash commands (`/name`), as it last sent them.
    pub fn commands(&self) -> Vec<String> {
        self.commands.lock().map(|c| c.clone()).unwrap_or_default()
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
                self.tool_call(kind == Some("tool_call"), update, &mut lines);
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
                    // The chat's own, completed like the agent's.
                    commands.push("/help".to_owned());
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

    /// A `tool_call` (`new`) or `tool_call_update`: its status line when it changes, its
    /// diff when it completed without a prompt, its output (live while it runs).
    fn tool_call(&mut self, new: bool, update: &Value, lines: &mut Vec<String>) {
        let style = self.style;
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
            None if new => Some("pending"),
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
                    if let Some(text) = item.get("content").and_then(|c| str_of(c, "text")) {
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
        if call.status == "in_progress" {
            call.started.get_or_insert_with(Instant::now);
        } else {
            call.started = None;
        }
        if changed || new {
            lines.push(status_line(style, &call.title, &call.status));
        }
        // Output streamed while the call runs goes to the live lines (with escape
        // codes); what it ends with is shown below its final status.
        if call.status == "in_progress" && style.ansi {
            if let Some(last) = texts.pop() {
                call.streamed = last;
            }
            texts.clear();
        } else if matches!(call.status.as_str(), "completed" | "failed")
            && !call.streamed.is_empty()
        {
            let streamed = std::mem::take(&mut call.streamed);
            if texts.is_empty() {
                texts.push(streamed);
            }
        }
        // A call that ran without a prompt shows what it changed when it is done.
        if call.status == "completed" && !call.diff_shown && !call.diffs.is_empty() {
            call.diff_shown = true;
            for diff in &call.diffs {
                diff_lines(style, diff, lines);
            }
        }
        // The risk sentence of a pending call is shown by its prompt.
        if call.status != "pending" {
            for text in texts {
                folded(style, &text, OUTPUT_LINES, lines);
            }
        }
    }

    /// How many calls wait for an answer (`pending`) and how many run (`in_progress`),
    /// as the agent last said.
    pub fn open_calls(&self) -> (usize, usize) {
        let count = |status: &str| self.calls.values().filter(|c| c.status == status).count();
        (count("pending"), count("in_progress"))
    }

    /// The live lines below everything else while tools run: each running call with a
    /// spinner and the time it has run, and the last lines of what the latest one
    /// streamed. Empty when nothing runs.
    pub fn live(&self, frame: usize) -> Vec<String> {
        let style = self.style;
        let mut running: Vec<(&Instant, &Call)> = self
            .calls
            .values()
            .filter_map(|call| call.started.as_ref().map(|started| (started, call)))
            .collect();
        running.sort_by_key(|(started, _)| **started);
        let mut lines = Vec::new();
        let spin = SPINNER[frame % SPINNER.len()];
        for (started, call) in &running {
            let secs = started.elapsed().as_secs_f32();
            lines.push(format!(
                "{} {} {}",
                style.yellow(&spin.to_string()),
                style.bold(&call.title),
                style.dim(&format!("running · {secs:.1}s"))
            ));
        }
        if let Some((_, call)) = running.last() {
            let all: Vec<&str> = call.streamed.lines().collect();
            let skip = all.len().saturating_sub(LIVE_OUTPUT_LINES);
            if skip > 0 {
                lines.push(style.dim(&format!("  │ … {skip} lines above")));
            }
            for line in &all[skip..] {
                lines.push(format!("  {} {}", style.dim("│"), clean(line)));
            }
        }
        lines
    }

    /// The permission prompt for `request`, laid out as the contract says, with the
    /// buttons of `buttons` and what the person has added so far. The command (or the
    /// arguments) is always on screen in full.
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
        let header = format!("Allow tool call from {server}?");
        lines.push(format!("{}{count}", style.bold(&header)));
        let id = request.tool_call.tool_call_id.to_string();
        let content = serde_json::to_value(&request.tool_call.fields.content).ok();
        let items: Vec<Value> = content
            .as_ref()
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut diffs: Vec<Value> = items
            .iter()
            .filter(|item| str_of(item, "type") == Some("diff"))
            .cloned()
            .collect();
        let call = self.calls.entry(id).or_default();
        if diffs.is_empty() {
            diffs = call.diffs.clone();
        }
        call.diff_shown = true;
        let toggle = if view.show_args {
            "(> hides the arguments as JSON)"
        } else {
            "(> shows the arguments)"
        };
        lines.push(format!("  Run {tool} from {server}  {}", style.dim(toggle)));
        let args = request.tool_call.fields.raw_input.as_ref();
        let shown_args = view.edited.or(args);
        let command = shown_args
            .and_then(|a| a.get("command"))
            .and_then(Value::as_str);
        arguments(
            style,
            shown_args,
            view.show_args,
            !diffs.is_empty(),
            &mut lines,
        );
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
        agent_texts(style, &items, risk.as_deref(), &header, command, &mut lines);
        if view.edited.is_some() && !diffs.is_empty() {
            lines.push(style.dim("  (the diff shows the agent's arguments, before your edit)"));
        }
        let limit = if view.whole_diff {
            usize::MAX
        } else {
            DIFF_LINES
        };
        let mut folded_any = false;
        for diff in &diffs {
            folded_any |= diff_lines_max(style, diff, limit, &mut lines);
        }
        if view.whole_diff && !diffs.is_empty() {
            lines.push(style.dim("  (v folds the diff again)"));
        }
        if let Some(note) = view.note {
            lines.push(style.yellow(&format!("  Note: {}", clean(note))));
        }
        lines.push(WARNING.to_owned());
        lines.push(style.bold(REVIEW));
        if let Some(scope) = view.buttons.scope() {
            lines.push(style.dim(&scope));
        }
        lines.push(view.buttons.line(style));
        let diff_key = folded_any || view.whole_diff;
        lines.push(style.dim(&view.buttons.keys(view.extras, view.undo, diff_key)));
        lines
    }
}

/// Any text the agent sends with the call. Warden's block that starts with the risk line
/// goes on with the deciding part and the command: the rest of it is shown, without the
/// command a second time. Warden's question about an MCP tool is not: its header, the
/// arguments and the warning are all on screen already.
fn agent_texts(
    style: Style,
    items: &[Value],
    risk: Option<&str>,
    header: &str,
    command: Option<&str>,
    lines: &mut Vec<String>,
) {
    for item in items {
        let Some(text) = item.get("content").and_then(|c| str_of(c, "text")) else {
            continue;
        };
        let first = text.lines().next().map(clean);
        if first.is_some() && first.as_deref() == risk {
            let rest: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
            let rest = without_fence_of(&rest, command);
            markdown_lines(style, rest.trim(), lines);
        } else if first.as_deref() != Some(header) {
            folded(style, text, OUTPUT_LINES, lines);
        }
    }
}

/// Argument names whose values a diff shows: in the one-line arguments they are
/// replaced by a pointer to the diff, so that a long write is not shown twice.
const DIFF_FIELDS: [&str; 5] = ["content", "new_text", "old_text", "newText", "oldText"];

/// The call's arguments, always in full: a shell command as `$ command` (every line of
/// it), anything else as one line of JSON, or all of it as indented JSON (`>`).
fn arguments(
    style: Style,
    args: Option<&Value>,
    pretty: bool,
    has_diff: bool,
    lines: &mut Vec<String>,
) {
    let Some(args) = args else {
        return;
    };
    if pretty {
        let text = serde_json::to_string_pretty(args).unwrap_or_default();
        for line in text.lines() {
            lines.push(format!("    {}", clean(line)));
        }
        return;
    }
    let mut rest = args.clone();
    if let (Some(command), Some(map)) = (
        args.get("command").and_then(Value::as_str),
        rest.as_object_mut(),
    ) {
        map.remove("command");
        for (i, line) in command.lines().enumerate() {
            let mark = if i == 0 { "$" } else { " " };
            lines.push(format!(
                "  {} {}",
                style.dim(mark),
                style.bold(&clean(line))
            ));
        }
        if command.is_empty() {
            lines.push(format!("  {}", style.dim("$")));
        }
        if map.is_empty() {
            return;
        }
    }
    if has_diff && let Some(map) = rest.as_object_mut() {
        for field in DIFF_FIELDS {
            if let Some(value) = map.get_mut(field)
                && let Some(text) = value.as_str()
            {
                *value = Value::String(format!("({} bytes, in the diff below)", text.len()));
            }
        }
    }
    lines.push(format!("  {}", clean(&rest.to_string())));
}

/// `text` without a fenced code block whose body is exactly `command`.
pub(crate) fn without_fence_of(text: &str, command: Option<&str>) -> String {
    let Some(command) = command else {
        return text.to_owned();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let fence: String = lines[i].chars().take_while(|c| *c == '`').collect();
        if fence.len() >= 3
            && let Some(end) = (i + 1..lines.len()).find(|&j| lines[j].trim_end() == fence)
            && lines[i + 1..end].join("\n") == command
        {
            let mut out: Vec<&str> = lines[..i].to_vec();
            out.extend_from_slice(&lines[end + 1..]);
            return out.join("\n");
        }
        i += 1;
    }
    text.to_owned()
}

/// Markdown from the agent, rendered and indented, every line of it.
fn markdown_lines(style: Style, text: &str, lines: &mut Vec<String>) {
    if text.is_empty() {
        return;
    }
    let mut markdown = Markdown::new(style);
    let mut out = markdown.push(text);
    out.push_str(&markdown.finish());
    for line in out.lines() {
        if line.trim().is_empty() {
            continue;
        }
        lines.push(format!("  {line}"));
    }
}

/// What the person has done with the prompt on screen.
#[derive(Debug)]
pub struct PromptView<'a> {
    pub index: usize,
    pub total: usize,
    pub show_args: bool,
    /// The diffs whole rather than folded (`v`).
    pub whole_diff: bool,
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

/// `text` indented, at most `max` lines, the rest counted. The fences of code blocks
/// (Warden puts a command's output in one) are not shown: the block is indented already.
fn folded(style: Style, text: &str, max: usize, lines: &mut Vec<String>) {
    let all: Vec<&str> = text
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            !(line.starts_with("```") || line.starts_with("~~~"))
        })
        .collect();
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
    diff_lines_max(style, diff, DIFF_LINES, lines);
}

/// A diff item whole, never folded (`warden pending show`).
pub fn whole_diff(style: Style, diff: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    diff_lines_max(style, diff, usize::MAX, &mut lines);
    lines
}

/// A diff folded after `max` lines; returns whether some were folded.
fn diff_lines_max(style: Style, diff: &Value, max: usize, lines: &mut Vec<String>) -> bool {
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
    for line in body.into_iter().take(max) {
        lines.push(format!("  {line}"));
    }
    if total > max {
        lines.push(style.dim(&format!("  … {} more lines (folded)", total - max)));
        return true;
    }
    false
}

#[cfg(test)]
mod tests;
