//! Appending to one session's journal.

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::SessionStoreError;
use super::folder::{private_file, sync_dir};
use super::lock::Locked;
use super::record::{Header, Record, encode};

/// The open journal of one session, held by this process alone (`lock.rs`) until it is
/// dropped. Every record is one `write` of one whole line, so a process killed at any
/// point leaves at most its last line torn; the reader skips it.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Locked,
    /// The last line was torn when the journal was opened: the first record starts
    /// with a newline, so that it gets a line of its own.
    torn: bool,
}

impl Journal {
    /// Creates the journal of a new session with its header, synced with its folder,
    /// so that a session that was announced to the client exists after a crash.
    pub(crate) fn create(path: PathBuf, header: &Header) -> Result<Journal, SessionStoreError> {
        let file = private_file(OpenOptions::new().append(true).create_new(true))
            .open(&path)
            .map_err(|e| SessionStoreError::io(&path, "create", e))?;
        let file = Locked::take(file, &path, &header.id, Duration::ZERO)?;
        let mut journal = Journal {
            path,
            file,
            torn: false,
        };
        journal.append_synced(&Record::Header(header.clone()))?;
        if let Some(dir) = journal.path.parent() {
            sync_dir(dir)?;
        }
        Ok(journal)
    }

    /// Opens an existing journal of session `id` to go on appending, under its lock
    /// (see [`Locked::take`] for `wait`). Nothing is written before the lock is held:
    /// when the last line was torn, the first record ends it.
    pub(crate) fn reopen(
        path: PathBuf,
        id: &str,
        wait: Duration,
    ) -> Result<Journal, SessionStoreError> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => SessionStoreError::NotFound { id: id.to_owned() },
                _ => SessionStoreError::io(&path, "open", e),
            })?;
        let mut locked = Locked::take(file, &path, id, wait)?;
        let file = locked.file();
        let len = file
            .metadata()
            .map_err(|e| SessionStoreError::io(&path, "look at", e))?
            .len();
        let mut torn = false;
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))
                .and_then(|_| file.read_exact(&mut last))
                .map_err(|e| SessionStoreError::io(&path, "read", e))?;
            torn = last[0] != b'\n';
        }
        Ok(Journal {
            path,
            file: locked,
            torn,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a record. It reaches the kernel before this returns (it survives the
    /// process, not a power loss).
    pub fn append(&mut self, record: &Record) -> Result<(), SessionStoreError> {
        let mut line = encode(record).map_err(|source| SessionStoreError::Encode {
            path: self.path.clone(),
            source,
        })?;
        if self.torn {
            line.insert(0, b'\n');
        }
        self.file
            .file()
            .write_all(&line)
            .map_err(|e| SessionStoreError::io(&self.path, "append to", e))?;
        self.torn = false;
        Ok(())
    }

    /// Appends a record and syncs the file: for the records that must hold after a
    /// power loss too (a new session's header).
    pub fn append_synced(&mut self, record: &Record) -> Result<(), SessionStoreError> {
        self.append(record)?;
        self.file
            .file()
            .sync_data()
            .map_err(|e| SessionStoreError::io(&self.path, "sync", e))
    }
}
