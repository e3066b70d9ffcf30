//! Warden's own secrets, kept from the tools: the model's API key and the variables the
//! user lists (`secret_env` in the user's `config.toml`).
//!
//! Two measures, both here so that every way of running a tool uses them:
//! - a local tool process (and, later, any server Warden starts) gets Warden's
//!   environment without those variables ([`Secrets::child_env`],
//!   [`Secrets::scrub_command`]);
//! - a tool's output has every occurrence of their values replaced by
//!   `[redacted: NAME]` before it reaches the model or the client
//!   ([`Secrets::redact_output`]), because a value can still reach the output by other
//!   ways (a project file that holds the same key, an editor terminal whose
//!   environment has it).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use warden_redact::KnownSecrets;

use crate::content::Content;
use crate::output::ToolOutput;

/// The variables that always hold Warden's own credentials: the model's API key.
pub const BUILTIN_SECRET_ENV: &[&str] = &["OPENAI_API_KEY"];

/// The names and values of Warden's own secrets.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    names: Vec<String>,
    values: KnownSecrets,
}

impl Secrets {
    /// The built-in names and `listed`, with their values read by `read` (Warden's
    /// environment). Values shorter than
    /// [`MIN_SECRET_LEN`](warden_redact::MIN_SECRET_LEN) are kept out of
    /// tool environments but not redacted (a warning says so).
    pub fn new(listed: &[String], read: impl Fn(&str) -> Option<String>) -> Secrets {
        let mut names: Vec<String> = BUILTIN_SECRET_ENV.iter().map(|n| (*n).to_owned()).collect();
        for name in listed {
            if !name.is_empty() && !names.contains(name) {
                names.push(name.clone());
            }
        }
        let values = KnownSecrets::new(
            names
                .iter()
                .filter_map(|name| read(name).map(|value| (name.clone(), value))),
        );
        Secrets { names, values }
    }

    /// The names removed from tool environments.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The values redacted from tool output.
    pub fn values(&self) -> &KnownSecrets {
        &self.values
    }

    /// The environment of a tool process: `parent` without the secret variables, and
    /// without any variable whose value holds a secret's value (`MY_KEY=$OPENAI_API_KEY`
    /// exported under another name).
    pub fn child_env(
        &self,
        parent: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        parent
            .into_iter()
            .filter(|(name, value)| {
                let secret = self.names.iter().any(|n| n.as_bytes() == name.as_bytes())
                    || self.values.occurs_in(value.as_bytes());
                if secret {
                    tracing::debug!(variable = %name.to_string_lossy(), "kept out of a tool's environment");
                }
                !secret
            })
            .collect()
    }

    /// Gives `command` Warden's environment without the secrets: it starts from an
    /// empty environment and gets exactly [`Secrets::child_env`] of Warden's own, so
    /// nothing is inherited unseen. Variables set on `command` afterwards are added.
    pub fn scrub_command(&self, command: &mut tokio::process::Command) {
        command
            .env_clear()
            .envs(self.child_env(std::env::vars_os()));
    }

    /// `output` with every secret value replaced by its marker, in everything that goes
    /// to the model (`for_model`) or the client (`content`, `raw_output`).
    pub fn redact_output(&self, output: ToolOutput) -> ToolOutput {
        if self.values.is_empty() {
            return output;
        }
        ToolOutput {
            ok: output.ok,
            timed_out: output.timed_out,
            content: self.redact_content(output.content),
            raw_output: self.values.redact_json(&output.raw_output),
            for_model: self.values.redact(&output.for_model).into_owned(),
        }
    }

    /// Tool call content with every secret value replaced by its marker.
    pub fn redact_content(&self, content: Vec<Content>) -> Vec<Content> {
        if self.values.is_empty() {
            return content;
        }
        let redact = |text: String| self.values.redact(&text).into_owned();
        content
            .into_iter()
            .map(|item| match item {
                Content::Text(text) => Content::Text(redact(text)),
                Content::Diff {
                    path,
                    old_text,
                    new_text,
                } => Content::Diff {
                    path,
                    old_text: old_text.map(redact),
                    new_text: redact(new_text),
                },
                // A terminal's output reaches the editor from the editor's own process.
                Content::Terminal { id } => Content::Terminal { id },
                // Binary data is shown as it is: a secret is text, and an image of one is
                // not redacted by rewriting bytes.
                Content::Image { data, mime_type } => Content::Image { data, mime_type },
                Content::Resource {
                    uri,
                    mime_type,
                    text,
                } => Content::Resource {
                    uri: redact(uri),
                    mime_type,
                    text: text.map(redact),
                },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use serde_json::json;

    use super::Secrets;
    use crate::content::Content;
    use crate::output::ToolOutput;

    const KEY: &str = "sk-test-0123456789abcdef";

    fn secrets(listed: &[&str], env: &[(&str, &str)]) -> Secrets {
        let listed: Vec<String> = listed.iter().map(|s| (*s).to_owned()).collect();
        Secrets::new(&listed, |name| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect()
    }

    #[test]
    fn the_child_environment_lacks_every_secret() {
        let parent = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("OPENAI_API_KEY", KEY),
            ("DEPLOY_TOKEN", "deploy-token-value"),
            ("COPY_OF_KEY", KEY),
            ("URL_WITH_KEY", "https://x:sk-test-0123456789abcdef@host"),
            ("SHORT_SECRET", "abc"),
            ("AWS_SECRET_ACCESS_KEY", "not-warden-s-own-secret"),
        ];
        let s = secrets(&["DEPLOY_TOKEN", "SHORT_SECRET"], &parent);
        assert_eq!(
            s.names(),
            ["OPENAI_API_KEY", "DEPLOY_TOKEN", "SHORT_SECRET"]
        );
        let child = s.child_env(env(&parent));
        assert_eq!(
            child,
            env(&[
                ("PATH", "/usr/bin"),
                ("HOME", "/home/u"),
                ("AWS_SECRET_ACCESS_KEY", "not-warden-s-own-secret"),
            ])
        );
    }

    #[test]
    fn without_secrets_the_child_environment_is_the_parent_s() {
        let parent = env(&[("PATH", "/usr/bin"), ("LANG", "C")]);
        assert_eq!(secrets(&[], &[]).child_env(parent.clone()), parent);
    }

    #[test]
    fn every_part_of_a_tool_output_is_redacted() {
        let s = secrets(&[], &[("OPENAI_API_KEY", KEY)]);
        let output = ToolOutput {
            ok: true,
            timed_out: false,
            content: vec![
                Content::Text(format!("key={KEY}")),
                Content::Diff {
                    path: "/w/.env".into(),
                    old_text: Some(format!("K={KEY}")),
                    new_text: format!("K={KEY}\n"),
                },
                Content::Terminal {
                    id: "term-1".to_owned(),
                },
                Content::Resource {
                    uri: format!("file:///{KEY}"),
                    mime_type: None,
                    text: Some(KEY.to_owned()),
                },
            ],
            raw_output: json!({"output": format!("{KEY}\n"), "exit_code": 0, "nested": [KEY]}),
            for_model: format!("Exit code 0.\n{KEY}\n"),
        };
        let redacted = s.redact_output(output);
        let shown = format!(
            "{:?} {} {}",
            redacted.content, redacted.raw_output, redacted.for_model
        );
        assert!(!shown.contains(KEY), "{shown}");
        assert_eq!(
            redacted.for_model,
            "Exit code 0.\n[redacted: OPENAI_API_KEY]\n"
        );
        assert_eq!(redacted.raw_output["exit_code"], 0);
        assert_eq!(
            redacted.content[2],
            Content::Terminal {
                id: "term-1".to_owned()
            }
        );
        assert!(shown.contains("K=[redacted: OPENAI_API_KEY]"), "{shown}");
    }
}
