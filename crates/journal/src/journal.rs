//! Appending to one session's journal.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::SessionStoreError;
use crate::folder::{private_file, sync_dir};
use crate::lock::Locked;
use crate::record::{Header, Record, encode_into};

/// The open journal of one session, held by this process alone (`lock.rs`) until it is
/// dropped. Records are written whole, one or more lines in one `write`, so a process
/// killed at any point leaves at most its last line torn; the reader skips it.
///
/// Records may be staged and written together ([`Journal::stage`], [`Journal::flush`]):
/// the records of one step of a turn cost one `write`, and whoever writes a record
/// writes every record staged before it first, so the journal keeps their order.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Locked,
    /// The last line was torn when the journal was opened: the first record starts
    /// with a newline, so that it gets a line of its own.
    torn: bool,
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
        let file = Locked::take(file, &path, &header.id, Duration::ZERO)?;
        let mut journal = Journal {
            path,
            file,
            torn: false,
            staged: Vec::new(),
        };
        journal.append(&Record::Header(header.clone()))?;
        Ok(journal)
    }

    /// What syncs this journal and its folder to disk, from any thread, without the
    /// journal (whose writers must not wait for a disk).
    pub fn durability(&mut self) -> Result<Durability, SessionStoreError> {
        Ok(Durability {
            file: self
                .file
                .file()
                .try_clone()
                .map_err(|e| SessionStoreError::io(&self.path, "open", e))?,
            path: self.path.clone(),
        })
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
        if self.torn && self.staged.is_empty() {
            self.staged.push(b'\n');
        }
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
        let written = self.file.file().write_all(&self.staged);
        if written.is_ok() {
            self.torn = false;
        }
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
