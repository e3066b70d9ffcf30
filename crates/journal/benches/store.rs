//! The session store: what journaling costs a turn, and what loading a long session
//! costs `session/load`.
//!
//! - `journal/one_call`: the records of one tool call that was asked and ran
//!   (proposed, asked, answered, running, finished, and its conversation entry),
//!   staged and written as the driver writes them (four `write`s), without syncing:
//!   Warden's own time (encoding, checksums, the `write`s).
//! - `journal/one_call_synced`: the same, then the journal and its folder synced (what a
//!   new session's header costs): the disk's time on top.
//! - `load/1000_messages_200_calls`: reading, checking and rebuilding a journal of
//!   1,000 conversation messages, 400 replayed messages and 200 finished calls.
//!
//! Run with `cargo bench -p warden-journal --bench store`.

// Benchmark code: a failed setup step panics, which is how a benchmark fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use warden_journal::{
    AnswerRecord, AnsweredBy, CallStatus, FinishedCall, Header, Message, OfferedOption, OptionKind,
    ProposedCall, Record, SessionStore, ToolCall, ToolKind,
};
use warden_verdict::Risk;

fn header(id: &str) -> Header {
    Header {
        id: id.into(),
        cwd: "/home/user/project".into(),
        created_ms: 1_790_000_000_000,
        model: "scripted".into(),
        mode: "ask".into(),
        title: None,
    }
}

/// One call's records, with arguments and output of a typical size.
fn call_records(i: usize) -> Vec<Record> {
    let id = format!("call_{i}");
    let output = "line of tool output that is about this long\n".repeat(20);
    vec![
        Record::Proposed(ProposedCall {
            id: id.clone(),
            tool: "terminal".into(),
            args: json!({"command": format!("cargo test -p crate_{i} -- --nocapture")}),
            title: format!("cargo test -p crate_{i} -- --nocapture"),
            kind: ToolKind::Execute,
            risk: Risk::Medium,
            reason: "runs the project's tests".into(),
            options: [
                ("allow-once", OptionKind::AllowOnce),
                ("allow-session", OptionKind::AllowAlways),
                ("reject-once", OptionKind::RejectOnce),
            ]
            .iter()
            .map(|(id, kind)| OfferedOption {
                id: (*id).into(),
                name: (*id).into(),
                kind: *kind,
            })
            .collect(),
            grant: Some("`cargo test` in this project".into()),
            at_ms: 1_790_000_000_000,
        }),
        Record::Asked {
            call: id.clone(),
            request: format!("{i}"),
            question: 1,
            edited: false,
        },
        Record::Answered(AnswerRecord {
            call: id.clone(),
            question: 1,
            option: "allow-once".into(),
            by: AnsweredBy::Editor,
            note: None,
        }),
        Record::Running { call: id.clone() },
        Record::Finished(FinishedCall {
            call: id.clone(),
            status: CallStatus::Completed,
            summary: output[..200].to_owned(),
            told: "exit 0".into(),
        }),
        Record::Conversation {
            message: Message::ToolResult {
                call_id: id,
                tool: "terminal".into(),
                outcome: CallStatus::Completed,
                content: output,
            },
        },
    ]
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store = SessionStore::open(dir.path().join("sessions")).expect("store");

    let mut journal = store.create(&header("journal")).expect("create");
    let records = call_records(1);
    // As the driver writes them: staged, and written together before what depends on
    // them (the request after `asked`, the tool after `running`) and before the turn
    // waits (after the result's records).
    let one_call = |journal: &mut warden_journal::Journal| {
        for r in &records {
            match r {
                Record::Asked { .. } | Record::Answered(_) | Record::Running { .. } => {
                    journal.append(black_box(r)).expect("append")
                }
                _ => journal.stage(black_box(r)).expect("stage"),
            }
        }
        journal.flush().expect("flush");
    };
    c.bench_function("journal/one_call", |b| b.iter(|| one_call(&mut journal)));
    let durability = journal.durability().expect("durability");
    c.bench_function("journal/one_call_synced", |b| {
        b.iter(|| {
            one_call(&mut journal);
            durability.sync().expect("sync");
        })
    });

    // 200 turns: a prompt, the model's reply with one call, the call's records, and
    // the model's answer; plus 200 further exchanges without calls: 1,000 messages.
    let mut journal = store.create(&header("long")).expect("create");
    let mut messages = 0;
    for i in 0..200 {
        let text = format!("please run the tests of crate {i} and tell me what failed");
        let mut turn = vec![
            Record::UserMessage { text: text.clone() },
            Record::Conversation {
                message: Message::User { text },
            },
            Record::Conversation {
                message: Message::Assistant {
                    text: "I will run them.".into(),
                    tool_calls: vec![ToolCall {
                        id: format!("call_{i}"),
                        name: "terminal".into(),
                        arguments: json!({"command": format!("cargo test -p crate_{i}")}),
                    }],
                },
            },
        ];
        turn.extend(call_records(i));
        let reply = "All tests passed; nothing failed in this crate.".to_owned();
        turn.push(Record::AgentText {
            text: reply.clone(),
        });
        turn.push(Record::Conversation {
            message: Message::Assistant {
                text: reply,
                tool_calls: Vec::new(),
            },
        });
        for r in &turn {
            journal.append(r).expect("append");
        }
        messages += 4;
    }
    for i in 0..100 {
        let text = format!("and what does module {i} do?");
        let reply = format!(
            "Module {i} parses the configuration. {}",
            "It is short. ".repeat(10)
        );
        for r in [
            Record::UserMessage { text: text.clone() },
            Record::Conversation {
                message: Message::User { text },
            },
            Record::AgentText {
                text: reply.clone(),
            },
            Record::Conversation {
                message: Message::Assistant {
                    text: reply,
                    tool_calls: Vec::new(),
                },
            },
        ] {
            journal.append(&r).expect("append");
        }
        messages += 2;
    }
    drop(journal);
    let loaded = store.load("long").expect("load");
    assert_eq!(loaded.conversation.len(), messages);
    assert_eq!(messages, 1000);
    assert!(loaded.waiting.is_empty() && loaded.problems.is_empty());
    let size = std::fs::metadata(store.journal_path("long").expect("path"))
        .expect("meta")
        .len();
    // The size docs/performance.md gives (678 KB when measured).
    assert!((600_000..800_000).contains(&size), "{size} bytes");
    c.bench_function("load/1000_messages_200_calls", |b| {
        b.iter(|| black_box(store.load("long").expect("load")))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
