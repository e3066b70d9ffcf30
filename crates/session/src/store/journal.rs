//! Appending to one session's journal.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::SessionStoreError;
use super::folder::{private_file, sync_dir};
use super::record::{Header, Record, encode};

/// The open journal of one session. Every record is one `write` of one whole line, so a
/// process killed at any point leaves at most its last line torn; the reader skips it.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Creates the journal of a new session with its header, synced with its folder,
    /// so that a session that was announced to the client exists after a crash.
    pub(crate) fn create(path: PathBuf, header: &Header) -> Result<Journal, SessionStoreError> {
        let file = private_file(OpenOptions::new().append(true).create_new(true))
            .open(&path)
            .map_err(|e| SessionStoreError::io(&path, "create", e))?;
        let mut journal = Journal { path, file };
        journal.append_synced(&Record::Header(header.clone()))?;
        if let Some(dir) = journal.path.parent() {
            sync_dir(dir)?;
        }
        Ok(journal)
    }

    /// Opens an existing journal to go on appending. When its last line was torn, a
    /// newline ends it first, so the next record starts a line of its own.
    pub(crate) fn reopen(path: PathBuf) -> Result<Journal, SessionStoreError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| SessionStoreError::io(&path, "open", e))?;
        let len = file
            .metadata()
            .map_err(|e| SessionStoreError::io(&path, "look at", e))?
            .len();
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))
                .and_then(|_| file.read_exact(&mut last))
                .map_err(|e| SessionStoreError::io(&path, "read", e))?;
            if last[0] != b'\n' {
                file.write_all(b"\n")
                    .map_err(|e| SessionStoreError::io(&path, "append to", e))?;
            }
        }
        Ok(Journal { path, file })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a record. It reaches the kernel before this returns (it survives the
    /// process, not a power loss).
    pub fn append(&mut self, record: &Record) -> Result<(), SessionStoreError> {
        let line = encode(record).map_err(|source| SessionStoreError::Encode {
            path: self.path.clone(),
            source,
        })?;
        self.file
            .write_all(&line)
            .map_err(|e| SessionStoreError::io(&self.path, "append to", e))
    }

    /// Appends a record and syncs the file: for the records that must hold after a
    /// power loss too (a new session's header).
    pub fn append_synced(&mut self, record: &Record) -> Result<(), SessionStoreError> {
        self.append(record)?;
        self.file
            .sync_data()
            .map_err(|e| SessionStoreError::io(&self.path, "sync", e))
    }
}
