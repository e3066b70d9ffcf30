//! The client side of ACP: a connection to an agent over any pair of byte streams (an
//! in-memory pipe in tests and in `warden chat`) or a child process.

use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, CloseSessionRequest, CloseSessionResponse,
    CreateTerminalRequest, InitializeRequest, InitializeResponse, KillTerminalRequest,
    ListSessionsRequest, ListSessionsResponse, LoadSessionRequest, LoadSessionResponse,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, ReadTextFileRequest,
    ReleaseTerminalRequest, RequestPermissionRequest, SessionId, SessionNotification,
    SetSessionModeRequest, SetSessionModeResponse, TerminalOutputRequest,
    WaitForTerminalExitRequest, WriteTextFileRequest,
};
use agent_client_protocol::{Agent, Client, JsonRpcRequest, Lines};
use futures::SinkExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::agent_process::{AgentCommand, AgentProcess};
use crate::lines::{InFlight, read_lines, write_lines};
use crate::splice::Splices;
use crate::{ClientHandler, Trace};

/// How the connection to an agent is run.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// The longest line accepted from the agent; longer ones are refused without being
    /// read whole.
    pub max_line_bytes: usize,
    /// How many agent requests may wait for the client's answer before the reader stops
    /// reading (backpressure on the agent's pipe).
    pub max_in_flight: usize,
    /// Where to append every protocol line, if anywhere.
    pub trace: Option<Arc<Trace>>,
    /// How long a child agent gets to exit by itself once its input is closed.
    pub exit_grace: Duration,
}

impl Default for ConnectOptions {
    fn default() -> ConnectOptions {
        ConnectOptions {
            max_line_bytes: 16 * 1024 * 1024,
            max_in_flight: 256,
            trace: None,
            exit_grace: Duration::from_secs(2),
        }
    }
}

/// Why connecting to an agent failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot start the agent `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the connection to the agent ended before it started")]
    Closed,
}

/// Why a request to the agent produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum AgentRequestError {
    /// The agent answered with an error, or with a result that does not parse.
    #[error("the agent answered `{method}` with an error: {error}")]
    Rejected {
        method: String,
        error: Box<agent_client_protocol::Error>,
    },
    /// The connection is gone (the agent exited, or its output ended).
    #[error("the connection closed before `{method}` was answered")]
    Disconnected { method: String },
}

/// A connection to one agent. Dropping it closes the connection and kills a child
/// agent's process group; [`AgentConnection::close`] lets the agent exit by itself first.
#[derive(Debug)]
pub struct AgentConnection {
    cx: ConnectionTo<Agent>,
    stop: Option<oneshot::Sender<()>>,
    sdk: JoinHandle<()>,
    reader: JoinHandle<()>,
    writer: JoinHandle<std::io::Result<()>>,
    input_ended: Option<oneshot::Receiver<()>>,
    process: Option<AgentProcess>,
    exit_grace: Duration,
    capabilities: ClientCapabilities,
}

impl AgentConnection {
    /// Connects to an agent that reads `output` and writes `input`.
    pub async fn connect<H, R, W>(
        handler: Arc<H>,
        input: R,
        output: W,
        options: ConnectOptions,
    ) -> Result<AgentConnection, ConnectError>
    where
        H: ClientHandler,
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let capabilities = handler.capabilities();
        let in_flight = Arc::new(InFlight::new(options.max_in_flight));
        let (to_sdk, from_reader) = mpsc::channel::<std::io::Result<String>>(64);
        let (to_agent, from_sdk) = mpsc::channel::<String>(256);
        // Warden's client side writes no parameters as text: nothing is ever spliced.
        let writer = tokio::spawn(write_lines(
            output,
            from_sdk,
            in_flight.clone(),
            options.trace.clone(),
            Arc::new(Splices::new()),
        ));
        let (input_ended_tx, input_ended) = oneshot::channel();
        let reader = tokio::spawn({
            let to_agent = to_agent.clone();
            let trace = options.trace.clone();
            let max = options.max_line_bytes;
            async move {
                let end = read_lines(input, max, to_sdk, to_agent, in_flight, trace).await;
                tracing::debug!(?end, "the agent's output ended");
                // `to_sdk` is dropped here: the SDK sees the end of input and fails every
                // request still waiting for an answer, so nothing waits for ever.
                let _ = input_ended_tx.send(());
            }
        });
        let incoming = futures::stream::unfold(from_reader, |mut rx| async move {
            rx.recv().await.map(|line| (line, rx))
        });
        let outgoing = tokio_util::sync::PollSender::new(to_agent)
            .sink_map_err(|_| std::io::Error::other("the output writer stopped"));
        let transport = Lines::new(outgoing, Box::pin(incoming));

        let (cx_tx, cx_rx) = oneshot::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let sdk = tokio::spawn(async move {
            if let Err(err) = run_client(handler, transport, cx_tx, stopped).await
                && !agent_client_protocol::is_incoming_transport_closed(&err)
            {
                tracing::warn!(%err, "the connection to the agent failed");
            }
        });
        let Ok(cx) = cx_rx.await else {
            reader.abort();
            return Err(ConnectError::Closed);
        };
        Ok(AgentConnection {
            cx,
            stop: Some(stop),
            sdk,
            reader,
            writer,
            input_ended: Some(input_ended),
            process: None,
            exit_grace: options.exit_grace,
            capabilities,
        })
    }

    /// Starts `command` as a child process and connects to it over its stdin/stdout.
    pub async fn spawn<H: ClientHandler>(
        handler: Arc<H>,
        command: AgentCommand,
        options: ConnectOptions,
    ) -> Result<AgentConnection, ConnectError> {
        let program = command.program.to_string_lossy().into_owned();
        let (process, stdout, stdin) = AgentProcess::spawn(command)
            .map_err(|source| ConnectError::Spawn { program, source })?;
        // Should connecting fail, dropping `process` kills the agent.
        let mut connection = AgentConnection::connect(handler, stdout, stdin, options).await?;
        connection.process = Some(process);
        Ok(connection)
    }

    /// The child agent's process id, if the agent is a child that has not been reaped.
    pub fn agent_pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(AgentProcess::id)
    }

    async fn call<R: JsonRpcRequest>(&self, request: R) -> Result<R::Response, AgentRequestError> {
        let method = request.method().to_owned();
        match self.cx.send_request(request).block_task().await {
            Ok(response) => Ok(response),
            Err(error)
                if agent_client_protocol::is_connection_terminated(&error)
                    || agent_client_protocol::is_incoming_transport_closed(&error) =>
            {
                Err(AgentRequestError::Disconnected { method })
            }
            Err(error) => Err(AgentRequestError::Rejected {
                method,
                error: Box::new(error),
            }),
        }
    }

    /// `initialize`. The capabilities sent are the handler's
    /// ([`ClientHandler::capabilities`]), whatever the request says: the client offers
    /// exactly what its handler answers.
    pub async fn initialize(
        &self,
        mut request: InitializeRequest,
    ) -> Result<InitializeResponse, AgentRequestError> {
        request.client_capabilities = self.capabilities.clone();
        self.call(request).await
    }

    pub async fn new_session(
        &self,
        request: NewSessionRequest,
    ) -> Result<NewSessionResponse, AgentRequestError> {
        self.call(request).await
    }

    /// `session/load`; call it only when the agent's `initialize` answer offers
    /// `loadSession`. The agent replays the conversation as `session/update`s first.
    pub async fn load_session(
        &self,
        request: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, AgentRequestError> {
        self.call(request).await
    }

    /// `session/prompt`: resolves when the turn ends. Every `session/update` the agent
    /// sent before its answer has been handed to the handler by then. Keep the future
    /// alive after [`AgentConnection::cancel`]: the answer (`cancelled`) still comes.
    pub async fn prompt(
        &self,
        request: PromptRequest,
    ) -> Result<PromptResponse, AgentRequestError> {
        self.call(request).await
    }

    /// `session/list`; call it only when the agent's `initialize` answer offers
    /// `sessionCapabilities.list`.
    pub async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, AgentRequestError> {
        self.call(request).await
    }

    pub async fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, AgentRequestError> {
        self.call(request).await
    }

    pub async fn set_mode(
        &self,
        request: SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, AgentRequestError> {
        self.call(request).await
    }

    /// `session/cancel`: asks the agent to end the session's turn. Its prompt then
    /// answers `cancelled`.
    pub fn cancel(&self, session_id: SessionId) -> Result<(), AgentRequestError> {
        self.cx
            .send_notification(CancelNotification::new(session_id))
            .map_err(|_| AgentRequestError::Disconnected {
                method: "session/cancel".to_owned(),
            })
    }

    /// Resolves when the agent's output has ended (it exited or closed stdout).
    pub async fn closed(&mut self) {
        if let Some(ended) = self.input_ended.as_mut() {
            let _ = ended.await;
            self.input_ended = None;
        }
    }

    /// Closes the connection: the agent's input ends, a child agent gets
    /// [`ConnectOptions::exit_grace`] to exit by itself, and then its process group is
    /// killed. Returns a child's exit status when it could be reaped.
    pub async fn close(mut self) -> Option<ExitStatus> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // The SDK's task ends once its main function returns; it owns the sending half
        // of the writer's channel, which then drains and closes the agent's input.
        let _ = tokio::time::timeout(Duration::from_millis(500), &mut self.sdk).await;
        self.reader.abort();
        let _ = (&mut self.reader).await;
        match tokio::time::timeout(Duration::from_millis(500), &mut self.writer).await {
            Ok(Ok(Err(err))) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                tracing::debug!(%err, "writing to the agent failed");
            }
            Ok(_) => {}
            Err(_) => self.writer.abort(),
        }
        let process = self.process.take()?;
        process.stop(self.exit_grace).await
    }
}

impl Drop for AgentConnection {
    fn drop(&mut self) {
        self.sdk.abort();
        self.reader.abort();
        self.writer.abort();
        // `process` (if still here) kills the agent's group as it is dropped.
    }
}

/// Tells the handler its permission answer was handed to the connection when dropped,
/// at the end of the task that answers (or when that task is dropped).
struct PermissionAnswered<H: ClientHandler>(Arc<H>);

impl<H: ClientHandler> Drop for PermissionAnswered<H> {
    fn drop(&mut self) {
        self.0.permission_answered();
    }
}

/// Registers the client methods with the SDK and runs the connection until `stopped`
/// fires or the agent's output ends.
async fn run_client<H, T>(
    handler: Arc<H>,
    transport: T,
    cx_tx: oneshot::Sender<ConnectionTo<Agent>>,
    stopped: oneshot::Receiver<()>,
) -> Result<(), agent_client_protocol::Error>
where
    H: ClientHandler,
    T: agent_client_protocol::ConnectTo<Client> + 'static,
{
    let h_update = handler.clone();
    let h_permission = handler.clone();
    let h_read = handler.clone();
    let h_write = handler.clone();
    let h_create = handler.clone();
    let h_output = handler.clone();
    let h_wait = handler.clone();
    let h_kill = handler.clone();
    let h_release = handler;
    // Each request is answered from a task of its own: the SDK's dispatch loop waits for
    // a handler to return, and a permission request may wait for a person.
    macro_rules! answer_in_task {
        ($handler:ident, $method:ident, $request:ty) => {
            async move |request: $request, responder, cx: ConnectionTo<Agent>| {
                let handler = $handler.clone();
                cx.spawn(async move {
                    let result = handler.$method(request).await;
                    if let Err(err) = responder.respond_with_result(result) {
                        tracing::debug!(%err, "could not answer the agent");
                    }
                    Ok(())
                })
            }
        };
    }
    Client
        .v1()
        .name("warden-chat")
        .on_receive_notification(
            async move |notification: SessionNotification, _cx| {
                h_update.session_update(notification);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, cx: ConnectionTo<Agent>| {
                let handler = h_permission.clone();
                cx.spawn(async move {
                    // Told after the answer is handed over, or when the task is dropped
                    // with the connection: either way nothing waits for it any longer.
                    let _told = PermissionAnswered(handler.clone());
                    let result = handler.request_permission(request).await;
                    if let Err(err) = responder.respond_with_result(result) {
                        tracing::debug!(%err, "could not answer the agent");
                    }
                    Ok(())
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            answer_in_task!(h_read, read_text_file, ReadTextFileRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            answer_in_task!(h_write, write_text_file, WriteTextFileRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            answer_in_task!(h_create, create_terminal, CreateTerminalRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            answer_in_task!(h_output, terminal_output, TerminalOutputRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            answer_in_task!(h_wait, wait_for_terminal_exit, WaitForTerminalExitRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            answer_in_task!(h_kill, kill_terminal, KillTerminalRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            answer_in_task!(h_release, release_terminal, ReleaseTerminalRequest),
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            if cx_tx.send(cx.clone()).is_err() {
                return Ok(());
            }
            // Runs until the client closes the connection or the agent's output ends.
            tokio::select! {
                _ = stopped => {}
                () = cx.incoming_closed() => {}
            }
            Ok(())
        })
        .await
}

#[cfg(test)]
mod tests;
