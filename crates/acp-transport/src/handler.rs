//! The agent side's methods, as the session layer implements them.

use std::future::Future;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    CancelNotification, CloseSessionRequest, CloseSessionResponse, InitializeRequest,
    InitializeResponse, ListSessionsRequest, ListSessionsResponse, LoadSessionRequest,
    LoadSessionResponse, NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse,
    ResumeSessionRequest, ResumeSessionResponse, SessionId, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeRequest, SetSessionModeResponse,
};

use crate::ClientHandle;

/// The answer to one `session/prompt`, which arrives when the turn ends.
///
/// Dropping it unanswered makes the SDK answer with an internal error, so a turn that
/// fails in an unexpected way still ends its request.
#[derive(Debug)]
pub struct PromptResponder {
    inner: Responder<PromptResponse>,
}

impl PromptResponder {
    pub(crate) fn new(inner: Responder<PromptResponse>) -> PromptResponder {
        PromptResponder { inner }
    }

    /// Ends the prompt request. A failure to send means the connection is gone.
    pub fn respond(self, result: Result<PromptResponse, agent_client_protocol::Error>) {
        if let Err(err) = self.inner.respond_with_result(result) {
            tracing::debug!(%err, "could not answer session/prompt");
        }
    }
}

/// The methods Warden serves.
///
/// A request handler never waits on anything slow inside the connection's dispatch loop:
/// `prompt` starts the turn elsewhere and returns at once (awaiting a client reply there
/// would stall the connection), and the transport runs `session/new`, `session/load`,
/// `session/resume` and `session/list`, which start MCP servers or read the journals, as
/// tasks of their own that answer when ready. The other methods answer at once.
pub trait AgentHandler: Send + Sync + 'static {
    fn initialize(
        &self,
        request: InitializeRequest,
        client: ClientHandle,
    ) -> impl Future<Output = Result<InitializeResponse, agent_client_protocol::Error>> + Send;

    fn new_session(
        &self,
        request: NewSessionRequest,
        client: ClientHandle,
    ) -> impl Future<Output = Result<NewSessionResponse, agent_client_protocol::Error>> + Send;

    /// Called once `session/new` has been answered with `session_id`, so that what the
    /// agent sends about the new session (its commands, notices) follows the answer
    /// that tells the client the id.
    fn session_started(&self, session_id: &SessionId, client: ClientHandle) {
        let _ = (session_id, client);
    }

    /// Starts a turn; the turn answers through `responder` when it ends.
    fn prompt(&self, request: PromptRequest, responder: PromptResponder, client: ClientHandle);

    fn cancel(&self, notification: CancelNotification);

    /// `session/close`: cancels the session's turn (its prompt answers `cancelled`) and
    /// frees everything the session holds. Only called when `initialize` advertised
    /// it.
    fn close_session(
        &self,
        request: CloseSessionRequest,
    ) -> Result<CloseSessionResponse, agent_client_protocol::Error>;

    /// `session/load`: restores a stored session and replays it as `session/update`
    /// notifications sent before the answer. Only called when `initialize` advertised
    /// `loadSession`; [`AgentHandler::session_started`] follows the answer.
    fn load_session(
        &self,
        request: LoadSessionRequest,
        client: ClientHandle,
    ) -> impl Future<Output = Result<LoadSessionResponse, agent_client_protocol::Error>> + Send
    {
        let _ = (request, client);
        async { Err(agent_client_protocol::Error::method_not_found()) }
    }

    /// `session/resume`: restores a stored session without replaying it.
    fn resume_session(
        &self,
        request: ResumeSessionRequest,
        client: ClientHandle,
    ) -> impl Future<Output = Result<ResumeSessionResponse, agent_client_protocol::Error>> + Send
    {
        let _ = (request, client);
        async { Err(agent_client_protocol::Error::method_not_found()) }
    }

    /// `session/list`: the stored sessions, newest first, a page at a time.
    fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> impl Future<Output = Result<ListSessionsResponse, agent_client_protocol::Error>> + Send
    {
        let _ = request;
        async { Err(agent_client_protocol::Error::method_not_found()) }
    }

    fn set_mode(
        &self,
        request: SetSessionModeRequest,
        client: ClientHandle,
    ) -> Result<SetSessionModeResponse, agent_client_protocol::Error>;

    fn set_config_option(
        &self,
        request: SetSessionConfigOptionRequest,
        client: ClientHandle,
    ) -> Result<SetSessionConfigOptionResponse, agent_client_protocol::Error>;

    /// The input ended or a signal arrived: cancel every running turn (their prompts
    /// answer `cancelled`), resolve pending permission requests as cancelled, run
    /// nothing more. Resolves once the turns have wound down.
    fn shutdown(&self) -> impl Future<Output = ()> + Send;
}
