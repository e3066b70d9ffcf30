//! A session's MCP servers: the editor's `mcpServers` connected at once, each added to
//! the session's toolbox, and the user told of every server that is not.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use warden_acp_transport::ClientHandle;
use warden_acp_transport::schema::{
    CreateElicitationRequest, ElicitationAction, McpServer, SessionId,
};
use warden_mcp::{
    ConnectError, ElicitAnswer, McpSource, Options, Relay, Server, ServerConfig, Transport,
};
use warden_model::code_span;
use warden_permissions::{McpServerId, Policy, Settings};
use warden_tools::{Secrets, ToolSource, Toolbox};

use warden_i18n::Args;
use warden_turn::{Notice, Severity, Words};

/// What connecting a session's servers gave.
#[derive(Debug, Default)]
pub(crate) struct Connected {
    /// The session's toolbox: the built-ins, then each connected server.
    pub(crate) sources: Vec<Arc<dyn ToolSource>>,
    pub(crate) servers: Vec<Arc<Server>>,
    /// The identities whose annotations the user's policy trusts.
    pub(crate) trusted: HashSet<String>,
    pub(crate) notices: Vec<Notice>,
}

impl Connected {
    pub(crate) fn toolbox(&self) -> Toolbox {
        self.sources
            .iter()
            .fold(Toolbox::builtins(), |toolbox, source| {
                toolbox.with(source.clone())
            })
    }
}

/// The editor's description of a server, in the MCP crate's terms.
fn config(server: &McpServer) -> ServerConfig {
    match server {
        McpServer::Stdio(s) => ServerConfig {
            name: s.name.clone(),
            transport: Transport::Stdio {
                command: s.command.clone(),
                args: s.args.clone(),
                env: s
                    .env
                    .iter()
                    .map(|v| (v.name.clone(), v.value.clone()))
                    .collect(),
            },
        },
        McpServer::Http(s) => ServerConfig {
            name: s.name.clone(),
            transport: Transport::Http {
                url: s.url.clone(),
                headers: s
                    .headers
                    .iter()
                    .map(|h| (h.name.clone(), h.value.clone()))
                    .collect(),
            },
        },
        McpServer::Sse(s) => ServerConfig {
            name: s.name.clone(),
            transport: Transport::Unsupported("SSE".to_owned()),
        },
        _ => ServerConfig {
            name: "(unnamed)".to_owned(),
            transport: Transport::Unsupported("unknown-transport".to_owned()),
        },
    }
}

fn server_id(config: &ServerConfig) -> Option<(McpServerId<'_>, String)> {
    match &config.transport {
        Transport::Stdio { command, args, .. } => {
            let command = command.to_str()?;
            Some((
                McpServerId::Stdio {
                    name: &config.name,
                    command,
                    args,
                },
                config.identity(),
            ))
        }
        Transport::Http { url, .. } => Some((
            McpServerId::Http {
                name: &config.name,
                url,
            },
            config.identity(),
        )),
        Transport::Unsupported(_) => None,
    }
}

/// What every server of the session gets.
pub(crate) struct Setup<'a> {
    pub(crate) cwd: PathBuf,
    pub(crate) roots: Vec<PathBuf>,
    pub(crate) secrets: Arc<Secrets>,
    pub(crate) output_bytes: usize,
    pub(crate) settings: &'a Settings,
    pub(crate) policy: &'a Policy,
    /// Where a server's elicitation requests go: the editor, when it shows forms.
    pub(crate) relay: Option<Arc<dyn Relay>>,
    /// The confinement of a stdio server, the network allowed (`None`: unconfined).
    pub(crate) sandbox: Option<warden_tools::Confined>,
    /// What the user reads about servers that did not start.
    pub(crate) words: Words,
}

/// Connects every server at once; returns once each is connected or has failed
/// (within the connect timeout).
pub(crate) async fn connect(requested: &[McpServer], setup: Setup<'_>) -> Connected {
    let mut connected = Connected::default();
    if requested.is_empty() {
        return connected;
    }
    let configs: Vec<ServerConfig> = requested.iter().map(config).collect();
    let mut offline = Vec::new();
    for config in &configs {
        if let Some((id, identity)) = server_id(config) {
            if !setup.policy.mcp_network(&id) {
                offline.push(identity.clone());
            }
            if setup.policy.trusts_mcp_annotations(&id) {
                connected.trusted.insert(identity);
            }
        }
    }
    let options = Options {
        connect_timeout: Duration::from_secs(setup.settings.mcp_connect_timeout_secs),
        call_timeout: Duration::from_secs(setup.settings.mcp_call_timeout_secs),
        cwd: setup.cwd,
        roots: setup.roots,
        secrets: setup.secrets,
        output_bytes: setup.output_bytes,
        relay: setup.relay,
        sandbox: setup.sandbox,
        offline,
    };
    for (name, result) in warden_mcp::connect_all(configs, &options).await {
        match result {
            Ok(server) => {
                tracing::info!(server = %name, tools = server.server.tools_len(), "MCP server connected");
                if !server.problems.is_empty() {
                    connected.notices.push(Notice::new(
                        Severity::Warning,
                        setup.words.text(
                            "agent-notice-mcp-tools-missing",
                            &Args::new().with("server", code_span(&name)),
                        ),
                        Some(server.problems.join("; ")),
                    ));
                }
                connected
                    .sources
                    .push(Arc::new(McpSource::new(server.server.clone())));
                connected.servers.push(server.server);
            }
            Err(err) => {
                tracing::warn!(server = %name, %err, "MCP server not connected");
                connected
                    .notices
                    .push(not_started(&name, &err, setup.words));
            }
        }
    }
    connected
}

/// The notice for a server that is not connected: its name and the reason.
fn not_started(name: &str, err: &ConnectError, words: Words) -> Notice {
    let args = Args::new()
        .with("server", code_span(name))
        .with("error", err.to_string());
    Notice::new(
        Severity::Warning,
        words.text("agent-notice-mcp-not-started", &args),
        Some(words.text("agent-notice-mcp-not-started-detail", &args)),
    )
}

/// Relays a server's elicitation request (a form) to the editor's `elicitation/create`,
/// naming the server. Anything but the user's accepted form is a decline; a URL-mode
/// request, which would send the user to a page of the server's choosing, is declined
/// without asking.
pub(crate) struct EditorRelay {
    pub(crate) client: ClientHandle,
    pub(crate) session: SessionId,
    /// How long the form waits for the user.
    pub(crate) timeout: Option<Duration>,
}

impl EditorRelay {
    fn form(&self, server: &str, request: &Value) -> Option<CreateElicitationRequest> {
        let schema = request.get("requestedSchema")?;
        let message = request.get("message").and_then(Value::as_str).unwrap_or("");
        let form = json!({
            "mode": "form",
            "sessionId": self.session,
            "message": format!("MCP server `{server}` asks: {message}"),
            "requestedSchema": schema,
        });
        serde_json::from_value(form).ok()
    }
}

impl Relay for EditorRelay {
    fn elicit(&self, server: &str, request: Value) -> BoxFuture<'static, ElicitAnswer> {
        let Some(form) = self.form(server, &request) else {
            tracing::info!(server, "declined an elicitation request that is not a form");
            return Box::pin(std::future::ready(ElicitAnswer::Decline));
        };
        let client = self.client.clone();
        let timeout = self.timeout;
        let server = server.to_owned();
        Box::pin(async move {
            match client
                .request(form, timeout, &CancellationToken::new())
                .await
            {
                Ok(response) => match response.action {
                    ElicitationAction::Accept(accept) => ElicitAnswer::Accept {
                        content: accept
                            .content
                            .and_then(|content| serde_json::to_value(content).ok()),
                    },
                    ElicitationAction::Cancel => ElicitAnswer::Cancel,
                    _ => ElicitAnswer::Decline,
                },
                Err(err) => {
                    tracing::info!(server, %err, "an elicitation request got no answer; declined");
                    ElicitAnswer::Decline
                }
            }
        })
    }
}
