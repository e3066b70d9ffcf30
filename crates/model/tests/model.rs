//! Integration tests of the model crate, in one test binary: the conversation, the
//! risk hint in every schema, the scripted model, and the OpenAI-compatible backend
//! against a local server.

// Test code: a failed setup step panics, which is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod model {
    mod conversation;
    mod openai;
    mod risk_hint;
    mod scripted;
}
