//! The MCP servers `warden chat` passes in `session/new` (and `session/load`): the
//! `[[mcp_server]]` entries of the user's `config.toml`, and `--mcp-config FILE` in the
//! format other clients use (`{"mcpServers": {"name": {"command", "args", "env"} or
//! {"url", "headers"}}}`).

use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    EnvVariable, HttpHeader, McpServer, McpServerHttp, McpServerStdio,
};
use serde_json::Value;
use warden_session::McpServerEntry;

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
    Invalid { path: PathBuf, problem: String },
}

/// A server's entries in the order they came.
fn entry(
    name: &str,
    command: Option<&str>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    url: Option<&str>,
    headers: Vec<(String, String)>,
) -> Result<McpServer, String> {
    match (command, url) {
        (Some(command), None) => Ok(McpServer::Stdio(
            McpServerStdio::new(name, program(command)).args(args).env(
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
        (Some(_), Some(_)) => Err(format!("server `{name}` has both a command and a url")),
        (None, None) => Err(format!("server `{name}` has neither a command nor a url")),
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

/// The `[[mcp_server]]` entries of the user's `config.toml`.
pub fn from_config(
    entries: &[McpServerEntry],
    path: &Path,
) -> Result<Vec<McpServer>, ServersError> {
    entries
        .iter()
        .map(|e| {
            entry(
                &e.name,
                e.command.as_deref(),
                e.args.clone(),
                e.env.clone().into_iter().collect(),
                e.url.as_deref(),
                e.headers.clone().into_iter().collect(),
            )
        })
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

fn strings(value: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or(format!("`{what}` holds a non-string"))
            })
            .collect(),
        Some(_) => Err(format!("`{what}` is not a list")),
    }
}

fn pairs(value: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|v| (k.clone(), v.to_owned()))
                    .ok_or(format!("`{what}.{k}` is not a string"))
            })
            .collect(),
        Some(_) => Err(format!("`{what}` is not an object")),
    }
}

/// Parses `{"mcpServers": {...}}`.
pub fn from_json(text: &str) -> Result<Vec<McpServer>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let servers = value
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or("it has no `mcpServers` object")?;
    let mut out = Vec::new();
    for (name, server) in servers {
        let kind = server.get("type").and_then(Value::as_str);
        if matches!(kind, Some("sse")) {
            return Err(format!(
                "server `{name}` uses SSE, which Warden does not offer; use its HTTP url"
            ));
        }
        out.push(entry(
            name,
            server.get("command").and_then(Value::as_str),
            strings(server.get("args"), "args")?,
            pairs(server.get("env"), "env")?,
            server.get("url").and_then(Value::as_str),
            pairs(server.get("headers"), "headers")?,
        )?);
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
            assert!(err.contains(expect), "{err}");
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
