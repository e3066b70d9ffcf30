//! The agent's face: each ACP method, short, handing the work to the part of the agent
//! that does it. Nothing here waits on anything slow: the transport runs `session/new`,
//! `session/load`, `session/resume` and `session/list` as tasks of the connection, and
//! a prompt's turn is spawned.

use std::sync::atomic::Ordering;

use serde_json::json;
use warden_acp_transport::schema::{
    AgentCapabilities, CancelNotification, CloseSessionRequest, CloseSessionResponse,
    Implementation, InitializeRequest, InitializeResponse, ListSessionsRequest,
    ListSessionsResponse, LoadSessionRequest, LoadSessionResponse, NewSessionRequest,
    NewSessionResponse, PromptRequest, ResumeSessionRequest, ResumeSessionResponse,
    SessionCapabilities, SessionCloseCapabilities, SessionConfigOptionValue, SessionId,
    SessionListCapabilities, SessionResumeCapabilities, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeRequest, SetSessionModeResponse,
};
use warden_acp_transport::{
    AgentExtension, AgentHandler, AnswerSupport, ClientHandle, Error, PromptResponder, to_meta,
};

use crate::commands;
use crate::config_options::{MODEL_OPTION, model_option};
use crate::session::lock;
use crate::to_acp::notice;

use super::{WardenAgent, invalid_params, parse_mode};

/// What Warden offers a client. Only what works is advertised: `close` ends a session and
/// frees what it holds; MCP servers over streamable HTTP are connected (SSE is not).
fn capabilities() -> AgentCapabilities {
    let sessions = SessionCapabilities::new()
        .close(SessionCloseCapabilities::new())
        .list(SessionListCapabilities::new())
        .resume(SessionResumeCapabilities::new());
    AgentCapabilities::new()
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
        }))
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
        // `initialize` never waits for it. Without a sessions folder no session was ever
        // stored, so there is nothing to prune: no thread is started and no policy file
        // read for it (one look at the folder, which the first session's own engine
        // load dwarfs).
        if !self.pruned.swap(true, Ordering::Relaxed)
            && self.config.locations.sessions_dir().exists()
        {
            let locations = self.config.locations.clone();
            self.turns.spawn(async move {
                let _ = tokio::task::spawn_blocking(move || {
                    warden_journal::prune_at_start(&locations, &[])
                })
                .await;
            });
        }
        Ok(
            InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
                .agent_capabilities(capabilities())
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
        self.create(request, client).await
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
        self.start_prompt(request, responder, client);
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
        let (modes, options) = self.reopen((&request).into(), &client, true).await?;
        Ok(LoadSessionResponse::new()
            .modes(modes)
            .config_options(options))
    }

    async fn resume_session(
        &self,
        request: ResumeSessionRequest,
        client: ClientHandle,
    ) -> Result<ResumeSessionResponse, Error> {
        let (modes, options) = self.reopen((&request).into(), &client, false).await?;
        Ok(ResumeSessionResponse::new()
            .modes(modes)
            .config_options(options))
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
            .map_err(|e| invalid_params(e.to_string()))?;
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
        let current = self.switch_model(&session, &value.0)?;
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
