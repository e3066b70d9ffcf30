//! A small ACP client over the Warden process: typed and raw sends, waiting for a
//! response while recording everything else, scripted answers to the agent's own
//! requests, the transcript, and validation of every line the agent writes.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::process::ExitStatus;

use serde_json::{Value, json};

use super::envelope::{self, Envelope};
use super::normalize::Normalizer;
use super::process::{Process, RecvError, Spawn, WAIT_LIMIT};
use super::schema::{Kind, validator};

/// Which way a transcript line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Written by the test to the agent's stdin.
    ToAgent,
    /// Written by the agent to its stdout.
    FromAgent,
}

/// One line of the conversation.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Which way it went.
    pub direction: Direction,
    /// The line as written (lossily decoded).
    pub text: String,
    /// The parsed message, when the line is JSON.
    pub message: Option<Value>,
    /// Whether this message's `id` is one of the agent's own request ids (an agent
    /// request, or the client's answer to one).
    pub agent_request_id: bool,
}

/// How the scripted handler answers a request from the agent.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Answer with this result.
    Result(Value),
    /// Answer with a JSON-RPC error.
    Error {
        /// The error code.
        code: i64,
        /// The message.
        message: String,
    },
    /// Do not answer now: the request stays open and is kept for the test to inspect.
    Hold,
}

type Handler = Box<dyn FnMut(&Value) -> Answer>;

/// The test's ACP client connected to one Warden process.
pub struct Client {
    process: Process,
    transcript: Vec<Entry>,
    next_id: i64,
    /// Requests the test sent and that have no response yet: id (as JSON text) → method.
    pending: HashMap<String, String>,
    /// Requests the agent sent and that the test has not answered: id (JSON text) → method.
    open_agent_requests: HashMap<String, String>,
    /// Messages read while waiting for something else, oldest first.
    unclaimed: VecDeque<Value>,
    handler: Option<Handler>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("process", &self.process)
            .field("entries", &self.transcript.len())
            .finish_non_exhaustive()
    }
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

/// Keeps failure output readable when a line is huge (the size-limit tests).
fn shorten(text: &str) -> String {
    const MAX: usize = 1500;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

impl Client {
    /// Starts Warden with the isolated defaults of [`Process::spawn`].
    pub fn spawn() -> Client {
        Client::spawn_with(&Spawn::default())
    }

    /// Starts Warden with extra arguments or environment.
    pub fn spawn_with(options: &Spawn) -> Client {
        Client {
            process: Process::spawn(options),
            transcript: Vec::new(),
            next_id: 0,
            pending: HashMap::new(),
            open_agent_requests: HashMap::new(),
            unclaimed: VecDeque::new(),
            handler: None,
        }
    }

    /// The underlying process (pid, paths, stderr, signals).
    pub fn process(&self) -> &Process {
        &self.process
    }

    /// The underlying process, mutably (closing stdin, waiting for exit).
    pub fn process_mut(&mut self) -> &mut Process {
        &mut self.process
    }

    /// Sets the scripted handler for requests the agent sends to the client. Without
    /// one, every agent request is held open for the test to answer with [`Client::respond`].
    pub fn on_request(&mut self, handler: impl FnMut(&Value) -> Answer + 'static) {
        self.handler = Some(Box::new(handler));
    }

    /// Fails the test with `message`, the transcript and the agent's stderr.
    #[track_caller]
    pub fn fail(&self, message: &str) -> ! {
        let mut report = format!("{message}\n\n--- transcript (-> to agent, <- from agent) ---\n");
        for entry in &self.transcript {
            let arrow = match entry.direction {
                Direction::ToAgent => "->",
                Direction::FromAgent => "<-",
            };
            let _ = writeln!(report, "{arrow} {}", shorten(&entry.text));
        }
        let _ = write!(
            report,
            "--- stderr ---\n{}",
            shorten(&self.process.stderr())
        );
        panic!("{report}");
    }

    /// Fails the test with the transcript and stderr unless `condition` holds.
    #[track_caller]
    pub fn ensure(&self, condition: bool, message: impl std::fmt::Display) {
        if !condition {
            self.fail(&message.to_string());
        }
    }

    // ----- writing -------------------------------------------------------------------

    fn record_sent(&mut self, line: &str) {
        let message: Option<Value> = serde_json::from_str(line).ok();
        let mut agent_request_id = false;
        if let Some(message) = &message {
            let id = message.get("id");
            match (id, message.get("method").and_then(Value::as_str)) {
                (Some(id), Some(method)) => {
                    self.pending.insert(id_key(id), method.to_owned());
                }
                (Some(id), None) => {
                    agent_request_id = self.open_agent_requests.remove(&id_key(id)).is_some();
                }
                _ => {}
            }
        }
        self.transcript.push(Entry {
            direction: Direction::ToAgent,
            text: line.to_owned(),
            message,
            agent_request_id,
        });
    }

    /// Writes bytes exactly as given (several lines at once, a line without its
    /// newline, an oversized line). Each complete line is recorded in the transcript.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        for line in bytes
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
        {
            self.record_sent(&String::from_utf8_lossy(line));
        }
        if let Err(err) = self.process.write(bytes) {
            self.fail(&format!("writing to the agent's stdin failed: {err}"));
        }
    }

    /// Writes one line (a newline is added).
    pub fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// Sends a request with a fresh numeric id and returns the id.
    pub fn send(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&message.to_string());
        id
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_line(&message.to_string());
    }

    /// Answers a request the agent sent with a result.
    pub fn respond(&mut self, request: &Value, result: Value) {
        let message = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        self.send_line(&message.to_string());
    }

    /// Answers a request the agent sent with an error.
    pub fn respond_error(&mut self, request: &Value, code: i64, message: &str) {
        let message = json!({"jsonrpc": "2.0", "id": request["id"],
            "error": {"code": code, "message": message}});
        self.send_line(&message.to_string());
    }

    // ----- reading -------------------------------------------------------------------

    /// Reads, checks and records the next message; `None` when stdout is closed.
    fn read_message(&mut self, waiting_for: &str) -> Option<Value> {
        let line = match self.process.recv_line() {
            Ok(line) => line,
            Err(RecvError::Eof) => return None,
            Err(RecvError::Timeout) => self.fail(&format!(
                "nothing from the agent within {WAIT_LIMIT:?} while waiting for {waiting_for}"
            )),
        };
        let text = String::from_utf8_lossy(&line).into_owned();
        self.transcript.push(Entry {
            direction: Direction::FromAgent,
            text: text.clone(),
            message: None,
            agent_request_id: false,
        });
        let (message, envelope) = match envelope::parse(&line) {
            Ok(parsed) => parsed,
            Err(reason) => self.fail(&format!(
                "the agent wrote something that is not a JSON-RPC message on stdout: {reason}\nline: {}",
                shorten(&text)
            )),
        };
        if let Err(reason) = self.check(&envelope) {
            self.fail(&format!(
                "schema violation: {reason}\nline: {}",
                shorten(&text)
            ));
        }
        let entry = self.transcript.last_mut().expect("the entry just pushed");
        entry.agent_request_id = matches!(envelope, Envelope::Request { .. });
        entry.message = Some(message.clone());
        Some(message)
    }

    /// Validates a message against the definition for its method.
    fn check(&mut self, envelope: &Envelope) -> Result<(), String> {
        let v = validator();
        match envelope {
            Envelope::Request { id, method, params } => {
                if self
                    .open_agent_requests
                    .insert(id_key(id), method.clone())
                    .is_some()
                {
                    return Err(format!(
                        "the agent reused the id {id} of a request still open"
                    ));
                }
                v.check(Kind::Request, method, params)
            }
            Envelope::Notification { method, params } => {
                v.check(Kind::Notification, method, params)
            }
            Envelope::Result { id, result } => match self.pending.remove(&id_key(id)) {
                Some(method) => v.check(Kind::Response, &method, result),
                None => Err(format!("a result for id {id}, which has no open request")),
            },
            Envelope::Error { id, error } => {
                if !id.is_null() && self.pending.remove(&id_key(id)).is_none() {
                    return Err(format!("an error for id {id}, which has no open request"));
                }
                v.check_error(error)
            }
        }
    }

    /// Answers an agent request with the scripted handler; `true` if it was answered.
    fn handle(&mut self, message: &Value) -> bool {
        let Some(mut handler) = self.handler.take() else {
            return false;
        };
        let answer = handler(message);
        self.handler = Some(handler);
        match answer {
            Answer::Result(result) => self.respond(message, result),
            Answer::Error {
                code,
                message: text,
            } => self.respond_error(message, code, &text),
            Answer::Hold => return false,
        }
        true
    }

    /// Returns the first message (already read or still to come) for which `wanted` is
    /// true. Everything else read meanwhile is kept, in order, as unclaimed; agent
    /// requests are first offered to the scripted handler.
    #[track_caller]
    pub fn wait_for(&mut self, description: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(position) = self.unclaimed.iter().position(&wanted) {
            return self
                .unclaimed
                .remove(position)
                .expect("position is in range");
        }
        loop {
            let Some(message) = self.read_message(description) else {
                self.fail(&format!(
                    "the agent closed stdout while waiting for {description}"
                ));
            };
            if wanted(&message) {
                return message;
            }
            let is_agent_request = message.get("method").is_some() && message.get("id").is_some();
            if !(is_agent_request && self.handle(&message)) {
                self.unclaimed.push_back(message);
            }
        }
    }

    /// The response to the request with this id.
    #[track_caller]
    pub fn response(&mut self, id: &Value) -> Value {
        let description = format!("the response to request {id}");
        self.wait_for(&description, |message| {
            message.get("method").is_none() && message.get("id") == Some(id)
        })
    }

    /// Sends a request and returns its whole response message.
    #[track_caller]
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(&id)
    }

    /// Sends a request and returns its result, failing the test on an error response.
    #[track_caller]
    pub fn request_ok(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        match response.get("result") {
            Some(result) => result.clone(),
            None => self.fail(&format!("{method} failed: {response}")),
        }
    }

    /// Sends a request and returns its error object, failing the test on a result.
    #[track_caller]
    pub fn request_err(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        match response.get("error") {
            Some(error) => error.clone(),
            None => self.fail(&format!("{method} was expected to fail: {response}")),
        }
    }

    /// The next request the agent sends with this method (e.g. `session/request_permission`),
    /// whether or not a handler is set: the test answers it itself.
    #[track_caller]
    pub fn agent_request(&mut self, method: &str) -> Value {
        let description = format!("a `{method}` request from the agent");
        self.wait_for(&description, |message| {
            message.get("id").is_some()
                && message.get("method").and_then(Value::as_str) == Some(method)
        })
    }

    /// Messages read while waiting for something else and not yet claimed, in order.
    pub fn take_unclaimed(&mut self) -> Vec<Value> {
        self.unclaimed.drain(..).collect()
    }

    /// Every notification with this method the agent sent so far, in order.
    pub fn notifications(&self, method: &str) -> Vec<Value> {
        self.transcript
            .iter()
            .filter(|entry| entry.direction == Direction::FromAgent)
            .filter_map(|entry| entry.message.as_ref())
            .filter(|message| {
                message.get("id").is_none()
                    && message.get("method").and_then(Value::as_str) == Some(method)
            })
            .cloned()
            .collect()
    }

    /// Every request with this method the agent sent so far, in order.
    pub fn agent_requests(&self, method: &str) -> Vec<Value> {
        self.transcript
            .iter()
            .filter(|entry| entry.direction == Direction::FromAgent)
            .filter_map(|entry| entry.message.as_ref())
            .filter(|message| {
                message.get("id").is_some()
                    && message.get("method").and_then(Value::as_str) == Some(method)
            })
            .cloned()
            .collect()
    }

    /// The `update` objects of every `session/update` so far, in order.
    pub fn session_updates(&self) -> Vec<Value> {
        self.notifications("session/update")
            .into_iter()
            .map(|message| message["params"]["update"].clone())
            .collect()
    }

    /// The whole conversation so far.
    pub fn transcript(&self) -> &[Entry] {
        &self.transcript
    }

    /// Every message the agent sent after `mark` (see [`Client::mark`]), in order.
    pub fn received_since(&self, mark: usize) -> Vec<Value> {
        self.transcript[mark.min(self.transcript.len())..]
            .iter()
            .filter(|entry| entry.direction == Direction::FromAgent)
            .filter_map(|entry| entry.message.clone())
            .collect()
    }

    /// A position in the transcript, for [`Client::snapshot_since`] and
    /// [`Client::received_since`].
    pub fn mark(&self) -> usize {
        self.transcript.len()
    }

    /// The transcript from `mark` on, one normalised message per line (`->` to the
    /// agent, `<-` from it), for `expect![[...]]` snapshots. Session, tool call and
    /// terminal ids and the agent's request ids become numbered placeholders; the test's
    /// temporary folder becomes `<dir>` and the crate version `<version>`.
    pub fn snapshot_since(&self, mark: usize) -> String {
        let dir = self.process.dir().display().to_string();
        let mut normalizer = Normalizer::new(vec![
            (dir, "<dir>".to_owned()),
            (
                format!("\"{}\"", env!("CARGO_PKG_VERSION")),
                "\"<version>\"".to_owned(),
            ),
        ]);
        let mut out = String::new();
        for (index, entry) in self.transcript.iter().enumerate() {
            // Earlier entries still go through the normaliser so placeholders keep the
            // numbers they would have in a whole-transcript snapshot.
            let line = match &entry.message {
                Some(message) => normalizer
                    .message(message, entry.agent_request_id)
                    .to_string(),
                None => shorten(&entry.text),
            };
            if index < mark {
                continue;
            }
            let arrow = match entry.direction {
                Direction::ToAgent => "->",
                Direction::FromAgent => "<-",
            };
            let _ = writeln!(out, "{arrow} {line}");
        }
        out
    }

    // ----- ending ----------------------------------------------------------------------

    /// Closes stdin, waits for the process to exit, reads (and checks) everything it
    /// still wrote, and returns its exit status. Messages read here become unclaimed.
    #[track_caller]
    pub fn finish(&mut self) -> ExitStatus {
        self.process.close_stdin();
        self.wait_exit()
    }

    /// Waits for the process to exit (after EOF or a signal), then drains its stdout.
    #[track_caller]
    pub fn wait_exit(&mut self) -> ExitStatus {
        let Some(status) = self.process.wait_exit() else {
            self.fail(&format!("warden did not exit within {WAIT_LIMIT:?}"));
        };
        self.drain();
        status
    }

    /// Reads every remaining stdout line until EOF, checking each.
    fn drain(&mut self) {
        while let Some(message) = self.read_message("the end of stdout") {
            self.unclaimed.push_back(message);
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        // Whatever the test did not read is still checked: nothing but valid JSON-RPC
        // messages may ever appear on stdout.
        self.process.kill();
        self.drain();
    }
}
