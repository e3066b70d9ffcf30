//! One policy rule, compiled: what it matches and what it decides.

mod command;
mod domain;
mod lazy_glob;
mod path;

use std::collections::BTreeMap;
use std::sync::Arc;

use globset::{Glob, GlobBuilder};
use serde::{Deserialize, Serialize};

use crate::assess::{self, Assessment, Unit};
use crate::{Context, Decision, Risk, ToolCall};

pub use command::{CommandPattern, Strictness, Word};
pub use domain::DomainPattern;
pub use lazy_glob::LazyGlob;
pub use path::{Anchor, PathPattern, build_glob};

/// Where a rule comes from, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// The built-in defaults (`policy/builtin.rs`).
    Builtin,
    /// The user's `policy.toml`.
    User,
    /// The project's `.warden/policy.toml`.
    Project,
    /// The administrator's policy.
    Managed,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Builtin => "builtin",
            Layer::User => "user",
            Layer::Project => "project",
            Layer::Managed => "managed",
        }
    }
}

/// A `[[rule]]` table as written in a policy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRule {
    /// A name for the rule, shown in evaluations and by lint.
    pub id: Option<String>,
    /// A glob over tool names (`terminal`, `fs_*`, `mcp__github__*`).
    pub tool: Option<String>,
    /// A glob over the client's `clientInfo.name` (case-insensitive; a client that
    /// sends none is `unknown`): the rule exists only for the clients it matches.
    pub client: Option<String>,
    /// For `terminal`: an argv prefix; `*` matches one word.
    pub command: Option<String>,
    /// A glob over file paths: relative to the session cwd, `~/...`, `**/...` or absolute.
    pub path: Option<String>,
    /// For `http_fetch`: a host, or `*.` and a host for its subdomains.
    pub domain: Option<String>,
    /// Globs over the call's arguments, by name (or by JSON pointer when the name
    /// starts with `/`): every one must match.
    pub args: Option<BTreeMap<String, String>>,
    /// The assessed risk the call must have.
    pub risk: Option<Risk>,
    pub decision: Decision,
    /// Why, in a sentence: shown as the evaluation's reason when this rule decides.
    pub reason: Option<String>,
    /// Examples the rule must match, checked when the file loads.
    #[serde(rename = "match", default, skip_serializing_if = "Vec::is_empty")]
    pub match_examples: Vec<String>,
    /// Examples the rule must not match, checked when the file loads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_match: Vec<String>,
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub id: Option<String>,
    /// The rule's position in its file, from 1.
    pub index: usize,
    pub layer: Layer,
    /// The file the rule comes from ("<builtin>" for the defaults).
    pub file: Arc<str>,
    pub decision: Decision,
    pub reason: Option<String>,
    pub risk: Option<Risk>,
    pub tool: Option<(String, LazyGlob)>,
    /// The `client` glob, compiled case-insensitively.
    pub client: Option<(String, LazyGlob)>,
    pub command: Option<(String, CommandPattern)>,
    pub path: Option<PathPattern>,
    pub domain: Option<(String, DomainPattern)>,
    pub args: Vec<(String, LazyGlob)>,
    /// False for an untrusted project's allow rules: they are listed when they
    /// match, but decide nothing.
    pub applies: bool,
    /// A deny or ask rule with a `path`, for a tool that reads files (`fs_read`,
    /// `fs_list`, `fs_search`, or a glob that covers one) and no `command`, `domain`
    /// or `args`: it also matches a part of any other tool that reads a matching
    /// path (see [`Rule::matches_read_elsewhere`]), so `cat`, `grep` or `fs_search`
    /// cannot read what `fs_read` may not.
    pub covers_reads: bool,
    pub raw: RawRule,
}

/// The tools that only read files. A deny or ask rule with a `path` for one of them
/// covers every read of that path, by any tool ([`Rule::covers_reads`]).
pub const READING_TOOLS: &[&str] = &["fs_read", "fs_list", "fs_search"];

/// Builds a glob over tool names or argument values, where `/` is an ordinary
/// character.
pub fn build_name_glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(false).build()
}

/// The name a client that sends no `clientInfo` goes by in `client` globs.
pub const UNKNOWN_CLIENT: &str = "unknown";

/// Builds a glob over client names (`clientInfo.name`): case-insensitive, since clients
/// spell their own names in different cases (`Zed`, `zed`).
pub fn build_client_glob(pattern: &str) -> Result<LazyGlob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .case_insensitive(true)
        .build()
        .map(LazyGlob::new)
}

/// Whether a unit reads a path `pattern` matches: one of its reads, as written or as
/// resolved; the folder the pattern's fixed leading components name (`.secrets` for
/// `.secrets/**`: listing or searching it reads what is below); or, for a part that
/// reads everything below its folders (`fs_search`, `grep -r`), a folder that holds
/// that one.
fn reads_match(pattern: &PathPattern, unit: &Unit, ctx: &Context) -> bool {
    let read =
        |p: &assess::UnitPath| pattern.matches(&p.lexical, ctx) || pattern.matches(&p.real, ctx);
    if unit.reads.iter().any(read) {
        return true;
    }
    let Some(base) = pattern.literal_base(ctx) else {
        return false;
    };
    unit.reads.iter().any(|p| {
        [&p.lexical, &p.real].into_iter().any(|folder| {
            if unit.reads_below {
                crate::paths::is_within(folder, &base)
            } else {
                *folder == base
            }
        })
    })
}

/// The text an `args` matcher compares: a string argument as it is, a number or a
/// boolean as JSON; objects, arrays, null and missing arguments match nothing. Keys
/// that start with `/` are JSON pointers.
pub fn arg_text<'a>(args: &'a serde_json::Value, key: &str) -> Option<std::borrow::Cow<'a, str>> {
    let value = if key.starts_with('/') {
        args.pointer(key)
    } else {
        args.get(key)
    };
    match value? {
        serde_json::Value::String(s) => Some(std::borrow::Cow::Borrowed(s)),
        v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_)) => {
            Some(std::borrow::Cow::Owned(v.to_string()))
        }
        _ => None,
    }
}

/// Why a rule cannot be used: a condition that does not compile, or an embedded
/// example that fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// A glob (`tool`, `path`, an `args` value) that globset rejects.
    #[error("`{key} = \"{pattern}\"`: {message}")]
    Glob {
        key: String,
        pattern: String,
        message: String,
    },
    #[error("`command` is empty")]
    EmptyCommand,
    #[error("`command = \"{pattern}\"` cannot be read: {problem}")]
    UnreadableCommand { pattern: String, problem: String },
    #[error(
        "`command = \"{pattern}\"` must be one simple command, not {parts} parts; write one rule per part"
    )]
    CompoundCommand { pattern: String, parts: usize },
    #[error("`command = \"{pattern}\"` does not name a program")]
    NoProgram { pattern: String },
    #[error("`path = \"{pattern}\"` is not a path glob")]
    NotAPathGlob { pattern: String },
    #[error("`domain = \"{pattern}\"` must be a host name or `*.` and a host name")]
    BadDomain { pattern: String },
    #[error("examples need a `command`, `path`, `domain` or `tool` to test")]
    UntestableExamples,
    #[error("example `{example}` should match but does not")]
    ExampleDoesNotMatch { example: String },
    #[error("example `{example}` should not match but does")]
    ExampleMatches { example: String },
}

impl RuleError {
    pub(crate) fn glob(key: impl Into<String>, pattern: &str, error: &globset::Error) -> RuleError {
        RuleError::Glob {
            key: key.into(),
            pattern: pattern.to_owned(),
            message: error.to_string(),
        }
    }

    /// Whether an embedded example failed (the rule's conditions compiled).
    pub fn is_failed_example(&self) -> bool {
        matches!(
            self,
            RuleError::ExampleDoesNotMatch { .. } | RuleError::ExampleMatches { .. }
        )
    }
}

impl Rule {
    /// Compiles a rule and checks its embedded examples.
    pub fn compile(
        raw: RawRule,
        index: usize,
        layer: Layer,
        file: Arc<str>,
    ) -> Result<Rule, RuleError> {
        let tool = raw
            .tool
            .as_deref()
            .map(|t| {
                build_name_glob(t)
                    .map(|g| (t.to_owned(), LazyGlob::new(g)))
                    .map_err(|e| RuleError::glob("tool", t, &e))
            })
            .transpose()?;
        let client = raw
            .client
            .as_deref()
            .map(|c| {
                build_client_glob(c)
                    .map(|g| (c.to_owned(), g))
                    .map_err(|e| RuleError::glob("client", c, &e))
            })
            .transpose()?;
        let command = raw
            .command
            .as_deref()
            .map(|c| CommandPattern::parse(c).map(|p| (c.to_owned(), p)))
            .transpose()?;
        let path = raw.path.as_deref().map(PathPattern::parse).transpose()?;
        let domain = raw
            .domain
            .as_deref()
            .map(|d| DomainPattern::parse(d).map(|p| (d.to_owned(), p)))
            .transpose()?;
        let args = raw
            .args
            .iter()
            .flatten()
            .map(|(k, v)| {
                build_name_glob(v)
                    .map(|g| (k.clone(), LazyGlob::new(g)))
                    .map_err(|e| RuleError::glob(format!("args.{k}"), v, &e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let rule = Rule {
            id: raw.id.clone(),
            index,
            layer,
            file,
            decision: raw.decision,
            reason: raw.reason.clone(),
            risk: raw.risk,
            tool,
            client,
            command,
            path,
            domain,
            args,
            applies: true,
            covers_reads: false,
            raw,
        };
        let mut rule = rule;
        rule.covers_reads = rule.decision != Decision::Allow
            && rule.path.is_some()
            && rule.command.is_none()
            && rule.domain.is_none()
            && rule.args.is_empty()
            && rule.tool.is_some()
            && READING_TOOLS.iter().any(|t| rule.tool_matches(t));
        rule.check_examples()?;
        Ok(rule)
    }

    /// The rule's name in evaluations: its `id`, or `<layer>#<index>`.
    pub fn label(&self) -> String {
        match &self.id {
            Some(id) => id.clone(),
            None => format!("{}#{}", self.layer.as_str(), self.index),
        }
    }

    fn strictness(&self) -> Strictness {
        if self.decision == Decision::Allow {
            Strictness::Narrow
        } else {
            Strictness::Broad
        }
    }

    /// Whether the rule exists for the client called `client` (a rule without a
    /// `client` glob exists for every client).
    pub fn client_matches(&self, client: &str) -> bool {
        self.client.as_ref().is_none_or(|(_, m)| m.is_match(client))
    }

    pub fn tool_matches(&self, tool: &str) -> bool {
        self.tool.as_ref().is_none_or(|(_, m)| m.is_match(tool))
    }

    /// Whether the rule matches one unit of a call, whose risk (after any
    /// escalation by the model's hint) is `risk`.
    ///
    /// Allow rules match narrowly: every path of the unit, as written and as
    /// resolved, must match `path`; a `command` allow rule matches no segment that
    /// writes files it does not name and no segment that cannot be read. Deny and ask
    /// rules match broadly: one path, as written or as resolved, is enough.
    pub fn matches(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        unit: &Unit,
        risk: Risk,
        ctx: &Context,
    ) -> bool {
        if self.tool_matches(&call.tool) {
            self.matches_rest(call, assessment, unit, risk, ctx)
        } else {
            self.matches_read_elsewhere(unit, risk, ctx)
        }
    }

    /// [`Rule::matches`] without the tool glob, for rules that the index already
    /// selected by tool name.
    pub fn matches_rest(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        unit: &Unit,
        risk: Risk,
        ctx: &Context,
    ) -> bool {
        let allow = self.decision == Decision::Allow;
        if self.risk.is_some_and(|r| r != risk) {
            return false;
        }
        if let Some((_, pattern)) = &self.command {
            if !assessment.is_shell || !pattern.matches(&unit.argv, self.strictness()) {
                return false;
            }
            // A narrow allow rule names a command, not the variables set for it:
            // `cargo test` does not allow `RUSTC_WRAPPER=x cargo test`.
            if allow
                && (unit.opaque
                    || !unit.env.is_empty()
                    || (unit.writes_files && self.path.is_none()))
            {
                return false;
            }
            // Nor the configuration, manifest or tools it loads: `cargo test` does
            // not allow `cargo test --config …` unless the rule names the option.
            if allow
                && crate::shell::reconfiguring_options(&unit.argv)
                    .iter()
                    .any(|o| {
                        !pattern
                            .flags
                            .iter()
                            .any(|f| f.split('=').next() == Some(o.as_str()))
                    })
            {
                return false;
            }
        }
        if allow && unit.opaque {
            return false;
        }
        if let Some(pattern) = &self.path {
            let ok = if allow {
                !unit.paths.is_empty()
                    && unit
                        .paths
                        .iter()
                        .all(|p| pattern.matches(&p.lexical, ctx) && pattern.matches(&p.real, ctx))
            } else {
                unit.paths
                    .iter()
                    .any(|p| pattern.matches(&p.lexical, ctx) || pattern.matches(&p.real, ctx))
                    || reads_match(pattern, unit, ctx)
            };
            if !ok {
                return false;
            }
        }
        if let Some((_, pattern)) = &self.domain
            && !assessment
                .domain
                .as_deref()
                .is_some_and(|d| pattern.matches(d))
        {
            return false;
        }
        self.args
            .iter()
            .all(|(key, glob)| arg_text(&call.args, key).is_some_and(|v| glob.is_match(&*v)))
    }

    /// Whether a [`Rule::covers_reads`] rule matches a part of a call to another
    /// tool (one its `tool` glob does not name): the part reads a path the rule's
    /// glob matches, as written or as resolved, or searches a folder that holds the
    /// rule's folder. Its `risk`, if any, must hold too.
    pub fn matches_read_elsewhere(&self, unit: &Unit, risk: Risk, ctx: &Context) -> bool {
        if !self.covers_reads || self.risk.is_some_and(|r| r != risk) {
            return false;
        }
        let Some(pattern) = &self.path else {
            return false;
        };
        reads_match(pattern, unit, ctx)
    }

    /// Checks `match` and `not_match`. An example is tested against the rule's most
    /// specific condition: `command`, else `path`, else `domain`, else `tool`.
    fn check_examples(&self) -> Result<(), RuleError> {
        if self.raw.match_examples.is_empty() && self.raw.not_match.is_empty() {
            return Ok(());
        }
        let test = |example: &str| -> Result<bool, RuleError> {
            if let Some((_, pattern)) = &self.command {
                let analysis = crate::shell::analyse(example, &Context::new("/"));
                Ok(analysis
                    .segments
                    .iter()
                    .any(|s| pattern.matches(&s.argv, self.strictness())))
            } else if let Some(pattern) = &self.path {
                Ok(pattern.matches_example(example))
            } else if let Some((_, pattern)) = &self.domain {
                let host = url::Url::parse(example)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
                    .unwrap_or_else(|| example.to_owned());
                Ok(pattern.matches(&host.to_ascii_lowercase()))
            } else if self.tool.is_some() {
                Ok(self.tool_matches(example))
            } else {
                Err(RuleError::UntestableExamples)
            }
        };
        for example in &self.raw.match_examples {
            if !test(example)? {
                return Err(RuleError::ExampleDoesNotMatch {
                    example: example.clone(),
                });
            }
        }
        for example in &self.raw.not_match {
            if test(example)? {
                return Err(RuleError::ExampleMatches {
                    example: example.clone(),
                });
            }
        }
        Ok(())
    }
}
