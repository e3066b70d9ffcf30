//! Policy files, their layers and the merged policy in effect.
//!
//! Layers, weakest first: the built-in defaults, the user's `policy.toml`, the
//! project's `.warden/policy.toml`, the managed policy. A file that cannot be read or
//! parsed (or whose rules do not compile, or whose examples fail) is recorded as a
//! [`PolicyError`]; the engine then asks for every call instead of failing open.

mod builtin;
mod client;
mod file;
mod hook;
mod index;
mod mcp;
mod settings;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobSet, GlobSetBuilder};
use serde::Serialize;

use crate::rule::{Layer, Rule, RuleError, UNKNOWN_CLIENT, build_client_glob, build_name_glob};

pub use builtin::BUILTIN_POLICY;
pub use client::ClientEntry;
pub use file::{HintPolicy, PolicyFile, RiskTimeouts, SandboxFile};
pub use hook::{DEFAULT_HOOK_TIMEOUT_SECS, HookEntry};
pub(crate) use index::RuleIndex;
pub use mcp::{McpServerEntry, McpServerId};
pub use settings::{
    DEFAULT_APPROVAL_TIMEOUT_SECS, DEFAULT_MAX_ASKS_PER_TURN, DEFAULT_MAX_PENDING_REQUESTS,
    DEFAULT_MCP_CALL_TIMEOUT_SECS, DEFAULT_MCP_CONNECT_TIMEOUT_SECS, DEFAULT_SANDBOX_MAX_PROCESSES,
    SandboxSettings, Settings, stricter_mode,
};

/// A policy file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyError {
    /// The file's path.
    pub file: String,
    pub layer: Layer,
    /// What is wrong, e.g. the TOML parser's message with line and column.
    pub error: String,
}

/// What makes a policy file, or a part of it, unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileProblem {
    #[error("the file does not exist")]
    Missing,
    #[error("cannot read the file: {0}")]
    Unreadable(String),
    /// The TOML does not parse, or has a key the format does not know.
    #[error("{0}")]
    Parse(String),
    /// One rule cannot be used; the others still apply.
    #[error("rule {index}: {error}")]
    Rule {
        index: usize,
        #[source]
        error: RuleError,
    },
    #[error("auto_approved_tools: `{tool}`: {message}")]
    AutoApprovedTool { tool: String, message: String },
    /// A project's policy has `[[hook]]` entries: a cloned repository must not run
    /// commands on its reader's machine. The entries are ignored.
    #[error(
        "[[hook]] is read from the user's and the managed policy only; a project's hooks \
         never run (move them to your own policy.toml)"
    )]
    ProjectHook,
    #[error("client: `name = \"{name}\"`: {message}")]
    ClientName { name: String, message: String },
}

impl FileProblem {
    /// Whether the whole file is unusable (nothing in it could be read).
    pub fn is_whole_file(&self) -> bool {
        matches!(
            self,
            FileProblem::Missing | FileProblem::Unreadable(_) | FileProblem::Parse(_)
        )
    }
}

/// The text of one layer's file, before parsing.
#[derive(Debug, Clone)]
pub struct Source {
    pub layer: Layer,
    /// The file's path, as shown in evaluations.
    pub file: String,
    /// The text, or why it could not be read.
    pub text: Result<String, FileProblem>,
}

impl Source {
    /// Reads a layer's file; a missing file is no layer at all (`None`).
    pub fn read(layer: Layer, path: &Path) -> Option<Source> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => Err(FileProblem::Unreadable(e.to_string())),
        };
        Some(Source {
            layer,
            file: path.display().to_string(),
            text,
        })
    }

    pub fn text(layer: Layer, file: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            layer,
            file: file.into(),
            text: Ok(text.into()),
        }
    }
}

/// One parsed layer, for lint and for people.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    pub layer: Layer,
    pub file: String,
    /// `None` when the file could not be read or parsed.
    pub parsed: Option<PolicyFile>,
    /// Every problem found in the file.
    pub errors: Vec<FileProblem>,
}

/// Parses and compiles one file's text into its rules; problems are collected, the
/// rules that compile are kept (so that a broken file's deny rules still apply).
pub fn load_file(source: &Source, trusted: bool) -> (LoadedFile, Vec<Rule>) {
    let file: Arc<str> = Arc::from(source.file.as_str());
    let mut errors = Vec::new();
    let mut rules = Vec::new();
    let parsed = match &source.text {
        Err(e) => {
            errors.push(e.clone());
            None
        }
        Ok(text) => match PolicyFile::parse(text) {
            Err(e) => {
                errors.push(FileProblem::Parse(e.to_string().trim_end().to_owned()));
                None
            }
            Ok(parsed) => Some(parsed),
        },
    };
    if let Some(parsed) = &parsed {
        for (i, raw) in parsed.rules.iter().enumerate() {
            match Rule::compile(raw.clone(), i + 1, source.layer, file.clone()) {
                Ok(mut rule) => {
                    // A cloned repository must not be able to grant itself anything.
                    rule.applies = !(source.layer == Layer::Project
                        && !trusted
                        && rule.decision == crate::Decision::Allow);
                    rules.push(rule);
                }
                Err(error) => errors.push(FileProblem::Rule {
                    index: i + 1,
                    error,
                }),
            }
        }
        if source.layer == Layer::Project && !parsed.hooks.is_empty() {
            errors.push(FileProblem::ProjectHook);
        }
        for tool in parsed.auto_approved_tools.iter().flatten() {
            if let Err(e) = build_name_glob(tool) {
                errors.push(FileProblem::AutoApprovedTool {
                    tool: tool.clone(),
                    message: e.to_string(),
                });
            }
        }
        for entry in &parsed.clients {
            if let Err(e) = build_client_glob(&entry.name) {
                errors.push(FileProblem::ClientName {
                    name: entry.name.clone(),
                    message: e.to_string(),
                });
            }
        }
    }
    let loaded = LoadedFile {
        layer: source.layer,
        file: source.file.clone(),
        parsed,
        errors,
    };
    (loaded, rules)
}

/// The policy in effect: every layer's rules, the merged settings, and the files that
/// could not be used.
#[derive(Debug)]
pub struct Policy {
    /// The rules of the managed, project and user layers, in the order they are
    /// consulted: managed first, then project, then user; within a file, in order.
    pub rules: Vec<Rule>,
    /// The built-in default rules, consulted last.
    pub builtin: Vec<Rule>,
    pub settings: Settings,
    pub errors: Vec<PolicyError>,
    /// The files that were loaded, weakest first.
    pub files: Vec<LoadedFile>,
    /// Whether the project's allow rules apply.
    pub project_trusted: bool,
    /// The `[[mcp_server]]` entries of the user's and the managed policy (a project's
    /// are never read: a project cannot vouch for a server).
    pub mcp_servers: Vec<McpServerEntry>,
    /// The `[[hook]]` entries of the user's and then the managed policy.
    pub hooks: Vec<HookEntry>,
    /// The client (`clientInfo.name`, or `unknown`) this policy was built for: only the
    /// rules whose `client` glob matches it are in `rules`, and `settings` hold its
    /// `[[client]]` defaults.
    pub client: String,
    /// The mode the client's `[[client]]` entries name, if any (the strongest layer's):
    /// a loaded session keeps its stored mode unless this one is stricter.
    pub client_mode: Option<crate::Mode>,
    pub(crate) index: RuleIndex,
    pub(crate) auto_approved: GlobSet,
}

impl Policy {
    /// Builds the policy from the layers' sources (weakest first; the built-in layer
    /// is always added), for a client that sent no `clientInfo`.
    pub fn from_sources(sources: &[Source], project_trusted: bool) -> Policy {
        Policy::for_client(sources, project_trusted, UNKNOWN_CLIENT)
    }

    /// Builds the policy as the client called `client` (its `clientInfo.name`) is treated:
    /// the rules whose `client` glob does not match it are left out, and the user's and
    /// the managed policy's `[[client]]` entries that match it set its mode and approval
    /// timeout, each over its own layer's settings. A project's `[[client]]` entries are
    /// never read.
    pub fn for_client(sources: &[Source], project_trusted: bool, client: &str) -> Policy {
        let mut settings = Settings::default();
        let mut errors = Vec::new();
        let mut files = Vec::new();
        let mut by_layer: Vec<(Layer, Vec<Rule>)> = Vec::new();
        let mut mcp_servers = Vec::new();
        let mut hooks = Vec::new();
        let mut client_mode = None;

        let builtin_source = Source::text(Layer::Builtin, "<builtin>", BUILTIN_POLICY);
        let mut all = vec![builtin_source];
        all.extend(
            sources
                .iter()
                .filter(|s| s.layer != Layer::Builtin)
                .cloned(),
        );
        all.sort_by_key(|s| s.layer);

        for source in &all {
            let (loaded, mut rules) = load_file(source, project_trusted);
            rules.retain(|rule| rule.client_matches(client));
            if let Some(parsed) = &loaded.parsed {
                settings.apply(source.layer, project_trusted, parsed);
                if matches!(source.layer, Layer::User | Layer::Managed) {
                    mcp_servers.extend(parsed.mcp_servers.iter().cloned());
                    hooks.extend(parsed.hooks.iter().cloned());
                    for entry in parsed.clients.iter().filter(|e| e.matches(client)) {
                        settings.apply_client(entry);
                        client_mode = entry.mode.or(client_mode);
                    }
                }
            }
            errors.extend(loaded.errors.iter().map(|e| PolicyError {
                file: source.file.clone(),
                layer: source.layer,
                error: e.to_string(),
            }));
            files.push(loaded);
            by_layer.push((source.layer, rules));
        }

        let mut builtin = Vec::new();
        let mut rules = Vec::new();
        for (layer, layer_rules) in by_layer.into_iter().rev() {
            if layer == Layer::Builtin {
                builtin.extend(layer_rules);
            } else {
                rules.extend(layer_rules);
            }
        }
        let mut auto = GlobSetBuilder::new();
        for tool in &settings.auto_approved_tools {
            if let Ok(glob) = build_name_glob(tool) {
                auto.add(glob);
            }
        }
        Policy {
            index: RuleIndex::build(&rules),
            auto_approved: auto.build().unwrap_or_else(|_| GlobSet::empty()),
            rules,
            builtin,
            settings,
            errors,
            files,
            project_trusted,
            mcp_servers,
            hooks,
            client: client.to_owned(),
            client_mode,
        }
    }

    /// Whether the user's (or the administrator's) policy trusts the annotations of
    /// this server.
    pub fn trusts_mcp_annotations(&self, server: &McpServerId<'_>) -> bool {
        self.mcp_servers
            .iter()
            .any(|entry| entry.trust_annotations && entry.matches(server))
    }

    /// Whether a stdio MCP server's sandbox allows the network: yes, unless an entry of
    /// the user's or the managed policy for exactly that server says `network = false`.
    pub fn mcp_network(&self, server: &McpServerId<'_>) -> bool {
        !self
            .mcp_servers
            .iter()
            .any(|entry| entry.network == Some(false) && entry.matches(server))
    }

    /// Reads the user, project and managed files, as the client called `client` is
    /// treated ([`Policy::for_client`]).
    pub fn load(
        locations: &crate::Locations,
        project_root: &Path,
        project_trusted: bool,
        client: &str,
    ) -> Policy {
        let sources: Vec<Source> = [
            (Layer::User, locations.user_policy()),
            (Layer::Project, project_root.join(crate::PROJECT_POLICY)),
            (Layer::Managed, locations.managed_policy.clone()),
        ]
        .into_iter()
        .filter_map(|(layer, path)| Source::read(layer, &path))
        .collect();
        Policy::for_client(&sources, project_trusted, client)
    }

    /// Whether `tool` is on the `auto_approved_tools` list.
    pub fn is_auto_approved(&self, tool: &str) -> bool {
        self.auto_approved.is_match(tool)
    }

    /// The paths of the files in effect, weakest first.
    pub fn file_paths(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|f| f.layer != Layer::Builtin)
            .map(|f| PathBuf::from(&f.file))
            .collect()
    }
}
