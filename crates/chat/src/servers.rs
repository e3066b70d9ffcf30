//! The MCP servers `warden chat` passes in `session/new` (and `session/load`): the
//! `[[mcp_server]]` entries of the user's `config.toml`, and `--mcp-config FILE` in the
//! format other clients use (`{"mcpServers": {"name": {"command", "args", "env"} or
//! {"url", "headers"}}}`).

use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    EnvVariable, HttpHeader, McpServer, McpServerHttp, McpServerStdio,
};
use serde_json::Value;

/// Why a server list cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ServersError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not an MCP server list: {problem}")]
    Invalid {
        path: PathBuf,
        #[source]
        problem: Problem,
    },
}

/// What is wrong with one list of servers.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error("server `{0}` has both a command and a url")]
    Both(String),
    #[error("server `{0}` has neither a command nor a url")]
    Neither(String),
    #[error("server `{0}` uses SSE, which Warden does not offer; use its HTTP url")]
    Sse(String),
    #[error("not JSON ({0})")]
    NotJson(String),
    #[error("it has no `mcpServers` object")]
    NoServers,
    #[error("`{0}` holds a non-string")]
    NotStrings(String),
    #[error("`{0}` is not a list")]
    NotAList(String),
    #[error("`{0}` is not a string")]
    NotAString(String),
    #[error("`{0}` is not an object")]
    NotAnObject(String),
}

/// One server as the user's settings name it (`[[mcp_server]]` in `config.toml`): a
/// stdio server (`command`, `args`, `env`) or an HTTP one (`url`, `headers`). The binary
/// reads the settings; the chat only turns them into the protocol's servers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerEntry {
    pub name: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub url: Option<String>,
    pub headers: Vec<(String, String)>,
}

/// One server as the protocol names it.
fn entry(entry: ServerEntry) -> Result<McpServer, Problem> {
    let ServerEntry {
        name,
        command,
        args,
        env,
        url,
        headers,
    } = entry;
    match (command, url) {
        (Some(command), None) => Ok(McpServer::Stdio(
            McpServerStdio::new(name, program(&command)).args(args).env(
                env.into_iter()
                    .map(|(k, v)| EnvVariable::new(k, v))
                    .collect(),
            ),
        )),
        (None, Some(url)) => Ok(McpServer::Http(
            McpServerHttp::new(name, url).headers(
                headers
                    .into_iter()
                    .map(|(k, v)| HttpHeader::new(k, v))
                    .collect(),
            ),
        )),
        (Some(_), Some(_)) => Err(Problem::Both(name)),
        (None, None) => Err(Problem::Neither(name)),
    }
}

/// The command as the protocol wants it, an absolute path: a bare name is looked up in
/// `PATH` (as a shell would), anything else is taken as it is.
fn program(command: &str) -> PathBuf {
    if command.contains('/') {
        return PathBuf::from(command);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(command))
        .find(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from(command))
}

/// The `[[mcp_server]]` entries of the user's `config.toml` (at `path`).
pub fn from_entries(
    entries: Vec<ServerEntry>,
    path: &Path,
) -> Result<Vec<McpServer>, ServersError> {
    entries
        .into_iter()
        .map(entry)
        .collect::<Result<_, _>>()
        .map_err(|problem| ServersError::Invalid {
            path: path.to_path_buf(),
            problem,
        })
}

/// The servers of an `mcpServers` JSON file, in the file's order.
pub fn from_json_file(path: &Path) -> Result<Vec<McpServer>, ServersError> {
    let text = std::fs::read_to_string(path).map_err(|source| ServersError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    from_json(&text).map_err(|problem| ServersError::Invalid {
        path: path.to_path_buf(),
        problem,
    })
}

fn strings(value: Option<&Value>, what: &str) -> Result<Vec<String>, Problem> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| Problem::NotStrings(what.to_owned()))
            })
            .collect(),
        Some(_) => Err(Problem::NotAList(what.to_owned())),
    }
}

fn pairs(value: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, Problem> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|v| (k.clone(), v.to_owned()))
                    .ok_or_else(|| Problem::NotAString(format!("{what}.{k}")))
            })
            .collect(),
        Some(_) => Err(Problem::NotAnObject(what.to_owned())),
    }
}

/// Parses `{"mcpServers": {...}}`.
pub fn from_json(text: &str) -> Result<Vec<McpServer>, Problem> {
    let value: Value = serde_json::from_str(text).map_err(|e| Problem::NotJson(e.to_string()))?;
    let servers = value
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or(Problem::NoServers)?;
    let mut out = Vec::new();
    for (name, server) in servers {
        let kind = server.get("type").and_then(Value::as_str);
        if matches!(kind, Some("sse")) {
            return Err(Problem::Sse(name.clone()));
        }
        let text = |key: &str| server.get(key).and_then(Value::as_str).map(str::to_owned);
        out.push(entry(ServerEntry {
            name: name.clone(),
            command: text("command"),
            args: strings(server.get("args"), "args")?,
            env: pairs(server.get("env"), "env")?,
            url: text("url"),
            headers: pairs(server.get("headers"), "headers")?,
        })?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_other_clients_use_reads_as_acp_servers() {
        let servers = from_json(
            r#"{"mcpServers": {
                "files": {"command": "/usr/bin/mcp-files", "args": ["--root", "."], "env": {"TOKEN": "x"}},
                "remote": {"type": "http", "url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer y"}}
            }}"#,
        )
        .expect("valid");
        let json = serde_json::to_value(&servers).expect("json");
        assert_eq!(
            json,
            serde_json::json!([
                {"name": "files", "command": "/usr/bin/mcp-files", "args": ["--root", "."],
                 "env": [{"name": "TOKEN", "value": "x"}]},
                {"type": "http", "name": "remote", "url": "https://mcp.example/mcp",
                 "headers": [{"name": "Authorization", "value": "Bearer y"}]}
            ])
        );
    }

    #[test]
    fn what_cannot_be_used_is_refused_with_the_reason() {
        let check = |text: &str, expect: &str| {
            let err = from_json(text).expect_err(text);
            assert!(err.to_string().contains(expect), "{err}");
        };
        check("{", "not JSON");
        check("{}", "no `mcpServers`");
        check(
            r#"{"mcpServers": {"a": {}}}"#,
            "neither a command nor a url",
        );
        check(
            r#"{"mcpServers": {"a": {"type": "sse", "url": "u"}}}"#,
            "SSE",
        );
        check(
            r#"{"mcpServers": {"a": {"command": "c", "args": [1]}}}"#,
            "non-string",
        );
    }
}
