//! Grants: stored decisions ("allow `npm test …` in this project"), and the proposals
//! the engine makes before the user answers.
//!
//! A grant holds a generalised matcher, never the raw argument string: a program and
//! subcommand prefix for shell commands, a file (or, for reads, its folder), a
//! domain, or a tool; a destructive shell command (one that deletes, overwrites or
//! changes files, or a program such as `rm`, `kill` or `git clean`) gets the exact
//! argv and the files it touches, never its bare program. It also holds the highest
//! risk it was proposed for, and covers no call above it.

mod propose;
mod session;
mod set;
pub mod time;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::assess::{Assessment, Unit};
use crate::sandbox::SandboxNeeds;
use crate::{Risk, ToolCall};

pub use propose::{OVER_BROAD_PROGRAMS, propose};
pub use session::SessionGrants;
pub use set::{GrantLookup, GrantSet};

/// How long and where a grant holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// This call only: nothing is stored.
    Once,
    /// Until the session ends; kept in memory.
    Session,
    /// In this project (its canonical root), stored.
    Project,
    /// Everywhere, for this user, stored.
    User,
}

/// What a grant does to the calls it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    Allow,
    Deny,
}

/// What a grant covers.
///
/// Externally tagged in JSON (`{"command": {"prefix": ["npm", "test"]}}`): an
/// internally tagged enum is parsed through a buffer, which made loading 100,000
/// grants several times slower.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantMatcher {
    /// `terminal` segments whose argv starts with `prefix` (the program exactly as
    /// the analyser normalised it, then the subcommand words).
    Command { prefix: Vec<String> },
    /// Calls of `tool` that touch exactly these files (resolved paths).
    Files { tool: String, paths: Vec<PathBuf> },
    /// Calls of `tool` that touch only files inside this folder (resolved path).
    Folder { tool: String, path: PathBuf },
    /// Calls of `tool` to this host.
    Domain { tool: String, domain: String },
    /// Every call of this tool.
    Tool { tool: String },
    /// Calls of `tool` on the MCP server whose identity is `identity` (its name with
    /// its command and arguments, or its URL): another server that borrows the name is
    /// not covered.
    McpTool {
        server: String,
        identity: String,
        tool: String,
    },
    /// `terminal` segments whose argv (normal form) is exactly `argv` and that change
    /// no files but these (resolved paths): the grant of a destructive command, which
    /// must not generalise to other operands (`rm -rf build` is not `rm -rf src`).
    Exact {
        argv: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        paths: Vec<PathBuf>,
    },
}

impl GrantMatcher {
    /// A short description: "`npm test …`", "writes to src/main.rs".
    pub fn describe(&self) -> String {
        match self {
            GrantMatcher::Command { prefix } => format!("`{} …`", prefix.join(" ")),
            GrantMatcher::Files { tool, paths } => {
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                format!("`{tool}` on {}", paths.join(" and "))
            }
            GrantMatcher::Folder { tool, path } => {
                format!("`{tool}` in {}", path.display())
            }
            GrantMatcher::Domain { tool, domain } => format!("`{tool}` to {domain}"),
            GrantMatcher::Tool { tool } => format!("`{tool}`"),
            GrantMatcher::McpTool { server, tool, .. } => {
                format!("`{tool}` from MCP server `{server}`")
            }
            GrantMatcher::Exact { argv, paths } => format!(
                "exactly `{}`{}",
                argv.join(" "),
                unnamed_writes(argv, paths, |p| p.display().to_string())
            ),
        }
    }

    /// The description for an option label, which clients show as plain text: no
    /// Markdown, and paths below `cwd` relative to it ("npm test …", "fs_write on
    /// notes.txt").
    pub fn describe_plain(&self, cwd: &Path) -> String {
        let shown = |p: &Path| match p.strip_prefix(cwd) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => p.display().to_string(),
        };
        match self {
            GrantMatcher::Command { prefix } => format!("\"{} …\"", prefix.join(" ")),
            GrantMatcher::Files { tool, paths } => {
                let paths: Vec<String> = paths.iter().map(|p| shown(p)).collect();
                format!("{tool} on {}", paths.join(" and "))
            }
            GrantMatcher::Folder { tool, path } => format!("{tool} in {}", shown(path)),
            GrantMatcher::Domain { tool, domain } => format!("{tool} to {domain}"),
            GrantMatcher::Tool { tool } => tool.clone(),
            GrantMatcher::McpTool { server, tool, .. } => format!("{tool} from {server}"),
            GrantMatcher::Exact { argv, paths } => format!(
                "exactly \"{}\"{}",
                argv.join(" "),
                unnamed_writes(argv, paths, |p| shown(p))
            ),
        }
    }

    /// The key under which [`GrantSet`] files the grant: the program for commands,
    /// an MCP tool's own name on its server, the tool otherwise.
    pub(crate) fn key(&self) -> &str {
        match self {
            GrantMatcher::Command { prefix } => prefix.first().map_or("", String::as_str),
            GrantMatcher::Exact { argv, .. } => argv.first().map_or("", String::as_str),
            GrantMatcher::Files { tool, .. }
            | GrantMatcher::Folder { tool, .. }
            | GrantMatcher::Domain { tool, .. }
            | GrantMatcher::Tool { tool }
            | GrantMatcher::McpTool { tool, .. } => tool,
        }
    }

    /// Whether the matcher covers one unit of a call.
    pub fn covers(&self, call: &ToolCall, assessment: &Assessment, unit: &Unit) -> bool {
        match self {
            GrantMatcher::Command { prefix } => {
                assessment.is_shell
                    && call.tool == "terminal"
                    && !unit.opaque
                    && unit.env.is_empty()
                    && crate::shell::reconfiguring_options(&unit.argv).is_empty()
                    && unit.argv.len() >= prefix.len()
                    && unit.argv.iter().zip(prefix).all(|(a, p)| a == p)
            }
            GrantMatcher::Files { tool, paths } => {
                *tool == call.tool
                    && !unit.paths.is_empty()
                    && unit.paths.iter().all(|p| paths.contains(&p.real))
            }
            GrantMatcher::Folder { tool, path } => {
                *tool == call.tool
                    && !unit.paths.is_empty()
                    && unit
                        .paths
                        .iter()
                        .all(|p| p.real.starts_with(path) && p.lexical.starts_with(path))
            }
            GrantMatcher::Domain { tool, domain } => {
                *tool == call.tool && assessment.domain.as_deref() == Some(domain.as_str())
            }
            GrantMatcher::Tool { tool } => *tool == call.tool,
            GrantMatcher::McpTool { identity, tool, .. } => call
                .origin
                .as_ref()
                .is_some_and(|o| o.identity == *identity && o.tool == *tool),
            GrantMatcher::Exact { argv, paths } => {
                assessment.is_shell
                    && call.tool == "terminal"
                    && !unit.opaque
                    && unit.env.is_empty()
                    && unit.argv == *argv
                    && unit.paths.iter().all(|p| paths.contains(&p.real))
            }
        }
    }
}

/// The files an exact grant lets its command change that no word of the command names
/// (a redirection's target: `echo hi > out.txt` is the argv `echo hi` writing
/// `out.txt`), as " writing out.txt", or nothing. Without them the label of
/// `echo hi > out.txt` would read as the harmless `echo hi`.
fn unnamed_writes(argv: &[String], paths: &[PathBuf], show: impl Fn(&Path) -> String) -> String {
    let unnamed: Vec<String> = paths
        .iter()
        .filter(|p| !argv.iter().any(|w| !w.is_empty() && p.ends_with(w)))
        .map(|p| show(p))
        .collect();
    if unnamed.is_empty() {
        String::new()
    } else {
        format!(" writing {}", unnamed.join(" and "))
    }
}

/// The grant the engine proposes for a call that asks, so a permission option can
/// name it ("Always allow `npm test …` in this project").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantProposal {
    /// One matcher per part of the call that asked; a grant made from the proposal
    /// covers a part when any of them does.
    pub matchers: Vec<GrantMatcher>,
    /// The strictest risk among the parts it was proposed for: the grant covers no
    /// call above it.
    pub max_risk: Risk,
    /// For the project-scope option: "`npm test …` in this project".
    pub label: String,
    /// What it covers, without a scope: "`npm test …`".
    pub subject: String,
    /// What it lets the calls it covers have beyond their sandbox: what the call it
    /// was proposed for needed, as the request showed it.
    #[serde(default, skip_serializing_if = "Widening::is_empty")]
    pub widens: Widening,
}

/// What a grant lets the calls it covers have beyond their default confinement (the
/// contract's section 10): exactly what the call the user approved needed, as the
/// request showed it. A covered call that needs more is asked again; a grant stored
/// without it (before it was recorded) widens nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Widening {
    /// The network.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub network: bool,
    /// Writes to these paths (and below them), outside what a command may write.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<PathBuf>,
}

impl Widening {
    /// The widening of a call with these needs; none for a call that runs without
    /// the sandbox (which no grant covers).
    pub fn of(needs: &SandboxNeeds) -> Widening {
        if needs.unconfined.is_some() {
            return Widening::default();
        }
        Widening {
            network: needs.network,
            writes: needs.writes.clone(),
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.network && self.writes.is_empty()
    }

    /// Whether it gives everything these needs ask for.
    pub fn covers(&self, needs: &SandboxNeeds) -> bool {
        (!needs.network || self.network)
            && needs
                .writes
                .iter()
                .all(|w| self.writes.iter().any(|g| w.starts_with(g)))
    }
}

impl GrantProposal {
    /// What it covers, for an option label: [`GrantMatcher::describe_plain`] of each
    /// matcher.
    pub fn subject_plain(&self, cwd: &Path) -> String {
        self.matchers
            .iter()
            .map(|m| m.describe_plain(cwd))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A stored (or session) decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub id: String,
    #[serde(with = "time")]
    pub created_at: SystemTime,
    #[serde(
        default,
        with = "time::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub expires_at: Option<SystemTime>,
    /// The client that granted it (e.g. "zed", "warden-chat").
    pub client: String,
    pub effect: Effect,
    pub scope: Scope,
    /// The canonical project root, for project scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
    /// The session, for session scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub matchers: Vec<GrantMatcher>,
    pub max_risk: Risk,
    /// What it widens the sandbox of the calls it covers by.
    #[serde(default, skip_serializing_if = "Widening::is_empty")]
    pub widens: Widening,
}

impl Grant {
    /// What it covers, for people: "`npm test …`". Computed, not stored, to keep the
    /// grants file small and fast to load.
    pub fn subject(&self) -> String {
        self.matchers
            .iter()
            .map(GrantMatcher::describe)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether the grant holds at `now` in this project.
    pub fn is_live(&self, now: SystemTime, project_root: &Path) -> bool {
        self.expires_at.is_none_or(|t| t > now)
            && (self.scope != Scope::Project || self.project.as_deref() == Some(project_root))
    }

    /// Whether the grant covers one unit of a call of this risk. An allow grant
    /// covers nothing Critical and nothing riskier than it was proposed for; a deny
    /// grant covers its matches whatever their risk.
    pub fn covers(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        unit: &Unit,
        risk: Risk,
    ) -> bool {
        if self.effect == Effect::Allow && (risk == Risk::Critical || risk > self.max_risk) {
            return false;
        }
        // A destructive command is allowed only by a grant for exactly it: a program
        // or subcommand grant (`rm …`, perhaps stored before this rule) never covers
        // it. Deny grants keep matching broadly.
        let exact_only = self.effect == Effect::Allow && propose::needs_exact(unit);
        self.matchers.iter().any(|m| {
            !(exact_only && matches!(m, GrantMatcher::Command { .. }))
                && m.covers(call, assessment, unit)
        })
    }

    /// Whether two grants say the same thing (for skipping duplicates).
    pub fn same_decision(&self, other: &Grant) -> bool {
        self.effect == other.effect
            && self.scope == other.scope
            && self.project == other.project
            && self.session == other.session
            && self.matchers == other.matchers
            && self.max_risk == other.max_risk
            && self.expires_at == other.expires_at
            && self.widens == other.widens
    }

    /// A fresh random id, `g-` and 16 hex digits.
    pub fn new_id() -> String {
        use std::hash::{BuildHasher, Hasher};
        // RandomState is seeded from the OS per process; mixing in the time and a
        // counter makes ids unique within the process as well.
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        h.write_u128(
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.write_u32(std::process::id());
        format!("g-{:016x}", h.finish())
    }
}
