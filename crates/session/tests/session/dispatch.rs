//! A request handler never waits on anything slow: while one session's `session/new`
//! waits for an MCP server that has not started, the connection goes on serving every
//! other session — a permission answer is handled and its tool runs, and `session/list`
//! answers.
//!
//! The slow server waits for a marker file that the test creates only after the other
//! session's turn has ended and the list has answered. Were the dispatch loop blocked,
//! the answer could not get through and the test would not finish before the server's
//! connect timeout, after which `session/new` answers first and the order assertion
//! fails.

use warden_acp_transport::schema::{
    ListSessionsRequest, McpServer, McpServerStdio, NewSessionRequest, StopReason,
};

use super::in_process::{Harness, first_request, read, selected};

/// A stdio "MCP server" that starts only once `marker` exists, then exits without
/// speaking: `session/new` answers then, with the server reported as failed.
fn server_waiting_for(marker: &std::path::Path) -> McpServer {
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.02; done; exit 1",
        marker.display()
    );
    McpServer::Stdio(McpServerStdio::new("slow", "/bin/sh").args(vec!["-c".to_owned(), script]))
}

#[tokio::test]
async fn a_slow_session_new_does_not_hold_up_another_session_s_answer_or_the_list() {
    let mut h = Harness::start().await;
    let marker = h.file("../slow-server-may-start");
    // B lives in a project of its own, whose engine is loaded after this user policy is
    // written: a connect timeout long enough that only a blocked dispatch loop reaches
    // it (B would then answer first, which fails the test rather than hanging it).
    let other = h.file("../other-project");
    std::fs::create_dir_all(&other).expect("test step");
    std::fs::write(
        h.home.join("policy.toml"),
        "mcp_connect_timeout_secs = 60\n",
    )
    .expect("test step");

    // Session A asks before the slow session is requested.
    let prompt = h
        .connection
        .prompt(h.prompt_request("write out.txt: hello"));
    tokio::pin!(prompt);
    let (_, answer) = first_request(&mut h.asked, &mut prompt).await;

    // Session B's `session/new` waits for its MCP server.
    let slow = h
        .connection
        .new_session(NewSessionRequest::new(other).mcp_servers(vec![server_waiting_for(&marker)]));
    tokio::pin!(slow);
    let mut order = Vec::new();

    // A's answer goes in while B's `session/new` is in flight; A's turn must end.
    answer.send(selected("allow-once")).expect("test step");
    let stop = tokio::select! {
        result = &mut prompt => result.expect("test step").stop_reason,
        result = &mut slow => panic!("session/new answered before the marker: {result:?}"),
    };
    order.push("A's turn ended");
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(read(&h.file("out.txt")).as_deref(), Some("hello"));

    let listed = tokio::select! {
        result = h.connection.list_sessions(ListSessionsRequest::new()) => result.expect("test step"),
        result = &mut slow => panic!("session/new answered before the marker: {result:?}"),
    };
    order.push("the list answered");
    assert!(
        listed.sessions.iter().any(|s| s.session_id == h.session),
        "{listed:?}"
    );

    std::fs::write(&marker, "").expect("test step");
    let opened = slow.await.expect("test step");
    order.push("B opened");
    assert_ne!(opened.session_id, h.session);
    assert_eq!(order, ["A's turn ended", "the list answered", "B opened"]);
}
