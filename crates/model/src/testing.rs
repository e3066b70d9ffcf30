//! Test support for other crates (feature `test-support`): a local Chat Completions server
//! that speaks real server-sent events, so that a whole turn can be tested against the
//! OpenAI-compatible backend without any network.

#[path = "../tests/model/openai/server.rs"]
mod server;

pub use server::{Recorded, Reply, Server, call_delta, data, done, finish, text_chunk};
