//! The OpenAI-compatible backend against a local server that speaks the real wire format.

mod server;

use std::time::Duration;

use expect_test::{Expect, expect};
use futures::StreamExt;
use serde_json::{Value, json};
use server::{Reply, Server, call_delta, data, done, finish, text_chunk};
use warden_model::{
    Conversation, Model, ModelError, ModelEvent, OpenAiConfig, OpenAiModel, ToolOutcome, ToolSpec,
    denied_content,
};

fn config(base_url: &str) -> OpenAiConfig {
    let mut config = OpenAiConfig::new("test-model", base_url, Some("sk-test".to_owned()));
    // Short delays keep the retry tests fast; the idle timeout only bounds a broken test.
    config.initial_backoff = Duration::from_millis(1);
    config.max_backoff = Duration::from_millis(5);
    config.idle_timeout = Duration::from_secs(10);
    config
}

fn model(config: OpenAiConfig) -> OpenAiModel {
    OpenAiModel::new(config).expect("valid config")
}

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "fs_read".to_owned(),
        description: "Reads a file".to_owned(),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }]
}

fn prompt(text: &str) -> Conversation {
    let mut conversation = Conversation::new();
    conversation.push_user(text);
    conversation
}

/// The events of one reply, one line each; the server's address is replaced by `<server>`.
async fn render(model: &OpenAiModel, conversation: &Conversation, addr: &str) -> String {
    let events: Vec<_> = model.respond(conversation, &tools()).collect().await;
    let mut out = String::new();
    for event in events {
        match event {
            Ok(ModelEvent::Text(text)) => out.push_str(&format!("text {text:?}\n")),
            Ok(ModelEvent::ToolCall(call)) => out.push_str(&format!(
                "call {} {} {}\n",
                call.id, call.name, call.arguments
            )),
            Ok(ModelEvent::Finished(reason)) => out.push_str(&format!("finished {reason:?}\n")),
            Err(error) => out.push_str(&format!(
                "error {}\n",
                error.to_string().replace(addr, "<server>")
            )),
        }
    }
    out
}

async fn check(replies: Vec<Reply>, expected: Expect) -> Server {
    let server = Server::start(replies).await;
    let model = model(config(&server.base_url()));
    let out = render(&model, &prompt("hi"), &server.addr().to_string()).await;
    expected.assert_eq(&out);
    server
}

#[tokio::test]
async fn text_is_streamed_in_chunks() {
    let server = check(
        vec![Reply::Sse(vec![
            data(json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})),
            text_chunk("Hel"),
            text_chunk("lo, "),
            // An event split in the middle of its JSON, and a keep-alive comment.
            ": keep-alive\n\ndata: {\"choices\": [{\"index\": 0, \"delta\": {\"con".to_owned(),
            "tent\": \"world\"}}]}\n\n".to_owned(),
            finish("stop"),
            done(),
        ])],
        expect![[r#"
            text "Hel"
            text "lo, "
            text "world"
            finished EndTurn
        "#]],
    )
    .await;
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].authorization.as_deref(), Some("Bearer sk-test"));
}

#[tokio::test]
async fn two_tool_calls_in_one_message_with_split_interleaved_deltas() {
    check(
        vec![Reply::Sse(vec![
            text_chunk("Reading both."),
            call_delta(0, Some("call_a"), Some("fs_read"), ""),
            call_delta(1, Some("call_b"), Some("fs_read"), "{\"pa"),
            call_delta(0, None, None, "{\"path\": \"RE"),
            call_delta(
                1,
                None,
                None,
                "th\": \"Cargo.toml\", \"risk_level\": \"low\"}",
            ),
            call_delta(0, None, None, "ADME.md\"}"),
            finish("tool_calls"),
            done(),
        ])],
        expect![[r#"
            text "Reading both."
            call call_a fs_read {"path":"README.md"}
            call call_b fs_read {"path":"Cargo.toml","risk_level":"low"}
            finished ToolCalls
        "#]],
    )
    .await;
}

#[tokio::test]
async fn unparsable_arguments_are_kept_as_a_string_and_missing_ids_are_made_up() {
    check(
        vec![Reply::Sse(vec![
            call_delta(0, None, Some("fs_read"), "{\"path\": "),
            // Ollama says `stop` even for tool calls.
            finish("stop"),
            done(),
        ])],
        expect![[r#"
            call call_1 fs_read "{\"path\": "
            finished ToolCalls
        "#]],
    )
    .await;
}

#[tokio::test]
async fn length_cut_off_is_max_tokens_and_runs_no_truncated_call() {
    check(
        vec![Reply::Sse(vec![
            text_chunk("Let me"),
            call_delta(
                0,
                Some("call_a"),
                Some("fs_write"),
                "{\"path\": \"a\", \"cont",
            ),
            finish("length"),
            done(),
        ])],
        expect![[r#"
            text "Let me"
            finished MaxTokens
        "#]],
    )
    .await;
}

#[tokio::test]
async fn a_server_that_ignores_stream_true_still_works() {
    let completion = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Sure.",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "fs_read", "arguments": "{\"path\":\"a\"}"}},
                    {"id": "c2", "type": "function", "function": {"name": "fs_list", "arguments": "{\"path\":\".\"}"}}
                ]
            },
            "finish_reason": "tool_calls"
        }]
    });
    check(
        vec![Reply::Status {
            status: 200,
            headers: vec![],
            body: completion.to_string(),
        }],
        expect![[r#"
            text "Sure."
            call c1 fs_read {"path":"a"}
            call c2 fs_list {"path":"."}
            finished ToolCalls
        "#]],
    )
    .await;
}

#[tokio::test]
async fn content_filter_is_a_refusal() {
    check(
        vec![Reply::Sse(vec![finish("content_filter"), done()])],
        expect![[r#"
            finished Refusal
        "#]],
    )
    .await;
}

#[tokio::test]
async fn a_stream_that_stops_early_is_an_error() {
    check(
        vec![Reply::Sse(vec![text_chunk("half")])],
        expect![[r#"
            text "half"
            error the model endpoint sent a malformed reply: the stream ended before the reply was complete
        "#]],
    )
    .await;
}

#[tokio::test]
async fn a_malformed_chunk_is_an_error() {
    check(
        vec![Reply::Sse(vec!["data: {not json\n\n".to_owned(), done()])],
        expect![[r#"
            error the model endpoint sent a malformed reply: cannot read a stream chunk (key must be a string at line 1 column 2): {not json
        "#]],
    )
    .await;
}

#[tokio::test]
async fn an_error_in_the_stream_is_reported() {
    check(
        vec![Reply::Sse(vec![
            text_chunk("a"),
            data(json!({"error": {"message": "upstream overloaded", "code": 502}})),
        ])],
        expect![[r#"
            text "a"
            error the model endpoint reported an error: upstream overloaded
        "#]],
    )
    .await;
}

fn status(status: u16, body: &str) -> Reply {
    Reply::Status {
        status,
        headers: vec![],
        body: body.to_owned(),
    }
}

#[tokio::test]
async fn unauthorized() {
    check(
        vec![status(401, r#"{"error": {"message": "Incorrect API key provided: sk-test", "type": "invalid_request_error"}}"#)],
        expect![[r#"
            error the model endpoint http://<server>/v1/chat/completions refused the API key (HTTP 401): Incorrect API key provided: sk-test; check OPENAI_API_KEY
        "#]],
    )
    .await;
}

#[tokio::test]
async fn model_not_found() {
    check(
        vec![status(404, r#"{"error": {"message": "model \"test-model\" not found, try pulling it first"}}"#)],
        expect![[r#"
            error model `test-model` was not found at http://<server>/v1/chat/completions: model "test-model" not found, try pulling it first; check the model name and OPENAI_BASE_URL (it usually ends in /v1)
        "#]],
    )
    .await;
}

#[tokio::test]
async fn other_client_errors_are_rejections() {
    check(
        vec![status(400, "registry.ollama.ai/library/gemma does not support tools")],
        expect![[r#"
            error the model endpoint rejected the request (HTTP 400): registry.ollama.ai/library/gemma does not support tools
        "#]],
    )
    .await;
}

#[tokio::test]
async fn rate_limited_then_success_is_retried() {
    let server = check(
        vec![
            Reply::Status {
                status: 429,
                headers: vec![("retry-after", "1".to_owned())],
                body: r#"{"error": {"message": "slow down"}}"#.to_owned(),
            },
            Reply::Sse(vec![text_chunk("ok"), finish("stop"), done()]),
        ],
        expect![[r#"
            text "ok"
            finished EndTurn
        "#]],
    )
    .await;
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn rate_limited_forever_gives_up_after_the_bound() {
    let server = check(
        vec![status(429, r#"{"error": {"message": "slow down"}}"#)],
        expect![[r#"
            error the model endpoint is rate limiting requests (HTTP 429, 3 attempts): slow down
        "#]],
    )
    .await;
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn server_error_is_retried_then_reported() {
    let server = check(
        vec![status(500, "")],
        expect![[r#"
            error the model endpoint failed with HTTP 500 (3 attempts): Internal Server Error
        "#]],
    )
    .await;
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn server_error_then_success_is_retried() {
    check(
        vec![
            status(503, "busy"),
            Reply::Sse(vec![text_chunk("ok"), finish("stop"), done()]),
        ],
        expect![[r#"
            text "ok"
            finished EndTurn
        "#]],
    )
    .await;
}

#[tokio::test]
async fn connection_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    drop(listener);
    let model = model(config(&format!("http://{addr}/v1")));
    let out = render(&model, &prompt("hi"), &addr).await;
    assert!(
        out.starts_with(
            "error cannot connect to the model endpoint http://<server>/v1/chat/completions: "
        ),
        "{out}"
    );
}

#[tokio::test]
async fn a_stalled_stream_times_out() {
    let server = Server::start(vec![Reply::Stall(vec![text_chunk("thinking")])]).await;
    let mut config = config(&server.base_url());
    config.idle_timeout = Duration::from_millis(200);
    let out = render(&model(config), &prompt("hi"), &server.addr().to_string()).await;
    expect![[r#"
        text "thinking"
        error the model endpoint http://<server>/v1/chat/completions sent nothing for 0.2 s (waiting for the next chunk)
    "#]]
    .assert_eq(&out);
}

/// A slow model (the answer's head comes late, within the idle timeout) is waited for.
#[tokio::test]
async fn a_late_answer_within_the_idle_timeout_is_read() {
    let server = Server::start(vec![Reply::Late(
        Duration::from_millis(300),
        vec![text_chunk("late"), finish("stop"), done()],
    )])
    .await;
    let mut config = config(&server.base_url());
    config.idle_timeout = Duration::from_secs(20);
    let out = render(&model(config), &prompt("hi"), &server.addr().to_string()).await;
    expect![[r#"
        text "late"
        finished EndTurn
    "#]]
    .assert_eq(&out);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let server = Server::start(vec![Reply::Hang]).await;
    let mut config = config(&server.base_url());
    config.idle_timeout = Duration::from_millis(200);
    let out = render(&model(config), &prompt("hi"), &server.addr().to_string()).await;
    expect![[r#"
        error the model endpoint http://<server>/v1/chat/completions sent nothing for 0.2 s (waiting for the response)
    "#]]
    .assert_eq(&out);
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let server = Server::start(vec![Reply::Stall(vec![text_chunk("partial")])]).await;
    let model = model(config(&server.base_url()));
    let mut stream = model.respond(&prompt("hi"), &tools());
    let first = stream.next().await;
    assert!(
        matches!(&first, Some(Ok(ModelEvent::Text(t))) if t == "partial"),
        "{first:?}"
    );
    drop(stream);
    assert!(
        server.saw_disconnect().await,
        "the server never saw the client hang up"
    );
}

#[tokio::test]
async fn tool_results_go_back_to_the_model() {
    let server = Server::start(vec![
        Reply::Sse(vec![
            call_delta(0, Some("call_a"), Some("fs_read"), "{\"path\": \"a\"}"),
            call_delta(
                1,
                Some("call_b"),
                Some("terminal"),
                "{\"command\": \"rm -rf /\", \"risk_level\": \"high\"}",
            ),
            finish("tool_calls"),
            done(),
        ]),
        Reply::Sse(vec![text_chunk("Done."), finish("stop"), done()]),
    ])
    .await;
    let model = model(config(&server.base_url()));
    let mut conversation = prompt("read a, then wipe everything");
    let calls: Vec<_> = model
        .respond(&conversation, &tools())
        .filter_map(|e| async move {
            match e {
                Ok(ModelEvent::ToolCall(call)) => Some(call),
                _ => None,
            }
        })
        .collect()
        .await;
    assert_eq!(calls.len(), 2);
    conversation.push_assistant("", calls.clone());
    conversation.push_user_note("call_a", "only the first line matters");
    conversation.push_tool_result(
        "call_a",
        "fs_read",
        ToolOutcome::Completed,
        "line one\nline two",
    );
    conversation.push_tool_result(
        "call_b",
        "terminal",
        ToolOutcome::Denied,
        denied_content(Some("never")),
    );
    let out = render(&model, &conversation, &server.addr().to_string()).await;
    expect![[r#"
        text "Done."
        finished EndTurn
    "#]]
    .assert_eq(&out);
    let second = &server.requests()[1].body;
    let messages: Vec<Value> = second["messages"].as_array().expect("messages")[1..].to_vec();
    expect![[r#"
        [
          {
            "role": "user",
            "content": "read a, then wipe everything"
          },
          {
            "role": "assistant",
            "content": null,
            "tool_calls": [
              {
                "id": "call_a",
                "type": "function",
                "function": {
                  "name": "fs_read",
                  "arguments": "{\"path\":\"a\"}"
                }
              },
              {
                "id": "call_b",
                "type": "function",
                "function": {
                  "name": "terminal",
                  "arguments": "{\"command\":\"rm -rf /\",\"risk_level\":\"high\"}"
                }
              }
            ]
          },
          {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": "line one\nline two"
          },
          {
            "role": "tool",
            "tool_call_id": "call_b",
            "content": "User denied tool invocation: never"
          },
          {
            "role": "user",
            "content": "only the first line matters"
          }
        ]"#]]
    .assert_eq(&serde_json::to_string_pretty(&messages).expect("json"));
}

#[tokio::test]
async fn the_request_has_the_system_prompt_first_and_risk_level_on_every_tool() {
    let server = check(
        vec![Reply::Sse(vec![finish("stop"), done()])],
        expect![[r#"
            finished EndTurn
        "#]],
    )
    .await;
    let body = &server.requests()[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["messages"][0]["role"], "system");
    let system = body["messages"][0]["content"]
        .as_str()
        .expect("system prompt");
    assert!(system.contains("<RISK_ASSESSMENT>"), "{system}");
    expect![[r#"
        [
          {
            "type": "function",
            "function": {
              "name": "fs_read",
              "description": "Reads a file",
              "parameters": {
                "type": "object",
                "properties": {
                  "path": {
                    "type": "string"
                  },
                  "risk_level": {
                    "type": "string",
                    "enum": [
                      "low",
                      "medium",
                      "high"
                    ],
                    "description": "Optional: Risk level assessment for this operation. 'low' = safe to execute automatically, 'medium'/'high' = requires user confirmation. If not provided, system will assess risk conservatively."
                  }
                },
                "required": [
                  "path"
                ]
              }
            }
          }
        ]"#]]
    .assert_eq(&serde_json::to_string_pretty(&body["tools"]).expect("json"));
}

#[test]
fn unanswered_calls_get_a_result_and_notes_wait_for_the_batch() {
    let model = model(config("http://127.0.0.1:9/v1"));
    let mut conversation = prompt("go");
    conversation.push_assistant(
        "Working.",
        vec![
            warden_model::ToolCallRequest {
                id: "c1".to_owned(),
                name: "fs_read".to_owned(),
                arguments: json!({"path": "a"}),
            },
            warden_model::ToolCallRequest {
                id: "c2".to_owned(),
                name: "fs_read".to_owned(),
                arguments: Value::String("{broken".to_owned()),
            },
        ],
    );
    conversation.push_tool_result("c1", "fs_read", ToolOutcome::TimedOut, "");
    conversation.push_user_note("c2", "careful");
    conversation.push_tool_result("zz", "fs_read", ToolOutcome::Completed, "orphan");
    conversation.push_user("next");
    let body = model.request_body(&conversation, &[]);
    assert!(body.get("tools").is_none());
    let messages: Vec<Value> = body["messages"].as_array().expect("messages")[2..].to_vec();
    expect![[r#"
        [
          {
            "role": "assistant",
            "content": "Working.",
            "tool_calls": [
              {
                "id": "c1",
                "type": "function",
                "function": {
                  "name": "fs_read",
                  "arguments": "{\"path\":\"a\"}"
                }
              },
              {
                "id": "c2",
                "type": "function",
                "function": {
                  "name": "fs_read",
                  "arguments": "{\"_invalid_json\":\"{broken\"}"
                }
              }
            ]
          },
          {
            "role": "tool",
            "tool_call_id": "c1",
            "content": "The tool call timed out."
          },
          {
            "role": "tool",
            "tool_call_id": "c2",
            "content": "The tool call did not run: the turn ended before it was executed."
          },
          {
            "role": "user",
            "content": "careful"
          },
          {
            "role": "user",
            "content": "next"
          }
        ]"#]]
    .assert_eq(&serde_json::to_string_pretty(&messages).expect("json"));
}

#[test]
fn configuration_errors() {
    fn check(spec: &str, vars: &[(&str, &str)], expected: Expect) {
        let env = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        };
        let out = match warden_model::from_spec(spec, &env) {
            Ok(model) => format!("ok {}", model.id()),
            Err(error) => format!("error {error}"),
        };
        expected.assert_eq(&out);
    }
    check("scripted", &[], expect!["ok scripted"]);
    check("", &[], expect!["ok scripted"]);
    check(
        "openai:gpt-4o-mini",
        &[],
        expect![
            "error OPENAI_API_KEY is not set: set it to use `gpt-4o-mini` on api.openai.com, or set OPENAI_BASE_URL to a local OpenAI-compatible server (such as Ollama), or use WARDEN_MODEL=scripted"
        ],
    );
    check(
        "openai:gpt-4o-mini",
        &[("OPENAI_API_KEY", "  ")],
        expect![
            "error OPENAI_API_KEY is not set: set it to use `gpt-4o-mini` on api.openai.com, or set OPENAI_BASE_URL to a local OpenAI-compatible server (such as Ollama), or use WARDEN_MODEL=scripted"
        ],
    );
    check(
        "openai:gpt-4o-mini",
        &[("OPENAI_API_KEY", "sk-x")],
        expect!["ok openai:gpt-4o-mini"],
    );
    check(
        "openai:qwen2.5-coder:7b",
        &[("OPENAI_BASE_URL", "http://localhost:11434/v1/")],
        expect!["ok openai:qwen2.5-coder:7b"],
    );
    check(
        "openai:m",
        &[
            ("OPENAI_API_KEY", "k"),
            ("WARDEN_MODEL_TIMEOUT_SECS", "600"),
        ],
        expect!["ok openai:m"],
    );
    check(
        "openai:m",
        &[("OPENAI_API_KEY", "k"), ("WARDEN_MODEL_TIMEOUT_SECS", "0")],
        expect![
            "error WARDEN_MODEL_TIMEOUT_SECS is `0`: expected a whole number of seconds greater than 0"
        ],
    );
    check(
        "openai:m",
        &[
            ("OPENAI_API_KEY", "k"),
            ("WARDEN_MODEL_TIMEOUT_SECS", "ten"),
        ],
        expect![
            "error WARDEN_MODEL_TIMEOUT_SECS is `ten`: expected a whole number of seconds greater than 0"
        ],
    );
    check(
        "openai:m",
        &[("OPENAI_BASE_URL", "localhost:11434/v1")],
        expect!["error OPENAI_BASE_URL `localhost:11434/v1` is not an http:// or https:// URL"],
    );
    check(
        "openai:",
        &[],
        expect![
            "error unknown model `openai:`: expected `scripted` or `openai:<model>` (for example `openai:gpt-4o-mini`)"
        ],
    );
    check(
        "anthropic:claude",
        &[],
        expect![
            "error unknown model `anthropic:claude`: expected `scripted` or `openai:<model>` (for example `openai:gpt-4o-mini`)"
        ],
    );
}

#[test]
fn the_api_key_never_reaches_debug_output() {
    let config = config("http://127.0.0.1:9/v1");
    let debug = format!("{config:?} {:?}", model(config.clone()));
    assert!(!debug.contains("sk-test"), "{debug}");
}

#[test]
fn errors_name_their_kind() {
    // The session maps errors to messages; make sure the variants used there stay public.
    let error = ModelError::Protocol {
        detail: "x".to_owned(),
    };
    assert_eq!(
        error.to_string(),
        "the model endpoint sent a malformed reply: x"
    );
}

#[test]
fn the_idle_timeout_can_be_set() {
    let env = |name: &str| match name {
        "OPENAI_BASE_URL" => Some("http://localhost:11434/v1".to_owned()),
        "WARDEN_MODEL_TIMEOUT_SECS" => Some(" 600 ".to_owned()),
        _ => None,
    };
    let config = OpenAiConfig::from_env("m", &env).expect("valid");
    assert_eq!(config.idle_timeout, Duration::from_secs(600));
    assert_eq!(config.api_key, None);
    assert_eq!(
        config.completions_url(),
        "http://localhost:11434/v1/chat/completions"
    );
}

#[test]
fn a_recorded_stream_replays_like_a_live_one() {
    let body = [
        text_chunk("hi"),
        call_delta(0, Some("c1"), Some("fs_read"), "{\"path\":"),
        call_delta(0, None, None, "\"a\"}"),
        finish("tool_calls"),
        done(),
        // Nothing after [DONE] is read.
        text_chunk("ignored"),
    ]
    .concat();
    let events: Vec<String> = warden_model::replay_stream(body.as_bytes(), 1)
        .into_iter()
        .map(|e| format!("{e:?}"))
        .collect();
    expect![[r#"
        [
            "Ok(Text(\"hi\"))",
            "Ok(ToolCall(ToolCallRequest { id: \"c1\", name: \"fs_read\", arguments: Object {\"path\": String(\"a\")} }))",
            "Ok(Finished(ToolCalls))",
        ]
    "#]]
    .assert_debug_eq(&events);
}
