//! Appending to one session's journal.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::SessionStoreError;
use super::folder::{private_file, sync_dir};
use super::record::{Header, Record, encode_into};

/// The open journal of one session. Records are written whole, one or more lines in one
/// `write`, so a process killed at any point leaves at most its last line torn; the
/// reader skips it.
///
/// Records may be staged and written together ([`Journal::stage`], [`Journal::flush`]):
/// the records of one step of a turn cost one `write`, and whoever writes a record
/// writes every record staged before it first, so the journal keeps their order.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Encoded records not yet written, in order.
    staged: Vec<u8>,
}

impl Journal {
    /// Creates the journal of a new session with its header. The header reaches the
    /// kernel; making it survive a power loss too is [`Journal::durability`]'s, off the
    /// runtime's thread.
    pub(crate) fn create(path: PathBuf, header: &Header) -> Result<Journal, SessionStoreError> {
        let file = private_file(OpenOptions::new().append(true).create_new(true))
            .open(&path)
            .map_err(|e| SessionStoreError::io(&path, "create", e))?;
        let mut journal = Journal {
            path,
            file,
            staged: Vec::new(),
        };
        journal.append(&Record::Header(header.clone()))?;
        Ok(journal)
    }

    /// What syncs this journal and its folder to disk, from any thread, without the
    /// journal (whose writers must not wait for a disk): a new session is announced to
    /// the client only once its journal would survive a power loss.
    pub fn durability(&self) -> Result<Durability, SessionStoreError> {
        Ok(Durability {
            file: self
                .file
                .try_clone()
                .map_err(|e| SessionStoreError::io(&self.path, "open", e))?,
            path: self.path.clone(),
        })
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
        Ok(Journal {
            path,
            file,
            staged: Vec::new(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a record, after the records staged before it. They reach the kernel
    /// before this returns (they survive the process, not a power loss).
    pub fn append(&mut self, record: &Record) -> Result<(), SessionStoreError> {
        self.stage(record)?;
        self.flush()
    }

    /// Encodes a record to be written with the next [`Journal::flush`] (or append).
    pub fn stage(&mut self, record: &Record) -> Result<(), SessionStoreError> {
        encode_into(record, &mut self.staged).map_err(|source| SessionStoreError::Encode {
            path: self.path.clone(),
            source,
        })
    }

    /// Writes the staged records, in one `write`. When it fails they are dropped: what
    /// was not written is what a later load misses, never a record out of its order.
    pub fn flush(&mut self) -> Result<(), SessionStoreError> {
        if self.staged.is_empty() {
            return Ok(());
        }
        let written = self.file.write_all(&self.staged);
        self.staged.clear();
        // A turn's step rarely stages more than a few KiB; a large tool output must not
        // keep its buffer for the session's life.
        if self.staged.capacity() > 64 * 1024 {
            self.staged.shrink_to(16 * 1024);
        }
        written.map_err(|e| SessionStoreError::io(&self.path, "append to", e))
    }
}

/// Syncs a journal and its folder (see [`Journal::durability`]).
#[derive(Debug)]
pub struct Durability {
    file: File,
    path: PathBuf,
}

impl Durability {
    /// Syncs the journal's data, then its folder (which holds its name). Blocking.
    pub fn sync(&self) -> Result<(), SessionStoreError> {
        self.file
            .sync_data()
            .map_err(|e| SessionStoreError::io(&self.path, "sync", e))?;
        match self.path.parent() {
            Some(dir) => sync_dir(dir),
            None => Ok(()),
        }
    }
}
