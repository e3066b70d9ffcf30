//! MCP tools and tools Warden does not know: High, adjusted by MCP annotations.

use super::{Assessment, Unit};
use crate::{Risk, ToolCall};

pub(super) fn assess(call: &ToolCall) -> Assessment {
    let (mut risk, mut why, reason) = match call.mcp_parts() {
        Some((server, tool)) => (
            Risk::High,
            "an MCP server's tool can do anything its server can".to_owned(),
            format!("Call tool `{tool}` of MCP server `{server}`"),
        ),
        None => (
            Risk::High,
            "Warden does not know what this tool does".to_owned(),
            format!("Call tool `{}`", call.tool),
        ),
    };
    // The annotations come from the server, which may lie: a destructive hint is
    // believed (it only makes things stricter), a read-only hint lowers no further
    // than Medium, so that such a call still asks in the default mode, unless the
    // user's own policy trusts this very server (its name with its command or URL).
    if let Some(a) = call.annotations {
        if a.destructive == Some(true) {
            risk = Risk::Critical;
            why = "its server says the tool is destructive".into();
        } else if a.read_only == Some(true) && a.trusted {
            risk = Risk::Low;
            why =
                "its server, whose annotations your policy trusts, says the tool only reads".into();
        } else if a.read_only == Some(true) {
            risk = Risk::Medium;
            why = "its server says the tool only reads (not verified)".into();
        }
    }
    Assessment::single(Unit {
        text: call.tool.clone(),
        risk,
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
    fn with_reason(mut self, reason: String) -> Assessment {
        self.reason = reason;
        self
    }
}
