//! The audit log: one JSON line per evaluation and per outcome, each chained to the
//! one before by a SHA-256 hash, so that `verify` finds edited, inserted, reordered
//! and deleted lines.
//!
//! [`AuditLog::record`] never blocks: it hands the event to a writer thread over a
//! bounded queue. When the queue is full the event is counted and dropped, and the
//! writer puts a `dropped` marker line into the log when it catches up; a turn never
//! waits for the disk. The writer appends under an advisory lock and re-reads the
//! log's end whenever another process appended, so several Warden processes can
//! share one log and their chains interleave into one.

mod body;
mod canonical;
mod chain;
mod error;
mod mirror;
mod priority;
mod record;
mod rev_lines;
mod tail;
mod verify;
mod writer;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::Duration;

pub use body::args_digest;
pub use canonical::canonical_json;
pub use chain::{GENESIS, hex, line_hash};
pub use error::AuditError;
pub use mirror::AuditMirror;
pub use record::{ArgsDigest, AuditEvent, AuditKind, AuditRecord, Outcome, RecordBody};
pub use tail::{TailLine, tail};
pub use verify::{Problem, ProblemKind, VerifyReport, verify};
pub use writer::MAX_BATCH;

use writer::{Counters, Message, Writer};

/// The handle to an open audit log. Share it behind an `Arc`; dropping the last
/// handle drains the queue and waits for the writer.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    tx: Option<SyncSender<Message>>,
    counters: Arc<Counters>,
    thread: Option<JoinHandle<()>>,
    mirror: Option<Arc<dyn AuditMirror>>,
}

impl AuditLog {
    /// How many records may wait for the writer before [`AuditLog::record`] drops.
    /// At a few hundred bytes a record this bounds the queue's memory to a few MB,
    /// and it absorbs a burst far larger than any model turn produces.
    pub const QUEUE_CAPACITY: usize = 8192;

    /// How long [`AuditLog::flush`] waits for the writer.
    pub const FLUSH_TIMEOUT: Duration = Duration::from_secs(10);

    /// Opens (creating it, mode 0600, and its folder, mode 0700) the log at `path`
    /// and starts its writer thread.
    pub fn open(path: impl Into<PathBuf>) -> Result<AuditLog, AuditError> {
        AuditLog::open_with_capacity(path, AuditLog::QUEUE_CAPACITY)
    }

    /// Like [`AuditLog::open`], with a queue of `capacity` records (at least 1).
    pub fn open_with_capacity(
        path: impl Into<PathBuf>,
        capacity: usize,
    ) -> Result<AuditLog, AuditError> {
        AuditLog::open_inner(path.into(), capacity, None)
    }

    /// Like [`AuditLog::open`], and every appended record is also handed to `mirror`
    /// (telemetry), from the writer thread.
    pub fn open_mirrored(
        path: impl Into<PathBuf>,
        mirror: Option<Arc<dyn AuditMirror>>,
    ) -> Result<AuditLog, AuditError> {
        AuditLog::open_inner(path.into(), AuditLog::QUEUE_CAPACITY, mirror)
    }

    fn open_inner(
        path: PathBuf,
        capacity: usize,
        mirror: Option<Arc<dyn AuditMirror>>,
    ) -> Result<AuditLog, AuditError> {
        let file = open_file(&path)?;
        let counters = Arc::new(Counters::default());
        let (tx, rx) = mpsc::sync_channel(capacity.max(1));
        let writer = Writer::new(path.clone(), file, Arc::clone(&counters), mirror.clone());
        let thread = std::thread::Builder::new()
            .name("warden-audit".into())
            .spawn(move || {
                priority::lower_this_thread();
                writer.run(rx)
            })
            .map_err(|source| AuditError::Spawn {
                path: path.clone(),
                source,
            })?;
        Ok(AuditLog {
            path,
            tx: Some(tx),
            counters,
            thread: Some(thread),
            mirror,
        })
    }

    /// The log file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Queues `event` for writing. Never blocks and never fails: when the queue is
    /// full (or the writer has died) the event is counted as dropped, a warning is
    /// logged once per run of drops, and a `dropped` marker line records the count.
    pub fn record(&self, event: AuditEvent) {
        let Some(tx) = &self.tx else { return };
        match tx.try_send(Message::Record(Box::new(event))) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                if self.counters.lose(1) == 0 {
                    tracing::warn!(
                        path = %self.path.display(),
                        "the audit queue is full; dropping records until the writer catches up"
                    );
                }
            }
        }
    }

    /// Waits until every event recorded before this call is written and synced to
    /// disk, for at most [`AuditLog::FLUSH_TIMEOUT`]. Meant for shutdown and tests,
    /// not for the turn's path.
    pub fn flush(&self) -> Result<(), AuditError> {
        let gone = || AuditError::WriterGone {
            path: self.path.clone(),
        };
        let tx = self.tx.as_ref().ok_or_else(gone)?;
        let (ack_tx, ack_rx) = mpsc::channel();
        tx.send(Message::Flush(ack_tx)).map_err(|_| gone())?;
        match ack_rx.recv_timeout(AuditLog::FLUSH_TIMEOUT) {
            Ok(()) => {
                if let Some(mirror) = &self.mirror {
                    mirror.flush();
                }
                Ok(())
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Err(AuditError::FlushTimeout {
                path: self.path.clone(),
                secs: AuditLog::FLUSH_TIMEOUT.as_secs(),
            }),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(gone()),
        }
    }

    /// How many records were dropped since the log was opened.
    pub fn dropped(&self) -> u64 {
        self.counters.total_dropped.load(Ordering::Relaxed)
    }
}

impl Drop for AuditLog {
    fn drop(&mut self) {
        // Closing the queue lets the writer drain it and stop; joining makes a clean
        // exit lose nothing.
        drop(self.tx.take());
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!(path = %self.path.display(), "the audit log writer panicked");
        }
        // The writer has handed the mirror everything; let it send that on.
        if let Some(mirror) = self.mirror.take() {
            mirror.flush();
        }
    }
}

fn open_file(path: &Path) -> Result<File, AuditError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(dir)
            .map_err(|source| AuditError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
    }
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path).map_err(|source| AuditError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    restrict_mode(&file, path);
    Ok(file)
}

/// Narrows a log created by something else (or before a umask change) to 0600: it
/// names every command the agent ran.
#[cfg(unix)]
fn restrict_mode(file: &File, path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    match file.metadata() {
        Ok(meta) if meta.permissions().mode() & 0o077 != 0 => {
            if let Err(err) = file.set_permissions(std::fs::Permissions::from_mode(0o600)) {
                tracing::warn!(path = %path.display(), %err, "cannot make the audit log private");
            }
        }
        Ok(_) => {}
        Err(err) => {
            tracing::warn!(path = %path.display(), %err, "cannot read the audit log's mode")
        }
    }
}

#[cfg(not(unix))]
fn restrict_mode(_file: &File, _path: &Path) {}
