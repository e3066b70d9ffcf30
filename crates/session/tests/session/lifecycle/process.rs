//! One "Warden process": the real agent on a tokio runtime of its own, spoken to over an
//! in-memory pipe by a client that writes and reads the raw protocol lines (so that it
//! can send what a typed client cannot: an error response, a malformed result). Killing
//! it shuts the runtime down, so that no task of it runs again, as after `kill -9`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::mpsc;
use warden_acp_transport::{ServeOptions, serve};
use warden_permissions::Locations;
use warden_session::{AgentConfig, WardenAgent};

/// How long the agent may take to reach the state a step waits for. Far above what any
/// step needs (a step is milliseconds, a timeout one second); past it the sequence fails
/// as "did not settle".
pub const PATIENCE: Duration = Duration::from_secs(20);

/// The folders one sequence runs in: the state folder (`WARDEN_HOME`) every Warden of
/// the sequence shares, and the project.
pub struct Folders {
    pub home: PathBuf,
    pub project: PathBuf,
    managed: PathBuf,
    _dir: tempfile::TempDir,
}

impl Folders {
    /// Fresh folders, with a user policy that times out High questions after one second
    /// and never times out the others (so that only the calls meant to time out do).
    pub fn new() -> Folders {
        // Not the default `.tmp…` name: a folder whose name starts with a dot is a
        // hidden one, which the engine treats as sensitive.
        let dir = tempfile::Builder::new()
            .prefix("warden-lifecycle-")
            .tempdir()
            .expect("a temporary folder");
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).expect("WARDEN_HOME");
        std::fs::create_dir_all(&project).expect("the project");
        std::fs::write(
            home.join("policy.toml"),
            "approval_timeout_secs = 0\n\n[approval_timeout_secs_by_risk]\nhigh = 1\n",
        )
        .expect("the user policy");
        // In a folder of its own, like /etc/warden/: Warden protects the managed
        // policy's folder, so it must not be an ancestor of the project.
        let managed = dir.path().join("managed").join("policy.toml");
        Folders {
            home,
            project,
            managed,
            _dir: dir,
        }
    }

    fn locations(&self) -> Locations {
        let (home, managed) = (self.home.clone(), self.managed.clone());
        Locations::from_vars(move |name| match name {
            "WARDEN_HOME" => Some(home.clone().into_os_string()),
            "WARDEN_MANAGED_POLICY" => Some(managed.clone().into_os_string()),
            _ => None,
        })
    }

    pub fn audit_log(&self) -> PathBuf {
        self.home.join("audit.jsonl")
    }

    pub fn sessions(&self) -> PathBuf {
        self.home.join("sessions")
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.project.join(name)
    }
}

/// A message the client received, in order, with whether it came before the answer to
/// a `session/load` (the replay) or after.
#[derive(Debug, Clone)]
pub struct Received {
    pub message: Value,
    pub replay: bool,
}

/// A running Warden and the client connected to it.
pub struct Warden {
    runtime: Option<tokio::runtime::Runtime>,
    agent: Option<Arc<WardenAgent>>,
    writer: WriteHalf<DuplexStream>,
    incoming: mpsc::UnboundedReceiver<Value>,
    next_id: u64,
    /// Everything received so far.
    pub log: Vec<Received>,
    /// Answers to the client's requests, by id.
    responses: HashMap<u64, Value>,
    /// While a `session/load` waits for its answer, what arrives is its replay.
    loading: Option<u64>,
}

impl Warden {
    /// Starts a Warden on the folders and initializes the connection.
    pub fn start(folders: &Folders) -> Warden {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let agent = Arc::new(WardenAgent::new(AgentConfig {
            locations: folders.locations(),
            model_spec: Some("scripted".to_owned()),
            env: Arc::new(|_| None),
            tool_limits: warden_tools::Limits::default(),
            max_model_requests: 50,
            // No helper in a test process: commands are unconfined, so every one asks.
            sandbox_helper: None,
        }));
        let (writer, incoming) = runtime.block_on(async {
            let (client_end, agent_end) = tokio::io::duplex(1024 * 1024);
            let (agent_in, agent_out) = tokio::io::split(agent_end);
            tokio::spawn(serve(
                agent.clone(),
                agent_in,
                agent_out,
                ServeOptions::default(),
            ));
            let (client_in, writer) = tokio::io::split(client_end);
            let (tx, incoming) = mpsc::unbounded_channel();
            tokio::spawn(async move {
                let mut lines = BufReader::new(client_in).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let message = serde_json::from_str(&line)
                        .unwrap_or_else(|e| json!({"unparsable": line, "error": e.to_string()}));
                    if tx.send(message).is_err() {
                        break;
                    }
                }
            });
            (writer, incoming)
        });
        let mut warden = Warden {
            runtime: Some(runtime),
            agent: Some(agent),
            writer,
            incoming,
            next_id: 0,
            log: Vec::new(),
            responses: HashMap::new(),
            loading: None,
        };
        let init = warden.request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {
                "fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false}}),
        );
        let answer = warden.wait_response(init, |_| {});
        assert!(answer.get("result").is_some(), "initialize: {answer}");
        warden
    }

    /// Writes one protocol line.
    pub fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        let runtime = self.runtime.as_ref().expect("a running Warden");
        runtime
            .block_on(self.writer.write_all(line.as_bytes()))
            .expect("writing to Warden");
    }

    /// Sends a request and returns its id (the answer is collected by [`Warden::pump`]).
    pub fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        if method == "session/load" {
            self.loading = Some(id);
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn response(&self, id: u64) -> Option<&Value> {
        self.responses.get(&id)
    }

    /// The next message already received, without letting the agent run.
    pub fn try_next(&mut self) -> Option<Received> {
        let message = self.incoming.try_recv().ok()?;
        Some(self.received(message))
    }

    /// The next message, letting the agent run meanwhile; `None` when nothing came
    /// before `deadline`.
    pub fn next(&mut self, deadline: Instant) -> Option<Received> {
        let left = deadline.saturating_duration_since(Instant::now());
        let runtime = self.runtime.as_ref().expect("a running Warden");
        let incoming = &mut self.incoming;
        let message = runtime
            .block_on(async { tokio::time::timeout(left, incoming.recv()).await })
            .ok()
            .flatten()?;
        Some(self.received(message))
    }

    fn received(&mut self, message: Value) -> Received {
        let replay = self.loading.is_some();
        if message.get("method").is_none()
            && let Some(id) = message.get("id").and_then(Value::as_u64)
        {
            if self.loading == Some(id) {
                self.loading = None;
            }
            self.responses.insert(id, message.clone());
        }
        let received = Received { message, replay };
        self.log.push(received.clone());
        received
    }

    /// Waits for the answer to a request of the client's, handing every message to
    /// `seen` meanwhile.
    pub fn wait_response(&mut self, id: u64, mut seen: impl FnMut(&Received)) -> Value {
        let deadline = Instant::now() + PATIENCE;
        while self.response(id).is_none() {
            let received = self
                .next(deadline)
                .unwrap_or_else(|| panic!("no answer to request {id} within {PATIENCE:?}"));
            seen(&received);
        }
        self.responses[&id].clone()
    }

    /// Lets every task that is ready run, so that what the agent does right after
    /// what the client saw (its audit notes are recorded after a yield) is done.
    pub fn idle(&mut self) {
        let runtime = self.runtime.as_ref().expect("a running Warden");
        runtime.block_on(async {
            for _ in 0..64 {
                tokio::task::yield_now().await;
            }
        });
    }

    /// `kill -9`: the runtime is shut down, so that no task of this Warden runs again
    /// (what its blocking pool had started finishes, as a system call would), then the
    /// audit log's writer thread is flushed and the agent dropped, which closes its
    /// files and so lets go of its sessions' locks.
    pub fn kill(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(10));
        }
        if let Some(agent) = self.agent.take() {
            agent.flush();
        }
    }
}

impl Drop for Warden {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(10));
        }
    }
}

/// Lines of a file in the project, or none.
pub fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}
