//! MCP tools and tools Warden does not know: High, adjusted by MCP annotations.

use serde_json::Value;

use super::{Assessment, Unit};
use crate::paths::{self, FileOp};
use crate::{Context, Risk, Sentence, ToolCall};

/// How many string arguments of an MCP call are looked at for paths, and how long one
/// may be: enough for any real call, bounded for a hostile one.
const MAX_STRINGS: usize = 256;
const MAX_PATH_LEN: usize = 4096;

/// The string arguments that are written as paths (absolute, `~`, or relative with
/// `./` or `../`), anywhere in the arguments.
fn path_like(args: &Value, out: &mut Vec<String>) {
    if out.len() >= MAX_STRINGS {
        return;
    }
    match args {
        Value::String(s)
            if s.len() <= MAX_PATH_LEN
                && (s.starts_with('/')
                    || s == "~"
                    || s.starts_with("~/")
                    || s.starts_with("./")
                    || s.starts_with("../")) =>
        {
            out.push(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| path_like(v, out)),
        Value::Object(map) => map.values().for_each(|v| path_like(v, out)),
        _ => {}
    }
}

/// The strictest risk the call's path arguments carry, judged as a built-in tool's
/// would be: as a read when the server says the tool only reads, else as a write
/// (Warden cannot know what the tool does with the path). Only sensitive paths count:
/// an ordinary path says nothing about an MCP tool beyond its own rating.
fn sensitive_paths(call: &ToolCall, ctx: &Context) -> Option<(Risk, Sentence)> {
    // Only MCP tools: a tool Warden does not know at all is High already.
    call.mcp_parts()?;
    let op = match call.annotations {
        Some(a) if a.read_only == Some(true) && a.destructive != Some(true) => FileOp::Read,
        _ => FileOp::Write,
    };
    let mut found = Vec::new();
    path_like(&call.args, &mut found);
    found
        .iter()
        .map(|raw| paths::resolve(raw, ctx))
        .filter(|resolved| resolved.sensitive.is_some())
        .map(|resolved| paths::path_risk(op, &resolved))
        .reduce(|a, b| if b.0 > a.0 { b } else { a })
}

pub(super) fn assess(call: &ToolCall, ctx: &Context) -> Assessment {
    let (mut risk, mut why, reason) = match call.mcp_parts() {
        Some((server, tool)) => (
            Risk::High,
            Sentence::new("engine-mcp-risk"),
            Sentence::new("engine-call-mcp")
                .text("tool", tool)
                .text("server", server),
        ),
        None => (
            Risk::High,
            Sentence::new("engine-unknown-tool-risk"),
            Sentence::new("engine-call-tool").text("tool", call.tool.as_str()),
        ),
    };
    // The annotations come from the server, which may lie: a destructive hint is
    // believed (it only makes things stricter), a read-only hint lowers no further
    // than Medium, so that such a call still asks in the default mode, unless the
    // user's own policy trusts this very server (its name with its command or URL).
    if let Some(a) = call.annotations {
        if a.destructive == Some(true) {
            risk = Risk::Critical;
            why = Sentence::new("engine-mcp-destructive");
        } else if a.read_only == Some(true) && a.trusted {
            risk = Risk::Low;
            why = Sentence::new("engine-mcp-read-only-trusted");
        } else if a.read_only == Some(true) {
            risk = Risk::Medium;
            why = Sentence::new("engine-mcp-read-only");
        }
    }
    // A path argument is judged as it would be for a built-in tool, whatever the
    // server says about the tool: a sensitive one raises the call.
    if let Some((path_risk, path_why)) = sensitive_paths(call, ctx)
        && path_risk > risk
    {
        risk = path_risk;
        why = Sentence::new("engine-mcp-sensitive-path").sentence("reason", path_why);
    }
    Assessment::single(Unit {
        text: call.tool.clone(),
        risk,
        own_risk: None,
        reason: why,
        argv: Vec::new(),
        paths: Vec::new(),
        reads: Vec::new(),
        reads_below: false,
        writes_files: false,
        opaque: false,
        env: Vec::new(),
    })
    .with_reason(reason)
}

impl Assessment {
    fn with_reason(mut self, reason: Sentence) -> Assessment {
        self.reason = reason;
        self
    }
}
