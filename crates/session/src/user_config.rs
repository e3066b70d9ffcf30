//! The user's `config.toml`: settings that are not policy (today, the model).

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The user's settings. Unknown keys are an error, so a typo is reported rather than
/// silently ignored.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    /// The model: `scripted` or `openai:<model>`. `WARDEN_MODEL` overrides it.
    pub model: Option<String>,
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
    fn a_missing_file_is_an_empty_config() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = read(&dir.path().join("nope.toml")).expect("missing is fine");
        assert_eq!(config, UserConfig::default());
    }
}
