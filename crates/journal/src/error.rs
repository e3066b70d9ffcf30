//! What can go wrong with the session store.

use std::path::{Path, PathBuf};

/// A failure of the session store, naming the file and the step.
#[derive(Debug, thiserror::Error)]
pub enum SessionStoreError {
    #[error("cannot {step} {path}: {source}")]
    Io {
        path: PathBuf,
        step: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// The sessions folder (or an answers folder) could be read or changed by someone
    /// else, so Warden will not trust what it holds nor write into it.
    #[error("refusing to use {path}: {reason}")]
    Unsafe { path: PathBuf, reason: String },
    #[error(
        "invalid session id {id:?}: only letters, digits, '-', '_' and '.', at most 128, not starting with '.'"
    )]
    InvalidId { id: String },
    #[error("no stored session has the id {id}")]
    NotFound { id: String },
    /// Another process holds the session's journal (see `lock.rs`): a running Warden
    /// has the session open.
    #[error("session {id} is open in another Warden process")]
    Busy { id: String },
    /// This process still holds the session's journal after waiting for it: another
    /// of its sessions has it (being loaded, or closed and still ending its turn).
    #[error(
        "session {id} is still in use in this Warden process (being loaded or closed); try again"
    )]
    BusyHere { id: String },
    #[error("{path} starts with no readable session header")]
    NoHeader { path: PathBuf },
    #[error("cannot encode a record for {path}: {source}")]
    Encode {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

impl SessionStoreError {
    pub(crate) fn io(path: &Path, step: &'static str, source: std::io::Error) -> SessionStoreError {
        SessionStoreError::Io {
            path: path.to_owned(),
            step,
            source,
        }
    }
}
