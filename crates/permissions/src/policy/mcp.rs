//! `[[mcp_server]]`: what the user's own policy says about an MCP server.
//!
//! ```toml
//! [[mcp_server]]
//! name = "time"
//! command = "uvx"                      # or url = "https://…" for an HTTP server
//! args = ["mcp-server-time"]           # optional: pins the arguments too
//! trust_annotations = true
//! ```
//!
//! An entry pins a server's identity: its name with its command (and, when given, its
//! arguments) or its URL. An entry that pins neither a command nor a URL matches
//! nothing, so that a server cannot be trusted by borrowing a trusted one's name.

use serde::{Deserialize, Serialize};

/// One `[[mcp_server]]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerEntry {
    /// The server's name, as the editor gives it.
    pub name: String,
    /// A stdio server's command, exactly as the editor gives it.
    pub command: Option<String>,
    /// A stdio server's arguments; when absent, any arguments.
    pub args: Option<Vec<String>>,
    /// An HTTP server's URL.
    pub url: Option<String>,
    /// Whether its tools' annotations (`readOnlyHint`) are believed: a read-only
    /// tool's call may then be Low.
    #[serde(default)]
    pub trust_annotations: bool,
    /// `false`: a stdio server runs without the network (by default its sandbox
    /// allows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<bool>,
}

/// A connected server's identity, as the session knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpServerId<'a> {
    Stdio {
        name: &'a str,
        command: &'a str,
        args: &'a [String],
    },
    Http {
        name: &'a str,
        url: &'a str,
    },
}

impl McpServerEntry {
    /// Whether this entry names exactly that server.
    pub fn matches(&self, server: &McpServerId<'_>) -> bool {
        match *server {
            McpServerId::Stdio {
                name,
                command,
                args,
            } => {
                self.name == name
                    && self.url.is_none()
                    && self.command.as_deref() == Some(command)
                    && self.args.as_deref().is_none_or(|pinned| pinned == args)
            }
            McpServerId::Http { name, url } => {
                self.name == name
                    && self.command.is_none()
                    && self.args.is_none()
                    && self.url.as_deref() == Some(url)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{McpServerEntry, McpServerId};
    use crate::PolicyFile;

    fn entry(text: &str) -> McpServerEntry {
        let file = PolicyFile::parse(text).unwrap_or_else(|e| panic!("{e}"));
        file.mcp_servers.into_iter().next().unwrap_or_default()
    }

    #[test]
    fn an_entry_matches_only_the_identity_it_pins() {
        let args = ["mcp-server-time".to_owned()];
        let other_args = ["evil".to_owned()];
        let stdio = |name, command, args| McpServerId::Stdio {
            name,
            command,
            args,
        };
        let http = |name, url| McpServerId::Http { name, url };
        let cases: &[(&str, McpServerId<'_>, bool)] = &[
            (
                "name = 'time'\ncommand = 'uvx'",
                stdio("time", "uvx", &args),
                true,
            ),
            (
                "name = 'time'\ncommand = 'uvx'",
                stdio("time", "uvx", &other_args),
                true,
            ),
            (
                "name = 'time'\ncommand = 'uvx'\nargs = ['mcp-server-time']",
                stdio("time", "uvx", &args),
                true,
            ),
            (
                "name = 'time'\ncommand = 'uvx'\nargs = ['mcp-server-time']",
                stdio("time", "uvx", &other_args),
                false,
            ),
            // The name alone pins nothing: another server may borrow it.
            ("name = 'time'", stdio("time", "uvx", &args), false),
            (
                "name = 'time'\ncommand = 'uvx'",
                stdio("time", "/tmp/uvx", &args),
                false,
            ),
            (
                "name = 'time'\ncommand = 'uvx'",
                stdio("clock", "uvx", &args),
                false,
            ),
            ("name = 'time'\ncommand = 'uvx'", http("time", "uvx"), false),
            (
                "name = 'api'\nurl = 'https://a.example/mcp'",
                http("api", "https://a.example/mcp"),
                true,
            ),
            (
                "name = 'api'\nurl = 'https://a.example/mcp'",
                http("api", "https://b.example/mcp"),
                false,
            ),
            (
                "name = 'api'\nurl = 'https://a.example/mcp'",
                stdio("api", "https://a.example/mcp", &args),
                false,
            ),
        ];
        for (text, server, expect) in cases {
            let text = format!("[[mcp_server]]\n{text}\ntrust_annotations = true\n");
            assert_eq!(
                entry(&text).matches(server),
                *expect,
                "{text} vs {server:?}"
            );
        }
    }

    #[test]
    fn an_unknown_key_is_an_error() {
        assert!(PolicyFile::parse("[[mcp_server]]\nname = 'a'\ntrusted = true\n").is_err());
    }
}
