//! What a non-interactive chat prints: plain text for logs, never an escape code, and
//! nothing from the agent printed raw (its control characters are shown escaped). The
//! log's markers (`[tool]`, `[plan]`, `[mode]`) and status names are its format, the
//! same in every language; its sentences are in the reader's.

use std::collections::HashMap;

use agent_client_protocol::v1::schema::{PermissionOptionKind, RequestPermissionRequest};
use serde_json::Value;
use warden_i18n::{Args, Catalog};

use crate::approve::Picked;
use crate::clean::{clean, without_fence_of};
use crate::request::{repeats_risk, risk_line, server, tool_name};
use crate::view::{CallView, PlanMark, Shown, View, status_name};

/// The most lines of one tool call's content or diff side shown; the rest is counted.
const MAX_LINES: usize = 40;

/// What one `session/update` prints: streamed text, and whole lines.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub lines: Vec<String>,
}

/// Tool call titles by id, remembered so that a status change can name its call.
#[derive(Debug, Default)]
pub struct Titles(HashMap<String, String>);

/// Lines of `text`, each indented, at most [`MAX_LINES`] of them.
fn indented(text: &str, prefix: &str, words: &Catalog, lines: &mut Vec<String>) {
    let all: Vec<&str> = text.lines().collect();
    for line in all.iter().take(MAX_LINES) {
        lines.push(format!("{prefix}{}", clean(line)));
    }
    if all.len() > MAX_LINES {
        let count = all.len() - MAX_LINES;
        lines.push(format!(
            "{prefix}{}",
            words.text("chat-log-more-lines", &Args::new().with("count", count))
        ));
    }
}

/// A tool call's content: text blocks and diffs.
fn content(items: &[Shown], words: &Catalog, lines: &mut Vec<String>) {
    for item in items {
        match item {
            Shown::Text(text) => indented(text, "  | ", words, lines),
            Shown::Diff(diff) => {
                let path = clean(&diff.path.display().to_string());
                match &diff.old_text {
                    None => lines.push(format!(
                        "  diff {}",
                        words.text("chat-diff-new-file", &Args::new().with("path", path))
                    )),
                    Some(old) => {
                        lines.push(format!("  diff {path}"));
                        indented(old, "  - ", words, lines);
                    }
                }
                indented(&diff.new_text, "  + ", words, lines);
            }
            Shown::Terminal(id) => lines.push(format!("  (terminal {})", clean(id))),
        }
    }
}

/// Renders one update, read into the chat's [`View`].
pub fn update(view: &View, titles: &mut Titles, words: &Catalog) -> Rendered {
    let mut out = Rendered::default();
    match view {
        View::AgentText(text) => out.text = clean(text),
        View::Call(call) => {
            if let Some(title) = &call.title {
                titles.0.insert(call.id.clone(), clean(title));
            }
            let title = titles
                .0
                .get(&call.id)
                .cloned()
                .unwrap_or_else(|| clean(&call.id));
            if let Some(status) = call.status {
                out.lines
                    .push(format!("[tool] {title}: {}", status_name(status)));
            }
            content(&call.content, words, &mut out.lines);
        }
        View::Plan(entries) => {
            out.lines.push("[plan]".to_owned());
            for (mark, text) in entries {
                let mark = match mark {
                    PlanMark::Completed => "completed",
                    PlanMark::InProgress => "in_progress",
                    PlanMark::Pending => "pending",
                };
                out.lines.push(format!("  [{mark}] {}", clean(text)));
            }
        }
        View::Mode(mode) => out.lines.push(format!("[mode] {}", clean(mode))),
        View::UserText(_) | View::Commands(_) | View::ResumedTurnEnded | View::Nothing => {}
    }
    out
}

/// The permission prompt, laid out as the interactive one is, with the option picked.
pub fn permission(
    request: &RequestPermissionRequest,
    agent: &str,
    picked: &Picked,
    words: &Catalog,
) -> Vec<String> {
    let fields = &request.tool_call.fields;
    let server = server(request, agent);
    let tool = tool_name(request);
    let mut lines = vec![
        words.text(
            "chat-prompt-header",
            &Args::new().with("server", server.clone()),
        ),
        format!(
            "  {}",
            words.text(
                "chat-prompt-run",
                &Args::new().with("tool", tool).with("server", server)
            )
        ),
    ];
    if let Some(args) = &fields.raw_input {
        lines.push(format!("  > {}", clean(&args.to_string())));
    }
    let risk_line = risk_line(words, request);
    if let Some(line) = &risk_line {
        lines.push(line.clone());
    }
    // The agent may say the risk again in the call's content (Warden does, for clients
    // that do not read `_meta`): that line is not printed a second time, the rest of its
    // block (the deciding part, the command) is, without the command, which is on the
    // arguments' line already.
    let command = fields
        .raw_input
        .as_ref()
        .and_then(|a| a.get("command"))
        .and_then(Value::as_str);
    let shown: Vec<Shown> = CallView::of_request(request)
        .content
        .into_iter()
        .filter_map(|item| match item {
            Shown::Text(text) => {
                let first = text.lines().next().map(clean).unwrap_or_default();
                if !repeats_risk(&first, risk_line.as_deref(), request) {
                    return Some(Shown::Text(text));
                }
                let rest: Vec<&str> = text.lines().skip(1).collect();
                let rest = without_fence_of(&rest.join("\n"), command);
                let rest = rest.trim();
                (!rest.is_empty()).then(|| Shown::Text(rest.to_owned()))
            }
            other => Some(other),
        })
        .collect();
    content(&shown, words, &mut lines);
    lines.push(words.plain("chat-prompt-warning"));
    lines.push(words.plain("chat-prompt-review"));
    lines.push(options(request, words));
    let why = words.plain(picked.why);
    lines.push(match (&picked.option, picked.allowed) {
        (Some(option), true) => words.text(
            "chat-log-chosen",
            &Args::new()
                .with("option", clean(&option.name))
                .with("why", why),
        ),
        (Some(option), false) => words.text(
            "chat-log-denied",
            &Args::new()
                .with("option", clean(&option.name))
                .with("why", why),
        ),
        (None, _) => words.text("chat-log-cancelled", &Args::new().with("why", why)),
    });
    lines
}

/// The agent's options in brackets: the chat's own words for the kinds it knows.
fn options(request: &RequestPermissionRequest, words: &Catalog) -> String {
    let session = words.plain("chat-option-allow-session");
    let mut session_offered = false;
    let mut deny_offered = false;
    let options: Vec<String> = request
        .options
        .iter()
        .map(|option| {
            let label = match option.kind {
                PermissionOptionKind::AllowOnce => words.plain("chat-option-allow-once"),
                // Only the first is the prompt's "Deny": a further reject option ("Reject
                // and stop", the form) keeps its own name, or two would read alike.
                PermissionOptionKind::RejectOnce if !deny_offered => {
                    deny_offered = true;
                    words.plain("chat-option-deny")
                }
                // The first "always" option is the prompt's "Allow for this chat"; its
                // label says what it would allow from now on.
                PermissionOptionKind::AllowAlways if !session_offered => {
                    session_offered = true;
                    if option.name == session || option.name == "Allow for this chat" {
                        session.clone()
                    } else {
                        format!("{session}: {}", option.name)
                    }
                }
                _ => option.name.clone(),
            };
            format!("[{}]", clean(&label))
        })
        .collect();
    options.join(" ")
}

#[cfg(test)]
mod tests;
