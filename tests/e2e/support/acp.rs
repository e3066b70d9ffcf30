//! ACP conveniences on top of the raw client: the handshake, sessions and prompts
//! with the parameters most tests use.

use serde_json::{Value, json};

use super::client::Client;

/// The `initialize` params of a client without file system or terminal support.
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": {"readTextFile": false, "writeTextFile": false},
            "terminal": false
        },
        "clientInfo": {"name": "warden-e2e", "version": "0.0.0"}
    })
}

/// The `session/prompt` params for one text block.
pub fn prompt_params(session_id: &str, text: &str) -> Value {
    json!({"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})
}

impl Client {
    /// Sends `initialize` and returns its result.
    #[track_caller]
    pub fn initialize(&mut self) -> Value {
        self.request_ok("initialize", initialize_params())
    }

    /// Sends `session/new` in the test's project folder and returns the whole result.
    #[track_caller]
    pub fn new_session_result(&mut self) -> Value {
        let cwd = self.process().project().display().to_string();
        self.request_ok("session/new", json!({"cwd": cwd, "mcpServers": []}))
    }

    /// Sends `session/new` in the test's project folder and returns the session id.
    #[track_caller]
    pub fn new_session(&mut self) -> String {
        let result = self.new_session_result();
        match result["sessionId"].as_str() {
            Some(id) => id.to_owned(),
            None => self.fail(&format!("session/new returned no sessionId: {result}")),
        }
    }

    /// `initialize` then `session/new`: a ready session.
    #[track_caller]
    pub fn ready_session(&mut self) -> String {
        self.initialize();
        let session = self.new_session();
        // A new session's commands follow its answer; read them here, so that what a
        // test reads next is about what it does next.
        self.commands_update();
        session
    }

    /// Waits for the `available_commands_update` that follows a new session.
    #[track_caller]
    pub fn commands_update(&mut self) -> Value {
        self.wait_for("the session's available_commands_update", |m| {
            m["params"]["update"]["sessionUpdate"] == "available_commands_update"
        })
    }

    /// Sends a text prompt without waiting and returns the request id.
    pub fn send_prompt(&mut self, session_id: &str, text: &str) -> Value {
        self.send("session/prompt", prompt_params(session_id, text))
    }

    /// Sends a text prompt and returns its result (with `stopReason`).
    #[track_caller]
    pub fn prompt(&mut self, session_id: &str, text: &str) -> Value {
        self.request_ok("session/prompt", prompt_params(session_id, text))
    }

    /// The text of every `agent_message_chunk` so far, joined.
    pub fn agent_text(&self) -> String {
        self.session_updates()
            .iter()
            .filter(|update| update["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|update| update["content"]["text"].as_str())
            .collect()
    }
}
