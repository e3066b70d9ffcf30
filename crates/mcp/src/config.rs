//! What an MCP server is (its name, transport and identity), how a session connects
//! it, and why a connection failed.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use warden_tools::Secrets;

use crate::naming::NameError;
use crate::relay::Relay;

/// One server as the editor names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The name the editor gave it: part of its tools' names and of its identity.
    pub name: String,
    pub transport: Transport,
}

/// How Warden reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process spoken to over its stdin and stdout.
    Stdio {
        command: PathBuf,
        args: Vec<String>,
        /// Variables the editor sets for it, over Warden's environment less its
        /// secrets.
        env: Vec<(String, String)>,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// A transport Warden does not speak (SSE, or one it does not know); the server is
    /// refused with this name of it.
    Unsupported(String),
}

impl ServerConfig {
    /// What makes this server this server: its name with its command and arguments,
    /// or with its URL. A stored grant names the identity, so a grant never covers
    /// another server that borrows the name. The command line is written as a JSON
    /// array so that no two different command lines read the same.
    pub fn identity(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => {
                let mut argv = vec![serde_json::Value::from(command.to_string_lossy())];
                argv.extend(args.iter().map(|a| serde_json::Value::from(a.as_str())));
                format!("{} stdio {}", self.name, serde_json::Value::Array(argv))
            }
            Transport::Http { url, .. } => format!("{} http {url}", self.name),
            Transport::Unsupported(kind) => format!("{} {kind}", self.name),
        }
    }
}

/// What every server of a session shares.
#[derive(Clone)]
pub struct Options {
    /// How long starting a server (process, `initialize`, the first `tools/list`) may
    /// take.
    pub connect_timeout: Duration,
    /// How long one tool call may take before it fails as hung.
    pub call_timeout: Duration,
    /// The session's working folder: a stdio server's working folder.
    pub cwd: PathBuf,
    /// The session's workspace folders, offered as the client's roots.
    pub roots: Vec<PathBuf>,
    /// Warden's own secrets: kept out of every server's environment, redacted from
    /// results.
    pub secrets: Arc<Secrets>,
    /// The most result text the model and the editor get, in bytes.
    pub output_bytes: usize,
    /// Where a server's elicitation requests go; `None` declines them.
    pub relay: Option<Arc<dyn Relay>>,
    /// The confinement of a stdio server (the network allowed); `None` when
    /// confinement is turned off or this system cannot apply it.
    pub sandbox: Option<warden_tools::Confined>,
    /// The identities of the stdio servers that run without the network.
    pub offline: Vec<String>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("connect_timeout", &self.connect_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("cwd", &self.cwd)
            .field("roots", &self.roots)
            .field("output_bytes", &self.output_bytes)
            .field("relay", &self.relay.is_some())
            .finish_non_exhaustive()
    }
}

/// Why a server is not connected. Every variant is told to the user with the server's
/// name; none fails the session.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("its name cannot be used: {0}")]
    Name(#[from] NameError),
    #[error("another server of this session is already called `{0}`")]
    Duplicate(String),
    #[error("Warden does not connect {0} servers (stdio and HTTP only)")]
    Unsupported(String),
    #[error("its URL `{url}` cannot be used: {reason}")]
    Url { url: String, reason: String },
    #[error("its HTTP header `{name}` cannot be sent: {reason}")]
    Header { name: String, reason: String },
    #[error("no HTTP client could be built for it: {0}")]
    HttpClient(#[source] reqwest::Error),
    #[error("could not start `{command}`: {source}")]
    Spawn {
        command: String,
        #[source]
        source: std::io::Error,
    },
    #[error("it did not finish starting within {0} s")]
    Timeout(u64),
    #[error("it failed during the MCP handshake: {0}")]
    Handshake(String),
    #[error("it did not list its tools: {0}")]
    ListTools(String),
}
