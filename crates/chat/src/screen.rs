//! What the interactive chat draws: the agent's text as Markdown, tool calls with their
//! status as it changes, diffs (coloured, folded when long), plans, the agent's slash
//! commands, and the permission prompt of the contract (section 9). Everything from the agent passes
//! [`clean`] first. Nothing is wider than the text it shows, so a narrow terminal only
//! wraps lines, and without escape codes ([`Style::PLAIN`]) it is plain text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use agent_client_protocol::v1::schema::{Diff, RequestPermissionRequest};
use serde_json::Value;
use warden_i18n::{Args, Catalog};
use warden_verdict::Risk;

use crate::approvals::Buttons;
use crate::clean::{clean, without_fence_of};
use crate::diff::{DIFF_LINES, diff_lines, diff_lines_max, folded};
use crate::markdown::Markdown;
use crate::request::{Marks, repeats_risk, risk_line, server, tool_name};
use crate::style::{Style, terminal_width};
use crate::view::{CallView, PlanMark, View, status_name};

/// The most lines of a tool call's text output shown.
const OUTPUT_LINES: usize = 12;

/// The agent's slash commands (`available_commands_update`), shared with the line
/// editor's completion.
pub type Commands = Arc<Mutex<Vec<String>>>;

#[derive(Debug, Default)]
struct Call {
    title: String,
    /// The call's diffs, shown once: with its permission prompt, or when it completes.
    diffs: Vec<Diff>,
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
    /// The chat's own words, in the reader's language.
    words: &'static Catalog,
}

impl Screen {
    pub fn new(style: Style, commands: Commands, words: &'static Catalog) -> Screen {
        Screen {
            style,
            markdown: Markdown::with_width(style, terminal_width()),
            calls: HashMap::new(),
            commands,
            words,
        }
    }

    /// The chat's own words.
    pub fn words(&self) -> &'static Catalog {
        self.words
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

    /// Draws one update, read into the chat's [`View`].
    pub fn update(&mut self, view: &View) -> String {
        let style = self.style;
        if let View::AgentText(text) = view {
            return self.markdown.push(text);
        }
        let mut out = self.markdown.finish();
        let mut lines: Vec<String> = Vec::new();
        match view {
            View::Call(call) => self.tool_call(call, &mut lines),
            View::Plan(entries) => {
                lines.push(style.bold(&self.words.plain("chat-plan")));
                for (mark, content) in entries {
                    let content = clean(content);
                    lines.push(match mark {
                        PlanMark::Completed => {
                            format!("  {} {}", style.green("[x]"), style.dim(&content))
                        }
                        PlanMark::InProgress => format!("  {} {}", style.yellow("[~]"), content),
                        PlanMark::Pending => format!("  [ ] {content}"),
                    });
                }
            }
            View::Commands(names) => {
                let names: Vec<String> = names.iter().map(|n| format!("/{}", clean(n))).collect();
                if !names.is_empty() {
                    lines.push(style.dim(&self.words.text(
                        "chat-commands-offered",
                        &Args::new().with("commands", names.join(" ")),
                    )));
                }
                if let Ok(mut commands) = self.commands.lock() {
                    *commands = names;
                    // The chat's own, completed like the agent's.
                    commands.push("/help".to_owned());
                }
            }
            View::Mode(mode) => {
                lines.push(
                    style.dim(
                        &self
                            .words
                            .text("chat-mode", &Args::new().with("mode", clean(mode))),
                    ),
                );
            }
            View::UserText(text) => {
                for line in text.lines() {
                    lines.push(style.bold(&format!("> {}", clean(line))));
                }
            }
            View::AgentText(_) | View::ResumedTurnEnded | View::Nothing => {}
        }
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// A `tool_call` (`new`) or `tool_call_update`: its status line when it changes, its
    /// diff when it completed without a prompt, its output (live while it runs).
    fn tool_call(&mut self, update: &CallView, lines: &mut Vec<String>) {
        let style = self.style;
        let call = self.calls.entry(update.id.clone()).or_default();
        if let Some(title) = &update.title {
            call.title = clean(title);
        }
        if call.title.is_empty() {
            call.title = clean(&update.id);
        }
        let status = update.status.map(status_name);
        call.diffs.extend(update.diffs());
        let mut texts = update.texts();
        let changed = status.is_some_and(|s| s != call.status);
        if let Some(status) = status {
            call.status = status.to_owned();
        }
        if call.status == "in_progress" {
            call.started.get_or_insert_with(Instant::now);
        } else {
            call.started = None;
        }
        if changed || update.new {
            lines.push(status_line(style, self.words, &call.title, &call.status));
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
                diff_lines(style, self.words, diff, lines);
            }
        }
        // The risk sentence of a pending call is shown by its prompt.
        if call.status != "pending" {
            for text in texts {
                folded(style, self.words, &text, OUTPUT_LINES, lines);
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
                style.dim(&self.words.text(
                    "chat-running-for",
                    &Args::new().with("seconds", format!("{secs:.1}"))
                ))
            ));
        }
        if let Some((_, call)) = running.last() {
            let all: Vec<&str> = call.streamed.lines().collect();
            let skip = all.len().saturating_sub(LIVE_OUTPUT_LINES);
            if skip > 0 {
                lines.push(style.dim(&format!(
                    "  │ {}",
                    self.words.text("chat-lines-above", &Args::new().with("count", skip))
                )));
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
        let (style, words) = (self.style, self.words);
        let server = server(request, agent);
        let tool = tool_name(request);
        let mut lines = Vec::new();
        let count = if view.total > 1 {
            style.dim(&format!(
                "  {}",
                words.text(
                    "chat-prompt-count",
                    &Args::new()
                        .with("index", view.index + 1)
                        .with("total", view.total),
                )
            ))
        } else {
            String::new()
        };
        let header = words.text(
            "chat-prompt-header",
            &Args::new().with("server", server.clone()),
        );
        lines.push(format!("{}{count}", style.bold(&header)));
        let content = CallView::of_request(request);
        let call = self
            .calls
            .entry(request.tool_call.tool_call_id.to_string())
            .or_default();
        let mut diffs = content.diffs();
        if diffs.is_empty() {
            diffs = call.diffs.clone();
        }
        call.diff_shown = true;
        let toggle = words.plain(if view.show_args {
            "chat-prompt-args-hide"
        } else {
            "chat-prompt-args-show"
        });
        let run = words.text(
            "chat-prompt-run",
            &Args::new().with("tool", tool).with("server", server),
        );
        lines.push(format!("  {run}  {}", style.dim(&toggle)));
        let shown_args = view.edited.or(request.tool_call.fields.raw_input.as_ref());
        let command = shown_args
            .and_then(|a| a.get("command"))
            .and_then(Value::as_str);
        let shape = Shape {
            pretty: view.show_args,
            has_diff: !diffs.is_empty(),
        };
        arguments(style, words, shown_args, shape, &mut lines);
        if view.edited.is_some() {
            lines.push(style.yellow(&format!("  {}", words.plain("chat-prompt-edited"))));
        }
        let risk = risk_line(words, request);
        if let Some(line) = &risk {
            lines.push(match Marks::of(request).risk() {
                Some(Risk::Critical) => style.bold_red(line),
                Some(Risk::High) => style.red(line),
                _ => style.yellow(line),
            });
        }
        let said = Said {
            risk: risk.as_deref(),
            header: &header,
            command,
        };
        agent_texts(style, words, request, &content.texts(), &said, &mut lines);
        self.prompt_end(&diffs, view, &mut lines);
        lines
    }

    /// The prompt's diffs, the person's note, the warning and the buttons.
    fn prompt_end(&self, diffs: &[Diff], view: &PromptView<'_>, lines: &mut Vec<String>) {
        let (style, words) = (self.style, self.words);
        if view.edited.is_some() && !diffs.is_empty() {
            lines.push(style.dim(&format!(
                "  {}",
                words.plain("chat-prompt-diff-before-edit")
            )));
        }
        let limit = if view.whole_diff {
            usize::MAX
        } else {
            DIFF_LINES
        };
        let mut folded_any = false;
        for diff in diffs {
            folded_any |= diff_lines_max(style, words, diff, limit, lines);
        }
        if view.whole_diff && !diffs.is_empty() {
            lines.push(style.dim(&format!("  {}", words.plain("chat-prompt-diff-fold"))));
        }
        if let Some(note) = view.note {
            lines.push(style.yellow(&format!(
                "  {}",
                words.text("chat-prompt-note", &Args::new().with("note", clean(note)))
            )));
        }
        lines.push(words.plain("chat-prompt-warning"));
        lines.push(style.bold(&words.plain("chat-prompt-review")));
        if let Some(scope) = view.buttons.scope(words) {
            lines.push(style.dim(&scope));
        }
        lines.push(view.buttons.line(style, words));
        let diff_key = folded_any || view.whole_diff;
        lines.push(style.dim(&view.buttons.keys(words, view.extras, view.undo, diff_key)));
    }
}

/// What the prompt has said already, which the agent's texts do not repeat.
struct Said<'a> {
    risk: Option<&'a str>,
    header: &'a str,
    command: Option<&'a str>,
}

/// How the arguments are laid out.
#[derive(Clone, Copy)]
struct Shape {
    /// All of them as indented JSON (`>`).
    pretty: bool,
    /// A diff shows the written text, so the one-line arguments point at it.
    has_diff: bool,
}

/// Any text the agent sends with the call. Warden's block that starts with the risk line
/// goes on with the deciding part and the command: the rest of it is shown, without the
/// command a second time. Warden's question about an MCP tool is not: its header, the
/// arguments and the warning are all on screen already.
fn agent_texts(
    style: Style,
    words: &Catalog,
    request: &RequestPermissionRequest,
    texts: &[String],
    said: &Said<'_>,
    lines: &mut Vec<String>,
) {
    for text in texts {
        let first = text.lines().next().map(clean).unwrap_or_default();
        if repeats_risk(&first, said.risk, request) {
            let rest: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
            let rest = without_fence_of(&rest, said.command);
            markdown_lines(style, rest.trim(), lines);
        } else if first != said.header {
            folded(style, words, text, OUTPUT_LINES, lines);
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
    words: &Catalog,
    args: Option<&Value>,
    shape: Shape,
    lines: &mut Vec<String>,
) {
    let Some(args) = args else {
        return;
    };
    if shape.pretty {
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
    if shape.has_diff
        && let Some(map) = rest.as_object_mut()
    {
        for field in DIFF_FIELDS {
            if let Some(value) = map.get_mut(field)
                && let Some(text) = value.as_str()
            {
                *value = Value::String(words.text(
                    "chat-prompt-bytes-in-diff",
                    &Args::new().with("bytes", text.len()),
                ));
            }
        }
    }
    lines.push(format!("  {}", clean(&rest.to_string())));
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

fn status_line(style: Style, words: &Catalog, title: &str, status: &str) -> String {
    let (mark, word) = match status {
        "completed" => (
            style.green("✓"),
            style.green(&words.plain("chat-status-completed")),
        ),
        "failed" => (
            style.red("✗"),
            style.red(&words.plain("chat-status-failed")),
        ),
        "in_progress" => (
            style.yellow("…"),
            style.yellow(&words.plain("chat-status-running")),
        ),
        "pending" => (
            style.dim("·"),
            style.dim(&words.plain("chat-status-pending")),
        ),
        other => (style.dim("·"), style.dim(&clean(other))),
    };
    format!("{mark} {} {word}", style.bold(title))
}

#[cfg(test)]
mod tests;
