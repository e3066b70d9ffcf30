//! Serving ACP over a pair of byte streams: stdio in the binary, `tokio::io::duplex`
//! in tests.

use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    CancelNotification, CloseSessionRequest, InitializeRequest, ListSessionsRequest,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse, PromptRequest,
    ResumeSessionRequest, ResumeSessionResponse, SessionId, SetSessionConfigOptionRequest,
    SetSessionModeRequest,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, JsonRpcResponse, Lines};
use futures::SinkExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use crate::lines::{InFlight, read_lines, write_lines};
use crate::splice::Splices;
use crate::{AgentHandler, ClientHandle, PromptResponder, Trace};

/// How the connection is served.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The longest line accepted; longer ones are refused without being read whole.
    pub max_line_bytes: usize,
    /// How many client requests may wait between reading and answering before the
    /// reader stops reading (backpressure on the client's pipe).
    pub max_in_flight: usize,
    /// Where to append every protocol line, if anywhere.
    pub trace: Option<Arc<Trace>>,
    /// Whether SIGTERM and SIGINT end the connection like the end of input does.
    pub handle_signals: bool,
    /// How long running turns get to wind down at shutdown.
    pub shutdown_grace: Duration,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            max_line_bytes: 16 * 1024 * 1024,
            max_in_flight: 256,
            trace: None,
            handle_signals: false,
            shutdown_grace: Duration::from_millis(1500),
        }
    }
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("installing the signal handler failed: {0}")]
    Signals(#[source] std::io::Error),
    #[error("writing to the client failed: {0}")]
    Write(#[source] std::io::Error),
}

/// What ended the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The input ended (stdin EOF), or could no longer be read.
    InputClosed,
    /// SIGTERM or SIGINT.
    Signal,
    /// The SDK's connection ended by itself.
    Connection,
}

/// Serves ACP on `input`/`output` until the input ends, a signal arrives (if asked
/// for) or the connection fails. Running turns are shut down through
/// [`AgentHandler::shutdown`] before this returns.
pub async fn serve<H, R, W>(
    handler: Arc<H>,
    input: R,
    output: W,
    options: ServeOptions,
) -> Result<Ended, ServeError>
where
    H: AgentHandler,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let in_flight = Arc::new(InFlight::new(options.max_in_flight));
    let (to_sdk, from_reader) = mpsc::channel::<std::io::Result<String>>(64);
    let (to_client, from_sdk) = mpsc::channel::<String>(256);
    let splices = Arc::new(Splices::new());

    let writer = tokio::spawn(write_lines(
        output,
        from_sdk,
        in_flight.clone(),
        options.trace.clone(),
        splices.clone(),
    ));

    let (input_ended_tx, input_ended) = tokio::sync::oneshot::channel();
    let reader = tokio::spawn({
        let to_client = to_client.clone();
        let in_flight = in_flight.clone();
        let trace = options.trace.clone();
        let max = options.max_line_bytes;
        async move {
            let end = read_lines(input, max, to_sdk.clone(), to_client, in_flight, trace).await;
            let _ = input_ended_tx.send(end);
            // The SDK's side of the input stays open until `serve` closes it, so that
            // turns being cancelled can still answer their prompts.
            std::future::pending::<()>().await;
            drop(to_sdk);
        }
    });

    let incoming = futures::stream::unfold(from_reader, |mut rx| async move {
        rx.recv().await.map(|line| (line, rx))
    });
    let outgoing = tokio_util::sync::PollSender::new(to_client)
        .sink_map_err(|_| std::io::Error::other("the output writer stopped"));
    // Boxed rather than pinned on the stack, so it can be dropped (closing the SDK's
    // side) before the writer is awaited.
    let wired = Wired {
        handler: handler.clone(),
        splices,
    };
    let mut connection = Box::pin(connect(wired, Lines::new(outgoing, Box::pin(incoming))));

    let signals = async {
        if !options.handle_signals {
            return std::future::pending::<Result<(), ServeError>>().await;
        }
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).map_err(ServeError::Signals)?;
        let mut int = signal(SignalKind::interrupt()).map_err(ServeError::Signals)?;
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        Ok(())
    };

    let ended = tokio::select! {
        result = &mut connection => {
            if let Err(err) = result
                && !agent_client_protocol::is_incoming_transport_closed(&err)
            {
                tracing::error!(%err, "the ACP connection failed");
            }
            Ended::Connection
        }
        _ = input_ended => Ended::InputClosed,
        result = signals => {
            result?;
            tracing::info!("stopping on a signal");
            Ended::Signal
        }
    };

    // Wind the turns down while the connection can still carry their last words.
    if tokio::time::timeout(options.shutdown_grace, handler.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("turns did not stop within the shutdown grace period");
    }
    reader.abort();
    if ended != Ended::Connection {
        // With the input closed the SDK finishes once its queued output is written.
        let _ = tokio::time::timeout(Duration::from_millis(500), &mut connection).await;
    }
    drop(connection);
    match tokio::time::timeout(Duration::from_millis(500), writer).await {
        Ok(Ok(Err(err))) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(ServeError::Write(err));
        }
        _ => {}
    }
    Ok(ended)
}

/// Answers a request that opens a session (new, loaded or resumed) as its own task, so
/// that the dispatch loop goes on handling other sessions' answers and cancels
/// meanwhile; then tells the handler which session started. The answer is queued first:
/// what follows about the session goes out after it, on the same ordered output.
fn opening<H, R, F, Fut>(
    wired: Wired<H>,
    responder: Responder<R>,
    cx: ConnectionTo<Client>,
    open: F,
    started: impl FnOnce(&Result<R, agent_client_protocol::Error>) -> Option<SessionId> + Send + 'static,
) -> Result<(), agent_client_protocol::Error>
where
    H: AgentHandler,
    R: JsonRpcResponse + Send + 'static,
    F: FnOnce(Arc<H>, ClientHandle) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<R, agent_client_protocol::Error>> + Send,
{
    cx.clone().spawn(async move {
        let result = open(wired.handler.clone(), wired.client(cx.clone())).await;
        let id = started(&result);
        let sent = responder.respond_with_result(result);
        if let Some(id) = id {
            wired.handler.session_started(&id, wired.client(cx));
        }
        sent
    })
}

/// `session/new`: starting a session's MCP servers can take seconds.
fn new_session<H: AgentHandler>(
    wired: &Wired<H>,
    request: NewSessionRequest,
    responder: Responder<NewSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), agent_client_protocol::Error> {
    opening(
        wired.clone(),
        responder,
        cx,
        move |h: Arc<H>, client| async move { h.new_session(request, client).await },
        |result| result.as_ref().ok().map(|r| r.session_id.clone()),
    )
}

/// `session/load`: reopening a journal and its MCP servers is slow work too; the replay
/// goes out before the answer, on the same ordered output.
fn load_session<H: AgentHandler>(
    wired: &Wired<H>,
    request: LoadSessionRequest,
    responder: Responder<LoadSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), agent_client_protocol::Error> {
    let id = request.session_id.clone();
    opening(
        wired.clone(),
        responder,
        cx,
        move |h: Arc<H>, client| async move { h.load_session(request, client).await },
        move |result| result.is_ok().then_some(id),
    )
}

/// `session/resume`: as `session/load`, without the replay.
fn resume_session<H: AgentHandler>(
    wired: &Wired<H>,
    request: ResumeSessionRequest,
    responder: Responder<ResumeSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), agent_client_protocol::Error> {
    let id = request.session_id.clone();
    opening(
        wired.clone(),
        responder,
        cx,
        move |h: Arc<H>, client| async move { h.resume_session(request, client).await },
        move |result| result.is_ok().then_some(id),
    )
}

/// The handler and what every [`ClientHandle`] of the connection shares.
struct Wired<H> {
    handler: Arc<H>,
    splices: Arc<Splices>,
}

impl<H> Clone for Wired<H> {
    fn clone(&self) -> Self {
        Wired {
            handler: self.handler.clone(),
            splices: self.splices.clone(),
        }
    }
}

impl<H> Wired<H> {
    fn client(&self, cx: ConnectionTo<Client>) -> ClientHandle {
        ClientHandle::new(cx, self.splices.clone())
    }
}

async fn connect<H, T>(wired: Wired<H>, transport: T) -> Result<(), agent_client_protocol::Error>
where
    H: AgentHandler,
    T: agent_client_protocol::ConnectTo<Agent> + 'static,
{
    let w_init = wired.clone();
    let w_new = wired.clone();
    let w_prompt = wired.clone();
    let h_cancel = wired.handler.clone();
    let w_mode = wired.clone();
    let h_close = wired.handler.clone();
    let w_load = wired.clone();
    let w_resume = wired.clone();
    let h_list = wired.handler.clone();
    let w_config = wired;
    Agent
        .v1()
        .name("warden")
        .on_receive_request(
            async move |request: InitializeRequest, responder, cx| {
                let result = w_init.handler.initialize(request, w_init.client(cx)).await;
                responder.respond_with_result(result)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                new_session(&w_new, request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                w_prompt.handler.prompt(
                    request,
                    PromptResponder::new(responder),
                    w_prompt.client(cx),
                );
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                load_session(&w_load, request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ResumeSessionRequest, responder, cx| {
                resume_session(&w_resume, request, responder, cx)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ListSessionsRequest, responder, cx| {
                // Listing reads every stored journal: off the dispatch loop too.
                let handler = h_list.clone();
                cx.spawn(async move {
                    responder.respond_with_result(handler.list_sessions(request).await)
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CloseSessionRequest, responder, _cx| {
                responder.respond_with_result(h_close.close_session(request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, cx| {
                responder.respond_with_result(w_mode.handler.set_mode(request, w_mode.client(cx)))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder, cx| {
                let client = w_config.client(cx);
                responder.respond_with_result(w_config.handler.set_config_option(request, client))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                h_cancel.cancel(notification);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(transport)
        .await
}
