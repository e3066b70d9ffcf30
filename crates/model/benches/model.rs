//! What the model crate adds to each model round trip: building the request for a long
//! conversation, decoding a streamed reply, trimming a large tool output, and the scripted
//! model's reply.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use warden_model::{
    Conversation, OpenAiConfig, OpenAiModel, ScriptedModel, ToolCallRequest, ToolOutcome, ToolSpec,
    replay_stream, trim_output,
};

/// A conversation of `batches` rounds, each with two tool calls and 4 KiB results.
fn long_conversation(batches: usize) -> Conversation {
    let mut conversation = Conversation::new();
    conversation.push_user("Refactor the parser and run the tests.");
    let output = "x".repeat(4096);
    for batch in 0..batches {
        let calls: Vec<ToolCallRequest> = (0..2)
            .map(|i| ToolCallRequest {
                id: format!("call_{}", batch * 2 + i + 1),
                name: "fs_read".to_owned(),
                arguments: json!({"path": format!("src/file_{i}.rs"), "risk_level": "low"}),
            })
            .collect();
        conversation.push_assistant("Reading.", calls.clone());
        for call in &calls {
            conversation.push_tool_result(
                &call.id,
                &call.name,
                ToolOutcome::Completed,
                output.clone(),
            );
        }
    }
    conversation
}

fn tools() -> Vec<ToolSpec> {
    ["fs_read", "fs_list", "fs_search", "fs_write", "fs_edit", "fs_delete", "fs_move", "terminal", "http_fetch"]
        .iter()
        .map(|name| ToolSpec {
            name: (*name).to_owned(),
            description: "A tool.".to_owned(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        })
        .collect()
}

/// A recorded stream: 2,000 text chunks, then one tool call whose arguments arrive in 500
/// pieces.
fn recorded_stream() -> Vec<u8> {
    let mut body = String::new();
    for i in 0..2000 {
        let chunk = json!({"choices": [{"index": 0, "delta": {"content": format!("word{i} ")}}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    let first = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "fs_write", "arguments": "{\"path\": \"a\", \"content\": \""}}]}}]});
    body.push_str(&format!("data: {first}\n\n"));
    for _ in 0..500 {
        let piece = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "0123456789"}}]}}]});
        body.push_str(&format!("data: {piece}\n\n"));
    }
    let last = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"}"}}]}, "finish_reason": "tool_calls"}]});
    body.push_str(&format!("data: {last}\n\ndata: [DONE]\n\n"));
    body.into_bytes()
}

fn benches(c: &mut Criterion) {
    let model = OpenAiModel::new(OpenAiConfig::new("m", "http://127.0.0.1:9/v1", None))
        .expect("valid config");
    let conversation = long_conversation(100);
    let tools = tools();
    c.bench_function("request_body_100_batches_serialized", |b| {
        b.iter(|| {
            black_box(
                model
                    .request_body(black_box(&conversation), &tools)
                    .to_string(),
            )
        })
    });

    let stream = recorded_stream();
    c.bench_function("replay_stream_2500_chunks", |b| {
        b.iter(|| black_box(replay_stream(black_box(&stream), 1)))
    });

    let output = "line of tool output\n".repeat(50_000);
    c.bench_function("trim_output_1_mib_to_32_kib", |b| {
        b.iter(|| black_box(trim_output(black_box(output.clone()), 32 * 1024)))
    });

    let mut prompt = Conversation::new();
    prompt.push_user(
        "read a\nlist .\nrun cargo test\n/call fs_write {\"path\": \"b\", \"content\": \"x\"}",
    );
    c.bench_function("scripted_reply_four_calls", |b| {
        b.iter(|| black_box(ScriptedModel::new().reply(black_box(&prompt))))
    });
}

criterion_group!(model_benches, benches);
criterion_main!(model_benches);
