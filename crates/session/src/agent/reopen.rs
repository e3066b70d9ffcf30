//! `session/load` and `session/resume`: a stored session taken up again (its journal
//! taken first, its open questions closed, its unfinished calls settled, see
//! `restore.rs`), or a live one replayed as it is.

use std::path::{Path, PathBuf};

use serde_json::json;
use warden_acp_transport::schema::{McpServer, SessionId};
use warden_acp_transport::{ClientHandle, Error};
use warden_model::Conversation;
use warden_permissions::Mode;

use crate::checkpoint::Checkpoints;
use crate::session::lock;
use warden_i18n::Args;
use warden_turn::Words;
use warden_turn::{Notice, Severity};

use super::open::SessionSpec;
use super::{WardenAgent, invalid_params, parse_mode, refuse_system_prompt};
use crate::config_options::model_option;
use crate::modes::mode_state;
use warden_acp_transport::schema::{
    LoadSessionRequest, ResumeSessionRequest, SessionConfigOption, SessionModeState, SystemPrompt,
};
use warden_journal::{LoadedSession, SessionStore, SessionStoreError};

/// What a stored session is read as, off the runtime's thread: its journal, taken for
/// this process unless the session is live here, and what the journal holds.
struct Stored {
    journal: Option<warden_journal::Journal>,
    loaded: LoadedSession,
}

/// An error the client is told about a stored session.
fn store_error(id: &SessionId, e: SessionStoreError) -> Error {
    match e {
        SessionStoreError::NotFound { .. } | SessionStoreError::InvalidId { .. } => {
            crate::registry::not_found(id)
        }
        e @ (SessionStoreError::Busy { .. } | SessionStoreError::BusyHere { .. }) => {
            Error::new(-32600, e.to_string()).data(json!({ "sessionId": id }))
        }
        e => Error::internal_error().data(json!(e.to_string())),
    }
}

/// Reads a stored session on the blocking pool. The journal is taken before it is read,
/// so that what is read is all there is: another Warden may have the session open
/// (refused here, before anything is written), or this one may have closed it a moment
/// ago and still be ending its turn (waited for). A journal that cannot be taken for
/// another reason leaves the session going on unstored.
async fn read_stored(store: SessionStore, id: &SessionId, take: bool) -> Result<Stored, Error> {
    let sid = id.0.to_string();
    let read = tokio::task::spawn_blocking(move || {
        let journal = if take {
            match store.reopen(&sid) {
                Ok(journal) => Some(journal),
                Err(
                    e @ (SessionStoreError::NotFound { .. }
                    | SessionStoreError::InvalidId { .. }
                    | SessionStoreError::Busy { .. }
                    | SessionStoreError::BusyHere { .. }),
                ) => return Err(e),
                Err(err) => {
                    tracing::error!(%err, "cannot append to the stored session; it goes on unstored");
                    None
                }
            }
        } else {
            None
        };
        let loaded = store.load(&sid)?;
        Ok(Stored { journal, loaded })
    })
    .await;
    match read {
        Ok(read) => read.map_err(|e| store_error(id, e)),
        Err(err) => Err(Error::internal_error().data(json!(err.to_string()))),
    }
}

/// Closes the questions a stored session left open, before its calls are asked again
/// (an answer given to one meanwhile is used instead), on the blocking pool: each close
/// is a synced claim.
async fn close_open_questions(
    store: SessionStore,
    mut loaded: LoadedSession,
) -> Result<LoadedSession, Error> {
    if !loaded.waiting.iter().any(|w| w.question > 0) {
        return Ok(loaded);
    }
    let closed = tokio::task::spawn_blocking(move || {
        store.close_waiting_questions(&mut loaded).map(|()| loaded)
    })
    .await;
    match closed {
        Ok(Ok(loaded)) => Ok(loaded),
        Ok(Err(e)) => Err(Error::internal_error().data(json!(e.to_string()))),
        Err(e) => Err(Error::internal_error().data(json!(e.to_string()))),
    }
}

/// What `session/load` and `session/resume` both ask for.
pub(super) struct Reopen<'a> {
    pub(super) id: &'a SessionId,
    pub(super) cwd: &'a Path,
    pub(super) additional_directories: &'a [PathBuf],
    pub(super) mcp_servers: &'a [McpServer],
    pub(super) system_prompt: Option<&'a SystemPrompt>,
}

impl<'a> From<&'a LoadSessionRequest> for Reopen<'a> {
    fn from(r: &'a LoadSessionRequest) -> Reopen<'a> {
        Reopen {
            id: &r.session_id,
            cwd: &r.cwd,
            additional_directories: &r.additional_directories,
            mcp_servers: &r.mcp_servers,
            system_prompt: r.system_prompt.as_ref(),
        }
    }
}

impl<'a> From<&'a ResumeSessionRequest> for Reopen<'a> {
    fn from(r: &'a ResumeSessionRequest) -> Reopen<'a> {
        Reopen {
            id: &r.session_id,
            cwd: &r.cwd,
            additional_directories: &r.additional_directories,
            mcp_servers: &r.mcp_servers,
            system_prompt: r.system_prompt.as_ref(),
        }
    }
}

impl WardenAgent {
    /// `session/load` (with `replay`) and `session/resume`: the session's modes and its
    /// model option, once it is taken up again.
    pub(super) async fn reopen(
        &self,
        request: Reopen<'_>,
        client: &ClientHandle,
        replay: bool,
    ) -> Result<(SessionModeState, Vec<SessionConfigOption>), Error> {
        refuse_system_prompt(request.system_prompt)?;
        let (mode, current) = self
            .restore(
                request.id,
                request.cwd,
                request.additional_directories,
                request.mcp_servers,
                client,
                replay,
            )
            .await?;
        let options = vec![model_option(self.services.model_spec(), &current)];
        Ok((mode_state(mode), options))
    }

    /// Restores a stored session (see `restore.rs`), replaying it to `client` when
    /// `replay`. A live session is not restored twice: it is replayed as stored.
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
        let store = self
            .services
            .store()
            .ok_or_else(|| crate::registry::not_found(id))?;
        let live = self.session(id).ok();
        let Stored { journal, loaded } = read_stored(store.clone(), id, live.is_none()).await?;
        if loaded.header.cwd != cwd {
            return Err(invalid_params(format!(
                "session {} was created in `{}`, not `{}`; it is loaded with its own folder only",
                id,
                loaded.header.cwd.display(),
                cwd.display()
            )));
        }
        if let Some(live) = live {
            if let Some(client) = replay_to {
                crate::restore::replay(id, &loaded, client);
            }
            let current = lock(&live.model)
                .as_ref()
                .map(|m| m.id().to_owned())
                .unwrap_or_else(|_| self.services.model_spec().to_owned());
            return Ok((live.mode.get(), current));
        }
        let mut loaded = match journal {
            Some(_) => close_open_questions(store.clone(), loaded).await?,
            None => loaded,
        };
        let answer_files = std::mem::take(&mut loaded.answer_files);
        let checkpoints = journal.map(|journal| {
            Checkpoints::reopened(store.clone(), id.0.to_string(), journal, answer_files)
        });
        let resumed = crate::restore::settle(&mut loaded, checkpoints.as_ref());
        if let Some(client) = replay_to {
            crate::restore::replay(id, &loaded, client);
        }
        // The servers the client passes now are connected as for a new session.
        let mcp = self
            .connect_mcp(mcp_servers, cwd, additional_directories, id, client)
            .await;
        let spec = SessionSpec {
            id: id.clone(),
            cwd: cwd.to_path_buf(),
            additional_directories,
            startup: self.journal_notices(&loaded),
            mode: parse_mode(&loaded.mode).ok(),
            stored_model: Some(loaded.model.clone()),
            conversation: Conversation::from_messages(
                std::mem::take(&mut loaded.conversation)
                    .into_iter()
                    .map(crate::stored::restored_message)
                    .collect(),
            ),
            resumed,
            mcp,
        };
        let opened = self.open_session(spec, |_, _, _| checkpoints);
        // The session's own grants come back with it (those it revoked do not).
        if let Ok(session) = self.session(id) {
            let now = std::time::SystemTime::now();
            for grant in std::mem::take(&mut loaded.grants) {
                session.gate.grants().restore(grant, now);
            }
        }
        Ok(opened)
    }

    /// What the session's start tells about its journal: lines that could not be read.
    fn journal_notices(&self, loaded: &LoadedSession) -> Vec<Notice> {
        if loaded.problems.is_empty() {
            return Vec::new();
        }
        let words = Words::new(self.services.language());
        let args = Args::new().with("lines", loaded.problems.len());
        vec![Notice::new(
            Severity::Warning,
            words.plain("agent-notice-journal-damaged"),
            Some(words.text("agent-notice-journal-damaged-detail", &args)),
        )]
    }
}
