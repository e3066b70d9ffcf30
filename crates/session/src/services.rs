//! The services every session of an agent shares: the user's `config.toml`, the
//! configured model spec, Warden's own secrets, the audit log, the sessions folder, what
//! the system supports for confinement, and the engines and models built so far.
//!
//! Each is opened when something first needs it, and at most once: constructing the
//! agent and answering `initialize` open nothing (no file read, no folder created, no
//! thread started), so start-up stays quick and small. A service that cannot be opened is
//! reported once and then stays unopened: the sessions go on without it, as the field's
//! docs say, and never with less protection than they would have with it.

mod secrets;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use warden_i18n::Language;
use warden_journal::SessionStore;
use warden_model::Model;
use warden_permissions::{Engine, Locations};
use warden_tools::Secrets;

use crate::audit::AuditLogSink;
use crate::session::lock;
use crate::user_config::UserConfig;

/// Reads one environment variable (injected, so tests need not touch the process's).
pub type EnvReader = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The agent's shared services, each opened at its first use.
pub struct Services {
    locations: Locations,
    /// The model spec the environment names (`WARDEN_MODEL`), if any.
    configured_model: Option<String>,
    env: EnvReader,
    /// The engines by project and client name: a client's `client` rules and
    /// `[[client]]` defaults are part of its engine.
    engines: Mutex<HashMap<(PathBuf, String), Arc<Engine>>>,
    /// Models by spec, built once: an OpenAI-compatible model holds the HTTP client, whose
    /// connection pool (and TLS sessions) every session then shares.
    models: Mutex<HashMap<String, Arc<dyn Model>>>,
    /// The audit log (and its telemetry mirror); `None` when it cannot be opened
    /// (reported then): decisions then go unrecorded, never unchecked.
    audit: OnceLock<Option<Arc<AuditLogSink>>>,
    /// The user's `config.toml`, read once when the first session starts; `None` when
    /// it could not be read (reported then).
    user_config: OnceLock<Option<UserConfig>>,
    model_spec: OnceLock<String>,
    /// Warden's own secrets, kept from every tool (see [`Services::secrets`]).
    secrets: OnceLock<Arc<Secrets>>,
    /// What this system supports for confining commands, read when the first session
    /// starts.
    sandbox_support: OnceLock<warden_sandbox::Support>,
    /// The sessions folder, opened when the first session starts; `None` when it
    /// cannot be used (reported then): sessions then live in memory only.
    store: OnceLock<Option<SessionStore>>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("locations", &self.locations)
            .field("configured_model", &self.configured_model)
            .finish_non_exhaustive()
    }
}

impl Services {
    /// Services for Warden's files at `locations`; nothing is opened yet.
    pub fn new(locations: Locations, configured_model: Option<String>, env: EnvReader) -> Self {
        Services {
            locations,
            configured_model,
            env,
            engines: Mutex::new(HashMap::new()),
            models: Mutex::new(HashMap::new()),
            audit: OnceLock::new(),
            user_config: OnceLock::new(),
            model_spec: OnceLock::new(),
            secrets: OnceLock::new(),
            sandbox_support: OnceLock::new(),
            store: OnceLock::new(),
        }
    }

    /// One variable of Warden's environment.
    pub fn env(&self, name: &str) -> Option<String> {
        (self.env)(name)
    }

    /// The engine of a project for a client, loaded once per process: policy files are
    /// read when the first session in that project starts, never before `initialize` is
    /// answered. The client's `[[client]]` defaults choose the mode and approval timeout
    /// of its new, loaded and resumed sessions.
    pub fn engine(&self, root: &Path, client: &str) -> Arc<Engine> {
        lock(&self.engines)
            .entry((root.to_path_buf(), client.to_owned()))
            .or_insert_with(|| Arc::new(Engine::load_for_client(&self.locations, root, client)))
            .clone()
    }

    /// The model for `spec`, shared by every session that uses it. A spec that fails is
    /// not kept, so the error is reported again by the next session.
    pub fn model(&self, spec: &str) -> Result<Arc<dyn Model>, warden_model::ModelError> {
        let mut models = lock(&self.models);
        if let Some(model) = models.get(spec) {
            return Ok(model.clone());
        }
        let model = warden_model::from_spec(spec, &|name| self.env(name))?;
        models.insert(spec.to_owned(), model.clone());
        Ok(model)
    }

    /// The sessions folder (see the field's docs).
    pub fn store(&self) -> Option<SessionStore> {
        self.store
            .get_or_init(|| match SessionStore::open(self.locations.sessions_dir()) {
                Ok(store) => Some(store),
                Err(err) => {
                    tracing::error!(%err, "cannot use the sessions folder; sessions will not be stored");
                    None
                }
            })
            .clone()
    }

    /// The audit log (see the field's docs).
    pub fn audit(&self) -> Option<Arc<AuditLogSink>> {
        self.audit
            .get_or_init(|| {
                // The telemetry mirror, when an endpoint is configured (docs/telemetry.md).
                let endpoint = self
                    .user_config()
                    .and_then(|config| config.telemetry.otlp_endpoint.clone());
                let env = |name: &str| self.env(name);
                let path = self.locations.audit_log();
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

    /// Flushes the audit log when it was opened; the binary calls it before exiting.
    pub fn flush(&self) {
        if let Some(Some(sink)) = self.audit.get() {
            sink.flush();
        }
    }

    /// The user's `config.toml`, read once; `None` when it cannot be read.
    pub fn user_config(&self) -> Option<&UserConfig> {
        self.user_config
            .get_or_init(|| {
                let path = self.locations.user_config();
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

    /// The configured model spec: the environment's, else the user's `model` setting,
    /// else `scripted`.
    pub fn model_spec(&self) -> &str {
        self.model_spec.get_or_init(|| {
            if let Some(spec) = &self.configured_model {
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

    /// The language of what a person reads: the user's `language` setting, else the
    /// locale of Warden's environment, else English.
    pub fn language(&self) -> Language {
        let configured = self.user_config().and_then(|c| c.language.as_deref());
        Language::resolve(configured, |name| self.env(name))
    }

    /// Warden's own secrets (see `services/secrets.rs`), read once.
    pub fn secrets(&self) -> Arc<Secrets> {
        self.secrets
            .get_or_init(|| Arc::new(secrets::own_secrets(self.user_config(), self.env.as_ref())))
            .clone()
    }

    /// What this system supports for confining commands, probed once.
    pub fn sandbox_support(&self) -> &warden_sandbox::Support {
        self.sandbox_support
            .get_or_init(warden_sandbox::Support::probe)
    }
}

#[cfg(test)]
mod tests;
