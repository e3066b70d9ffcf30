//! `warden pending approve|deny` from another terminal, in process: the store calls the
//! command makes (`src/cli/pending.rs`), and nothing else, kept in this one function so
//! that a change of the store's pending API changes only this file.

use std::path::Path;

use warden_journal::{ClaimResult, Lookup, SessionStore};

/// What `warden pending` said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingResult {
    /// The answer was taken (exit code 0).
    Taken,
    /// Refused: answered before, or no such waiting call (exit code 1 or 2).
    Refused,
}

/// Answers the call `<session>/<call>` as `warden pending approve` (or `deny`) would.
/// The command also writes the answer to the audit log; that line is not written here,
/// so that the audit lines the test finds are the running Wardens' own.
pub fn answer(sessions: &Path, session: &str, call: &str, allow: bool) -> PendingResult {
    let store = SessionStore::open(sessions.to_path_buf()).expect("the sessions folder");
    let id = format!("{session}/{call}");
    match store.find_pending(&id).expect("reading the sessions") {
        Lookup::Found(pending) => {
            match store
                .answer_pending(&pending, allow, Some("from the other terminal".to_owned()))
                .expect("writing the answer")
            {
                ClaimResult::Won => PendingResult::Taken,
                ClaimResult::Taken(_) => PendingResult::Refused,
            }
        }
        Lookup::Answered { .. } | Lookup::NotFound | Lookup::Ambiguous(_) => PendingResult::Refused,
    }
}
