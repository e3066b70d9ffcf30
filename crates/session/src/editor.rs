//! The tools' view of the editor, over the client's `fs/*` and `terminal/*` methods.

use std::path::Path;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;
use warden_acp_transport::schema::{
    ClientCapabilities, CreateTerminalRequest, EnvVariable, KillTerminalRequest,
    ReadTextFileRequest, ReleaseTerminalRequest, SessionId, TerminalExitStatus,
    TerminalOutputRequest, WaitForTerminalExitRequest, WriteTextFileRequest,
};
use warden_acp_transport::{ClientHandle, ClientRequestError};
use warden_tools::{Editor, EditorError, TerminalExit, TerminalOutput, TerminalRequest};

/// How long a file request may take: an editor that does not answer must not hang a
/// turn. Terminal waits have no limit here, because the tool races them against its own
/// timeout and cancellation (dropping the request withdraws it).
const FS_TIMEOUT: Duration = Duration::from_secs(60);

/// The editor of one session.
#[derive(Debug, Clone)]
pub struct ClientEditor {
    client: ClientHandle,
    session: SessionId,
    capabilities: ClientCapabilities,
    /// Never cancelled: requests are withdrawn by dropping them.
    never: CancellationToken,
}

impl ClientEditor {
    pub fn new(
        client: ClientHandle,
        session: SessionId,
        capabilities: ClientCapabilities,
    ) -> ClientEditor {
        ClientEditor {
            client,
            session,
            capabilities,
            never: CancellationToken::new(),
        }
    }

    async fn request<R>(
        &self,
        method: &'static str,
        request: R,
        timeout: Option<Duration>,
    ) -> Result<R::Response, EditorError>
    where
        R: agent_client_protocol::JsonRpcRequest,
    {
        self.client
            .request(request, timeout, &self.never)
            .await
            .map_err(|err| match err {
                ClientRequestError::Disconnected { .. } => EditorError::Closed { method },
                other => EditorError::Failed {
                    method,
                    message: other.to_string(),
                },
            })
    }
}

fn exit(status: TerminalExitStatus) -> TerminalExit {
    TerminalExit {
        exit_code: status.exit_code,
        signal: status.signal,
    }
}

impl Editor for ClientEditor {
    fn can_read(&self) -> bool {
        self.capabilities.fs.read_text_file
    }

    fn can_write(&self) -> bool {
        self.capabilities.fs.write_text_file
    }

    fn can_terminal(&self) -> bool {
        self.capabilities.terminal
    }

    fn read_text_file(
        &self,
        path: &Path,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> BoxFuture<'_, Result<String, EditorError>> {
        let request = ReadTextFileRequest::new(self.session.clone(), path.to_path_buf())
            .line(line)
            .limit(limit);
        async move {
            self.request("fs/read_text_file", request, Some(FS_TIMEOUT))
                .await
                .map(|r| r.content)
        }
        .boxed()
    }

    fn write_text_file(
        &self,
        path: &Path,
        content: &str,
    ) -> BoxFuture<'_, Result<(), EditorError>> {
        let request =
            WriteTextFileRequest::new(self.session.clone(), path.to_path_buf(), content.to_owned());
        async move {
            self.request("fs/write_text_file", request, Some(FS_TIMEOUT))
                .await
                .map(|_| ())
        }
        .boxed()
    }

    fn create_terminal(&self, req: TerminalRequest) -> BoxFuture<'_, Result<String, EditorError>> {
        let request = CreateTerminalRequest::new(self.session.clone(), req.command)
            .args(req.args)
            .env(
                req.env
                    .into_iter()
                    .map(|(k, v)| EnvVariable::new(k, v))
                    .collect(),
            )
            .cwd(req.cwd)
            .output_byte_limit(req.output_byte_limit);
        async move {
            self.request("terminal/create", request, Some(FS_TIMEOUT))
                .await
                .map(|r| r.terminal_id.0.to_string())
        }
        .boxed()
    }

    fn wait_for_terminal_exit(&self, id: &str) -> BoxFuture<'_, Result<TerminalExit, EditorError>> {
        let request = WaitForTerminalExitRequest::new(self.session.clone(), id.to_owned());
        async move {
            self.request("terminal/wait_for_exit", request, None)
                .await
                .map(|r| exit(r.exit_status))
        }
        .boxed()
    }

    fn terminal_output(&self, id: &str) -> BoxFuture<'_, Result<TerminalOutput, EditorError>> {
        let request = TerminalOutputRequest::new(self.session.clone(), id.to_owned());
        async move {
            self.request("terminal/output", request, Some(FS_TIMEOUT))
                .await
                .map(|r| TerminalOutput {
                    output: r.output,
                    truncated: r.truncated,
                    exit: r.exit_status.map(exit),
                })
        }
        .boxed()
    }

    fn kill_terminal(&self, id: &str) -> BoxFuture<'_, Result<(), EditorError>> {
        let request = KillTerminalRequest::new(self.session.clone(), id.to_owned());
        async move {
            self.request("terminal/kill", request, Some(FS_TIMEOUT))
                .await
                .map(|_| ())
        }
        .boxed()
    }

    fn release_terminal(&self, id: &str) -> BoxFuture<'_, Result<(), EditorError>> {
        let request = ReleaseTerminalRequest::new(self.session.clone(), id.to_owned());
        async move {
            self.request("terminal/release", request, Some(FS_TIMEOUT))
                .await
                .map(|_| ())
        }
        .boxed()
    }
}
