//! The sessions folder: opening, listing, reopening and removing stored sessions, and
//! claiming the answers to their questions.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::claim::{self, Answers};
use crate::load::{self, LoadedSession, Rebuilt, ReplayItem, parse};
use crate::{
    AnsweredBy, Claim, ClaimResult, Header, Journal, SUPERSEDED_OPTION, SessionStoreError, Spare,
    Taken, folder, lock, valid_session_id,
};

/// The sessions folder.
#[derive(Debug, Clone)]
pub struct SessionStore {
    dir: PathBuf,
}

/// One stored session, as `warden sessions list` and `session/list` show it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub id: String,
    pub cwd: PathBuf,
    pub title: Option<String>,
    pub created_ms: u64,
    /// When the journal was last written, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// User prompts.
    pub prompts: usize,
    /// Calls waiting for an answer.
    pub waiting: usize,
    /// Lines that did not load.
    pub problems: usize,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    millis(SystemTime::now())
}

/// A moment as the journal records it: milliseconds since the Unix epoch.
pub fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl SessionStore {
    /// Opens the sessions folder, creating it (mode 0700) when missing. A folder that
    /// is not the user's own, or that group or others may use, is refused.
    pub fn open(dir: impl Into<PathBuf>) -> Result<SessionStore, SessionStoreError> {
        let dir = dir.into();
        folder::ensure_private(&dir)?;
        Ok(SessionStore { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn checked_id<'a>(&self, id: &'a str) -> Result<&'a str, SessionStoreError> {
        if valid_session_id(id) {
            Ok(id)
        } else {
            Err(SessionStoreError::InvalidId { id: id.to_owned() })
        }
    }

    /// The journal's path of a session.
    pub fn journal_path(&self, id: &str) -> Result<PathBuf, SessionStoreError> {
        Ok(self.dir.join(format!("{}.jsonl", self.checked_id(id)?)))
    }

    pub(crate) fn answers(&self, id: &str) -> Result<Answers, SessionStoreError> {
        Ok(Answers::new(
            self.dir.join(format!("{}.answers", self.checked_id(id)?)),
        ))
    }

    /// Starts the journal of a new session with its header.
    pub fn create(&self, header: &Header) -> Result<Journal, SessionStoreError> {
        Journal::create(self.journal_path(&header.id)?, header)
    }

    /// Opens a stored session's journal to append to it, under its lock. Refused with
    /// [`SessionStoreError::Busy`] when another process holds it. When this process
    /// holds it (a session closed a moment ago, its turn still ending), waits a few
    /// seconds for it: blocking, so call it from the blocking pool.
    pub fn reopen(&self, id: &str) -> Result<Journal, SessionStoreError> {
        Journal::reopen(self.journal_path(id)?, id, lock::WAIT_FOR_OURS)
    }

    /// Loads a stored session with its answers (see [`Rebuilt::settle`]).
    pub fn load(&self, id: &str) -> Result<LoadedSession, SessionStoreError> {
        let rebuilt = self.rebuilt(id)?;
        let answers = self.answers(id)?;
        let names = answers.names()?;
        let claims = answers.of_names(&names, rebuilt.open_questions())?;
        let mut loaded = rebuilt.settle(&claims);
        loaded.answer_files = names;
        Ok(loaded)
    }

    /// A stored session's records applied in order, before its answers are looked at.
    pub(crate) fn rebuilt(&self, id: &str) -> Result<Rebuilt, SessionStoreError> {
        let path = self.journal_path(id)?;
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SessionStoreError::NotFound { id: id.to_owned() });
            }
            Err(e) => return Err(SessionStoreError::io(&path, "read", e)),
        };
        let parsed = parse(&bytes);
        for p in &parsed.problems {
            tracing::warn!(file = %path.display(), line = p.line, problem = ?p.kind, "skipped a session journal line");
        }
        Rebuilt::new(parsed).ok_or(SessionStoreError::NoHeader { path })
    }

    /// Claims a call for an answer: the first claim wins, durably, and every later one
    /// is refused (`claim.rs`).
    pub fn claim(&self, session: &str, claim: &Claim) -> Result<ClaimResult, SessionStoreError> {
        self.answers(session)?.claim(claim)
    }

    /// Makes an empty spare answer file for a session (see `claim.rs`). Blocking.
    pub fn spare(&self, session: &str) -> Result<Spare, SessionStoreError> {
        self.answers(session)?.spare()
    }

    /// Claims a call with a spare, without waiting for the disk; the call may run only
    /// once the claim is synced ([`Unsynced::sync`]).
    pub fn take(
        &self,
        session: &str,
        claim: &Claim,
        spare: Spare,
    ) -> Result<Taken, SessionStoreError> {
        self.answers(session)?.take(claim, spare)
    }

    /// The answer to question `question` about a call, if someone answered it: what a
    /// running Warden polls for while a call waits.
    pub fn claim_of(
        &self,
        session: &str,
        call: &str,
        question: u32,
    ) -> Result<Option<Claim>, SessionStoreError> {
        Ok(self.answers(session)?.get(call, question))
    }

    /// Closes the latest question of every call a loaded session left waiting, before
    /// the calls are asked again: Warden claims each such question's answer itself, as
    /// [`SUPERSEDED_OPTION`], so that an answer to it that comes later (a `warden
    /// pending` that read the session a moment before) is refused rather than lost. A
    /// question someone answered first keeps that answer: its call moves from
    /// `waiting` to `answered`, unapplied, and the answer is used rather than asked
    /// again. Blocking (each claim is synced); for the Warden that holds the journal.
    pub fn close_waiting_questions(
        &self,
        loaded: &mut LoadedSession,
    ) -> Result<(), SessionStoreError> {
        let answers = self.answers(&loaded.header.id)?;
        let mut still = Vec::new();
        for waiting in std::mem::take(&mut loaded.waiting) {
            if waiting.asked.is_none() || waiting.question == 0 {
                still.push(waiting);
                continue;
            }
            let close = Claim {
                call: waiting.call.id.clone(),
                question: waiting.question,
                option: SUPERSEDED_OPTION.to_owned(),
                by: AnsweredBy::Warden,
                note: None,
                at_ms: now_ms(),
            };
            match answers.claim(&close)? {
                ClaimResult::Won => still.push(waiting),
                ClaimResult::Taken(first) => loaded.answered.push(load::AnsweredCall {
                    answer: first
                        .unwrap_or_else(|| claim::unreadable(&close.call, close.question))
                        .record(),
                    call: waiting.call,
                    edited: waiting.edited,
                    unapplied: true,
                }),
            }
        }
        loaded.waiting = still;
        Ok(())
    }

    /// The answers folder of a session, for a cheap look at whether it changed.
    pub fn answers_dir(&self, session: &str) -> Result<PathBuf, SessionStoreError> {
        Ok(self.answers(session)?.dir().to_owned())
    }

    /// The ids of the stored sessions with their journals' last change, newest first.
    pub(crate) fn ids(&self) -> Result<Vec<(String, SystemTime)>, SessionStoreError> {
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|e| SessionStoreError::io(&self.dir, "read", e))?;
        let mut ids = Vec::new();
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            if !valid_session_id(id) {
                continue;
            }
            let modified = entry
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH);
            ids.push((id.to_owned(), modified));
        }
        ids.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(ids)
    }

    /// Every stored session, newest first. A journal that cannot be read is skipped
    /// with a warning.
    pub fn list(&self) -> Result<Vec<SessionSummary>, SessionStoreError> {
        let mut out = Vec::new();
        for (id, modified) in self.ids()? {
            match self.load(&id) {
                Ok(s) => out.push(SessionSummary {
                    prompts: s
                        .replay
                        .iter()
                        .filter(|r| matches!(r, ReplayItem::User { .. }))
                        .count(),
                    waiting: s.waiting.iter().filter(|w| w.asked.is_some()).count(),
                    problems: s.problems.len(),
                    id,
                    cwd: s.header.cwd,
                    title: s.title,
                    created_ms: s.header.created_ms,
                    updated_ms: millis(modified),
                }),
                Err(e) => tracing::warn!(session = %id, error = %e, "cannot read a stored session"),
            }
        }
        Ok(out)
    }

    /// Deletes a stored session: its journal and its answers. Returns false when there
    /// is no such session. A session a process holds open, this one included, is
    /// refused ([`SessionStoreError::Busy`], [`SessionStoreError::BusyHere`]); the lock
    /// is held while the files go, so no Warden opens the session meanwhile.
    pub fn delete(&self, id: &str) -> Result<bool, SessionStoreError> {
        let path = self.journal_path(id)?;
        let _held = match Journal::reopen(path.clone(), id, std::time::Duration::ZERO) {
            Ok(journal) => journal,
            Err(SessionStoreError::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(SessionStoreError::io(&path, "delete", e)),
        }
        let answers = self.answers(id)?;
        match std::fs::remove_dir_all(answers.dir()) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(SessionStoreError::io(answers.dir(), "delete", e)),
        }
        Ok(true)
    }
}
