//! Warden's agent: the ACP methods, the sessions, and the turns they run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use warden_acp_transport::schema::{
    AgentCapabilities, CancelNotification, ClientCapabilities, CloseSessionRequest,
    CloseSessionResponse, ContentBlock, Implementation, InitializeRequest, InitializeResponse,
    ListSessionsRequest, ListSessionsResponse, LoadSessionRequest, LoadSessionResponse, McpServer,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, ResumeSessionRequest,
    ResumeSessionResponse, SessionCapabilities, SessionCloseCapabilities, SessionConfigOptionValue,
    SessionId, SessionListCapabilities, SessionResumeCapabilities, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeRequest, SetSessionModeResponse, StopReason,
    SystemPrompt,
};
use warden_acp_transport::{
    AgentExtension, AgentHandler, AnswerSupport, ClientHandle, Error, PromptResponder, TurnEnded,
    to_meta,
};
use warden_model::{Conversation, code_span};
use warden_permissions::{Context, Engine, Locations, Mode, SessionGrants};

use crate::checkpoint::Checkpoints;
use crate::commands;
use crate::config_options::{MODEL_OPTION, model_option};
use crate::driver::{AuditSink, TurnSetup, drive};
use crate::editor::ClientEditor;
use crate::engine_gate::{EngineGate, ModeCell};
use crate::modes::mode_state;
use crate::registry::Registry;
use crate::services::{EnvReader, Services};
use crate::session::{Adoption, RunningTurn, Session, lock};
use crate::to_acp::notice;
use crate::to_acp::updates;
use warden_i18n::Args;
use warden_journal::Header;
use warden_turn::{Notice, Severity};
use warden_turn::{TurnLimits, Words};

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

    /// Builds a session (new or restored) and registers it: its engine, context, gate,
    /// model and journal. Returns its mode and its model's id.
    #[allow(clippy::too_many_arguments)]
    fn open_session(
        &self,
        id: SessionId,
        cwd: PathBuf,
        additional_directories: &[PathBuf],
        mut startup: Vec<Notice>,
        mode: Option<Mode>,
        stored_model: Option<String>,
        conversation: Conversation,
        resumed: Vec<warden_turn::Resumed>,
        mcp: crate::mcp::Connected,
        checkpoints: impl FnOnce(Mode, &str, &Path) -> Option<Checkpoints>,
    ) -> (Mode, String) {
        let engine = self.engine(&cwd);
        let words = Words::new(self.services.language());
        for err in &engine.policy().errors {
            let args = Args::new()
                .with("file", err.file.to_string())
                .with("error", code_span(&warden_model::one_line(&err.error)));
            startup.push(Notice::new(
                Severity::Warning,
                words.plain("agent-notice-policy-unusable"),
                Some(words.text("agent-notice-policy-unusable-detail", &args)),
            ));
        }
        if let Some(err) = engine.grants_error() {
            startup.push(Notice::new(
                Severity::Warning,
                words.plain("agent-notice-grants-unreadable"),
                Some(format!("{}: {}.", err.file, err.error)),
            ));
        }
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
    async fn connect_mcp(
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
    fn mcp_sandbox(
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

    /// Restores a stored session (see `restore.rs`), replaying it to `replay_to` when
    /// given. A live session is not restored twice: it is replayed as stored.
    async fn restore(
        &self,
        id: &SessionId,
        cwd: &Path,
        additional_directories: &[PathBuf],
        mcp_servers: &[McpServer],
        client: &ClientHandle,
        replay: bool,
    ) -> Result<(Mode, String), Error> {
        let replay_to = replay.then_some(client);
        let not_found = || crate::registry::not_found(id);
        let store = self.services.store().ok_or_else(not_found)?;
        // The journal is taken before it is read, so that what is read is all there
        // is: another Warden may have the session open (refused here, before anything
        // is written), or this one may have closed it a moment ago and still be ending
        // its turn (waited for, on the blocking pool). A live session keeps its own.
        let journal = if self.session(id).is_ok() {
            None
        } else {
            let (store, sid) = (store.clone(), id.0.to_string());
            match tokio::task::spawn_blocking(move || store.reopen(&sid)).await {
                Ok(Ok(journal)) => Some(journal),
                Ok(Err(
                    warden_journal::SessionStoreError::NotFound { .. }
                    | warden_journal::SessionStoreError::InvalidId { .. },
                )) => return Err(not_found()),
                Ok(Err(
                    e @ (warden_journal::SessionStoreError::Busy { .. }
                    | warden_journal::SessionStoreError::BusyHere { .. }),
                )) => {
                    return Err(Error::new(-32600, e.to_string()).data(json!({ "sessionId": id })));
                }
                Ok(Err(err)) => {
                    tracing::error!(%err, "cannot append to the stored session; it goes on unstored");
                    None
                }
                Err(err) => {
                    tracing::error!(%err, "cannot open the stored session's journal; it goes on unstored");
                    None
                }
            }
        };
        let mut loaded = match store.load(&id.0) {
            Ok(loaded) => loaded,
            Err(
                warden_journal::SessionStoreError::NotFound { .. }
                | warden_journal::SessionStoreError::InvalidId { .. },
            ) => return Err(not_found()),
            Err(e) => return Err(Error::internal_error().data(json!(e.to_string()))),
        };
        if loaded.header.cwd != cwd {
            return Err(invalid_params(format!(
                "session {} was created in `{}`, not `{}`; it is loaded with its own folder only",
                id,
                loaded.header.cwd.display(),
                cwd.display()
            )));
        }
        if let Ok(live) = self.session(id) {
            if let Some(client) = replay_to {
                crate::restore::replay(id, &loaded, client);
            }
            let current = lock(&live.model)
                .as_ref()
                .map(|m| m.id().to_owned())
                .unwrap_or_else(|_| self.services.model_spec().to_owned());
            return Ok((live.mode.get(), current));
        }
        // The questions the stored session left open are closed before the calls are
        // asked again (an answer given to one meanwhile is used instead), off the
        // protocol's thread: each close is a synced claim.
        if journal.is_some() && loaded.waiting.iter().any(|w| w.question > 0) {
            let store = store.clone();
            loaded = match tokio::task::spawn_blocking(move || {
                store.close_waiting_questions(&mut loaded).map(|()| loaded)
            })
            .await
            {
                Ok(Ok(loaded)) => loaded,
                Ok(Err(e)) => return Err(Error::internal_error().data(json!(e.to_string()))),
                Err(e) => return Err(Error::internal_error().data(json!(e.to_string()))),
            };
        }
        let answer_files = std::mem::take(&mut loaded.answer_files);
        let checkpoints = journal.map(|journal| {
            Checkpoints::reopened(store.clone(), id.0.to_string(), journal, answer_files)
        });
        let resumed = crate::restore::settle(&mut loaded, checkpoints.as_ref());
        if let Some(client) = replay_to {
            crate::restore::replay(id, &loaded, client);
        }
        let mut startup = Vec::new();
        if !loaded.problems.is_empty() {
            let words = Words::new(self.services.language());
            let args = Args::new().with("lines", loaded.problems.len());
            startup.push(Notice::new(
                Severity::Warning,
                words.plain("agent-notice-journal-damaged"),
                Some(words.text("agent-notice-journal-damaged-detail", &args)),
            ));
        }
        let mode = parse_mode(&loaded.mode).ok();
        let grants = std::mem::take(&mut loaded.grants);
        let conversation = Conversation::from_messages(
            std::mem::take(&mut loaded.conversation)
                .into_iter()
                .map(crate::stored::restored_message)
                .collect(),
        );
        // The servers the client passes now are connected as for a new session.
        let mcp = self
            .connect_mcp(mcp_servers, cwd, additional_directories, id, client)
            .await;
        let opened = self.open_session(
            id.clone(),
            cwd.to_path_buf(),
            additional_directories,
            startup,
            mode,
            Some(loaded.model.clone()),
            conversation,
            resumed,
            mcp,
            |_, _, _| checkpoints,
        );
        // The session's own grants come back with it (those it revoked do not).
        if let Ok(session) = self.session(id) {
            let now = std::time::SystemTime::now();
            for grant in grants {
                session.gate.grants().restore(grant, now);
            }
        }
        Ok(opened)
    }

    /// What a turn of `session` works with; `Err` with the reason when the session has
    /// no model. It takes the calls a restored session left waiting.
    fn turn_setup(
        &self,
        session: &Session,
        client: ClientHandle,
    ) -> Result<TurnSetup, Arc<warden_model::ModelError>> {
        let model = lock(&session.model).clone()?;
        let (capabilities, _) = self.client_info();
        let editor = ClientEditor::new(client.clone(), session.id.clone(), capabilities.clone());
        let settings = session.engine.settings();
        let audit: Arc<dyn AuditSink> = match self.services.audit() {
            Some(sink) => sink,
            None => Arc::new(crate::audit::NoAudit),
        };
        Ok(TurnSetup {
            session: session.id.clone(),
            cwd: session.cwd.clone(),
            home: session.home.clone(),
            client,
            gate: session.gate.clone(),
            model,
            toolbox: session.gate.toolbox().clone(),
            editor: Some(Arc::new(editor)),
            limits: TurnLimits {
                max_model_requests: self.config.max_model_requests,
                max_pending: settings.max_pending_requests,
                max_asks: settings.max_asks_per_turn,
            },
            tool_limits: self.config.tool_limits.clone(),
            secrets: self.services.secrets(),
            audit,
            notices: notice::supported(&capabilities),
            forms: crate::to_acp::elicit::supported(&capabilities),
            words: Words::new(self.services.language()),
            checkpoints: session.checkpoints.clone(),
            resumed: std::mem::take(&mut *lock(&session.resumed)),
        })
    }

    /// Starts the turn of a restored session that left calls waiting for approval, once
    /// the session is answered: they are judged again and asked again now, and the turn
    /// goes on where it stopped once they are settled. The first prompt sent meanwhile
    /// becomes the turn's own; one the turn ended without taking in (the model failed,
    /// a limit) then gets a turn of its own. Without a model the calls wait for the next
    /// prompt, which says why nothing runs.
    fn resume_turn(&self, session: &Arc<Session>, client: ClientHandle) {
        if lock(&session.resumed).is_empty() || self.shutdown.is_cancelled() {
            return;
        }
        // Said when this turn ends, however it ends (or when it cannot start): nothing
        // else tells a client that a turn no prompt started is over.
        let ended = TurnEnded::update(&session.id);
        let (prompts, mut handed) = tokio::sync::mpsc::unbounded_channel();
        let cancel = {
            let mut running = lock(&session.running);
            if running.is_some() {
                client.notify(ended);
                return;
            }
            let token = self.shutdown.child_token();
            *running = Some(RunningTurn {
                cancel: token.clone(),
                adopts: Some(Adoption {
                    prompts,
                    responder: None,
                }),
            });
            token
        };
        let guard = RunningGuard(session.clone());
        let Ok(setup) = self.turn_setup(session, client.clone()) else {
            drop(guard);
            client.notify(ended);
            return;
        };
        let mut then = setup.clone();
        then.resumed = Vec::new();
        self.turns.spawn(async move {
            let session = guard.0.clone();
            let (stop, unjoined) =
                run_turn(&session, setup, None, cancel.clone(), Some(&mut handed)).await;
            let (responder, unjoined) = {
                let mut running = lock(&session.running);
                let adoption = running.as_mut().and_then(|turn| turn.adopts.take());
                // A prompt handed over as the turn ended never reached it.
                let unjoined = unjoined.or_else(|| handed.try_recv().ok());
                (adoption.and_then(|a| a.responder), unjoined)
            };
            let Some(responder) = responder else {
                drop(guard);
                client.notify(ended);
                return;
            };
            let stop = match unjoined {
                Some(text) if stop != StopReason::Cancelled => {
                    run_turn(&session, then, Some(text), cancel, None).await.0
                }
                _ => stop,
            };
            drop(guard);
            client.notify(ended);
            responder.respond(Ok(PromptResponse::new(stop)));
        });
    }

    /// Starts the journal of a new session. A failure is reported and the session runs
    /// unstored.
    /// Starts a new session's journal. Its header reaches the kernel before the session
    /// is announced (a killed process does not lose it); it is synced to disk with the
    /// session's first answer, on the blocking pool (`Checkpoints::claim`).
    fn journal(&self, header: &Header) -> Option<Checkpoints> {
        let store = self.services.store()?;
        match store.create(header) {
            Ok(journal) => Some(Checkpoints::new(store, header.id.clone(), journal)),
            Err(err) => {
                tracing::error!(%err, "cannot store the session; it will not survive a restart");
                None
            }
        }
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

/// The text of a prompt: its text blocks, and resource links named as such.
fn prompt_text(blocks: &[ContentBlock]) -> String {
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(text) => parts.push(text.text.clone()),
            ContentBlock::ResourceLink(link) => parts.push(format!("[resource: {}]", link.uri)),
            _ => parts.push("[unsupported content omitted]".to_owned()),
        }
    }
    parts.join("\n")
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

impl WardenAgent {
    /// Answers one of Warden's own commands, without the model; the conversation does
    /// not change.
    fn run_command(
        &self,
        session: &Arc<Session>,
        command: Result<commands::Command, commands::UsageError>,
        responder: PromptResponder,
        client: ClientHandle,
    ) {
        let say = move |client: &ClientHandle, session: &SessionId, text: String| {
            client.notify(updates::message_chunk(session, text));
        };
        let text = match command {
            Err(usage) => usage.to_string(),
            Ok(commands::Command::Grants) => commands::grants_text(
                &session.engine.grants(Some(session.gate.grants())),
                session.mode.get(),
                session.engine.project_root(),
                Words::new(self.services.language()),
            ),
            Ok(commands::Command::Why) => commands::why_text(
                session.gate.explain_last(),
                Words::new(self.services.language()),
            ),
            Ok(commands::Command::Tools) => commands::tools_text(
                &session.gate.tool_names(),
                Words::new(self.services.language()),
            ),
            Ok(commands::Command::Mode(None)) => {
                let known: Vec<String> = Mode::ALL.iter().map(|m| code_span(m.id())).collect();
                format!(
                    "The mode is {}. The modes are: {}; change it with `/mode MODE`.",
                    code_span(session.mode.get().id()),
                    known.join(", ")
                )
            }
            Ok(commands::Command::Mode(Some(id))) => match parse_mode(&id) {
                Ok(mode) => {
                    session.set_mode(mode, &client);
                    format!("The mode is now {}.", code_span(mode.id()))
                }
                Err(problem) => format!("The mode did not change: {problem}."),
            },
            Ok(commands::Command::Revoke(id)) if session.gate.grants().revoke(&id) => {
                // Journaled, so that loading the session does not bring it back.
                if let Some(c) = &session.checkpoints {
                    c.write(&warden_journal::Record::Revoked { id: id.clone() });
                }
                if let Some(audit) = self.services.audit() {
                    audit.revoked(&session.id, &id);
                }
                format!(
                    "Revoked {}: calls it allowed or denied are asked about again.",
                    code_span(&id)
                )
            }
            Ok(commands::Command::Revoke(id)) => {
                // Not one of the session's own: a stored grant, whose file is written
                // under a lock, off the runtime's thread.
                let engine = session.engine.clone();
                let session_id = session.id.clone();
                let audit = self.services.audit();
                self.turns.spawn(async move {
                    let shown = code_span(&id);
                    let revoked = id.clone();
                    let found = tokio::task::spawn_blocking(move || engine.revoke(&id)).await;
                    let text = match found {
                        Ok(Ok(true)) => {
                            if let Some(audit) = audit {
                                audit.revoked(&session_id, &revoked);
                            }
                            format!(
                                "Revoked {shown}: calls it allowed or denied are asked about again."
                            )
                        }
                        Ok(Ok(false)) => {
                            format!("There is no grant {shown}; `/grants` lists them.")
                        }
                        Ok(Err(err)) => format!(
                            "Could not revoke {shown}: {}",
                            code_span(&warden_model::one_line(&err.to_string()))
                        ),
                        Err(err) => format!("Could not revoke {shown}: {err}"),
                    };
                    say(&client, &session_id, text);
                    responder.respond(Ok(PromptResponse::new(StopReason::EndTurn)));
                });
                return;
            }
        };
        say(&client, &session.id, text);
        responder.respond(Ok(PromptResponse::new(StopReason::EndTurn)));
    }
}

/// Runs a turn on the session's conversation, and gives the conversation back to the
/// session; returns the turn's stop reason and the prompt it took but never used (see
/// [`drive`]).
async fn run_turn(
    session: &Session,
    setup: TurnSetup,
    prompt: Option<String>,
    cancel: CancellationToken,
    prompts: Option<&mut tokio::sync::mpsc::UnboundedReceiver<String>>,
) -> (StopReason, Option<String>) {
    let conversation = std::mem::take(&mut *lock(&session.conversation));
    let driven = drive(setup, conversation, prompt, cancel, prompts).await;
    *lock(&session.conversation) = driven.conversation;
    (driven.stop, driven.unjoined)
}

struct RunningGuard(Arc<Session>);

impl Drop for RunningGuard {
    fn drop(&mut self) {
        *lock(&self.0.running) = None;
    }
}

impl AgentHandler for WardenAgent {
    async fn initialize(
        &self,
        request: InitializeRequest,
        _client: ClientHandle,
    ) -> Result<InitializeResponse, Error> {
        let name = request
            .client_info
            .as_ref()
            .map(|i| format!("{} {}", i.name, i.version))
            .unwrap_or_else(|| "unknown client".to_owned());
        *lock(&self.client) = Some((request.client_capabilities.clone(), name));
        // Policies match the name alone; a client that sends none (or an empty one) is
        // `unknown`, so a rule for `unknown` can hold such clients to a stricter mode.
        *lock(&self.policy_client) = request
            .client_info
            .as_ref()
            .map(|i| i.name.trim())
            .filter(|name| !name.is_empty())
            .unwrap_or(warden_permissions::UNKNOWN_CLIENT)
            .to_owned();
        // Old sessions are pruned once, on the blocking pool, so that the answer to
        // `initialize` never waits for it.
        if !self.pruned.swap(true, Ordering::Relaxed) {
            let locations = self.config.locations.clone();
            self.turns.spawn(async move {
                let _ = tokio::task::spawn_blocking(move || {
                    warden_journal::prune_at_start(&locations, &[])
                })
                .await;
            });
        }
        // Only what works is advertised: `close` ends a session and frees what it
        // holds; MCP servers over streamable HTTP are connected (SSE is not).
        let sessions = SessionCapabilities::new()
            .close(SessionCloseCapabilities::new())
            .list(SessionListCapabilities::new())
            .resume(SessionResumeCapabilities::new());
        let capabilities = AgentCapabilities::new()
            .load_session(true)
            .session_capabilities(sessions)
            .mcp_capabilities(warden_acp_transport::schema::McpCapabilities::new().http(true))
            .meta(to_meta(&AgentExtension {
                version: env!("CARGO_PKG_VERSION").to_owned(),
                permission_response_meta: AnswerSupport {
                    edited_input: true,
                    note: true,
                },
                permission_options: warden_turn::Choice::ALL
                    .iter()
                    .map(|choice| choice.option_id().to_owned())
                    .collect(),
            }));
        Ok(
            InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
                .agent_capabilities(capabilities)
                .agent_info(
                    Implementation::new("warden", env!("CARGO_PKG_VERSION"))
                        .title("Warden".to_owned()),
                ),
        )
    }

    async fn new_session(
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
        let (mode, current) = self.open_session(
            id.clone(),
            cwd,
            &request.additional_directories,
            startup,
            None,
            None,
            Conversation::new(),
            Vec::new(),
            mcp,
            |mode, model, cwd| {
                self.journal(&Header {
                    id: id.0.to_string(),
                    cwd: cwd.to_path_buf(),
                    created_ms: warden_journal::now_ms(),
                    model: model.to_owned(),
                    mode: mode.id().to_owned(),
                    title: None,
                })
            },
        );
        Ok(NewSessionResponse::new(id)
            .modes(mode_state(mode))
            .config_options(vec![model_option(self.services.model_spec(), &current)]))
    }

    fn session_started(&self, session_id: &SessionId, client: ClientHandle) {
        let Ok(session) = self.session(session_id) else {
            return;
        };
        client.notify(commands::update(&session.id, session.is_scripted()));
        let supported = notice::supported(&self.client_info().0);
        for startup in std::mem::take(&mut *lock(&session.startup)) {
            client.notify(notice::to_update(&session.id, &startup, supported));
        }
        self.resume_turn(&session, client);
    }

    fn prompt(&self, request: PromptRequest, responder: PromptResponder, client: ClientHandle) {
        let session = match self.session(&request.session_id) {
            Ok(session) => session,
            Err(err) => return responder.respond(Err(err)),
        };
        if self.shutdown.is_cancelled() {
            return responder.respond(Ok(PromptResponse::new(StopReason::Cancelled)));
        }
        let text = prompt_text(&request.prompt);
        let command = commands::parse(&text);
        let cancel = {
            let mut running = lock(&session.running);
            if let Some(turn) = running.as_mut() {
                // A restored session's turn, started without a prompt, takes the first
                // one sent while it runs, and its end answers it.
                if command.is_none()
                    && let Some(adoption) = turn.adopts.as_mut()
                    && adoption.responder.is_none()
                    && adoption.prompts.send(text.clone()).is_ok()
                {
                    adoption.responder = Some(responder);
                    return;
                }
                drop(running);
                return responder.respond(Err(Error::invalid_request().data(json!(
                    "a prompt is already running in this session; cancel it or wait for its answer"
                ))));
            }
            if let Some(command) = command {
                // Warden's own commands are prompts too, one at a time, but no turn: the
                // session is not marked running.
                drop(running);
                return self.run_command(&session, command, responder, client);
            }
            let token = self.shutdown.child_token();
            *running = Some(RunningTurn {
                cancel: token.clone(),
                adopts: None,
            });
            token
        };
        session.title_from_prompt(&text, &client);
        let guard = RunningGuard(session.clone());
        let setup = match self.turn_setup(&session, client.clone()) {
            Ok(setup) => setup,
            Err(problem) => {
                drop(guard);
                client.notify(updates::message_chunk(
                    &session.id,
                    format!("The model is not available: {problem}"),
                ));
                return responder.respond(Ok(PromptResponse::new(StopReason::EndTurn)));
            }
        };
        self.turns.spawn(async move {
            let (stop, _) = run_turn(&guard.0, setup, Some(text), cancel, None).await;
            drop(guard);
            responder.respond(Ok(PromptResponse::new(stop)));
        });
    }

    fn cancel(&self, notification: CancelNotification) {
        match self.session(&notification.session_id) {
            Ok(session) => session.cancel_turn(),
            Err(_) => {
                tracing::debug!(session = %notification.session_id, "cancel for an unknown session")
            }
        }
    }

    fn close_session(&self, request: CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        self.sessions.close(&request.session_id)?;
        tracing::debug!(session = %request.session_id, live = self.sessions.len(), "session closed");
        Ok(CloseSessionResponse::new())
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
        client: ClientHandle,
    ) -> Result<LoadSessionResponse, Error> {
        refuse_system_prompt(request.system_prompt.as_ref())?;
        let (mode, current) = self
            .restore(
                &request.session_id,
                &request.cwd,
                &request.additional_directories,
                &request.mcp_servers,
                &client,
                true,
            )
            .await?;
        Ok(LoadSessionResponse::new()
            .modes(mode_state(mode))
            .config_options(vec![model_option(self.services.model_spec(), &current)]))
    }

    async fn resume_session(
        &self,
        request: ResumeSessionRequest,
        client: ClientHandle,
    ) -> Result<ResumeSessionResponse, Error> {
        refuse_system_prompt(request.system_prompt.as_ref())?;
        let (mode, current) = self
            .restore(
                &request.session_id,
                &request.cwd,
                &request.additional_directories,
                &request.mcp_servers,
                &client,
                false,
            )
            .await?;
        Ok(ResumeSessionResponse::new()
            .modes(mode_state(mode))
            .config_options(vec![model_option(self.services.model_spec(), &current)]))
    }

    async fn list_sessions(
        &self,
        request: ListSessionsRequest,
    ) -> Result<ListSessionsResponse, Error> {
        let Some(store) = self.services.store() else {
            return Ok(ListSessionsResponse::new(Vec::new()));
        };
        // Every stored journal is read: on the blocking pool, never the runtime thread.
        let all = tokio::task::spawn_blocking(move || store.list())
            .await
            .map_err(|e| Error::internal_error().data(json!(e.to_string())))?
            .map_err(|e| Error::internal_error().data(json!(e.to_string())))?;
        let page = crate::restore::page(all, request.cwd.as_deref(), request.cursor.as_deref())
            .map_err(invalid_params)?;
        Ok(page)
    }

    fn set_mode(
        &self,
        request: SetSessionModeRequest,
        client: ClientHandle,
    ) -> Result<SetSessionModeResponse, Error> {
        let session = self.session(&request.session_id)?;
        let mode = parse_mode(&request.mode_id.0).map_err(|err| invalid_params(err.to_string()))?;
        session.set_mode(mode, &client);
        Ok(SetSessionModeResponse::new())
    }

    fn set_config_option(
        &self,
        request: SetSessionConfigOptionRequest,
        client: ClientHandle,
    ) -> Result<SetSessionConfigOptionResponse, Error> {
        let session = self.session(&request.session_id)?;
        if request.config_id.0.as_ref() != MODEL_OPTION {
            return Err(invalid_params(format!(
                "unknown config option `{}`; the options are: {MODEL_OPTION}",
                request.config_id.0
            )));
        }
        let SessionConfigOptionValue::ValueId { value } = &request.value else {
            return Err(invalid_params("the model option takes a model id"));
        };
        let offered = warden_model::offered_models(self.services.model_spec());
        if !offered.iter().any(|m| m.id == value.0.as_ref()) {
            let ids: Vec<_> = offered.iter().map(|m| m.id.as_str()).collect();
            return Err(invalid_params(format!(
                "unknown model `{}`; the models are: {}",
                value.0,
                ids.join(", ")
            )));
        }
        let model = self
            .services
            .model(&value.0)
            .map_err(|e| invalid_params(e.to_string()))?;
        let current = model.id().to_owned();
        *lock(&session.model) = Ok(model);
        if let Some(c) = &session.checkpoints {
            c.write(&warden_journal::Record::Model {
                model: current.clone(),
            });
        }
        // `/call` and `/say` are the scripted model's: the commands follow the model.
        client.notify(commands::update(&session.id, session.is_scripted()));
        Ok(SetSessionConfigOptionResponse::new(vec![model_option(
            self.services.model_spec(),
            &current,
        )]))
    }

    async fn shutdown(&self) {
        self.shutdown.cancel();
        self.turns.close();
        self.turns.wait().await;
        // No server outlives Warden: each process group is killed now, whoever still
        // holds the session.
        self.sessions.stop_servers();
        self.flush();
    }
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
