//! The tasks a turn starts: a call that runs, and a grant that is stored. Each reports
//! back through the loop's channel, so that nothing it says reaches the client after
//! the turn ended.

use tokio_util::sync::CancellationToken;
use warden_tools::{ExecContext, PreparedCall};

use super::{DriverState, Msg};
use crate::command::GrantRequest;
use crate::event::{Event, Stored, ToolResult};
use crate::journal::{Durable, Journal, JournalError};

impl DriverState {
    pub(super) fn run_tool(&mut self, call_id: String, call: PreparedCall) {
        let durable = self.calls.take_durable(&call_id);
        let token = CancellationToken::new();
        self.calls.tool_started(&call_id, token.clone());
        let tx = self.tx.clone();
        let setup = self.setup.clone();
        self.tool_tasks.push(tokio::spawn(async move {
            if let Err(e) = before_run(&call_id, durable, setup.journal.as_deref()).await {
                let text = format!("The call did not run: {e}.");
                let result = ToolResult {
                    ok: false,
                    timed_out: false,
                    content: Vec::new(),
                    raw_output: serde_json::Value::String(text.clone()),
                    for_model: text,
                };
                let _ = tx.send(Msg::Event(Event::ToolFinished { call_id, result }));
                return;
            }
            let progress_tx = tx.clone();
            let progress_id = call_id.clone();
            let secrets = setup.secrets.clone();
            let progress = move |content: Vec<warden_tools::Content>| {
                let content = secrets.redact_content(content);
                let _ = progress_tx.send(Msg::Progress(progress_id.clone(), content));
            };
            let output = setup
                .toolbox
                .run(
                    &call,
                    ExecContext {
                        cwd: &setup.cwd,
                        home: setup.home.as_deref(),
                        editor: setup.editor.clone(),
                        cancel: token,
                        limits: setup.tool_limits.clone(),
                        progress: &progress,
                        secrets: &setup.secrets,
                        secret_files: secret_files(&setup.cwd, setup.home.as_deref()),
                    },
                )
                .await;
            // The one point where a tool's output becomes what the model and the client
            // are given: no secret value passes it.
            let output = setup.secrets.redact_output(output);
            let result = ToolResult {
                ok: output.ok,
                timed_out: output.timed_out,
                content: output.content,
                raw_output: output.raw_output,
                for_model: output.for_model,
            };
            let _ = tx.send(Msg::Event(Event::ToolFinished { call_id, result }));
        }));
    }

    /// Stores a grant off the runtime's thread (it may wait for the grants file's lock)
    /// and feeds the result back to the turn.
    pub(super) fn store_grant(&mut self, request: GrantRequest) {
        let GrantRequest {
            call_id,
            call,
            verdict,
            scope,
            effect,
        } = request;
        let gate = self.setup.gate.clone();
        let tx = self.tx.clone();
        self.tool_tasks.push(tokio::spawn(async move {
            let stored =
                tokio::task::spawn_blocking(move || gate.remember(&call, &verdict, scope, effect))
                    .await;
            let stored = match stored {
                Ok(Ok(grant)) => {
                    // A session's own grant is written down with the session, so that
                    // loading it brings the grant back (stored grants live in their own
                    // file).
                    if let Some(grant) = grant
                        && grant.scope == warden_permissions::Scope::Session
                    {
                        let _ = tx.send(Msg::Granted(Box::new(grant)));
                    }
                    Stored::Yes
                }
                Ok(Err(err)) => Stored::No {
                    reason: err.to_string(),
                },
                Err(err) => Stored::No {
                    reason: format!("storing it failed: {err}"),
                },
            };
            let _ = tx.send(Msg::Event(Event::GrantStored {
                call_id,
                scope,
                effect,
                stored,
            }));
        }));
    }
}

/// Before a call runs: what its answer needs on disk is put there (on the blocking
/// pool, after the client was told the call is in progress), then the call is written
/// down as running. A journal without that record proves the call never started (the
/// write reaches the kernel, which a killed process does not lose), so a restart never
/// runs it again. It is not synced: every allowed call would wait for the disk; what
/// must hold across a power loss is the answer's claim, synced before an asked call
/// runs, and a restart runs again only calls that were asked. When either cannot be
/// done, the call does not run.
async fn before_run(
    call_id: &str,
    durable: Option<Durable>,
    journal: Option<&dyn Journal>,
) -> Result<(), NotRun> {
    if let Some(durable) = durable {
        tokio::task::spawn_blocking(durable)
            .await
            .map_err(NotRun::Task)?
            .map_err(NotRun::Answer)?;
    }
    match journal {
        Some(journal) => journal.running(call_id).map_err(NotRun::Running),
        None => Ok(()),
    }
}

/// Why a call that was allowed did not run.
#[derive(Debug, thiserror::Error)]
enum NotRun {
    #[error("its answer could not be written to disk ({0})")]
    Answer(JournalError),
    #[error("its answer could not be written to disk ({0})")]
    Task(tokio::task::JoinError),
    #[error("it could not be recorded in the session's journal ({0})")]
    Running(JournalError),
}

/// Which files hold secrets, by the policy engine's classification, for the tools (which
/// do not compile the engine): `fs_search` leaves them out.
fn secret_files(
    cwd: &std::path::Path,
    home: Option<&std::path::Path>,
) -> warden_tools::SecretFiles {
    let mut ctx = warden_permissions::Context::new(cwd);
    if let Some(home) = home {
        ctx = ctx.with_home(home);
    }
    std::sync::Arc::new(move |path| warden_permissions::holds_secrets(path, &ctx))
}
