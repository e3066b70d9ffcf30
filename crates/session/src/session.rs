//! One live session: everything it holds, in one place.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use warden_acp_transport::ClientHandle;
use warden_acp_transport::schema::{
    CurrentModeUpdate, SessionId, SessionInfoUpdate, SessionNotification, SessionUpdate,
};
use warden_model::{Conversation, Model, ModelError};
use warden_permissions::{Engine, Mode};

use crate::engine_gate::{EngineGate, ModeCell};
use warden_turn::Notice;

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
    pub(crate) resumed: Mutex<Vec<warden_turn::Resumed>>,
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
            c.write(&warden_journal::Record::Mode {
                mode: mode.id().to_owned(),
            });
        }
        client.notify(SessionNotification::new(
            self.id.clone(),
            SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode.id())),
        ));
    }

    /// Names the session after its first prompt, once: the prompt's first line (at most
    /// [`TITLE_CHARS`] characters) goes to the journal's title record and to the client
    /// as `session_info_update`, so that `warden sessions list` and editors show it. A
    /// session whose conversation already has a prompt (a restored one) keeps its title.
    pub(crate) fn title_from_prompt(&self, prompt: &str, client: &ClientHandle) {
        let first = !lock(&self.conversation)
            .messages()
            .iter()
            .any(|m| matches!(m, warden_model::Message::User { .. }));
        let Some(title) = title_of(prompt).filter(|_| first) else {
            return;
        };
        if let Some(c) = &self.checkpoints {
            c.write(&warden_journal::Record::Title {
                title: title.clone(),
            });
        }
        client.notify(SessionNotification::new(
            self.id.clone(),
            SessionUpdate::SessionInfoUpdate(SessionInfoUpdate::new().title(title)),
        ));
    }

    /// Cancels the running turn, if any; its prompt answers `cancelled`.
    pub(crate) fn cancel_turn(&self) {
        if let Some(turn) = lock(&self.running).as_ref() {
            turn.cancel.cancel();
        }
    }
}

/// The most characters of a prompt a session's title keeps.
pub(crate) const TITLE_CHARS: usize = 60;

/// A title from a prompt: its first line that is not empty, without control
/// characters, cut at [`TITLE_CHARS`] characters (with `…`); `None` for an empty prompt.
pub(crate) fn title_of(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    let clean: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut title: String = clean.chars().take(TITLE_CHARS).collect();
    if clean.chars().count() > TITLE_CHARS {
        title = format!("{}…", title.trim_end());
    }
    Some(title)
}

#[cfg(test)]
mod title_tests {
    use super::title_of;

    #[test]
    fn a_title_is_the_first_line_of_the_prompt_cut_short() {
        assert_eq!(
            title_of("\n  fix the build  \nthen test").as_deref(),
            Some("fix the build")
        );
        assert_eq!(title_of("   \n"), None);
        let long = "x".repeat(80);
        let title = title_of(&long).unwrap_or_default();
        assert_eq!(title.chars().count(), 61);
        assert!(title.ends_with('…'));
        assert_eq!(title_of("a\u{1b}[2Jb").as_deref(), Some("a [2Jb"));
    }
}
