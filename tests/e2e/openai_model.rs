//! Warden driven by an OpenAI-compatible model: a local server speaks the real
//! Chat Completions wire format, with server-sent event chunks and tool-call deltas split
//! across chunks, and no network.

use serde_json::{Value, json};
use warden_model::testing::{Reply, Server, call_delta, done, finish, text_chunk};

use super::support::{Answer, Client, Spawn};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the model server")
}

fn spawn_against(server: &Server) -> Client {
    Client::spawn_with(
        &Spawn::default()
            .env("WARDEN_MODEL", "openai:test-model")
            .env("OPENAI_BASE_URL", server.base_url())
            .env("OPENAI_API_KEY", "sk-test"),
    )
}

#[test]
fn a_streamed_reply_with_two_tool_calls_goes_through_the_permission_flow_and_back() {
    let runtime = runtime();
    let server = runtime.block_on(Server::start(vec![
        Reply::Sse(vec![
            text_chunk("Making "),
            text_chunk("two files."),
            call_delta(0, Some("call_a"), Some("terminal"), "{\"comm"),
            call_delta(1, Some("call_b"), Some("terminal"), "{\"command\": "),
            call_delta(
                0,
                None,
                None,
                "and\": \"touch a\", \"risk_level\": \"low\"}",
            ),
            call_delta(1, None, None, "\"touch b\"}"),
            finish("tool_calls"),
            done(),
        ]),
        Reply::Sse(vec![
            text_chunk("a exists; b was refused."),
            finish("stop"),
            done(),
        ]),
    ]));
    let mut client = spawn_against(&server);
    let session = client.ready_session();
    client.on_request(|request: &Value| {
        let command = request["params"]["toolCall"]["rawInput"]["command"]
            .as_str()
            .unwrap_or_default();
        let option = if command == "touch a" {
            "allow-once"
        } else {
            "reject-once"
        };
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": option}}))
    });
    let result = client.prompt(&session, "make a and b");
    assert_eq!(result["stopReason"], "end_turn");
    let project = client.process().project();
    assert!(project.join("a").exists() && !project.join("b").exists());
    let text = client.agent_text();
    assert!(text.starts_with("Making two files."), "{text}");
    assert!(text.ends_with("a exists; b was refused."), "{text}");

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    // Every tool offered to the model carries the optional risk_level property.
    let tools = requests[0].body["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!tools.is_empty());
    assert!(
        tools
            .iter()
            .all(|t| t["function"]["parameters"]["properties"]["risk_level"].is_object())
    );
    // The second request carries both results back: the output and the denial.
    let messages = requests[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let result_of = |id: &str| {
        messages
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
            .unwrap_or_default()
    };
    assert!(result_of("call_a").contains("Exit code 0"), "{messages:?}");
    assert_eq!(result_of("call_b"), "User denied tool invocation");
    // The risk hint was taken out before the tool ran and before the request was shown.
    let permission: Vec<_> = client
        .transcript()
        .iter()
        .filter_map(|e| e.message.as_ref())
        .filter(|m| m["method"] == "session/request_permission")
        .map(|m| m["params"]["toolCall"]["rawInput"].clone())
        .collect();
    assert!(
        permission
            .iter()
            .all(|input| input.get("risk_level").is_none()),
        "{permission:?}"
    );
}

#[test]
fn an_unreachable_model_ends_the_turn_with_a_clear_message() {
    let runtime = runtime();
    // A listener that is bound and dropped leaves a port nobody answers on.
    let port = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        listener.local_addr().expect("addr").port()
    });
    let mut client = Client::spawn_with(
        &Spawn::default()
            .env("WARDEN_MODEL", "openai:test-model")
            .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
            .env("OPENAI_API_KEY", "sk-test"),
    );
    let session = client.ready_session();
    let result = client.prompt(&session, "hello");
    assert_eq!(result["stopReason"], "end_turn");
    assert!(
        client.agent_text().contains("The model failed"),
        "{}",
        client.agent_text()
    );
}

#[test]
fn a_length_cut_off_answers_max_tokens() {
    let runtime = runtime();
    let server = runtime.block_on(Server::start(vec![Reply::Sse(vec![
        text_chunk("This reply is cut"),
        finish("length"),
        done(),
    ])]));
    let mut client = spawn_against(&server);
    let session = client.ready_session();
    let result = client.prompt(&session, "write a novel");
    assert_eq!(result["stopReason"], "max_tokens");
}
