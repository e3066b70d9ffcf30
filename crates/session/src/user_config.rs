//! The user's `config.toml`: settings that are not policy (the model, and the variables
//! that hold the user's secrets).
//!
//! Only the user's own file is read here. A project's files never reach these settings:
//! a repository must not be able to choose the model Warden sends its context to, nor
//! shorten the list of secrets kept from the tools.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The user's settings. Unknown keys are an error, so a typo is reported rather than
/// silently ignored.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    /// The model: `scripted` or `openai:<model>`. `WARDEN_MODEL` overrides it.
    pub model: Option<String>,
    /// The language a person reads Warden in (`en`, `zh-CN`); without it, the locale of
    /// Warden's environment (`LC_ALL`, `LC_MESSAGES`, `LANG`), else English.
    pub language: Option<String>,
    /// More environment variables that hold secrets, on top of the built-in ones
    /// (`OPENAI_API_KEY`): they are removed from every tool process's environment, and
    /// their values are redacted from tool output.
    #[serde(default)]
    pub secret_env: Vec<String>,
    /// MCP servers `warden chat` passes in `session/new` (`[[mcp_server]]`), as an
    /// editor passes its own. Warden's agent connects only the servers its client names.
    #[serde(default, rename = "mcp_server")]
    pub mcp_servers: Vec<McpServerEntry>,
    /// Where the audit records are also exported (`[telemetry]`, docs/telemetry.md).
    #[serde(default)]
    pub telemetry: TelemetryConfig,
}

/// `[telemetry]`: the OTLP endpoint, for processes that do not see the `OTEL_*`
/// variables (hooks some agents start with a cleaned environment). The variables win
/// when they are set.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryConfig {
    /// The collector's OTLP/HTTP base URL, e.g. `http://localhost:4318`.
    pub otlp_endpoint: Option<String>,
}

/// One `[[mcp_server]]` of the user's `config.toml`: a stdio server (`command`, `args`,
/// `env`) or an HTTP one (`url`, `headers`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerEntry {
    pub name: String,
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    pub url: Option<String>,
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot parse {path}: {message}")]
    Parse { path: PathBuf, message: String },
}

/// Reads `path`; a missing file is an empty config.
pub fn read(path: &Path) -> Result<UserConfig, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(UserConfig::default()),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    toml::from_str(&text).map_err(|err| ConfigError::Parse {
        path: path.to_path_buf(),
        message: err.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Result<Option<&str>, &str>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).expect("write");
        match (read(&path), expect) {
            (Ok(config), Ok(model)) => assert_eq!(config.model.as_deref(), model),
            (Err(err), Err(fragment)) => {
                assert!(err.to_string().contains(fragment), "{err}")
            }
            (got, want) => panic!("{text:?}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn reads_the_model_and_rejects_typos() {
        check("model = \"openai:gpt-4o\"\n", Ok(Some("openai:gpt-4o")));
        check("", Ok(None));
        check("modle = \"x\"\n", Err("unknown field"));
        check("model = 3\n", Err("cannot parse"));
    }

    #[test]
    fn reads_the_listed_secret_variables() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        let read_list = |text: &str| {
            std::fs::write(&path, text).expect("write");
            read(&path).map(|c| c.secret_env).map_err(|e| e.to_string())
        };
        assert_eq!(
            read_list("secret_env = [\"DEPLOY_TOKEN\", \"DB_URL\"]\n"),
            Ok(vec!["DEPLOY_TOKEN".to_owned(), "DB_URL".to_owned()])
        );
        assert_eq!(read_list("model = \"scripted\"\n"), Ok(Vec::new()));
        let err = read_list("secret_env = \"DEPLOY_TOKEN\"\n").expect_err("not a list");
        assert!(err.contains("cannot parse"), "{err}");
    }

    #[test]
    fn reads_the_telemetry_endpoint_and_rejects_typos_in_its_table() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        let read_endpoint = |text: &str| {
            std::fs::write(&path, text).expect("write");
            read(&path)
                .map(|c| c.telemetry.otlp_endpoint)
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            read_endpoint("[telemetry]\notlp_endpoint = \"http://localhost:4318\"\n"),
            Ok(Some("http://localhost:4318".to_owned()))
        );
        assert_eq!(read_endpoint("model = \"scripted\"\n"), Ok(None));
        let err = read_endpoint("[telemetry]\nendpoint = \"http://x\"\n").expect_err("typo");
        assert!(err.contains("unknown field"), "{err}");
    }

    #[test]
    fn a_missing_file_is_an_empty_config() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = read(&dir.path().join("nope.toml")).expect("missing is fine");
        assert_eq!(config, UserConfig::default());
    }
}
