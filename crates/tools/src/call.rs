//! Validation of a model's arguments into a typed call.

use std::fmt;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::ToolKind;
use crate::def::MAX_TIMEOUT_SECS;

/// Arguments of `fs_read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsReadArgs {
    /// The file, absolute or relative to the session cwd.
    pub path: PathBuf,
    /// The first line to read, 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The maximum number of lines to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// Arguments of `fs_list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsListArgs {
    /// The directory.
    pub path: PathBuf,
}

/// Arguments of `fs_search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsSearchArgs {
    /// A regular expression (Rust `regex` syntax), matched against each line.
    pub pattern: String,
    /// The file or directory to search; the session cwd when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

/// Arguments of `fs_write`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsWriteArgs {
    /// The file.
    pub path: PathBuf,
    /// Its complete new content.
    pub content: String,
}

/// Arguments of `fs_edit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsEditArgs {
    /// The file.
    pub path: PathBuf,
    /// The text to replace; it must occur exactly once.
    pub old_text: String,
    /// The replacement.
    pub new_text: String,
}

/// Arguments of `fs_delete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsDeleteArgs {
    /// The path to delete.
    pub path: PathBuf,
    /// Needed to delete a directory.
    #[serde(default)]
    pub recursive: bool,
}

/// Arguments of `fs_move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsMoveArgs {
    /// The existing path.
    pub from: PathBuf,
    /// The new path; it must not exist.
    pub to: PathBuf,
}

/// Arguments of `terminal`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerminalArgs {
    /// A shell command line, run with `sh -c`.
    pub command: String,
    /// The working directory, relative to the session cwd or absolute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Seconds before the command is killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// `false`: the model asks to run the command without the sandbox (the user is
    /// asked each time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<bool>,
}

/// The HTTP methods `http_fetch` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum HttpMethod {
    /// GET, the default.
    #[default]
    Get,
    /// HEAD.
    Head,
    /// POST.
    Post,
    /// PUT.
    Put,
    /// PATCH.
    Patch,
    /// DELETE.
    Delete,
}

impl HttpMethod {
    /// The method's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Head => "HEAD",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for HttpMethod {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        // Models write methods in either case; the meaning is the same.
        Ok(match value.to_ascii_uppercase().as_str() {
            "GET" => HttpMethod::Get,
            "HEAD" => HttpMethod::Head,
            "POST" => HttpMethod::Post,
            "PUT" => HttpMethod::Put,
            "PATCH" => HttpMethod::Patch,
            "DELETE" => HttpMethod::Delete,
            _ => {
                return Err(format!(
                    "unknown method `{value}`, expected one of GET, HEAD, POST, PUT, PATCH, DELETE"
                ));
            }
        })
    }
}

impl From<HttpMethod> for String {
    fn from(method: HttpMethod) -> Self {
        method.as_str().to_owned()
    }
}

/// Arguments of `http_fetch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpFetchArgs {
    /// An `http://` or `https://` URL.
    pub url: String,
    /// The method, GET by default.
    #[serde(default)]
    pub method: HttpMethod,
    /// The request body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A validated call of a built-in tool, with its typed arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "tool", content = "args", rename_all = "snake_case")]
pub enum ParsedCall {
    /// `fs_read`.
    FsRead(FsReadArgs),
    /// `fs_list`.
    FsList(FsListArgs),
    /// `fs_search`.
    FsSearch(FsSearchArgs),
    /// `fs_write`.
    FsWrite(FsWriteArgs),
    /// `fs_edit`.
    FsEdit(FsEditArgs),
    /// `fs_delete`.
    FsDelete(FsDeleteArgs),
    /// `fs_move`.
    FsMove(FsMoveArgs),
    /// `terminal`.
    Terminal(TerminalArgs),
    /// `http_fetch`.
    HttpFetch(HttpFetchArgs),
}

impl ParsedCall {
    /// The tool's name.
    pub fn tool_name(&self) -> &'static str {
        match self {
            ParsedCall::FsRead(_) => "fs_read",
            ParsedCall::FsList(_) => "fs_list",
            ParsedCall::FsSearch(_) => "fs_search",
            ParsedCall::FsWrite(_) => "fs_write",
            ParsedCall::FsEdit(_) => "fs_edit",
            ParsedCall::FsDelete(_) => "fs_delete",
            ParsedCall::FsMove(_) => "fs_move",
            ParsedCall::Terminal(_) => "terminal",
            ParsedCall::HttpFetch(_) => "http_fetch",
        }
    }

    /// The kind of the call.
    pub fn kind(&self) -> ToolKind {
        match self {
            ParsedCall::FsRead(_) | ParsedCall::FsList(_) => ToolKind::Read,
            ParsedCall::FsSearch(_) => ToolKind::Search,
            ParsedCall::FsWrite(_) | ParsedCall::FsEdit(_) => ToolKind::Edit,
            ParsedCall::FsDelete(_) => ToolKind::Delete,
            ParsedCall::FsMove(_) => ToolKind::Move,
            ParsedCall::Terminal(_) => ToolKind::Execute,
            ParsedCall::HttpFetch(_) => ToolKind::Fetch,
        }
    }

    /// The arguments as a JSON object, in their canonical form (defaults filled in where the
    /// tool has one), e.g. for the tool call's `rawInput`.
    pub fn args_json(&self) -> Value {
        let value = match self {
            ParsedCall::FsRead(a) => serde_json::to_value(a),
            ParsedCall::FsList(a) => serde_json::to_value(a),
            ParsedCall::FsSearch(a) => serde_json::to_value(a),
            ParsedCall::FsWrite(a) => serde_json::to_value(a),
            ParsedCall::FsEdit(a) => serde_json::to_value(a),
            ParsedCall::FsDelete(a) => serde_json::to_value(a),
            ParsedCall::FsMove(a) => serde_json::to_value(a),
            ParsedCall::Terminal(a) => serde_json::to_value(a),
            ParsedCall::HttpFetch(a) => serde_json::to_value(a),
        };
        // Serialising these plain structs cannot fail: every field is a string, number or bool,
        // and paths come from JSON strings, so they are valid UTF-8.
        value.unwrap_or(Value::Null)
    }
}

/// Why a call's arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// No built-in tool has this name.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The arguments are not a JSON object.
    #[error("{tool}: the arguments must be a JSON object, not {found}")]
    NotAnObject {
        /// The tool.
        tool: &'static str,
        /// What was given instead (`null`, `an array`, ...).
        found: &'static str,
    },
    /// The arguments of a tool that is not built in do not match its schema.
    #[error("{tool}: {message}")]
    Schema {
        /// The tool, as the model named it.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// An argument is missing, unknown, of the wrong type or out of range.
    #[error("{tool}: {message}")]
    Invalid {
        /// The tool.
        tool: &'static str,
        /// What is wrong, e.g. "missing field `content`".
        message: String,
    },
}

/// Validates a model's arguments for a built-in tool into a typed call.
///
/// The caller removes `risk_level` first; a `risk_level` still present is ignored here too, since
/// the contract (docs/contract.md, section 2) lets every tool accept it. Any other unknown field is an error.
pub fn validate(tool: &str, args: &Value) -> Result<ParsedCall, ValidationError> {
    let tool: &'static str = crate::def::find(tool)
        .map(|def| def.name)
        .ok_or_else(|| ValidationError::UnknownTool(tool.to_owned()))?;
    let mut args = match args {
        Value::Object(map) => map.clone(),
        other => {
            return Err(ValidationError::NotAnObject {
                tool,
                found: json_type(other),
            });
        }
    };
    args.remove("risk_level");
    let args = Value::Object(args);
    let invalid = |message: String| ValidationError::Invalid { tool, message };
    let call = match tool {
        "fs_read" => {
            let a: FsReadArgs = parse(tool, args)?;
            non_empty_path(tool, "path", &a.path)?;
            if a.line == Some(0) {
                return Err(invalid("`line` is 1-based; 0 is not a line".into()));
            }
            if a.limit == Some(0) {
                return Err(invalid("`limit` must be at least 1".into()));
            }
            ParsedCall::FsRead(a)
        }
        "fs_list" => {
            let a: FsListArgs = parse(tool, args)?;
            non_empty_path(tool, "path", &a.path)?;
            ParsedCall::FsList(a)
        }
        "fs_search" => {
            let a: FsSearchArgs = parse(tool, args)?;
            if a.pattern.is_empty() {
                return Err(invalid("`pattern` must not be empty".into()));
            }
            if let Err(err) = regex::Regex::new(&a.pattern) {
                return Err(invalid(format!("`pattern` is not a valid regex: {err}")));
            }
            if let Some(path) = &a.path {
                non_empty_path(tool, "path", path)?;
            }
            ParsedCall::FsSearch(a)
        }
        "fs_write" => {
            let a: FsWriteArgs = parse(tool, args)?;
            non_empty_path(tool, "path", &a.path)?;
            ParsedCall::FsWrite(a)
        }
        "fs_edit" => {
            let a: FsEditArgs = parse(tool, args)?;
            non_empty_path(tool, "path", &a.path)?;
            if a.old_text.is_empty() {
                return Err(invalid("`old_text` must not be empty".into()));
            }
            if a.old_text == a.new_text {
                return Err(invalid("`old_text` and `new_text` are the same".into()));
            }
            ParsedCall::FsEdit(a)
        }
        "fs_delete" => {
            let a: FsDeleteArgs = parse(tool, args)?;
            non_empty_path(tool, "path", &a.path)?;
            ParsedCall::FsDelete(a)
        }
        "fs_move" => {
            let a: FsMoveArgs = parse(tool, args)?;
            non_empty_path(tool, "from", &a.from)?;
            non_empty_path(tool, "to", &a.to)?;
            ParsedCall::FsMove(a)
        }
        "terminal" => terminal_call(tool, args)?,
        "http_fetch" => http_fetch_call(tool, args)?,
        // `find` only knows the names above.
        other => return Err(ValidationError::UnknownTool(other.to_owned())),
    };
    Ok(call)
}

/// A `terminal` call: a command that is not empty and has no NUL byte, a working
/// directory that is not empty, a timeout within bounds.
fn terminal_call(tool: &'static str, args: Value) -> Result<ParsedCall, ValidationError> {
    let invalid = |message: String| ValidationError::Invalid { tool, message };
    let a: TerminalArgs = parse(tool, args)?;
    if a.command.trim().is_empty() {
        return Err(invalid("`command` must not be empty".into()));
    }
    if a.command.contains('\0') {
        return Err(invalid("`command` must not contain NUL bytes".into()));
    }
    if let Some(cwd) = &a.cwd {
        non_empty_path(tool, "cwd", cwd)?;
    }
    if let Some(t) = a.timeout_secs
        && !(1..=MAX_TIMEOUT_SECS).contains(&t)
    {
        return Err(invalid(format!(
            "`timeout_secs` must be between 1 and {MAX_TIMEOUT_SECS}, not {t}"
        )));
    }
    Ok(ParsedCall::Terminal(a))
}

/// An `http_fetch` call: an http:// or https:// URL with a host, and a body only
/// with a method that carries one.
fn http_fetch_call(tool: &'static str, args: Value) -> Result<ParsedCall, ValidationError> {
    let invalid = |message: String| ValidationError::Invalid { tool, message };
    let a: HttpFetchArgs = parse(tool, args)?;
    let url = reqwest::Url::parse(&a.url)
        .map_err(|err| invalid(format!("`url` is not a valid URL: {err}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "`url` must be http:// or https://, not {}://",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("`url` has no host".into()));
    }
    if a.body.is_some() && matches!(a.method, HttpMethod::Get | HttpMethod::Head) {
        return Err(invalid(format!(
            "a `body` is not allowed with {}",
            a.method
        )));
    }
    Ok(ParsedCall::HttpFetch(a))
}

fn parse<T: DeserializeOwned>(tool: &'static str, args: Value) -> Result<T, ValidationError> {
    serde_json::from_value(args).map_err(|err| ValidationError::Invalid {
        tool,
        message: err.to_string(),
    })
}

/// Checks a path argument: not empty, no NUL byte (which no system call accepts).
fn non_empty_path(
    tool: &'static str,
    field: &str,
    path: &std::path::Path,
) -> Result<(), ValidationError> {
    let text = path.as_os_str();
    let problem = if text.is_empty() {
        "must not be empty"
    } else if text.as_encoded_bytes().contains(&0) {
        "must not contain NUL bytes"
    } else {
        return Ok(());
    };
    Err(ValidationError::Invalid {
        tool,
        message: format!("`{field}` {problem}"),
    })
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
