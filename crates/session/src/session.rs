//! One live session: everything it holds, in one place.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use warden_acp_transport::ClientHandle;
use warden_acp_transport::schema::{
    CurrentModeUpdate, SessionId, SessionNotification, SessionUpdate,
};
use warden_model::{Conversation, Model, ModelError};
use warden_permissions::{Engine, Mode};

use crate::engine_gate::{EngineGate, ModeCell};
use crate::notice::Notice;

/// A session's state. The registry ([`crate::registry::Registry`]) holds it by id;
/// closing the session there drops it, and with it everything the session holds: its
/// mode, its gate with its session grants and exact approvals, its tools and their
/// servers, and its conversation.
pub(crate) struct Session {
    pub(crate) id: SessionId,
    pub(crate) cwd: PathBuf,
    /// The home folder of the session's permission context, for the tools.
    pub(crate) home: Option<PathBuf>,
    pub(crate) mode: Arc<ModeCell>,
    pub(crate) engine: Arc<Engine>,
    /// The policy side of its turns, with its tools and its exact approvals.
    pub(crate) gate: Arc<EngineGate>,
    /// The model, or why there is none.
    pub(crate) model: Mutex<Result<Arc<dyn Model>, Arc<ModelError>>>,
    pub(crate) conversation: Mutex<Conversation>,
    /// The running turn: a session runs one turn at a time.
    pub(crate) running: Mutex<Option<RunningTurn>>,
    /// What the user must be told once the session exists.
    pub(crate) startup: Mutex<Vec<Notice>>,
    /// The session's MCP servers (also in its toolbox), stopped with it.
    pub(crate) mcp: Vec<Arc<warden_mcp::Server>>,
    /// The session's journal, when sessions are stored.
    pub(crate) checkpoints: Option<crate::checkpoint::Checkpoints>,
    /// Calls a restored session left waiting, asked again by the turn that starts once
    /// the session is restored (or, when it has no model then, by its next prompt's).
    pub(crate) resumed: Mutex<Vec<crate::turn::Resumed>>,
}

/// The turn a session runs.
pub(crate) struct RunningTurn {
    /// Cancels it; its prompt answers `cancelled`.
    pub(crate) cancel: CancellationToken,
    /// For a turn started without a prompt (a restored session asking again the calls
    /// it left waiting): the first prompt sent while it runs is handed to it, and the
    /// turn's end answers that prompt.
    pub(crate) adopts: Option<Adoption>,
}

/// Where a prompt goes that a running turn takes as its own, and who is answered when
/// the turn ends.
pub(crate) struct Adoption {
    pub(crate) prompts: tokio::sync::mpsc::UnboundedSender<String>,
    pub(crate) responder: Option<warden_acp_transport::PromptResponder>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Session {
    /// Stops the session's MCP servers now: each process group is killed, whoever
    /// still holds the session or its tools.
    pub(crate) fn stop_servers(&self) {
        for server in &self.mcp {
            server.close();
        }
    }

    pub(crate) fn is_scripted(&self) -> bool {
        lock(&self.model)
            .as_ref()
            .is_ok_and(|m| m.id() == "scripted")
    }

    pub(crate) fn set_mode(&self, mode: Mode, client: &ClientHandle) {
        self.mode.set(mode);
        if let Some(c) = &self.checkpoints {
            c.write(&crate::store::Record::Mode {
                mode: mode.id().to_owned(),
            });
        }
        client.notify(SessionNotification::new(
            self.id.clone(),
            SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode.id())),
        ));
    }

    /// Cancels the running turn, if any; its prompt answers `cancelled`.
    pub(crate) fn cancel_turn(&self) {
        if let Some(turn) = lock(&self.running).as_ref() {
            turn.cancel.cancel();
        }
    }
}
