//! The real agent, in process: `WardenAgent` with the scripted model served over an
//! in-memory pipe, driven through the transport's client side. These cover the agent,
//! the driver and the turn together without starting the binary (the end-to-end tests
//! do that).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use warden_acp_transport::schema::{
    ClientCapabilities, CloseSessionRequest, ContentBlock, FileSystemCapabilities,
    InitializeRequest, NewSessionRequest, PromptRequest, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome, SessionId,
    SessionNotification, SetSessionModeRequest, StopReason, TextContent, WriteTextFileRequest,
    WriteTextFileResponse,
};
use warden_acp_transport::{
    AgentConnection, ClientHandler, ConnectOptions, Error, ServeOptions, serve,
};
use warden_permissions::Locations;
use warden_session::{AgentConfig, WardenAgent};

pub(super) type Asked = (
    RequestPermissionRequest,
    oneshot::Sender<RequestPermissionResponse>,
);

/// A client that records every update and hands permission requests to the test. With
/// `editor` it also offers `fs/*`, writing into memory rather than onto the disk.
struct Recorder {
    updates: Mutex<Vec<Value>>,
    asked: mpsc::UnboundedSender<Asked>,
    editor: Option<Mutex<Vec<(PathBuf, String)>>>,
}

impl ClientHandler for Recorder {
    fn capabilities(&self) -> ClientCapabilities {
        match self.editor {
            Some(_) => ClientCapabilities::new().fs(FileSystemCapabilities::new()
                .read_text_file(true)
                .write_text_file(true)),
            None => ClientCapabilities::new(),
        }
    }

    async fn write_text_file(
        &self,
        request: WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, Error> {
        let editor = self.editor.as_ref().ok_or_else(Error::method_not_found)?;
        editor
            .lock()
            .expect("editor lock")
            .push((request.path, request.content));
        Ok(WriteTextFileResponse::new())
    }

    fn session_update(&self, notification: SessionNotification) {
        let value = serde_json::to_value(&notification.update).unwrap_or(Value::Null);
        self.updates.lock().expect("updates lock").push(value);
    }

    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        let (tx, rx) = oneshot::channel();
        self.asked
            .send((request, tx))
            .map_err(|_| Error::internal_error())?;
        rx.await.map_err(|_| Error::internal_error())
    }
}

pub(super) struct Harness {
    agent: Arc<WardenAgent>,
    pub(super) home: PathBuf,
    pub(super) connection: AgentConnection,
    pub(super) session: SessionId,
    recorder: Arc<Recorder>,
    pub(super) asked: mpsc::UnboundedReceiver<Asked>,
    _dir: tempfile::TempDir,
    project: PathBuf,
}

impl Harness {
    pub(super) async fn start() -> Harness {
        Harness::start_with(false).await
    }

    /// A harness whose client offers `fs/*` (an editor's buffers).
    async fn start_with(editor: bool) -> Harness {
        // Not the default `.tmp…` name: a folder whose name starts with a dot is a
        // hidden one, which the engine treats as sensitive.
        let dir = tempfile::Builder::new()
            .prefix("warden-in-process-")
            .tempdir()
            .expect("test step");
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).expect("test step");
        std::fs::create_dir_all(&project).expect("test step");
        // In a folder of its own, like /etc/warden/: Warden protects the managed
        // policy's folder, so it must not be an ancestor of the project.
        let managed = dir.path().join("managed").join("policy.toml");
        let locations = Locations::from_vars(|name| match name {
            "WARDEN_HOME" => Some(home.clone().into_os_string()),
            "WARDEN_MANAGED_POLICY" => Some(managed.clone().into_os_string()),
            _ => None,
        });
        let agent = Arc::new(WardenAgent::new(AgentConfig {
            locations,
            model_spec: Some("scripted".to_owned()),
            env: Arc::new(|_| None),
            tool_limits: warden_tools::Limits::default(),
            max_model_requests: 50,
            sandbox_helper: None,
        }));
        let (client_end, agent_end) = tokio::io::duplex(64 * 1024);
        let (agent_in, agent_out) = tokio::io::split(agent_end);
        tokio::spawn(serve(
            agent.clone(),
            agent_in,
            agent_out,
            ServeOptions::default(),
        ));

        let (asked_tx, asked) = mpsc::unbounded_channel();
        let recorder = Arc::new(Recorder {
            updates: Mutex::new(Vec::new()),
            asked: asked_tx,
            editor: editor.then(|| Mutex::new(Vec::new())),
        });
        let (client_in, client_out) = tokio::io::split(client_end);
        let connection = AgentConnection::connect(
            recorder.clone(),
            client_in,
            client_out,
            ConnectOptions::default(),
        )
        .await
        .expect("test step");
        connection
            .initialize(InitializeRequest::new(ProtocolVersion::V1))
            .await
            .expect("test step");
        let session = connection
            .new_session(NewSessionRequest::new(project.clone()))
            .await
            .expect("test step")
            .session_id;
        Harness {
            agent,
            home,
            connection,
            session,
            recorder,
            asked,
            _dir: dir,
            project,
        }
    }

    pub(super) fn prompt_request(&self, text: &str) -> PromptRequest {
        PromptRequest::new(
            self.session.clone(),
            vec![ContentBlock::Text(TextContent::new(text))],
        )
    }

    /// Runs a turn, answering every permission request with `option` (or failing the
    /// test if `option` is `None` and the agent asks).
    async fn turn(&mut self, text: &str, option: Option<&str>) -> StopReason {
        let prompt = self.connection.prompt(self.prompt_request(text));
        tokio::pin!(prompt);
        loop {
            tokio::select! {
                result = &mut prompt => return result.expect("test step").stop_reason,
                Some((request, answer)) = self.asked.recv() => {
                    let Some(option) = option else {
                        panic!("the agent asked unexpectedly: {request:?}");
                    };
                    answer.send(selected(option)).expect("test step");
                }
            }
        }
    }

    fn updates(&self) -> Vec<Value> {
        self.recorder.updates.lock().expect("updates lock").clone()
    }

    /// The status changes of every tool call, in order.
    fn statuses(&self) -> Vec<String> {
        self.updates()
            .iter()
            .filter(|u| {
                u["sessionUpdate"] == "tool_call" || u["sessionUpdate"] == "tool_call_update"
            })
            .filter_map(
                |u| match (u["sessionUpdate"].as_str(), u["status"].as_str()) {
                    (Some("tool_call"), None) => Some("pending".to_owned()),
                    (_, status) => status.map(str::to_owned),
                },
            )
            .collect()
    }

    fn agent_text(&self) -> String {
        self.updates()
            .iter()
            .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|u| u["content"]["text"].as_str())
            .collect()
    }

    pub(super) fn file(&self, name: &str) -> PathBuf {
        self.project.join(name)
    }
}

/// The first permission request of a prompt still running; the test fails if the turn
/// ends first.
pub(super) async fn first_request<F>(
    asked: &mut mpsc::UnboundedReceiver<Asked>,
    prompt: &mut F,
) -> Asked
where
    F: std::future::Future + Unpin,
    F::Output: std::fmt::Debug,
{
    tokio::select! {
        asked = asked.recv() => asked.expect("a permission request"),
        result = prompt => panic!("the turn ended before asking: {result:?}"),
    }
}

pub(super) fn selected(option: &str) -> RequestPermissionResponse {
    RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
        SelectedPermissionOutcome::new(option.to_owned()),
    ))
}

pub(super) fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[tokio::test]
async fn a_read_runs_without_asking() {
    let mut h = Harness::start().await;
    std::fs::write(h.file("notes.txt"), "the secret of the notes\n").expect("test step");
    let stop = h.turn("read notes.txt", None).await;
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(h.statuses(), ["pending", "in_progress", "completed"]);
    let updates = serde_json::to_string(&h.updates()).expect("test step");
    assert!(updates.contains("the secret of the notes"), "{updates}");
}

#[tokio::test]
async fn a_write_asks_and_allow_once_writes_the_file() {
    let mut h = Harness::start().await;
    let stop = h.turn("write out.txt: hello", Some("allow-once")).await;
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(read(&h.file("out.txt")).as_deref(), Some("hello"));
    assert_eq!(h.statuses(), ["pending", "in_progress", "completed"]);
}

#[tokio::test]
async fn reject_once_denies_the_write() {
    let mut h = Harness::start().await;
    let stop = h.turn("write out.txt: hello", Some("reject-once")).await;
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(read(&h.file("out.txt")), None);
    assert_eq!(h.statuses(), ["pending", "failed"]);
    assert!(h.agent_text().contains("denied"), "{}", h.agent_text());
}

#[tokio::test]
async fn cancel_while_asked_ends_the_turn_cancelled_and_runs_nothing() {
    let mut h = Harness::start().await;
    let prompt = h
        .connection
        .prompt(h.prompt_request("write out.txt: hello"));
    tokio::pin!(prompt);
    let (request, answer) = first_request(&mut h.asked, &mut prompt).await;
    assert_eq!(request.session_id, h.session);
    h.connection.cancel(h.session.clone()).expect("test step");
    let stop = prompt.await.expect("test step").stop_reason;
    assert_eq!(stop, StopReason::Cancelled);
    // The agent withdrew the request; a late answer must change nothing.
    let _ = answer.send(selected("allow-once"));
    assert_eq!(read(&h.file("out.txt")), None);
}

#[tokio::test]
async fn set_mode_read_only_denies_a_write_without_asking() {
    let mut h = Harness::start().await;
    h.connection
        .set_mode(SetSessionModeRequest::new(h.session.clone(), "read-only"))
        .await
        .expect("set_mode");
    let stop = h.turn("write out.txt: hello", None).await;
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(read(&h.file("out.txt")), None);
    assert_eq!(h.statuses(), ["pending", "failed"]);
    let updates = serde_json::to_string(&h.updates()).expect("json");
    assert!(updates.contains("current_mode_update"), "{updates}");
}

#[tokio::test]
async fn a_client_that_offers_fs_gets_the_write_through_its_handler() {
    let mut h = Harness::start_with(true).await;
    let stop = h.turn("write out.txt: hello", Some("allow-once")).await;
    assert_eq!(stop, StopReason::EndTurn);
    // Written into the client's buffers, not onto the disk.
    assert_eq!(read(&h.file("out.txt")), None);
    let written = h
        .recorder
        .editor
        .as_ref()
        .expect("editor")
        .lock()
        .expect("editor lock")
        .clone();
    assert_eq!(written, [(h.file("out.txt"), "hello".to_owned())]);
    assert_eq!(h.statuses(), ["pending", "in_progress", "completed"]);
}

#[tokio::test]
async fn close_ends_the_session_and_its_running_turn() {
    let mut h = Harness::start().await;
    let prompt = h
        .connection
        .prompt(h.prompt_request("write out.txt: hello"));
    tokio::pin!(prompt);
    let (_request, answer) = first_request(&mut h.asked, &mut prompt).await;
    h.connection
        .close_session(CloseSessionRequest::new(h.session.clone()))
        .await
        .expect("close");
    let stop = prompt.await.expect("test step").stop_reason;
    assert_eq!(stop, StopReason::Cancelled);
    let _ = answer.send(selected("allow-once"));
    assert_eq!(
        read(&h.file("out.txt")),
        None,
        "nothing ran for the closed session"
    );
    // The id is gone: a prompt, a second close and a mode change are refused.
    let refused = h.connection.prompt(h.prompt_request("read out.txt")).await;
    assert!(refused.is_err(), "{refused:?}");
    let again = h
        .connection
        .close_session(CloseSessionRequest::new(h.session.clone()))
        .await;
    assert!(again.is_err(), "{again:?}");
}

#[tokio::test]
async fn a_session_grant_allows_in_its_own_session_only() {
    let mut h = Harness::start().await;
    assert_eq!(
        h.turn("write out.txt: one", Some("allow-session")).await,
        StopReason::EndTurn
    );
    // The grant holds in its own session: no question the second time.
    assert_eq!(
        h.turn("write out.txt: two", None).await,
        StopReason::EndTurn
    );
    let other = h
        .connection
        .new_session(NewSessionRequest::new(h.project.clone()))
        .await
        .expect("a second session")
        .session_id;
    h.connection
        .close_session(CloseSessionRequest::new(h.session.clone()))
        .await
        .expect("close");
    // A session grant never reaches another session, closed or not.
    h.session = other;
    assert_eq!(
        h.turn("write out.txt: three", Some("reject-once")).await,
        StopReason::EndTurn
    );
    assert_eq!(read(&h.file("out.txt")).as_deref(), Some("two"));
}

/// The audit log's lines, once everything recorded so far is written.
fn audit_lines(h: &Harness) -> Vec<Value> {
    h.agent.flush();
    std::fs::read_to_string(h.home.join("audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The audit log says who answered each call, and an answer that comes second is
/// refused and audited: here `warden pending` denied the call from another terminal
/// (its answer file) just before the editor allowed it, so the denial stands, the
/// call does not run, and the editor's `allow-once` is logged as refused.
#[tokio::test]
async fn an_editor_s_answer_after_one_from_another_terminal_is_refused_and_audited() {
    let mut h = Harness::start().await;
    let prompt = h
        .connection
        .prompt(h.prompt_request("write out.txt: hello"));
    tokio::pin!(prompt);
    let (request, answer) = first_request(&mut h.asked, &mut prompt).await;
    let call = request.tool_call.tool_call_id.0.to_string();
    let store = warden_journal::SessionStore::open(h.home.join("sessions")).expect("store");
    let first = warden_journal::Claim {
        call: call.clone(),
        question: 1,
        option: "reject-once".to_owned(),
        by: warden_journal::AnsweredBy::Pending,
        note: None,
        at_ms: warden_journal::now_ms(),
    };
    assert_eq!(
        store.claim(&h.session.0, &first).expect("claim"),
        warden_journal::ClaimResult::Won
    );
    answer.send(selected("allow-once")).expect("test step");
    let stop = prompt.await.expect("test step").stop_reason;
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(
        read(&h.file("out.txt")),
        None,
        "the first answer, a denial, stands"
    );
    let outcomes: Vec<(String, String)> = audit_lines(&h)
        .iter()
        .filter(|l| l["tool_call_id"] == call.as_str() && l["outcome"].is_object())
        .map(|l| {
            (
                l["outcome"]["type"].as_str().unwrap_or("?").to_owned(),
                l["decided_by"]["answered_by"]
                    .as_str()
                    .unwrap_or("-")
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("error".to_owned(), "editor".to_owned()),
            ("denied".to_owned(), "warden pending".to_owned())
        ],
        "{:#?}",
        audit_lines(&h)
    );
}

/// An answer the editor gives is logged as the editor's.
#[tokio::test]
async fn the_audit_log_names_the_editor_as_the_one_who_answered() {
    let mut h = Harness::start().await;
    h.turn("write out.txt: hello", Some("allow-once")).await;
    let answered: Vec<Value> = audit_lines(&h)
        .into_iter()
        .filter(|l| l["outcome"]["type"] == "granted")
        .collect();
    assert_eq!(answered.len(), 1, "{answered:#?}");
    assert_eq!(answered[0]["decided_by"]["answered_by"], "editor");
}
