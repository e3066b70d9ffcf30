//! Where a session's tools come from: the [`ToolSource`] seam, and the [`Toolbox`] that
//! puts a session's sources together.
//!
//! A source lists the tools it offers the model, prepares a proposed call (validates
//! its arguments and describes it: kind, title, locations, annotations, the server it
//! comes from) and runs a prepared call. The built-in tools are one source
//! ([`Builtins`](crate::Builtins)); every MCP server a session connects is another. The
//! gate prepares calls and the driver runs them through the session's toolbox only, so a
//! new kind of tool is added here and nowhere else.

use std::fmt;

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::content::ToolKind;
use crate::exec::ExecContext;
use crate::output::ToolOutput;
use crate::place::Place;
use crate::{ParsedCall, ValidationError};

/// One tool as the model is offered it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    /// The name the model calls it by: unique in a session, a valid function name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments, without `risk_level` (the model crate adds it).
    pub schema: Value,
}

/// What a tool's server says about it (MCP tool annotations). It comes from the server,
/// so the engine treats it as an untrusted hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Annotations {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// The MCP server a tool comes from, as rules, grants, the audit log and prompts name
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The server's name, as the editor gave it.
    pub server: String,
    /// What makes the server this server: its name with its command and arguments, or
    /// its URL. A grant names the identity, so it never covers another server that
    /// borrows the name.
    pub identity: String,
    /// The tool's own name on that server (the model may see it under another).
    pub tool: String,
}

/// A proposed call that its source accepted, described for people and the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedCall {
    /// The name the model called it by.
    pub tool: String,
    /// The arguments it runs with (the model's `risk_level` removed).
    pub args: Value,
    pub kind: ToolKind,
    /// What the call does, for people: "Read src/main.rs".
    pub title: String,
    /// The absolute paths the call touches.
    pub locations: Vec<PathBuf>,
    pub annotations: Option<Annotations>,
    /// For a tool of an MCP server, the server.
    pub origin: Option<Origin>,
    /// A built-in call's typed arguments, so that it runs exactly what was judged,
    /// without validating twice.
    pub(crate) parsed: Option<ParsedCall>,
    /// How a `terminal` call's process starts, set by the session from the call's
    /// evaluation (its confinement, widened by what the call was allowed). A command
    /// whose call has none does not run.
    pub launch: Option<crate::Launch>,
}

impl PreparedCall {
    /// A call of a source other than the built-ins.
    pub fn new(tool: String, args: Value, kind: ToolKind, title: String) -> PreparedCall {
        PreparedCall {
            tool,
            args,
            kind,
            title,
            locations: Vec::new(),
            annotations: None,
            origin: None,
            parsed: None,
            launch: None,
        }
    }

    /// How the call's process starts.
    pub fn with_launch(mut self, launch: crate::Launch) -> PreparedCall {
        self.launch = Some(launch);
        self
    }

    pub fn with_locations(mut self, locations: Vec<PathBuf>) -> PreparedCall {
        self.locations = locations;
        self
    }

    pub fn with_annotations(mut self, annotations: Annotations) -> PreparedCall {
        self.annotations = Some(annotations);
        self
    }

    pub fn with_origin(mut self, origin: Origin) -> PreparedCall {
        self.origin = Some(origin);
        self
    }

    /// The typed arguments of a built-in call.
    pub fn parsed(&self) -> Option<&ParsedCall> {
        self.parsed.as_ref()
    }
}

/// A supplier of tools for one session.
pub trait ToolSource: Send + Sync + fmt::Debug {
    /// The tools it offers now. A source whose list can change (an MCP server that
    /// sent `tools/list_changed`) returns the new list from its next call.
    fn tools(&self) -> Arc<[ToolInfo]>;

    /// Validates the arguments of one of its tools and describes the call. `args` is a
    /// JSON object without `risk_level`.
    fn prepare(
        &self,
        tool: &str,
        args: Value,
        place: Place<'_>,
    ) -> Result<PreparedCall, ValidationError>;

    /// Runs a call it prepared. Never panics and never fails: every failure is a
    /// [`ToolOutput`] with `ok == false` and a text for the model.
    fn run<'a>(&'a self, call: &'a PreparedCall, cx: ExecContext<'a>) -> BoxFuture<'a, ToolOutput>;
}

/// The tools of one session: its sources, in order. A name belongs to the first source
/// that offers it; sources are built so that names do not collide (MCP tools are
/// `mcp__<server>__<tool>`).
#[derive(Debug, Clone)]
pub struct Toolbox {
    sources: Vec<Arc<dyn ToolSource>>,
}

impl Toolbox {
    pub fn new(sources: Vec<Arc<dyn ToolSource>>) -> Toolbox {
        Toolbox { sources }
    }

    /// The built-in tools alone.
    pub fn builtins() -> Toolbox {
        Toolbox::new(vec![Arc::new(crate::Builtins)])
    }

    /// A toolbox with one more source, after these.
    pub fn with(&self, source: Arc<dyn ToolSource>) -> Toolbox {
        let mut sources = self.sources.clone();
        sources.push(source);
        Toolbox { sources }
    }

    /// Each source's list as it is now, in source order: a list that did not change is
    /// the same `Arc` as before, so a caller can tell cheaply whether to rebuild what
    /// it made of them.
    pub fn lists(&self) -> Vec<Arc<[ToolInfo]>> {
        self.sources.iter().map(|source| source.tools()).collect()
    }

    /// Every tool offered now, in source order.
    pub fn tools(&self) -> Vec<ToolInfo> {
        self.sources
            .iter()
            .flat_map(|source| source.tools().iter().cloned().collect::<Vec<_>>())
            .collect()
    }

    fn source_of(&self, tool: &str) -> Option<&Arc<dyn ToolSource>> {
        self.sources
            .iter()
            .find(|source| source.tools().iter().any(|t| t.name == tool))
    }

    /// Prepares a call of any of the session's tools.
    pub fn prepare(
        &self,
        tool: &str,
        args: Value,
        place: Place<'_>,
    ) -> Result<PreparedCall, ValidationError> {
        match self.source_of(tool) {
            Some(source) => source.prepare(tool, args, place),
            None => Err(ValidationError::UnknownTool(tool.to_owned())),
        }
    }

    /// The names of every tool, for an error that lists them.
    pub fn names(&self) -> Vec<String> {
        self.tools().into_iter().map(|t| t.name).collect()
    }

    /// Runs a prepared call with the source that offers its tool. A tool that is gone
    /// (its server's list changed since the call was prepared) fails the call.
    pub async fn run(&self, call: &PreparedCall, cx: ExecContext<'_>) -> ToolOutput {
        match self.source_of(&call.tool) {
            Some(source) => source.run(call, cx).await,
            None => ToolOutput::failed(&call.tool, "this tool is no longer offered"),
        }
    }
}

/// Every kind's name, for logs and the journal.
impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Fetch => "fetch",
            ToolKind::Other => "other",
        })
    }
}
