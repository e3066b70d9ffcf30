//! The prompt grammar of the scripted model (docs/contract.md, section 3).

use serde_json::{Value, json};

use crate::code_span;

/// The help text the scripted model answers anything it does not understand with.
pub const HELP_TEXT: &str = "\
I am Warden's scripted model: I follow a small grammar, one command per line.

- `/call <tool> <json-object>`: propose a tool call, e.g. `/call fs_read {\"path\": \"README.md\"}`
- `/say <text>`: reply with the text
- `read <path>`, `list <path>`, `run <command>`, `write <path>: <text>`, `delete <path>`, `fetch <url>`: the same in plain words

All tool calls of one prompt are proposed together. Set `WARDEN_MODEL=openai:<model>` to use a real model.";

/// What the scripted model does with a prompt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plan {
    /// Say `say` (possibly empty), then propose `calls` (tool name, arguments) as one batch.
    Reply {
        say: String,
        calls: Vec<(String, Value)>,
    },
    /// The prompt cannot be followed; reply with this explanation and call nothing.
    Explain(String),
}

/// Reads a prompt. One bad line makes the whole prompt fail, so that a half-understood prompt
/// never runs some of its calls.
pub(crate) fn parse(prompt: &str) -> Plan {
    let mut say = Vec::new();
    let mut calls = Vec::new();
    for (number, line) in prompt.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match parse_line(line) {
            Ok(Line::Say(text)) => say.push(text),
            Ok(Line::Call(name, args)) => calls.push((name, args)),
            Err(LineError::Invalid(why)) => {
                return Plan::Explain(format!(
                    "I cannot follow line {}: {why}. Nothing was called.",
                    number + 1
                ));
            }
            Err(LineError::Unknown)
                if prompt.lines().filter(|l| !l.trim().is_empty()).count() == 1 =>
            {
                return Plan::Explain(HELP_TEXT.to_owned());
            }
            Err(LineError::Unknown) => {
                return Plan::Explain(format!(
                    "I do not understand line {}: {}. Nothing was called.\n\n{HELP_TEXT}",
                    number + 1,
                    code_span(line)
                ));
            }
        }
    }
    if say.is_empty() && calls.is_empty() {
        return Plan::Explain(HELP_TEXT.to_owned());
    }
    Plan::Reply {
        say: say.join("\n"),
        calls,
    }
}

enum Line {
    Say(String),
    Call(String, Value),
}

enum LineError {
    /// A known command used wrongly; the text says what is wrong.
    Invalid(String),
    /// Not a command at all.
    Unknown,
}

fn parse_line(line: &str) -> Result<Line, LineError> {
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    match word {
        "/say" if rest.is_empty() => Err(invalid("`/say` needs a text, e.g. `/say hello`")),
        "/say" => Ok(Line::Say(rest.to_owned())),
        "/call" => parse_call(rest),
        "read" => plain("fs_read", "path", rest, "read <path>"),
        "list" => plain("fs_list", "path", rest, "list <path>"),
        "run" => plain("terminal", "command", rest, "run <command>"),
        "delete" => plain("fs_delete", "path", rest, "delete <path>"),
        "fetch" => plain("http_fetch", "url", rest, "fetch <url>"),
        "write" => parse_write(rest),
        _ if word.starts_with('/') => Err(invalid(&format!(
            "unknown command {}: the commands are `/call <tool> <json-object>` and `/say <text>`",
            code_span(word)
        ))),
        _ => Err(LineError::Unknown),
    }
}

fn invalid(why: &str) -> LineError {
    LineError::Invalid(why.to_owned())
}

fn plain(tool: &str, key: &str, rest: &str, form: &str) -> Result<Line, LineError> {
    if rest.is_empty() {
        return Err(invalid(&format!("`{form}` needs its argument")));
    }
    Ok(Line::Call(tool.to_owned(), json!({ key: rest })))
}

fn parse_write(rest: &str) -> Result<Line, LineError> {
    let (path, text) = match rest.split_once(": ") {
        Some((path, text)) => (path.trim(), text),
        None => match rest.strip_suffix(':') {
            Some(path) => (path.trim(), ""),
            None => return Err(invalid("`write` needs the form `write <path>: <text>`")),
        },
    };
    if path.is_empty() {
        return Err(invalid("`write <path>: <text>` needs a path"));
    }
    Ok(Line::Call(
        "fs_write".to_owned(),
        json!({ "path": path, "content": text }),
    ))
}

fn parse_call(rest: &str) -> Result<Line, LineError> {
    const FORM: &str =
        "the form is `/call <tool> <json-object>`, e.g. `/call fs_read {\"path\": \"README.md\"}`";
    let (tool, json) = match rest.split_once(char::is_whitespace) {
        Some((tool, json)) => (tool, json.trim()),
        None => (rest, ""),
    };
    if tool.is_empty() {
        return Err(invalid(&format!("`/call` needs a tool name; {FORM}")));
    }
    if json.is_empty() {
        return Err(invalid(&format!(
            "{} needs a JSON object of arguments; {FORM}",
            code_span(&format!("/call {tool}"))
        )));
    }
    let value: Value = serde_json::from_str(json).map_err(|e| {
        invalid(&format!(
            "the arguments of {} are not valid JSON ({e})",
            code_span(&format!("/call {tool}"))
        ))
    })?;
    match value {
        Value::Object(object) => Ok(Line::Call(tool.to_owned(), Value::Object(object))),
        other => Err(invalid(&format!(
            "the arguments of {} must be a JSON object, not {}",
            code_span(&format!("/call {tool}")),
            kind(&other)
        ))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
