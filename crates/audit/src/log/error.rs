//! The audit log's errors.

use std::path::PathBuf;

/// What went wrong while opening, reading or verifying an audit log.
///
/// Writing never reports errors to the caller: the writer thread logs them with
/// `tracing` and counts the lost records, so a failing disk never stalls a turn.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The log's folder could not be created.
    #[error("cannot create the audit log folder {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The log file could not be opened.
    #[error("cannot open the audit log {path}: {source}")]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Reading the log failed part-way.
    #[error("cannot read the audit log {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The writer thread could not be started.
    #[error("cannot start the audit log writer for {path}: {source}")]
    Spawn {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The writer thread has stopped, so a flush cannot be confirmed.
    #[error("the audit log writer for {path} has stopped")]
    WriterGone { path: PathBuf },
    /// The writer did not drain its queue in time.
    #[error("the audit log writer for {path} did not finish within {secs} s")]
    FlushTimeout { path: PathBuf, secs: u64 },
}
