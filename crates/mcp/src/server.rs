//! One server's connection for a session: started on `session/new`, started again by
//! the next call after a crash or a hang, stopped with the session.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolRequestParams, CallToolResponse};
use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use warden_tools::ToolOutput;

use crate::config::{ConnectError, Options, ServerConfig, Transport};
use crate::handler::Handler;
use crate::naming;
use crate::process::{self, Group};
use crate::tool_list::Shared;

/// The longest message line read from a server. Longer lines are dropped by the SDK
/// (the call they answer then fails as hung); a result up to this size is read and
/// cut to the output limit.
const MAX_LINE: usize = 64 * 1024 * 1024;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A live connection: the SDK's service and, for a stdio server, its process group.
struct Live {
    service: RunningService<RoleClient, Handler>,
    group: Mutex<Option<Group>>,
}

impl Live {
    fn stop(&self) {
        self.service.cancellation_token().cancel();
        // Dropping the group kills every process in it now, even while a call still
        // holds the connection.
        drop(lock(&self.group).take());
    }
}

/// One MCP server of a session.
pub struct Server {
    config: ServerConfig,
    identity: String,
    options: Options,
    shared: Arc<Shared>,
    live: Mutex<Option<Arc<Live>>>,
    /// One start at a time: a call that finds the server down waits for a start under
    /// way rather than starting a second process.
    starting: tokio::sync::Mutex<()>,
    closed: AtomicBool,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("identity", &self.identity)
            .field("connected", &lock(&self.live).is_some())
            .finish_non_exhaustive()
    }
}

/// A server that connected, and what of its tool list was refused (told to the user).
#[derive(Debug)]
pub struct Connected {
    pub server: Arc<Server>,
    pub problems: Vec<String>,
}

/// Connects every server at once, each within the connect timeout. A server whose
/// name is refused or taken by an earlier one of the list is not started.
pub async fn connect_all(
    configs: Vec<ServerConfig>,
    options: &Options,
) -> Vec<(String, Result<Connected, ConnectError>)> {
    let mut names = HashSet::new();
    let mut pending = Vec::new();
    for config in configs {
        let name = config.name.clone();
        let checked = naming::check_server(&name)
            .map_err(ConnectError::from)
            .and_then(|()| {
                if names.insert(name.clone()) {
                    Ok(())
                } else {
                    Err(ConnectError::Duplicate(name.clone()))
                }
            });
        pending.push((name, checked.map(|()| config)));
    }
    let starts = pending.into_iter().map(|(name, config)| async move {
        let result = match config {
            Ok(config) => Server::connect(config, options.clone()).await,
            Err(err) => Err(err),
        };
        (name, result)
    });
    futures::future::join_all(starts).await
}

impl Server {
    /// Starts the server and reads its tools.
    pub async fn connect(
        config: ServerConfig,
        options: Options,
    ) -> Result<Connected, ConnectError> {
        let server = Arc::new(Server {
            identity: config.identity(),
            shared: Arc::new(Shared::new(&config.name)),
            config,
            options,
            live: Mutex::new(None),
            starting: tokio::sync::Mutex::new(()),
            closed: AtomicBool::new(false),
        });
        let problems = server.start().await?;
        Ok(Connected { server, problems })
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    pub fn identity(&self) -> &str {
        &self.identity
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// Stops the server: its process group is killed now, and no call starts it again.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        if let Some(live) = lock(&self.live).take() {
            live.stop();
        }
    }

    /// Starts the process, shakes hands and reads the tool list, within the connect
    /// timeout. On failure nothing of it is left running.
    async fn start(&self) -> Result<Vec<String>, ConnectError> {
        let timeout = self.options.connect_timeout;
        match tokio::time::timeout(timeout, self.start_unbounded()).await {
            Ok(result) => result,
            Err(_) => Err(ConnectError::Timeout(timeout.as_secs())),
        }
    }

    async fn start_unbounded(&self) -> Result<Vec<String>, ConnectError> {
        match &self.config.transport {
            Transport::Stdio { command, args, env } => {
                let launch = match &self.options.sandbox {
                    Some(confined) => {
                        let mut confined = confined.clone();
                        confined.confinement.network =
                            !self.options.offline.contains(&self.config.identity());
                        warden_tools::Launch::Confined(confined)
                    }
                    None => warden_tools::Launch::Unconfined,
                };
                let started = process::start(
                    &self.config.name,
                    (command, args),
                    &launch,
                    env,
                    &self.options.cwd,
                    &self.options.secrets,
                )
                .await?;
                let transport =
                    AsyncRwTransport::<RoleClient, _, _>::new(started.stdout, started.stdin)
                        .with_max_line_length(MAX_LINE);
                self.handshake(transport, Some(started.group)).await
            }
            Transport::Http { url, headers } => {
                let transport = crate::http::transport(url, headers, MAX_LINE)?;
                self.handshake(transport, None).await
            }
            Transport::Unsupported(kind) => Err(ConnectError::Unsupported(kind.clone())),
        }
    }

    /// Shakes hands over `transport` and reads the tool list. `group` is the server's
    /// process group (stdio): dropped, and so killed, when this fails.
    async fn handshake<T, E, A>(
        &self,
        transport: T,
        group: Option<Group>,
    ) -> Result<Vec<String>, ConnectError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let handler = Handler {
            server: self.config.name.clone(),
            roots: self.options.roots.clone(),
            relay: self.options.relay.clone(),
            shared: self.shared.clone(),
        };
        let service = handler
            .serve(transport)
            .await
            .map_err(|err| ConnectError::Handshake(crate::http::describe(&err)))?;
        let tools = match service.peer().list_all_tools().await {
            Ok(tools) => tools,
            Err(err) => {
                service.cancellation_token().cancel();
                return Err(ConnectError::ListTools(err.to_string()));
            }
        };
        let problems = self.shared.set_tools(&tools);
        let live = Arc::new(Live {
            service,
            group: Mutex::new(group),
        });
        if self.closed.load(Ordering::Acquire) {
            live.stop();
        } else {
            *lock(&self.live) = Some(live);
        }
        Ok(problems)
    }

    /// The live connection, started again when it died.
    async fn live(&self) -> Result<Arc<Live>, Unavailable> {
        let alive = |s: &Self| {
            lock(&s.live)
                .as_ref()
                .filter(|live| !live.service.is_closed())
                .cloned()
        };
        if let Some(live) = alive(self) {
            return Ok(live);
        }
        let _one = self.starting.lock().await;
        if let Some(live) = alive(self) {
            return Ok(live);
        }
        if self.closed.load(Ordering::Acquire) {
            return Err(Unavailable::Stopped);
        }
        if let Some(dead) = lock(&self.live).take() {
            dead.stop();
        }
        tracing::info!(server = %self.config.name, "starting the MCP server again");
        for problem in self.start().await? {
            tracing::warn!(server = %self.config.name, "{problem}");
        }
        alive(self).ok_or(Unavailable::ClosedAtOnce)
    }

    /// Forgets a connection that failed a call, killing its process group, so that the
    /// next call starts the server again.
    fn discard(&self, live: &Arc<Live>) {
        let mut current = lock(&self.live);
        if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, live)) {
            *current = None;
        }
        drop(current);
        live.stop();
    }

    /// Calls `tool` (its real name) with `args`. `name` is the model's name of it, for
    /// the messages.
    pub(crate) async fn call(
        &self,
        name: &str,
        tool: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let server = &self.config.name;
        let live = match self.live().await {
            Ok(live) => live,
            Err(problem) => {
                return ToolOutput::failed(
                    name,
                    format!("MCP server `{server}` could not be started: {problem}"),
                );
            }
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = args.as_object().cloned();
        let timeout = self.options.call_timeout;
        // Dropping the call's future (cancel, timeout) sends `notifications/cancelled`
        // for it.
        let call = live.service.peer().call_tool_once(params);
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => return ToolOutput::cancelled(name),
            () = tokio::time::sleep(timeout) => None,
            outcome = call => Some(outcome),
        };
        match outcome {
            None => {
                self.discard(&live);
                ToolOutput::failed(
                    name,
                    format!(
                        "MCP server `{server}` did not answer within {} s; it was stopped, and the next call starts it again",
                        timeout.as_secs()
                    ),
                )
            }
            Some(Ok(CallToolResponse::Complete(result))) => match serde_json::to_value(&result) {
                Ok(result) => crate::result::to_output(name, &result, self.options.output_bytes),
                Err(err) => ToolOutput::failed(name, format!("unreadable result: {err}")),
            },
            Some(Ok(_)) => ToolOutput::failed(
                name,
                format!(
                    "MCP server `{server}` answered with a kind of result Warden does not support"
                ),
            ),
            Some(Err(ServiceError::McpError(err))) => ToolOutput::failed(
                name,
                format!("MCP server `{server}` refused the call: {}", err.message),
            ),
            Some(Err(err @ (ServiceError::TransportClosed | ServiceError::TransportSend(_)))) => {
                self.discard(&live);
                ToolOutput::failed(
                    name,
                    format!(
                        "MCP server `{server}` stopped during the call ({err}); the next call starts it again"
                    ),
                )
            }
            Some(Err(err)) => {
                self.discard(&live);
                ToolOutput::failed(name, format!("MCP server `{server}` failed: {err}"))
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.close();
    }
}

impl Server {
    /// How many tools the server offers now.
    pub fn tools_len(&self) -> usize {
        self.shared.tools().len()
    }
}

/// Why a server's live connection cannot be had; the words end the message the model
/// is given.
#[derive(Debug, thiserror::Error)]
enum Unavailable {
    #[error("the server was stopped with its session")]
    Stopped,
    #[error(transparent)]
    Start(#[from] ConnectError),
    #[error("the server closed its connection at once")]
    ClosedAtOnce,
}
