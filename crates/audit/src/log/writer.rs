//! The background writer: it takes records off the queue, chains them to the
//! log's last line under an advisory lock, and appends them.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};

use super::body::{body_of, dropped_marker};
use super::chain::{GENESIS, chain_fields, line_hash};
use super::record::{AuditEvent, RecordBody};
use super::rev_lines::RevLines;
use crate::AuditMirror;

/// The writer appends at most this many records under one lock.
pub const MAX_BATCH: usize = 256;

/// What the [`crate::AuditLog`] handle sends to its writer.
#[derive(Debug)]
pub enum Message {
    Record(Box<AuditEvent>),
    /// Answer once every record sent before has been written and synced.
    Flush(Sender<()>),
}

/// Counters shared between the handle and its writer.
#[derive(Debug, Default)]
pub struct Counters {
    /// Records lost since the last `dropped` marker was written.
    pub pending_dropped: AtomicU64,
    /// Records lost since the log was opened.
    pub total_dropped: AtomicU64,
}

impl Counters {
    pub fn lose(&self, count: u64) -> u64 {
        self.total_dropped.fetch_add(count, Ordering::Relaxed);
        self.pending_dropped.fetch_add(count, Ordering::Relaxed)
    }
}

/// Where the log ends: enough to chain the next line without reading the file again
/// when nobody else has appended in between.
#[derive(Debug, Clone)]
struct Head {
    /// The file's length when this was read or written.
    len: u64,
    /// Hash of the last line (`GENESIS` for an empty file).
    hash: String,
    /// The last readable `seq` (0 for an empty file).
    seq: u64,
    /// The last line has no newline: a torn write.
    torn: bool,
}

/// The writer thread's state.
#[derive(Debug)]
pub struct Writer {
    pub path: PathBuf,
    pub file: File,
    pub counters: Arc<Counters>,
    /// A second, best-effort sink that sees every body after its line is appended.
    pub mirror: Option<Arc<dyn AuditMirror>>,
    head: Option<Head>,
}

impl Writer {
    pub fn new(
        path: PathBuf,
        file: File,
        counters: Arc<Counters>,
        mirror: Option<Arc<dyn AuditMirror>>,
    ) -> Writer {
        Writer {
            path,
            file,
            counters,
            mirror,
            head: None,
        }
    }

    /// Runs until every handle is gone and the queue is drained.
    pub fn run(mut self, rx: Receiver<Message>) {
        let mut batch = Vec::with_capacity(MAX_BATCH);
        while let Ok(first) = rx.recv() {
            let mut flush = None;
            let mut next = Some(first);
            while let Some(message) = next.take() {
                match message {
                    Message::Record(event) => batch.push(body_of(*event)),
                    Message::Flush(ack) => {
                        flush = Some(ack);
                        break;
                    }
                }
                if batch.len() < MAX_BATCH {
                    next = rx.try_recv().ok();
                }
            }
            self.append(&mut batch);
            if let Some(ack) = flush {
                self.sync();
                // The flusher may have given up waiting; that is its business.
                let _ = ack.send(());
            }
        }
        self.sync();
    }

    fn sync(&self) {
        if let Err(err) = self.file.sync_data() {
            tracing::error!(path = %self.path.display(), %err, "cannot sync the audit log");
        }
    }

    /// Appends `batch` (emptying it), preceded by a `dropped` marker when records
    /// were lost since the last append. Failures are logged and counted as losses.
    fn append(&mut self, batch: &mut Vec<RecordBody>) {
        let dropped = self.counters.pending_dropped.swap(0, Ordering::Relaxed);
        if batch.is_empty() && dropped == 0 {
            return;
        }
        let records = batch.len() as u64;
        let lines = dropped_line(dropped)
            .into_iter()
            .chain(batch.iter().filter_map(serialize))
            .collect::<Vec<String>>();
        let appended = self.append_lines(&lines);
        // The mirror sees the same redacted bodies, after the disk: the local log is
        // the record of truth, the mirror only a copy.
        if let Some(mirror) = &self.mirror {
            for body in batch.iter() {
                mirror.mirror(body);
            }
        }
        batch.clear();
        if let Err(err) = appended {
            self.head = None;
            self.counters
                .pending_dropped
                .fetch_add(dropped, Ordering::Relaxed);
            self.counters.lose(records);
            tracing::error!(
                path = %self.path.display(),
                %err,
                lost = records,
                "cannot append to the audit log"
            );
        }
    }

    /// Opens the file at the path again when the one open is no longer there (the
    /// user moved or deleted the log): otherwise every later record would go into an
    /// unlinked file.
    #[cfg(unix)]
    fn reopen_if_replaced(&mut self) {
        use std::os::unix::fs::MetadataExt;
        let same = match (std::fs::metadata(&self.path), self.file.metadata()) {
            (Ok(at_path), Ok(open)) => at_path.dev() == open.dev() && at_path.ino() == open.ino(),
            (Err(err), _) if err.kind() == io::ErrorKind::NotFound => false,
            // Cannot tell: keep writing where we are.
            _ => true,
        };
        if same {
            return;
        }
        match super::open_file(&self.path) {
            Ok(file) => {
                tracing::warn!(path = %self.path.display(), "the audit log was moved or deleted; starting a new one");
                self.file = file;
                self.head = None;
            }
            Err(err) => tracing::error!(%err, "cannot reopen the audit log"),
        }
    }

    #[cfg(not(unix))]
    fn reopen_if_replaced(&mut self) {}

    fn append_lines(&mut self, bodies: &[String]) -> io::Result<()> {
        self.reopen_if_replaced();
        let _lock = FileLock::exclusive(&self.file)?;
        let len = self.file.metadata()?.len();
        let head = match self.head.take() {
            Some(head) if head.len == len => head,
            // Another process appended, or this is the first append: read the end.
            _ => read_head(&self.file, len)?,
        };
        let mut buf = Vec::with_capacity(bodies.iter().map(|b| b.len() + 100).sum());
        if head.torn {
            // Finish the torn line so that ours starts on a line of its own; verify
            // reports the torn one.
            buf.push(b'\n');
        }
        let mut prev = head.hash;
        let mut seq = head.seq;
        for body in bodies {
            seq += 1;
            let start = buf.len();
            // `body` is a JSON object that always holds `time`, so splicing the chain
            // fields in front of its first key gives the same line as serialising
            // `AuditRecord`, without holding the lock while serialising.
            write!(buf, "{{\"seq\":{seq},\"prev\":\"{prev}\",{}", &body[1..])?;
            prev = line_hash(&buf[start..]);
            buf.push(b'\n');
        }
        (&self.file).write_all(&buf)?;
        self.head = Some(Head {
            len: len + buf.len() as u64,
            hash: prev,
            seq,
            torn: false,
        });
        Ok(())
    }
}

fn dropped_line(dropped: u64) -> Option<String> {
    if dropped == 0 {
        return None;
    }
    tracing::warn!(dropped, "audit records were lost; writing a marker");
    serialize(&dropped_marker(dropped))
}

fn serialize(body: &RecordBody) -> Option<String> {
    match serde_json::to_string(body) {
        Ok(line) if line.starts_with('{') && line.len() > 2 => Some(line),
        Ok(_) => None,
        Err(err) => {
            tracing::error!(%err, "cannot serialise an audit record");
            None
        }
    }
}

/// Reads the hash, seq and tornness of the log's end.
fn read_head(mut file: &File, len: u64) -> io::Result<Head> {
    let mut lines = RevLines::new(&mut file, len)?;
    let Some(last) = lines.next_line()? else {
        return Ok(Head {
            len,
            hash: GENESIS.to_string(),
            seq: 0,
            torn: false,
        });
    };
    let hash = line_hash(&last.bytes);
    let torn = !last.terminated;
    // A torn or damaged last line has no readable seq: continue from the last
    // line that has one, as verify expects.
    let mut seq = chain_fields(&last.bytes).ok().map(|f| f.seq);
    while seq.is_none() {
        match lines.next_line()? {
            Some(line) => seq = chain_fields(&line.bytes).ok().map(|f| f.seq),
            None => break,
        }
    }
    Ok(Head {
        len,
        hash,
        seq: seq.unwrap_or(0),
        torn,
    })
}

/// An exclusive advisory lock, released on drop.
struct FileLock<'a>(&'a File);

impl<'a> FileLock<'a> {
    fn exclusive(file: &'a File) -> io::Result<FileLock<'a>> {
        // Called through the trait: `std::fs::File::lock` (Rust 1.89) is newer than
        // the workspace's minimum Rust version.
        fs4::FileExt::lock(file)?;
        Ok(FileLock(file))
    }
}

impl Drop for FileLock<'_> {
    fn drop(&mut self) {
        if let Err(err) = fs4::FileExt::unlock(self.0) {
            tracing::warn!(%err, "cannot unlock the audit log");
        }
    }
}
