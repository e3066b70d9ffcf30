//! Opening a session, new or restored: its engine, sandbox, gate, model and journal,
//! and the MCP servers the client passed for it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use warden_acp_transport::schema::{McpServer, NewSessionRequest, NewSessionResponse, SessionId};
use warden_acp_transport::{ClientHandle, Error};
use warden_model::{Conversation, code_span};
use warden_permissions::{Context, Engine, Mode, SessionGrants};

use crate::checkpoint::Checkpoints;
use crate::config_options::model_option;
use crate::engine_gate::{EngineGate, ModeCell};
use crate::modes::mode_state;
use crate::session::{Session, lock};
use warden_i18n::Args;
use warden_journal::Header;
use warden_turn::Words;
use warden_turn::{Notice, Severity};

use super::{WardenAgent, invalid_params, refuse_system_prompt};

/// What a session is opened with, new or restored from its journal.
pub(super) struct SessionSpec<'a> {
    pub(super) id: SessionId,
    pub(super) cwd: PathBuf,
    pub(super) additional_directories: &'a [PathBuf],
    /// Notices the session's start tells (more are added as it opens).
    pub(super) startup: Vec<Notice>,
    /// A restored session's stored mode.
    pub(super) mode: Option<Mode>,
    /// The model a restored session used.
    pub(super) stored_model: Option<String>,
    pub(super) conversation: Conversation,
    /// The calls a restored session left waiting, for its first turn.
    pub(super) resumed: Vec<warden_turn::Resumed>,
    pub(super) mcp: crate::mcp::Connected,
}

/// What the session's start tells about the policy files and the grants file that
/// could not be used.
fn policy_notices(engine: &Engine, words: Words) -> Vec<Notice> {
    let mut notices = Vec::new();
    for err in &engine.policy().errors {
        let args = Args::new()
            .with("file", err.file.to_string())
            .with("error", code_span(&warden_model::one_line(&err.error)));
        notices.push(Notice::new(
            Severity::Warning,
            words.plain("agent-notice-policy-unusable"),
            Some(words.text("agent-notice-policy-unusable-detail", &args)),
        ));
    }
    if let Some(err) = engine.grants_error() {
        notices.push(Notice::new(
            Severity::Warning,
            words.plain("agent-notice-grants-unreadable"),
            Some(format!("{}: {}.", err.file, err.error)),
        ));
    }
    notices
}

impl WardenAgent {
    /// Builds a session (new or restored) and registers it: its engine, context, gate,
    /// model and journal (`checkpoints`, given the session's mode, model and folder).
    /// Returns its mode and its model's id.
    pub(super) fn open_session(
        &self,
        spec: SessionSpec<'_>,
        checkpoints: impl FnOnce(Mode, &str, &Path) -> Option<Checkpoints>,
    ) -> (Mode, String) {
        let SessionSpec {
            id,
            cwd,
            additional_directories,
            mut startup,
            mode,
            stored_model,
            conversation,
            resumed,
            mcp,
        } = spec;
        let engine = self.engine(&cwd);
        let words = Words::new(self.services.language());
        startup.extend(policy_notices(&engine, words));
        // A new session starts in the policy's mode for this client; a restored one keeps
        // its stored mode, unless the client's `[[client]]` defaults name a stricter one
        // (a CI client must not inherit an interactive session's looser mode).
        let mode = match (mode, engine.policy().client_mode) {
            (None, _) => engine.settings().mode,
            (Some(stored), None) => stored,
            (Some(stored), Some(client)) => {
                warden_permissions::policy::stricter_mode(stored, client)
            }
        };
        let home = (self.config.env)("HOME").map(PathBuf::from);
        let sandbox = crate::sandbox::SessionSandbox::new(
            self.config.sandbox_helper.clone(),
            &engine.settings().sandbox,
            self.services.sandbox_support(),
        );
        startup.extend(sandbox.notice(words));
        let context = Context::for_session(
            &cwd,
            home.as_deref(),
            additional_directories,
            &self.config.locations,
        )
        .with_sandbox_missing(sandbox.missing());
        let home = context.home.clone();
        startup.extend(mcp.notices.iter().cloned());
        let mode_cell = Arc::new(ModeCell::new(mode));
        let (_, client_name) = self.client_info();
        let gate = Arc::new(
            EngineGate::new(
                engine.clone(),
                context,
                Arc::new(SessionGrants::new(id.0.to_string())),
                mode_cell.clone(),
                client_name,
                mcp.toolbox(),
            )
            .with_trusted_servers(mcp.trusted.clone())
            .with_sandbox(sandbox)
            .with_language(self.services.language()),
        );
        // Read with the model, before any tool can run in this session.
        let _ = self.services.secrets();
        // A restored session keeps the model it used, while it is still one of those
        // offered; otherwise (and for a new session) the configured one.
        let spec = stored_model
            .filter(|stored| {
                warden_model::offered_models(self.services.model_spec())
                    .iter()
                    .any(|offered| offered.id == *stored)
            })
            .unwrap_or_else(|| self.services.model_spec().to_owned());
        let model = self.services.model(&spec).map_err(Arc::new);
        let current = model.as_ref().map(|m| m.id().to_owned()).unwrap_or(spec);
        let checkpoints = checkpoints(mode, &current, &cwd);
        let session = Arc::new(Session {
            id: id.clone(),
            cwd,
            home,
            mode: mode_cell,
            engine,
            gate,
            model: Mutex::new(model),
            conversation: Mutex::new(conversation),
            running: Mutex::new(None),
            startup: Mutex::new(startup),
            mcp: mcp.servers,
            checkpoints,
            resumed: Mutex::new(resumed),
        });
        self.sessions.insert(session);
        (mode, current)
    }

    /// Connects the MCP servers the client passed for a session. Every server starts at
    /// once; the answer waits for the slowest (within the connect timeout), so that the
    /// first prompt already has their tools.
    pub(super) async fn connect_mcp(
        &self,
        servers: &[McpServer],
        cwd: &Path,
        additional_directories: &[PathBuf],
        id: &SessionId,
        client: &ClientHandle,
    ) -> crate::mcp::Connected {
        let engine = self.engine(cwd);
        let mut roots = vec![cwd.to_path_buf()];
        roots.extend(additional_directories.iter().cloned());
        let sandbox = self.mcp_sandbox(&engine, cwd, additional_directories);
        crate::mcp::connect(
            servers,
            crate::mcp::Setup {
                cwd: cwd.to_path_buf(),
                roots,
                secrets: self.services.secrets(),
                output_bytes: self.config.tool_limits.output_bytes,
                settings: engine.settings(),
                policy: engine.policy(),
                relay: crate::to_acp::elicit::supported(&self.client_info().0).then(|| {
                    Arc::new(crate::mcp::EditorRelay {
                        client: client.clone(),
                        session: id.clone(),
                        timeout: engine
                            .settings()
                            .approval_timeout(warden_permissions::Risk::High),
                    }) as Arc<dyn warden_mcp::Relay>
                }),
                sandbox,
                words: Words::new(self.services.language()),
            },
        )
        .await
    }

    /// The confinement of the session's stdio MCP servers: a command's, with the
    /// network allowed (section 10). `None` when confinement is turned off or this
    /// system cannot apply it: the servers then start unconfined, as the session's
    /// notice says.
    pub(super) fn mcp_sandbox(
        &self,
        engine: &Engine,
        cwd: &Path,
        additional_directories: &[PathBuf],
    ) -> Option<warden_tools::Confined> {
        let settings = &engine.settings().sandbox;
        let helper = self.config.sandbox_helper.clone()?;
        let support = self.services.sandbox_support();
        if !settings.enabled || support.missing().is_some() {
            return None;
        }
        let home = (self.config.env)("HOME").map(PathBuf::from);
        let context = Context::for_session(
            cwd,
            home.as_deref(),
            additional_directories,
            &self.config.locations,
        );
        let mut confinement = warden_permissions::sandbox::default_confinement(&context, settings);
        confinement.network = true;
        Some(warden_tools::Confined {
            helper: Arc::new(helper),
            confinement,
        })
    }

    /// Starts the journal of a new session. A failure is reported and the session runs
    /// unstored.
    /// Starts a new session's journal. Its header reaches the kernel before the session
    /// is announced (a killed process does not lose it); it is synced to disk with the
    /// session's first answer, on the blocking pool (`Checkpoints::claim`).
    pub(super) fn journal(&self, header: &Header) -> Option<Checkpoints> {
        let store = self.services.store()?;
        match store.create(header) {
            Ok(journal) => Some(Checkpoints::new(store, header.id.clone(), journal)),
            Err(err) => {
                tracing::error!(%err, "cannot store the session; it will not survive a restart");
                None
            }
        }
    }

    /// `session/new`: a new session in `cwd`, with the servers the client passed.
    pub(super) async fn create(
        &self,
        request: NewSessionRequest,
        client: ClientHandle,
    ) -> Result<NewSessionResponse, Error> {
        refuse_system_prompt(request.system_prompt.as_ref())?;
        let cwd = request.cwd;
        if !cwd.is_absolute() {
            return Err(invalid_params(format!(
                "`cwd` must be an absolute path, not `{}`",
                cwd.display()
            )));
        }
        if !cwd.is_dir() {
            return Err(invalid_params(format!(
                "`cwd` `{}` is not a folder",
                cwd.display()
            )));
        }
        let startup = Vec::new();
        let id = self.new_session_id();
        let mcp = self
            .connect_mcp(
                &request.mcp_servers,
                &cwd,
                &request.additional_directories,
                &id,
                &client,
            )
            .await;
        let spec = SessionSpec {
            id: id.clone(),
            cwd,
            additional_directories: &request.additional_directories,
            startup,
            mode: None,
            stored_model: None,
            conversation: Conversation::new(),
            resumed: Vec::new(),
            mcp,
        };
        let (mode, current) = self.open_session(spec, |mode, model, cwd| {
            self.journal(&Header {
                id: id.0.to_string(),
                cwd: cwd.to_path_buf(),
                created_ms: warden_journal::now_ms(),
                model: model.to_owned(),
                mode: mode.id().to_owned(),
                title: None,
            })
        });
        Ok(NewSessionResponse::new(id)
            .modes(mode_state(mode))
            .config_options(vec![model_option(self.services.model_spec(), &current)]))
    }

    /// Switches a session to one of the offered models, and writes the choice down.
    /// Returns the model's id.
    pub(super) fn switch_model(&self, session: &Session, value: &str) -> Result<String, Error> {
        let offered = warden_model::offered_models(self.services.model_spec());
        if !offered.iter().any(|m| m.id == value) {
            let ids: Vec<_> = offered.iter().map(|m| m.id.as_str()).collect();
            return Err(invalid_params(format!(
                "unknown model `{}`; the models are: {}",
                value,
                ids.join(", ")
            )));
        }
        let model = self
            .services
            .model(value)
            .map_err(|e| invalid_params(e.to_string()))?;
        let current = model.id().to_owned();
        *lock(&session.model) = Ok(model);
        if let Some(c) = &session.checkpoints {
            c.write(&warden_journal::Record::Model {
                model: current.clone(),
            });
        }
        Ok(current)
    }
}
