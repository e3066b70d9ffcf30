//! Warden's agent: the ACP methods, the sessions, and the turns they run.

mod handler;
mod open;
mod own_commands;
mod reopen;
mod turns;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use warden_acp_transport::Error;
use warden_acp_transport::schema::{ClientCapabilities, SessionId, SystemPrompt};
use warden_model::Model;
use warden_permissions::{Engine, Locations, Mode};
use warden_tools::Secrets;

use crate::audit::AuditLogSink;
use crate::registry::Registry;
use crate::session::{Session, lock};
use warden_i18n::Language;
use warden_journal::SessionStore;

/// Reads one environment variable (injected, so tests need not touch the process's).
pub type EnvReader = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

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
    /// Warden's own binary, whose hidden `sandbox-exec` confines commands; `None` (an
    /// agent in a test process) leaves commands unconfined, so every one is asked.
    pub sandbox_helper: Option<PathBuf>,
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
    /// The engines by project and client name: a client's `client` rules and
    /// `[[client]]` defaults are part of its engine.
    engines: Mutex<HashMap<(PathBuf, String), Arc<Engine>>>,
    /// The client's `clientInfo.name` as policies match it (`unknown` when it sent none).
    policy_client: Mutex<String>,
    /// Models by spec, built once: an OpenAI-compatible model holds the HTTP client, whose
    /// connection pool (and TLS sessions) every session then shares.
    models: Mutex<HashMap<String, Arc<dyn Model>>>,
    audit: OnceLock<Option<Arc<AuditLogSink>>>,
    /// The user's `config.toml`, read once when the first session starts; `None` when
    /// it could not be read (reported then).
    user_config: OnceLock<Option<crate::user_config::UserConfig>>,
    model_spec: OnceLock<String>,
    /// Warden's own secrets, kept from every tool (see [`WardenAgent::secrets`]).
    secrets: OnceLock<Arc<Secrets>>,
    shutdown: CancellationToken,
    /// What this system supports for confining commands, read when the first session
    /// starts.
    sandbox_support: OnceLock<warden_sandbox::Support>,
    turns: TaskTracker,
    counter: AtomicU64,
    /// The sessions folder, opened when the first session starts; `None` when it
    /// cannot be used (reported then): sessions then live in memory only.
    store: OnceLock<Option<SessionStore>>,
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
        WardenAgent {
            config,
            client: Mutex::new(None),
            sessions: Registry::default(),
            engines: Mutex::new(HashMap::new()),
            policy_client: Mutex::new(warden_permissions::UNKNOWN_CLIENT.to_owned()),
            models: Mutex::new(HashMap::new()),
            audit: OnceLock::new(),
            user_config: OnceLock::new(),
            model_spec: OnceLock::new(),
            secrets: OnceLock::new(),
            shutdown: CancellationToken::new(),
            turns: TaskTracker::new(),
            counter: AtomicU64::new(0),
            store: OnceLock::new(),
            pruned: std::sync::atomic::AtomicBool::new(false),
            sandbox_support: OnceLock::new(),
        }
    }

    fn session(&self, id: &SessionId) -> Result<Arc<Session>, Error> {
        self.sessions.get(id)
    }

    /// The engine of a project for the connected client, loaded once per process: policy
    /// files are read when the first session in that project starts, never before
    /// `initialize` is answered. The client's `[[client]]` defaults choose the mode and
    /// approval timeout of its new, loaded and resumed sessions.
    fn engine(&self, root: &Path) -> Arc<Engine> {
        let client = lock(&self.policy_client).clone();
        lock(&self.engines)
            .entry((root.to_path_buf(), client.clone()))
            .or_insert_with(|| {
                Arc::new(Engine::load_for_client(
                    &self.config.locations,
                    root,
                    &client,
                ))
            })
            .clone()
    }

    /// The sessions folder (see the field's docs).
    fn store(&self) -> Option<SessionStore> {
        self.store
            .get_or_init(|| match SessionStore::open(self.config.locations.sessions_dir()) {
                Ok(store) => Some(store),
                Err(err) => {
                    tracing::error!(%err, "cannot use the sessions folder; sessions will not be stored");
                    None
                }
            })
            .clone()
    }

    fn audit(&self) -> Option<Arc<AuditLogSink>> {
        self.audit
            .get_or_init(|| {
                // The telemetry mirror, when an endpoint is configured (docs/telemetry.md).
                let endpoint = self
                    .user_config()
                    .and_then(|config| config.telemetry.otlp_endpoint.clone());
                let env = |name: &str| (self.config.env)(name);
                let path = self.config.locations.audit_log();
                match warden_telemetry::open_audit_log(&path, endpoint.as_deref(), &env) {
                    Ok(log) => Some(Arc::new(AuditLogSink::new(log))),
                    Err(err) => {
                        tracing::error!(%err, "cannot open the audit log; decisions will not be recorded");
                        None
                    }
                }
            })
            .clone()
    }

    /// The model for `spec`, shared by every session that uses it. A spec that fails is
    /// not kept, so the error is reported again by the next session.
    fn model(&self, spec: &str) -> Result<Arc<dyn Model>, warden_model::ModelError> {
        let mut models = lock(&self.models);
        if let Some(model) = models.get(spec) {
            return Ok(model.clone());
        }
        let model = warden_model::from_spec(spec, &|name| (self.config.env)(name))?;
        models.insert(spec.to_owned(), model.clone());
        Ok(model)
    }

    /// The user's `config.toml`, read once; `None` when it cannot be read.
    fn user_config(&self) -> Option<&crate::user_config::UserConfig> {
        self.user_config
            .get_or_init(|| {
                let path = self.config.locations.user_config();
                match crate::user_config::read(&path) {
                    Ok(config) => Some(config),
                    Err(err) => {
                        tracing::error!(%err, "ignoring the user config");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// The configured model spec (see [`AgentConfig::model_spec`]).
    fn model_spec(&self) -> &str {
        self.model_spec.get_or_init(|| {
            if let Some(spec) = &self.config.model_spec {
                return spec.clone();
            }
            match self.user_config() {
                Some(config) => config
                    .model
                    .clone()
                    .unwrap_or_else(|| "scripted".to_owned()),
                None => {
                    tracing::error!("the user config cannot be read; using the scripted model");
                    "scripted".to_owned()
                }
            }
        })
    }

    /// Warden's own secrets: the built-in names and the user's `secret_env`, with
    /// their values from Warden's environment. Read once, from the user's own
    /// config only. When that file cannot be read the list is unknown, so every
    /// variable of Warden's environment whose name looks like a secret's counts as one
    /// (fail closed: a broken file must not hand the listed secrets to the tools).
    /// The language of what a person reads: the user's `language` setting, else the
    /// locale of Warden's environment, else English.
    fn language(&self) -> Language {
        let configured = self.user_config().and_then(|c| c.language.as_deref());
        Language::resolve(configured, |name| (self.config.env)(name))
    }

    fn secrets(&self) -> Arc<Secrets> {
        self.secrets
            .get_or_init(|| {
                let listed: Vec<String> = match self.user_config() {
                    Some(config) => config.secret_env.clone(),
                    None => {
                        let names: Vec<String> = std::env::vars_os()
                            .filter_map(|(name, _)| name.into_string().ok())
                            .filter(|name| warden_redact::is_secret_variable(name))
                            .collect();
                        tracing::error!(
                            ?names,
                            "the user config cannot be read, so its secret_env is unknown; \
                             every variable whose name looks like a secret is kept from the tools"
                        );
                        names
                    }
                };
                let secrets = Secrets::new(&listed, |name| (self.config.env)(name));
                tracing::debug!(names = ?secrets.names(), redacted = ?secrets.values(), "secrets kept from the tools");
                Arc::new(secrets)
            })
            .clone()
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
        if let Some(Some(sink)) = self.audit.get() {
            sink.flush();
        }
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

    use super::{AgentConfig, WardenAgent};

    fn agent() -> WardenAgent {
        let dir = std::env::temp_dir().join("warden-agent-model-cache");
        WardenAgent::new(AgentConfig {
            locations: warden_permissions::Locations::from_vars(|name| match name {
                "WARDEN_HOME" => Some(dir.clone().into_os_string()),
                _ => None,
            }),
            model_spec: None,
            env: Arc::new(|name: &str| {
                (name == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:9/v1".to_owned())
            }),
            tool_limits: warden_tools::Limits::default(),
            max_model_requests: 10,
            sandbox_helper: None,
        })
    }

    #[test]
    fn sessions_share_one_model_and_its_http_client() {
        let agent = agent();
        let first = agent.model("openai:m").expect("a model");
        let again = agent.model("openai:m").expect("the same model");
        assert!(Arc::ptr_eq(&first, &again));
        let other = agent.model("scripted").expect("the scripted model");
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(agent.model("nonsense:x").is_err());
        assert!(
            agent.model("nonsense:x").is_err(),
            "a failure is reported every time"
        );
    }
}
