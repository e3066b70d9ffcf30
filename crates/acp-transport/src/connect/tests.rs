//! The client side against scripted peers: raw JSON lines over an in-memory pipe, and
//! child processes.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    InitializeRequest, RequestPermissionRequest, RequestPermissionResponse, SessionNotification,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::*;

/// A client that offers nothing and refuses every permission request.
struct Bare;

impl ClientHandler for Bare {
    fn session_update(&self, _notification: SessionNotification) {}

    async fn request_permission(
        &self,
        _request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, agent_client_protocol::Error> {
        Err(agent_client_protocol::Error::internal_error())
    }
}

/// The agent's ends of an in-memory pipe.
type AgentEnds = (
    tokio::io::ReadHalf<tokio::io::DuplexStream>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
);

/// A client with `handler` connected over an in-memory pipe to a fake agent, which has
/// sent `line`; returns the connection and the agent's ends.
async fn connected_and_sent(
    handler: impl ClientHandler,
    line: &str,
) -> (AgentConnection, AgentEnds) {
    let (client_end, agent_end) = tokio::io::duplex(64 * 1024);
    let (client_in, client_out) = tokio::io::split(client_end);
    let connection = AgentConnection::connect(
        Arc::new(handler),
        client_in,
        client_out,
        ConnectOptions::default(),
    )
    .await
    .expect("test step");
    let (agent_in, mut agent_out) = tokio::io::split(agent_end);
    agent_out
        .write_all(line.as_bytes())
        .await
        .expect("test step");
    agent_out.write_all(b"\n").await.expect("test step");
    (connection, (agent_in, agent_out))
}

/// Sends `line` from a fake agent and returns the client's answer.
async fn answer_to(line: &str) -> serde_json::Value {
    let (connection, (agent_in, _agent_out)) = connected_and_sent(Bare, line).await;
    let mut answer = String::new();
    BufReader::new(agent_in)
        .read_line(&mut answer)
        .await
        .expect("test step");
    drop(connection);
    serde_json::from_str(&answer).expect("test step")
}

#[tokio::test]
async fn capabilities_the_client_does_not_offer_are_refused_at_once() {
    let check = |method: &'static str, params: &'static str| async move {
        let line = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{params}}}"#);
        let answer = answer_to(&line).await;
        assert_eq!(answer["id"], 7, "{method}: {answer}");
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    };
    check(
        "fs/read_text_file",
        r#"{"sessionId":"s","path":"/etc/passwd"}"#,
    )
    .await;
    check(
        "fs/write_text_file",
        r#"{"sessionId":"s","path":"/tmp/x","content":"x"}"#,
    )
    .await;
    check(
        "terminal/create",
        r#"{"sessionId":"s","command":"rm","args":["-rf","/"]}"#,
    )
    .await;
    check("terminal/output", r#"{"sessionId":"s","terminalId":"t"}"#).await;
    check("_unknown/method", r#"{}"#).await;
}

#[tokio::test]
async fn a_permission_request_the_handler_fails_is_answered_with_an_error() {
    let answer = answer_to(
        r#"{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[]}}"#,
    )
    .await;
    assert_eq!(answer["id"], "p", "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
}

fn spawn_options() -> ConnectOptions {
    ConnectOptions {
        exit_grace: Duration::from_millis(100),
        ..ConnectOptions::default()
    }
}

#[tokio::test]
async fn a_request_to_an_agent_that_exits_fails_instead_of_waiting() {
    let connection =
        AgentConnection::spawn(Arc::new(Bare), AgentCommand::new("true"), spawn_options())
            .await
            .expect("test step");
    let result = connection
        .initialize(InitializeRequest::new(
            agent_client_protocol::schema::ProtocolVersion::V1,
        ))
        .await;
    assert!(
        matches!(result, Err(AgentRequestError::Disconnected { .. })),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_missing_agent_program_is_a_spawn_error() {
    let result = AgentConnection::spawn(
        Arc::new(Bare),
        AgentCommand::new("/nonexistent/agent"),
        spawn_options(),
    )
    .await;
    assert!(
        matches!(result, Err(ConnectError::Spawn { .. })),
        "{result:?}"
    );
}

/// Whether `pid` is still a live process (a zombie waiting for its parent is not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits (bounded) for a condition that another process brings about.
async fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    for _ in 0..500 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what} did not happen");
}

fn read_pid(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[tokio::test]
async fn closing_kills_an_agent_that_ignores_its_input_and_what_it_started() {
    let dir = tempfile::tempdir().expect("test step");
    let pidfile = dir.path().join("grandchild");
    let mut command = AgentCommand::new("sh");
    command.args = vec![
        "-c".into(),
        format!("sleep 1000 & echo $! > {}; wait", pidfile.display()).into(),
    ];
    let connection = AgentConnection::spawn(Arc::new(Bare), command, spawn_options())
        .await
        .expect("test step");
    let agent = connection.agent_pid().expect("test step");
    eventually("the agent's child starting", || {
        read_pid(&pidfile).is_some()
    })
    .await;
    let grandchild = read_pid(&pidfile).expect("test step");
    assert!(alive(grandchild));
    let status = connection.close().await.expect("test step");
    assert_eq!(status.signal(), Some(9), "{status:?}");
    assert!(!alive(agent));
    eventually("the agent's child dying", || !alive(grandchild)).await;
}

#[tokio::test]
async fn dropping_the_connection_kills_the_agents_group() {
    let dir = tempfile::tempdir().expect("test step");
    let pidfile = dir.path().join("grandchild");
    let mut command = AgentCommand::new("sh");
    command.args = vec![
        "-c".into(),
        format!("sleep 1000 & echo $! > {}; wait", pidfile.display()).into(),
    ];
    let connection = AgentConnection::spawn(Arc::new(Bare), command, spawn_options())
        .await
        .expect("test step");
    let agent = connection.agent_pid().expect("test step");
    eventually("the agent's child starting", || {
        read_pid(&pidfile).is_some()
    })
    .await;
    let grandchild = read_pid(&pidfile).expect("test step");
    drop(connection);
    eventually("the agent dying", || !alive(agent)).await;
    eventually("the agent's child dying", || !alive(grandchild)).await;
}

/// A client that answers every permission request `cancelled` and says when each answer
/// was handed to the connection.
struct Answering(tokio::sync::mpsc::UnboundedSender<()>);

impl ClientHandler for Answering {
    fn session_update(&self, _notification: SessionNotification) {}

    async fn request_permission(
        &self,
        _request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, agent_client_protocol::Error> {
        Ok(RequestPermissionResponse::new(
            agent_client_protocol::v1::schema::RequestPermissionOutcome::Cancelled,
        ))
    }

    fn permission_answered(&self) {
        let _ = self.0.send(());
    }
}

/// What broke: `warden chat` sent a typed prompt right after the person answered a
/// request, and the prompt could reach the agent before the answer, which goes out from
/// a task of its own; an agent that reads in order and waits for its answer lost the
/// prompt. Whatever the client sends once it is told the answer was handed over comes
/// after that answer on the wire.
#[tokio::test]
async fn regression_what_is_sent_after_a_permission_answer_is_handed_over_follows_it() {
    let (told, mut answered) = tokio::sync::mpsc::unbounded_channel();
    let (connection, (agent_in, _agent_out)) = connected_and_sent(
        Answering(told),
        r#"{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[]}}"#,
    )
    .await;
    answered
        .recv()
        .await
        .expect("told the answer was handed over");
    connection
        .cancel(SessionId::new("s"))
        .expect("the next message");
    let mut lines = BufReader::new(agent_in).lines();
    let first: serde_json::Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("a line"))
            .expect("json");
    let second: serde_json::Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("a line"))
            .expect("json");
    assert_eq!(first["id"], "p", "the answer first: {first}, then {second}");
    assert_eq!(second["method"], "session/cancel", "{second}");
    drop(connection);
}
