//! Risk assessment: what a tool call would do, how much harm it can do, and the facts
//! about it that policy rules and grants match against.
//!
//! The assessment splits a call into units. A shell command has one unit per simple
//! command (segment), so that rules and grants judge each part on its own; every other
//! call is a single unit.

mod args;
mod files;
mod http;
mod other;
mod terminal;

use std::path::PathBuf;

use crate::paths::ResolvedPath;
use crate::{Context, Risk, ToolCall};

pub use args::ArgError;

/// What the engine learned about one tool call before consulting any policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// The call's risk: the strictest of its units.
    pub risk: Risk,
    /// A sentence for people, e.g. "Execute command: npm install".
    pub reason: crate::Sentence,
    /// The parts of the call that are judged one by one.
    pub units: Vec<Unit>,
    /// Whether `units` are the segments of a shell command (reported as `segments`).
    pub is_shell: bool,
    /// A file edit whose every target lies inside the workspace (`accept-edits`).
    pub edit_inside_workspace: bool,
    /// The host of an `http_fetch` URL, lowercased.
    pub domain: Option<String>,
    /// Why the call cannot run as given (missing or ill-typed arguments, a URL that is
    /// not http(s)). A malformed call is always denied.
    pub malformed: Option<String>,
}

/// One part of a call, judged on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The text of the part (a shell segment) or a short description.
    pub text: String,
    /// The part's risk.
    pub risk: Risk,
    /// Set when something around the part raised `risk` (the rest of its shell line,
    /// a wrapper or variable around its command, the folder it runs in): the risk the
    /// part carries on its own, always lower. What raises a risk only adds caution, so
    /// the engine decides the part at both and the stricter decision stands.
    pub own_risk: Option<Risk>,
    /// Why it has this risk.
    pub reason: crate::Sentence,
    /// For shell segments: the argv in normal form (wrappers unwrapped, flags normalised).
    pub argv: Vec<String>,
    /// The files the part touches.
    pub paths: Vec<UnitPath>,
    /// The files the part reads (their content can reach the model): `fs_read`'s,
    /// `fs_list`'s and `fs_search`'s path, the file `fs_edit` changes, `fs_move`'s
    /// source, and the shell's read operands and `<` redirections. Deny and ask rules
    /// with a `path` look at them, whatever the tool (see `Rule::covers_reads`).
    pub reads: Vec<UnitPath>,
    /// The part reads every file below its read folders (`fs_search`): a deny or ask
    /// rule whose path lies below one of them matches it.
    pub reads_below: bool,
    /// For shell segments: the segment writes files (redirections, `tee`, `cp` targets).
    pub writes_files: bool,
    /// The part could not be read precisely (a variable in the program's place, a
    /// parse problem): allow rules and grants never match it.
    pub opaque: bool,
    /// For shell segments: variables set for the command that are neither inert nor
    /// an analysed command (`FOO=1 cargo test`): command allow rules and grants do
    /// not match it.
    pub env: Vec<String>,
}

/// A file a unit touches, both as written and with symlinks resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitPath {
    /// Absolute, `..` removed, symlinks not followed.
    pub lexical: PathBuf,
    /// Symlinks resolved (the nearest existing ancestor for a new file).
    pub real: PathBuf,
    /// Whether the path lies inside a workspace root.
    pub inside_workspace: bool,
}

impl From<&ResolvedPath> for UnitPath {
    fn from(p: &ResolvedPath) -> UnitPath {
        UnitPath {
            lexical: p.lexical.clone(),
            real: p.real.clone(),
            inside_workspace: p.inside_workspace,
        }
    }
}

impl Assessment {
    fn single(unit: Unit) -> Assessment {
        Assessment {
            risk: unit.risk,
            reason: unit.reason.clone(),
            units: vec![unit],
            is_shell: false,
            edit_inside_workspace: false,
            domain: None,
            malformed: None,
        }
    }

    /// The assessment of a call that cannot run: High, no units to match.
    pub(crate) fn malformed(tool: &str, problem: String) -> Assessment {
        Assessment {
            risk: Risk::High,
            reason: crate::Sentence::new("engine-call-malformed")
                .text("tool", tool)
                .text("problem", problem.as_str()),
            units: Vec::new(),
            is_shell: false,
            edit_inside_workspace: false,
            domain: None,
            malformed: Some(problem),
        }
    }
}

/// Assesses one call in its context. Never fails: a call whose arguments are wrong
/// comes back with `malformed` set.
pub fn assess(call: &ToolCall, ctx: &Context) -> Assessment {
    let result = match call.tool.as_str() {
        "fs_read" | "fs_list" | "fs_search" => files::read(call, ctx),
        "fs_write" | "fs_edit" => files::write(call, ctx),
        "fs_delete" => files::delete(call, ctx),
        "fs_move" => files::move_(call, ctx),
        "terminal" => terminal::assess(call, ctx),
        "http_fetch" => http::assess(call),
        _ => Ok(other::assess(call, ctx)),
    };
    match result {
        Ok(assessment) => assessment,
        Err(e) => Assessment::malformed(&call.tool, e.to_string()),
    }
}
