//! Answers claimed once, across processes: each question takes one answer.
//!
//! A call may be asked more than once (an edit that raised its risk, a restart); each
//! permission request is its own question, numbered from 1 per call. The answer to
//! question N about call C of session S is the file `S.answers/<C>` (N = 1) or
//! `S.answers/<C>#N`, created with `O_CREAT|O_EXCL`: whoever creates it first (the
//! running Warden for the editor's answer, `warden pending` from another terminal, or
//! Warden closing a question it is about to ask again) owns the question, and every
//! later answer finds the file and is refused. An answer to one question never stands
//! for another: a claim names its question, and a file is read back only as the answer
//! to the question its name says. The file is written and synced, then its folder
//! synced, before the call runs: a call runs only after its claim is durable.
//!
//! Creating a file is the slow part of a claim on some file systems (about 300 µs of
//! CPU on ext4 here), linking an existing one is not (a few µs). A running Warden
//! therefore makes empty spare files ahead of time, off the protocol's thread
//! ([`Answers::spare`], named `.spare-…`, which no call's file can be), and claims with
//! `link(2)` (which fails when the name exists, exactly like `O_EXCL`), opens the linked
//! file, writes the answer into it, and syncs it before the call runs
//! ([`Unsynced::sync`]). A spare waiting to be used holds no open file: every session
//! that has had a turn keeps a few, and a process with hundreds of sessions would
//! otherwise run out of file descriptors.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::SessionStoreError;
use crate::folder::{answer_file_name, ensure_private, private_file, sync_dir};
use warden_verdict::AnsweredBy;

/// An answer as its claim file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// The call's id, as the model named it.
    pub call: String,
    /// The question about the call it answers (1 for the first request). Files written
    /// before questions had numbers answered the first.
    #[serde(default = "first_question")]
    pub question: u32,
    /// The chosen option's id (`allow-once`, `reject-once`, ...).
    pub option: String,
    pub by: AnsweredBy,
    pub note: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
}

impl Claim {
    /// The journal's record of this answer.
    pub fn record(&self) -> crate::record::AnswerRecord {
        crate::record::AnswerRecord {
            call: self.call.clone(),
            question: self.question,
            option: self.option.clone(),
            by: self.by,
            note: self.note.clone(),
        }
    }
}

fn first_question() -> u32 {
    1
}

/// The option of the answer Warden claims for a question it closes unanswered, before it
/// asks the call again: not an option any request offers, so it never allows.
pub const SUPERSEDED_OPTION: &str = "superseded";

/// What a claim file that cannot be read stands for: the file's existence owns the
/// call (someone answered), but its answer is unknown, and an unknown answer is a
/// denial.
pub const UNREADABLE_CLAIM_OPTION: &str = "reject-once";

/// What became of an attempt to claim a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimResult {
    /// This answer owns the call; its claim is durable.
    Won,
    /// The call was answered before; this answer is refused. Holds the first answer
    /// when its file could be read.
    Taken(Option<Claim>),
}

/// An empty answer file made ahead of time (see the module's docs), by its name alone.
#[derive(Debug)]
pub struct Spare {
    path: PathBuf,
}

/// A claim this process won with a spare, written but not yet on disk. The spare's
/// own name is removed when it is synced (off the protocol's thread), or when it is
/// dropped unsynced (its call did not run).
#[derive(Debug)]
pub struct Unsynced {
    file: File,
    path: PathBuf,
    dir: PathBuf,
    spare_name: Option<PathBuf>,
}

impl Unsynced {
    /// Syncs the claim's file, then its folder (which holds its name, and no longer the
    /// spare's). Blocking: the call runs only after this.
    pub fn sync(mut self) -> Result<(), SessionStoreError> {
        self.forget_spare_name();
        self.file
            .sync_all()
            .map_err(|e| SessionStoreError::io(&self.path, "write the answer", e))?;
        sync_dir(&self.dir)
    }

    fn forget_spare_name(&mut self) {
        if let Some(name) = self.spare_name.take()
            && let Err(e) = std::fs::remove_file(&name)
        {
            tracing::debug!(file = %name.display(), error = %e, "cannot remove a used spare's name");
        }
    }
}

impl Drop for Unsynced {
    fn drop(&mut self) {
        self.forget_spare_name();
    }
}

/// What became of a claim made with a spare.
#[derive(Debug)]
pub enum Taken {
    /// This answer owns the call; its claim must be synced before the call runs.
    Won(Unsynced),
    /// The call was answered before (see [`ClaimResult::Taken`]); the spare is given
    /// back, unused.
    Before(Option<Claim>, Spare),
}

/// The answers folder of one session.
#[derive(Debug, Clone)]
pub(crate) struct Answers {
    dir: PathBuf,
}

impl Answers {
    pub(crate) fn new(dir: PathBuf) -> Answers {
        Answers { dir }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, call: &str, question: u32) -> PathBuf {
        self.dir.join(answer_file_name(call, question))
    }

    /// Claims the question for this answer (see the module's docs).
    pub(crate) fn claim(&self, claim: &Claim) -> Result<ClaimResult, SessionStoreError> {
        ensure_private(&self.dir)?;
        let path = self.path(&claim.call, claim.question);
        let file = match private_file(OpenOptions::new().write(true).create_new(true)).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Ok(ClaimResult::Taken(self.read(
                    &path,
                    &claim.call,
                    claim.question,
                )));
            }
            Err(e) => return Err(SessionStoreError::io(&path, "create the answer", e)),
        };
        self.won(file, path, None, claim)?.sync()?;
        Ok(ClaimResult::Won)
    }

    /// The answer file this answer created (or linked): the answer is written into it,
    /// not yet synced. From here the call is this answer's, whatever happens: a file
    /// left empty by a crash, or by a failed write, still refuses every other answer,
    /// and reads as a denial.
    fn won(
        &self,
        file: File,
        path: PathBuf,
        spare_name: Option<PathBuf>,
        claim: &Claim,
    ) -> Result<Unsynced, SessionStoreError> {
        let unsynced = Unsynced {
            file,
            path,
            dir: self.dir.clone(),
            spare_name,
        };
        let body = serde_json::to_vec(claim).map_err(|source| SessionStoreError::Encode {
            path: unsynced.path.clone(),
            source,
        })?;
        (&unsynced.file)
            .write_all(&body)
            .map_err(|e| SessionStoreError::io(&unsynced.path, "write the answer", e))?;
        Ok(unsynced)
    }

    /// Makes an empty spare answer file. Blocking (it creates a file).
    pub(crate) fn spare(&self) -> Result<Spare, SessionStoreError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        ensure_private(&self.dir)?;
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = self.dir.join(format!(".spare-{}-{n}", std::process::id()));
        // Created, then closed: only its name is kept until it is used.
        private_file(OpenOptions::new().write(true).create_new(true))
            .open(&path)
            .map_err(|e| SessionStoreError::io(&path, "create a spare answer", e))?;
        Ok(Spare { path })
    }

    /// Claims the call for this answer with a spare: linking it under the call's name
    /// decides who owns the call, as exclusive creation does; the answer is then
    /// written, not yet synced.
    pub(crate) fn take(&self, claim: &Claim, spare: Spare) -> Result<Taken, SessionStoreError> {
        let path = self.path(&claim.call, claim.question);
        match std::fs::hard_link(&spare.path, &path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let first = self.read(&path, &claim.call, claim.question);
                return Ok(Taken::Before(first, spare));
            }
            Err(e) => return Err(SessionStoreError::io(&path, "create the answer", e)),
        }
        // The spare's own name, which only this process uses, names the same file now.
        let spare_path = spare.path;
        let file = OpenOptions::new()
            .write(true)
            .open(&spare_path)
            .map_err(|e| SessionStoreError::io(&path, "open the answer", e))?;
        Ok(Taken::Won(self.won(file, path, Some(spare_path), claim)?))
    }

    /// The answer to one question about a call, if it was answered.
    pub(crate) fn get(&self, call: &str, question: u32) -> Option<Claim> {
        let path = self.path(call, question);
        match std::fs::symlink_metadata(&path) {
            Ok(_) => Some(
                self.read(&path, call, question)
                    .unwrap_or_else(|| unreadable(call, question)),
            ),
            Err(_) => None,
        }
    }

    /// The answers to the given questions (a call and its question's number), by call
    /// id (one directory read, then one file read per answer found). A missing folder
    /// holds none.
    pub(crate) fn of<'a>(
        &self,
        questions: impl IntoIterator<Item = (&'a str, u32)>,
    ) -> Result<HashMap<String, Claim>, SessionStoreError> {
        self.of_names(&self.names()?, questions)
    }

    /// The answers to the given questions among the answer files `names` (see
    /// [`Answers::names`]).
    pub(crate) fn of_names<'a>(
        &self,
        names: &std::collections::HashSet<String>,
        questions: impl IntoIterator<Item = (&'a str, u32)>,
    ) -> Result<HashMap<String, Claim>, SessionStoreError> {
        if names.is_empty() {
            return Ok(HashMap::new());
        }
        crate::folder::check_private(&self.dir)?;
        Ok(questions
            .into_iter()
            .filter(|(call, question)| names.contains(&answer_file_name(call, *question)))
            .map(|(call, question)| {
                let claim = self
                    .read(&self.path(call, question), call, question)
                    .unwrap_or_else(|| unreadable(call, question));
                (call.to_owned(), claim)
            })
            .collect())
    }

    /// The names of the answer files (see [`call_file_name`]); none when the folder
    /// does not exist.
    pub(crate) fn names(&self) -> Result<std::collections::HashSet<String>, SessionStoreError> {
        match std::fs::read_dir(&self.dir) {
            Ok(entries) => Ok(entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Default::default()),
            Err(e) => Err(SessionStoreError::io(&self.dir, "read", e)),
        }
    }

    /// Reads a claim file; one that does not parse, or names another call or another
    /// question, is unreadable (and so a denial).
    fn read(&self, path: &Path, call: &str, question: u32) -> Option<Claim> {
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice::<Claim>(&bytes)
            .ok()
            .filter(|c| c.call == call && c.question == question)
    }
}

pub(crate) fn unreadable(call: &str, question: u32) -> Claim {
    Claim {
        call: call.to_owned(),
        question,
        option: UNREADABLE_CLAIM_OPTION.to_owned(),
        by: AnsweredBy::Pending,
        note: Some("the answer file could not be read".to_owned()),
        at_ms: 0,
    }
}
