//! Warden's own commands (`/grants`, `/why`, `/tools`, `/mode`, `/revoke`), answered
//! without the model; the conversation does not change.

use std::sync::Arc;

use warden_acp_transport::schema::{PromptResponse, SessionId, StopReason};
use warden_acp_transport::{ClientHandle, PromptResponder};
use warden_model::code_span;
use warden_permissions::Mode;

use crate::commands;
use crate::session::Session;
use crate::to_acp::updates;
use warden_turn::Words;

use super::{WardenAgent, parse_mode};

impl WardenAgent {
    /// Answers one of Warden's own commands, without the model; the conversation does
    /// not change.
    pub(super) fn run_command(
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
