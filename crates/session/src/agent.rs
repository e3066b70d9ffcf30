//! Warden's agent: the ACP methods, the sessions, and the turns they run.

mod handler;
mod open;
mod own_commands;
mod reopen;
mod turns;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use warden_acp_transport::Error;
use warden_acp_transport::schema::{ClientCapabilities, SessionId, SystemPrompt};
use warden_permissions::{Engine, Locations, Mode};

use crate::registry::Registry;
use crate::services::{EnvReader, Services};
use crate::session::{Session, lock};

/// How the agent is set up.
pub struct AgentConfig {
    pub locations: Locations,
    /// The configured model: `scripted` or `openai:<model>`, from `WARDEN_MODEL`;
    /// `None` reads `model` from the user's `config.toml` when the first session starts
    /// (never before `initialize` is answered), and falls back to `scripted`.
    pub model_spec: Option<String>,
    /// The environment the model backends read (`OPENAI_API_KEY`, ...).
    pub env: EnvReader,
    pub tool_limits: warden_tools::Limits,
    /// Model requests per turn.
    pub max_model_requests: u32,
    /// The programs that confine commands (Warden's own binary, and the small
    /// `warden-sandbox` next to it when installed); `None` (an agent in a test process)
    /// leaves commands unconfined, so every one is asked.
    pub sandbox_helper: Option<warden_sandbox::Helper>,
}

impl std::fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentConfig")
            .field("locations", &self.locations)
            .field("model_spec", &self.model_spec)
            .finish_non_exhaustive()
    }
}

/// Warden's [`AgentHandler`].
pub struct WardenAgent {
    config: AgentConfig,
    client: Mutex<Option<(ClientCapabilities, String)>>,
    sessions: Registry,
    /// What every session shares, each opened at its first use.
    services: Services,
    /// The client's `clientInfo.name` as policies match it (`unknown` when it sent none).
    policy_client: Mutex<String>,
    shutdown: CancellationToken,
    turns: TaskTracker,
    counter: AtomicU64,
    /// Whether old sessions were pruned (once, after the first `initialize`).
    pruned: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for WardenAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WardenAgent")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn invalid_params(message: impl Into<String>) -> Error {
    Error::invalid_params().data(json!(message.into()))
}

/// Warden does not advertise `sessionCapabilities.systemPrompt`: its instructions to the
/// model are its own, and the protocol asks an agent that cannot apply a client's system
/// prompt to refuse the session rather than drop the prompt silently.
fn refuse_system_prompt(system_prompt: Option<&SystemPrompt>) -> Result<(), Error> {
    match system_prompt {
        None => Ok(()),
        Some(_) => Err(invalid_params(
            "`systemPrompt` is not supported: Warden does not advertise `sessionCapabilities.systemPrompt`",
        )),
    }
}

impl WardenAgent {
    pub fn new(config: AgentConfig) -> WardenAgent {
        let services = Services::new(
            config.locations.clone(),
            config.model_spec.clone(),
            config.env.clone(),
        );
        WardenAgent {
            config,
            client: Mutex::new(None),
            sessions: Registry::default(),
            services,
            policy_client: Mutex::new(warden_permissions::UNKNOWN_CLIENT.to_owned()),
            shutdown: CancellationToken::new(),
            turns: TaskTracker::new(),
            counter: AtomicU64::new(0),
            pruned: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn session(&self, id: &SessionId) -> Result<Arc<Session>, Error> {
        self.sessions.get(id)
    }

    /// The engine of a project for the connected client (see [`Services::engine`]).
    fn engine(&self, root: &Path) -> Arc<Engine> {
        let client = lock(&self.policy_client).clone();
        self.services.engine(root, &client)
    }

    fn new_session_id(&self) -> SessionId {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        SessionId::new(format!("sess_{:x}_{:x}_{n}", std::process::id(), nanos))
    }

    fn client_info(&self) -> (ClientCapabilities, String) {
        lock(&self.client)
            .clone()
            .unwrap_or_else(|| (ClientCapabilities::default(), "unknown client".to_owned()))
    }

    /// Flushes the audit log; the binary calls it before exiting.
    pub fn flush(&self) {
        self.services.flush();
    }
}

/// A mode id that names no mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{id}`; the modes are: {known}")]
struct UnknownMode {
    id: String,
    known: String,
}

fn parse_mode(id: &str) -> Result<Mode, UnknownMode> {
    Mode::parse(id).ok_or_else(|| {
        let known: Vec<_> = Mode::ALL.iter().map(|m| m.id()).collect();
        UnknownMode {
            id: id.to_owned(),
            known: known.join(", "),
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::{AgentConfig, WardenAgent};

    #[test]
    fn constructing_the_agent_opens_nothing() {
        let home = tempfile::tempdir().expect("a temp folder");
        let state = home.path().join("state");
        let config = home.path().join("config");
        let (state_var, config_var) = (state.clone(), config.clone());
        let reads = Arc::new(AtomicUsize::new(0));
        let counted = reads.clone();
        let agent = WardenAgent::new(AgentConfig {
            locations: warden_permissions::Locations::from_vars(|name| match name {
                "HOME" => Some(home.path().as_os_str().to_owned()),
                "XDG_STATE_HOME" => Some(state_var.clone().into_os_string()),
                "XDG_CONFIG_HOME" => Some(config_var.clone().into_os_string()),
                _ => None,
            }),
            model_spec: None,
            env: Arc::new(move |_: &str| {
                counted.fetch_add(1, Ordering::Relaxed);
                None
            }),
            tool_limits: warden_tools::Limits::default(),
            max_model_requests: 10,
            sandbox_helper: None,
        });
        agent.flush();
        let created: Vec<_> = std::fs::read_dir(home.path())
            .expect("the home folder")
            .map(|entry| entry.expect("an entry").file_name())
            .collect();
        assert!(
            created.is_empty(),
            "no audit log, sessions folder or config folder: {created:?}"
        );
        assert_eq!(reads.load(Ordering::Relaxed), 0, "no variable is read");
        drop(agent);
        assert!(!state.exists() && !config.exists());
    }
}
