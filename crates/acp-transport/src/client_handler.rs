//! The client side's methods, as a client application (`warden chat`, tests) implements
//! them: what the agent may ask of its client.

use std::future::Future;

use agent_client_protocol::v1::schema::{
    ClientCapabilities, CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest,
    KillTerminalResponse, ReadTextFileRequest, ReadTextFileResponse, ReleaseTerminalRequest,
    ReleaseTerminalResponse, RequestPermissionRequest, RequestPermissionResponse,
    SessionNotification, TerminalOutputRequest, TerminalOutputResponse, WaitForTerminalExitRequest,
    WaitForTerminalExitResponse, WriteTextFileRequest, WriteTextFileResponse,
};

/// The answer to a capability the client does not offer: JSON-RPC's "method not found",
/// so an agent that asks anyway gets an error at once rather than waiting for ever.
fn not_offered() -> agent_client_protocol::Error {
    agent_client_protocol::Error::method_not_found()
}

/// What a client answers. Only `session_update` and `request_permission` are required;
/// every `fs/*` and `terminal/*` method answers "method not found" unless implemented,
/// and [`ClientHandler::capabilities`] should then say what is offered.
///
/// Requests run in tasks of their own, so a slow answer (a person deciding) never stops
/// the connection from delivering the agent's other messages; `session_update` runs in
/// the connection's order and must return promptly.
pub trait ClientHandler: Send + Sync + 'static {
    /// What the client offers; [`crate::AgentConnection::initialize`] sends it. The
    /// default offers neither files nor terminals.
    fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities::default()
    }

    /// One `session/update` notification, in the order the agent sent them.
    fn session_update(&self, notification: SessionNotification);

    /// `session/request_permission`. An error answer is a denial for a careful agent.
    fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> impl Future<Output = Result<RequestPermissionResponse, agent_client_protocol::Error>> + Send;

    /// Called once the answer [`ClientHandler::request_permission`] returned has been
    /// handed to the connection: whatever is sent to the agent after this reaches it
    /// after that answer. (The answer goes out from a task of its own, so returning it is
    /// not yet sending it.) The default does nothing.
    fn permission_answered(&self) {}

    fn read_text_file(
        &self,
        _request: ReadTextFileRequest,
    ) -> impl Future<Output = Result<ReadTextFileResponse, agent_client_protocol::Error>> + Send
    {
        async { Err(not_offered()) }
    }

    fn write_text_file(
        &self,
        _request: WriteTextFileRequest,
    ) -> impl Future<Output = Result<WriteTextFileResponse, agent_client_protocol::Error>> + Send
    {
        async { Err(not_offered()) }
    }

    fn create_terminal(
        &self,
        _request: CreateTerminalRequest,
    ) -> impl Future<Output = Result<CreateTerminalResponse, agent_client_protocol::Error>> + Send
    {
        async { Err(not_offered()) }
    }

    fn terminal_output(
        &self,
        _request: TerminalOutputRequest,
    ) -> impl Future<Output = Result<TerminalOutputResponse, agent_client_protocol::Error>> + Send
    {
        async { Err(not_offered()) }
    }

    fn wait_for_terminal_exit(
        &self,
        _request: WaitForTerminalExitRequest,
    ) -> impl Future<Output = Result<WaitForTerminalExitResponse, agent_client_protocol::Error>> + Send
    {
        async { Err(not_offered()) }
    }

    fn kill_terminal(
        &self,
        _request: KillTerminalRequest,
    ) -> impl Future<Output = Result<KillTerminalResponse, agent_client_protocol::Error>> + Send
    {
        async { Err(not_offered()) }
    }

    fn release_terminal(
        &self,
        _request: ReleaseTerminalRequest,
    ) -> impl Future<Output = Result<ReleaseTerminalResponse, agent_client_protocol::Error>> + Send
    {
        async { Err(not_offered()) }
    }
}
