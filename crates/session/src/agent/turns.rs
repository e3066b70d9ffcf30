//! A session's turns: a prompt starts one (or joins the turn a restored session runs
//! without a prompt), and the turn crate's driver runs it with what `turn_setup`
//! gathers.

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;
use warden_acp_transport::schema::{ContentBlock, PromptRequest, PromptResponse, StopReason};
use warden_acp_transport::{ClientHandle, Error, PromptResponder, TurnEnded};

use crate::audit::SessionAudit;
use crate::commands;
use crate::editor::ClientEditor;
use crate::session::{Adoption, RunningTurn, Session, lock};
use crate::to_acp::notice;
use crate::to_acp::outlet::AcpOutlet;
use crate::to_acp::updates;
use warden_turn::{TurnLimits, TurnSetup, Words, drive};

use super::WardenAgent;

impl WardenAgent {
    /// `session/prompt`: one of Warden's own commands, a turn of its own, or the prompt
    /// a restored session's running turn takes as its own.
    pub(super) fn start_prompt(
        &self,
        request: PromptRequest,
        responder: PromptResponder,
        client: ClientHandle,
    ) {
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

    /// What a turn of `session` works with; `Err` with the reason when the session has
    /// no model. It takes the calls a restored session left waiting.
    pub(super) fn turn_setup(
        &self,
        session: &Session,
        client: ClientHandle,
    ) -> Result<TurnSetup, Arc<warden_model::ModelError>> {
        let model = lock(&session.model).clone()?;
        let (capabilities, _) = self.client_info();
        let editor = ClientEditor::new(client.clone(), session.id.clone(), capabilities.clone());
        let settings = session.engine.settings();
        let words = Words::new(self.services.language());
        let outlet = AcpOutlet {
            session: session.id.clone(),
            client,
            words,
            notices: notice::supported(&capabilities),
        };
        let audit = SessionAudit {
            log: self.services.audit(),
            session: session.id.clone(),
        };
        Ok(TurnSetup {
            cwd: session.cwd.clone(),
            home: session.home.clone(),
            outlet: Arc::new(outlet),
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
            audit: Arc::new(audit),
            forms: crate::to_acp::elicit::supported(&capabilities),
            words,
            journal: session
                .checkpoints
                .clone()
                .map(|c| Arc::new(c) as Arc<dyn warden_turn::Journal>),
            resumed: std::mem::take(&mut *lock(&session.resumed)),
        })
    }

    /// Starts the turn of a restored session that left calls waiting for approval, once
    /// the session is answered: they are judged again and asked again now, and the turn
    /// goes on where it stopped once they are settled. The first prompt sent meanwhile
    /// becomes the turn's own; one the turn ended without taking in (the model failed,
    /// a limit) then gets a turn of its own. Without a model the calls wait for the next
    /// prompt, which says why nothing runs.
    pub(super) fn resume_turn(&self, session: &Arc<Session>, client: ClientHandle) {
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
    (crate::to_acp::stop_reason(driven.stop), driven.unjoined)
}

struct RunningGuard(Arc<Session>);

impl Drop for RunningGuard {
    fn drop(&mut self) {
        *lock(&self.0.running) = None;
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
