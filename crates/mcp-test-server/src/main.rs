//! An MCP server for Warden's tests, on stdio. The first argument picks how it behaves:
//!
//! - `good` (the default): well-behaved tools, including ones that crash the server,
//!   hang, spawn a child of their own, change the tool list, return 50 MB or read a
//!   file (the sandbox tests: a server that tries to read a key);
//! - `exit`: exits at once; `silent`: never answers `initialize`; `garbage`: writes
//!   malformed JSON; `flood`: sends a flood of notifications after `initialize`;
//!   `bad-schema`: a tool whose input schema is not an object schema; `bad-names`:
//!   tools named in ways the model cannot be shown, and a duplicate.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

#[derive(Clone)]
struct Server {
    mode: String,
    /// Set by `change_tools`: the list then has one more tool.
    changed: Arc<AtomicBool>,
}

fn tool(name: &str, description: &str, schema: Value, annotations: Option<Value>) -> Value {
    let mut t = json!({ "name": name, "description": description, "inputSchema": schema });
    if let Some(a) = annotations {
        t["annotations"] = a;
    }
    t
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

/// One of the server's tools: name, description, the one argument it requires (its
/// name and JSON type), and the hint it gives about itself.
type ToolSpec = (
    &'static str,
    &'static str,
    Option<(&'static str, &'static str)>,
    Option<&'static str>,
);

/// The server's tools, in the order it lists them.
const TOOLS: &[ToolSpec] = &[
    ("echo", "Echoes its text.", Some(("text", "string")), None),
    (
        "peek",
        "Echoes its text; says it only reads.",
        Some(("text", "string")),
        Some("readOnlyHint"),
    ),
    (
        "wipe",
        "Says it destroys things.",
        None,
        Some("destructiveHint"),
    ),
    ("crash", "Exits the server.", None, None),
    ("hang", "Never answers.", None, None),
    (
        "spawn_child",
        "Starts a long sleep of its own and returns its pid.",
        None,
        None,
    ),
    ("pid", "Returns the server's pid.", None, None),
    (
        "env",
        "Returns an environment variable's value.",
        Some(("name", "string")),
        None,
    ),
    (
        "big",
        "Returns this many bytes of text.",
        Some(("bytes", "integer")),
        None,
    ),
    (
        "change_tools",
        "Adds a tool and sends tools/list_changed.",
        None,
        None,
    ),
    ("fail", "Returns an error result.", None, None),
    (
        "ask",
        "Asks the user for a name (elicitation) and returns the answer.",
        None,
        None,
    ),
    (
        "read_file",
        "Returns the text of a file, or why it could not be read.",
        Some(("path", "string")),
        None,
    ),
    (
        "now",
        "Returns CLOCK_MONOTONIC in nanoseconds, read when the call arrives (for the benchmark).",
        None,
        None,
    ),
];

impl Server {
    fn tools(&self) -> Vec<Value> {
        let mut tools: Vec<Value> = TOOLS
            .iter()
            .map(|&(name, description, argument, hint)| {
                let schema = match argument {
                    Some((arg, kind)) => object(json!({ arg: { "type": kind } }), &[arg]),
                    None => object(json!({}), &[]),
                };
                tool(name, description, schema, hint.map(|h| json!({ h: true })))
            })
            .collect();
        if self.changed.load(Ordering::Acquire) {
            tools.push(tool(
                "added",
                "A tool added later.",
                object(json!({}), &[]),
                None,
            ));
        }
        match self.mode.as_str() {
            "bad-schema" => tools.push(tool(
                "stringly",
                "Bad schema.",
                json!({ "type": "string" }),
                None,
            )),
            "bad-names" => {
                tools.push(tool("read.file", "A dot.", object(json!({}), &[]), None));
                tools.push(tool(
                    &"x".repeat(80),
                    "Too long.",
                    object(json!({}), &[]),
                    None,
                ));
                tools.push(tool("echo", "A second echo.", object(json!({}), &[]), None));
            }
            _ => {}
        }
        tools
    }

    fn result(text: impl Into<String>, error: bool) -> Result<CallToolResponse, ErrorData> {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [{ "type": "text", "text": text.into() }],
            "isError": error,
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResponse::Complete(result))
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        if let Ok(capabilities) =
            serde_json::from_value(json!({ "tools": { "listChanged": true } }))
        {
            info.capabilities = capabilities;
        }
        info.server_info.name = "warden-mcp-test-server".to_owned();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if self.mode == "flood" {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                for i in 0..5000 {
                    let _ = peer.notify_tool_list_changed().await;
                    if i % 100 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            });
        }
        serde_json::from_value(json!({ "tools": self.tools() }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arrived = monotonic_nanos();
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let str_arg = |name: &str| {
            args.get(name)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        match request.name.as_ref() {
            "echo" | "peek" => Self::result(str_arg("text"), false),
            "wipe" => Self::result("wiped", false),
            "added" => Self::result("the added tool ran", false),
            "fail" => Self::result("it went wrong", true),
            "crash" => std::process::exit(3),
            "hang" => std::future::pending().await,
            "pid" => Self::result(host_pid().to_string(), false),
            "now" => Self::result(arrived.to_string(), false),
            "ask" => {
                let params = serde_json::from_value(json!({
                    "mode": "form",
                    "message": "Your name?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": { "name": { "type": "string" } },
                        "required": ["name"],
                    },
                }))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                match context.peer.create_elicitation(params).await {
                    Ok(answer) => {
                        Self::result(serde_json::to_string(&answer).unwrap_or_default(), false)
                    }
                    Err(err) => Self::result(format!("no answer: {err}"), true),
                }
            }
            "env" => Self::result(
                std::env::var(str_arg("name")).unwrap_or_else(|_| "(unset)".to_owned()),
                false,
            ),
            "read_file" => match std::fs::read_to_string(str_arg("path")) {
                Ok(text) => Self::result(text, false),
                Err(err) => Self::result(format!("cannot read: {err}"), true),
            },
            "big" => {
                let n = args.get("bytes").and_then(Value::as_u64).unwrap_or(0) as usize;
                Self::result("x".repeat(n), false)
            }
            "spawn_child" => {
                let before = children();
                let child = std::process::Command::new("sleep")
                    .arg("1000")
                    .spawn()
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                // The child's pid as the tests see it (see `host_pid`): the one child
                // that was not there before.
                let pid = children()
                    .difference(&before)
                    .next()
                    .copied()
                    .unwrap_or(child.id());
                Self::result(pid.to_string(), false)
            }
            "change_tools" => {
                self.changed.store(true, Ordering::Release);
                let _ = context.peer.notify_tool_list_changed().await;
                Self::result("changed", false)
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}`"),
                None,
            )),
        }
    }
}

/// CLOCK_MONOTONIC, which every process of the machine shares, in nanoseconds.
fn monotonic_nanos() -> u128 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "good".to_owned());
    match mode.as_str() {
        "exit" => std::process::exit(1),
        "silent" => {
            // Reads and never answers.
            for _ in std::io::stdin().lock().lines() {}
            return;
        }
        "garbage" => {
            let mut out = std::io::stdout().lock();
            for _ in std::io::stdin().lock().lines().take(1) {
                let _ = writeln!(
                    out,
                    "{{\"jsonrpc\": \"2.0\", \"id\": 0, \"result\": {{not json"
                );
                let _ = writeln!(out, "\u{1}\u{2} plainly not JSON");
                let _ = out.flush();
            }
            for _ in std::io::stdin().lock().lines() {}
            return;
        }
        _ => {}
    }
    let server = Server {
        mode,
        changed: Arc::new(AtomicBool::new(false)),
    };
    let transport = (tokio::io::stdin(), tokio::io::stdout());
    match server.serve(transport).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        // The client logs a server's stderr: that is where this failure belongs.
        #[allow(
            clippy::print_stderr,
            reason = "a stdio server's diagnostics go to stderr"
        )]
        Err(err) => eprintln!("warden-mcp-test-server: {err}"),
    }
}

/// This process's pid as `/proc` numbers it. A server started in a PID namespace of its
/// own (the sandbox's guard) is pid 2 or so inside it; the tests look processes up from
/// outside, where `NSpid`'s first field is its number.
fn host_pid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("NSpid:"))
                .and_then(|pids| pids.split_whitespace().next())
                .and_then(|pid| pid.parse().ok())
        })
        .unwrap_or_else(std::process::id)
}

/// This process's children as `/proc` numbers them (see `host_pid`), from every thread.
fn children() -> std::collections::BTreeSet<u32> {
    let mut pids = std::collections::BTreeSet::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return pids;
    };
    for task in tasks.flatten() {
        let listed = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        pids.extend(
            listed
                .split_whitespace()
                .filter_map(|pid| pid.parse::<u32>().ok()),
        );
    }
    pids
}
