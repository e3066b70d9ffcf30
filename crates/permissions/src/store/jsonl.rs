//! A JSON Lines file with locked appends.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A failure to read or write a store file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot {step} {path}: {source}")]
    Io {
        path: PathBuf,
        step: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode a record for {path}: {source}")]
    Encode {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// Lines in the middle of the file cannot be read. Refused by a rewrite that would
    /// otherwise lose them (one may have been a revocation or a deny grant); `warden
    /// grants repair` keeps them aside first.
    #[error(
        "{lines} line(s) of {path} cannot be read; `warden grants repair` keeps them aside and rewrites the file"
    )]
    Unreadable { path: PathBuf, lines: usize },
}

impl StoreError {
    pub(crate) fn io(path: &Path, step: &'static str, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_owned(),
            step,
            source,
        }
    }
}

/// A held advisory lock; released when dropped (the file is closed).
#[derive(Debug)]
pub(crate) struct Lock {
    _file: File,
}

/// The identity and version of a file as its metadata gives them. Appends change the
/// length and the modification time, a rewrite (which renames a new file over the old)
/// changes the inode, and the change time catches an edit in place that kept the
/// length within the modification time's granularity, or a change of permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    unix: (u64, u64, i64, i64),
}

impl Fingerprint {
    fn of(meta: &std::fs::Metadata) -> Fingerprint {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Fingerprint {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            unix: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// What a read found: the records that parsed, how many lines did not, and whether a
/// last line without its newline was left out.
#[derive(Debug)]
pub(crate) struct Records<T> {
    pub records: Vec<T>,
    pub skipped: usize,
    pub torn: bool,
}

/// The file's lines sorted for a repair: the bytes of the lines that parse, in order,
/// each with its newline, and the lines that do not (without their newlines).
#[derive(Debug, Default)]
pub(crate) struct SortedLines {
    pub good: Vec<u8>,
    pub good_lines: usize,
    pub unreadable: Vec<Vec<u8>>,
    /// The last line, when it has no newline (and is not blank).
    pub torn: Option<Vec<u8>>,
}

/// Where the file's whole lines end: just after its last newline (0 when it has none).
/// Whatever follows is a last line whose append never finished: the writer acknowledges
/// a record only once the record and its newline are synced, so that line was never
/// acknowledged and is not part of the file's contents.
fn whole_lines_end(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// Like [`whole_lines_end`], on an open file of `len` bytes, reading backwards from its
/// end a block at a time (a torn line is at most one record long).
fn file_whole_lines_end(file: &mut File, len: u64) -> std::io::Result<u64> {
    const BLOCK: u64 = 4096;
    let mut end = len;
    let mut buf = vec![0u8; BLOCK as usize];
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let block = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(block)?;
        if let Some(i) = block.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Syncs the folder that holds `file`, so that a file created or renamed there survives
/// a crash. (A bare file name's folder is the current one.)
fn sync_dir_of(file: &Path) -> Result<(), StoreError> {
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| StoreError::io(dir, "sync the folder", e))
}

#[derive(Debug, Clone)]
pub(crate) struct JsonlFile {
    path: PathBuf,
}

fn open_private(path: &Path, options: &mut OpenOptions) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

impl JsonlFile {
    pub(crate) fn new(path: PathBuf) -> JsonlFile {
        JsonlFile { path }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// What identifies the file's current contents without reading them: one `statx`.
    /// A missing file has none.
    pub(crate) fn fingerprint(&self) -> Result<Option<Fingerprint>, StoreError> {
        match std::fs::metadata(&self.path) {
            Ok(meta) => Ok(Some(Fingerprint::of(&meta))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::io(&self.path, "look at", e)),
        }
    }

    fn lock_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".lock");
        PathBuf::from(name)
    }

    fn ensure_dir(&self) -> Result<(), StoreError> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::io(dir, "create the folder", e))?;
        }
        Ok(())
    }

    /// Takes the writers' lock, waiting for another writer to finish.
    pub(crate) fn lock(&self) -> Result<Lock, StoreError> {
        self.ensure_dir()?;
        let path = self.lock_path();
        let file = open_private(&path, OpenOptions::new().create(true).append(true))
            .map_err(|e| StoreError::io(&path, "open the lock file", e))?;
        // Called through the trait: std's own `File::lock` is newer than the
        // workspace's minimum Rust version.
        fs4::FileExt::lock(&file).map_err(|e| StoreError::io(&path, "lock", e))?;
        Ok(Lock { _file: file })
    }

    /// Reads every line that parses; others are skipped with a warning. Large files
    /// are parsed on several threads (the lines are independent).
    ///
    /// The file is read with one allocation, and each thread splits its own share of
    /// it into lines: splitting 100,000 lines on the main thread first cost as much as
    /// a tenth of the parse.
    pub(crate) fn read<T: DeserializeOwned + Send>(&self) -> Result<Vec<T>, StoreError> {
        self.read_counted().map(|read| read.records)
    }

    /// Like [`JsonlFile::read`], and says how many lines were skipped: a caller for
    /// whom a lost line matters (a grant file's line may have been a revocation) can
    /// then fail closed instead of trusting what is left.
    pub(crate) fn read_counted<T: DeserializeOwned + Send>(
        &self,
    ) -> Result<Records<T>, StoreError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Records {
                    records: Vec::new(),
                    skipped: 0,
                    torn: false,
                });
            }
            Err(e) => return Err(StoreError::io(&self.path, "read", e)),
        };
        let whole = whole_lines_end(&bytes);
        let torn = !bytes[whole..].trim_ascii().is_empty();
        if torn {
            // Not damage: the append that wrote it never finished, and the next append
            // cuts it off. Said quietly, so that `warden grants list` does not alarm.
            tracing::info!(
                file = %self.path.display(),
                bytes = bytes.len() - whole,
                "ignoring the last line, which has no newline: its write never finished"
            );
        }
        let mut read = self.parse_whole_lines(&bytes[..whole]);
        read.torn = torn;
        Ok(read)
    }

    /// Parses `bytes`, a run of whole lines; large runs on several threads.
    fn parse_whole_lines<T: DeserializeOwned + Send>(&self, bytes: &[u8]) -> Records<T> {
        const PARALLEL_FROM: usize = 1 << 20;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        if bytes.len() < PARALLEL_FROM || threads < 2 {
            return self.parse_chunk(bytes, 0, bytes.len());
        }
        let chunks = split_at_lines(bytes, threads);
        // Every share goes to a fresh thread, the calling thread only waits: parsing
        // the first share on the calling thread measured 150 ms of CPU per 100,000
        // grants instead of 110 ms, most likely an allocator effect (the calling
        // thread's arena holds the frees of earlier loads; a fresh thread's does not).
        let parts: Vec<Records<T>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|&(start, end)| scope.spawn(move || self.parse_chunk(bytes, start, end)))
                .collect();
            // A panicking parser thread is a bug; its lines are lost rather than the
            // whole file (the records are still on disk), and counted as skipped.
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or(Records {
                        records: Vec::new(),
                        skipped: 1,
                        torn: false,
                    })
                })
                .collect()
        });
        let mut all = Vec::with_capacity(parts.iter().map(|p| p.records.len()).sum());
        let mut skipped = 0;
        for part in parts {
            all.extend(part.records);
            skipped += part.skipped;
        }
        Records {
            records: all,
            skipped,
            torn: false,
        }
    }

    /// Parses the lines of `whole[start..end]`, a run of whole lines.
    fn parse_chunk<T: DeserializeOwned>(
        &self,
        whole: &[u8],
        start: usize,
        end: usize,
    ) -> Records<T> {
        let chunk = &whole[start..end];
        let mut out = Vec::with_capacity(chunk.len() / 128);
        let mut skipped = 0;
        // The number of the chunk's first line is counted only when a line must be
        // reported, which is rare.
        let mut first_line: Option<usize> = None;
        let mut warn = |n: usize, error: serde_json::Error| {
            skipped += 1;
            let first = *first_line
                .get_or_insert_with(|| 1 + whole[..start].iter().filter(|&&b| b == b'\n').count());
            tracing::warn!(
                file = %self.path.display(),
                line = first + n,
                error = %error,
                "skipping a line that cannot be read"
            );
        };
        // A chunk that is valid UTF-8 (the normal case) is split with the
        // memchr-based `str::split` and parsed from `&str`, which spares serde_json
        // from validating every string again. A chunk with invalid bytes falls back to
        // bytes, where serde_json rejects only the lines that hold them.
        match std::str::from_utf8(chunk) {
            Ok(text) => {
                for (n, line) in text.split('\n').enumerate() {
                    // `trim_ascii` stops at the first non-blank byte, unlike a scan of
                    // the whole line.
                    if line.trim_ascii().is_empty() {
                        continue;
                    }
                    match serde_json::from_str(line) {
                        Ok(record) => out.push(record),
                        Err(e) => warn(n, e),
                    }
                }
            }
            Err(_) => {
                for (n, line) in chunk.split(|&b| b == b'\n').enumerate() {
                    if line.trim_ascii().is_empty() {
                        continue;
                    }
                    match serde_json::from_slice(line) {
                        Ok(record) => out.push(record),
                        Err(e) => warn(n, e),
                    }
                }
            }
        }
        Records {
            records: out,
            skipped,
            torn: false,
        }
    }

    /// Sorts the file's lines into those that parse as `T` and those that do not, for
    /// a repair. Blank lines are dropped. The caller holds the lock.
    pub(crate) fn sort_lines<T: DeserializeOwned>(&self) -> Result<SortedLines, StoreError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(SortedLines::default());
            }
            Err(e) => return Err(StoreError::io(&self.path, "read", e)),
        };
        let whole = whole_lines_end(&bytes);
        let mut sorted = SortedLines::default();
        if !bytes[whole..].trim_ascii().is_empty() {
            sorted.torn = Some(bytes[whole..].to_vec());
        }
        for line in bytes[..whole].split(|&b| b == b'\n') {
            if line.trim_ascii().is_empty() {
                continue;
            }
            if serde_json::from_slice::<T>(line).is_ok() {
                sorted.good.extend_from_slice(line);
                sorted.good.push(b'\n');
                sorted.good_lines += 1;
            } else {
                sorted.unreadable.push(line.to_vec());
            }
        }
        Ok(sorted)
    }

    /// Appends one record as a line and fsyncs; returns only once the record and its
    /// newline are on disk, which is what acknowledges it. A last line without its
    /// newline (an append a crash cut short, never acknowledged) is cut off first, so
    /// that it never becomes a line in the middle of the file. The caller holds the lock.
    pub(crate) fn append<T: Serialize>(&self, record: &T) -> Result<(), StoreError> {
        self.ensure_dir()?;
        let mut line = serde_json::to_vec(record).map_err(|source| StoreError::Encode {
            path: self.path.clone(),
            source,
        })?;
        line.push(b'\n');
        let existed = self.path.exists();
        let mut file = open_private(
            &self.path,
            OpenOptions::new().create(true).read(true).append(true),
        )
        .map_err(|e| StoreError::io(&self.path, "open", e))?;
        // Narrowed before anything is written, so that a failure here leaves nothing
        // half done.
        restrict_file(&file, &self.path)?;
        let len = file
            .metadata()
            .map_err(|e| StoreError::io(&self.path, "look at", e))?
            .len();
        let whole = file_whole_lines_end(&mut file, len)
            .map_err(|e| StoreError::io(&self.path, "read", e))?;
        if whole < len {
            tracing::info!(
                file = %self.path.display(),
                bytes = len - whole,
                "cutting off a last line whose write never finished"
            );
            file.set_len(whole)
                .map_err(|e| StoreError::io(&self.path, "cut the unfinished last line of", e))?;
        }
        // In append mode every write goes to the end, wherever the reads left the
        // position.
        file.write_all(&line)
            .map_err(|e| StoreError::io(&self.path, "write", e))?;
        file.sync_all()
            .map_err(|e| StoreError::io(&self.path, "sync", e))?;
        if !existed {
            sync_dir_of(&self.path)?;
        }
        Ok(())
    }

    /// Replaces the file's contents atomically with `records`, one a line. The caller
    /// holds the lock.
    pub(crate) fn rewrite<T: Serialize>(&self, records: &[T]) -> Result<(), StoreError> {
        let mut buf = Vec::new();
        for r in records {
            serde_json::to_writer(&mut buf, r).map_err(|source| StoreError::Encode {
                path: self.path.clone(),
                source,
            })?;
            buf.push(b'\n');
        }
        self.rewrite_bytes(&buf)
    }

    /// Replaces the file's contents atomically: a temporary file is written and synced,
    /// renamed over the file, and the folder synced, so that a crash leaves either the
    /// old contents or the new. The caller holds the lock.
    pub(crate) fn rewrite_bytes(&self, bytes: &[u8]) -> Result<(), StoreError> {
        self.ensure_dir()?;
        let mut tmp_name = self.path.as_os_str().to_owned();
        tmp_name.push(".tmp");
        let tmp = PathBuf::from(tmp_name);
        let mut file = open_private(
            &tmp,
            OpenOptions::new().create(true).write(true).truncate(true),
        )
        .map_err(|e| StoreError::io(&tmp, "create", e))?;
        restrict_file(&file, &tmp)?;
        file.write_all(bytes)
            .map_err(|e| StoreError::io(&tmp, "write", e))?;
        file.sync_all()
            .map_err(|e| StoreError::io(&tmp, "sync", e))?;
        std::fs::rename(&tmp, &self.path).map_err(|e| StoreError::io(&self.path, "replace", e))?;
        sync_dir_of(&self.path)
    }

    /// Writes `lines` to a new private file beside this one, named
    /// `<name>.corrupt-<time>` (with a number added if that name is taken), synced with
    /// its folder. Returns its path. The caller holds the lock.
    pub(crate) fn keep_aside(
        &self,
        lines: &[Vec<u8>],
        at: SystemTime,
    ) -> Result<PathBuf, StoreError> {
        self.ensure_dir()?;
        let stamp: String = humantime::format_rfc3339_seconds(at)
            .to_string()
            .chars()
            .filter(|c| !matches!(c, '-' | ':'))
            .collect();
        let mut buf = Vec::new();
        for line in lines {
            buf.extend_from_slice(line);
            buf.push(b'\n');
        }
        for n in 0..1000u32 {
            let mut name = self.path.as_os_str().to_owned();
            name.push(format!(".corrupt-{stamp}"));
            if n > 0 {
                name.push(format!("-{n}"));
            }
            let path = PathBuf::from(name);
            let mut file =
                match open_private(&path, OpenOptions::new().write(true).create_new(true)) {
                    Ok(file) => file,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(StoreError::io(&path, "create", e)),
                };
            restrict_file(&file, &path)?;
            file.write_all(&buf)
                .map_err(|e| StoreError::io(&path, "write", e))?;
            file.sync_all()
                .map_err(|e| StoreError::io(&path, "sync", e))?;
            sync_dir_of(&path)?;
            return Ok(path);
        }
        Err(StoreError::io(
            &self.path,
            "find a free name beside",
            std::io::Error::from(std::io::ErrorKind::AlreadyExists),
        ))
    }
}

/// Cuts `bytes` into about `parts` byte ranges of similar size, each ending just
/// after a newline (or at the end), so that no line is split between two ranges.
fn split_at_lines(bytes: &[u8], parts: usize) -> Vec<(usize, usize)> {
    let mut ranges = Vec::with_capacity(parts);
    let mut start = 0;
    for k in 1..=parts {
        // The newline at or after the byte before the target: a line that ends just
        // before the target closes this range.
        let from = (bytes.len() * k / parts).saturating_sub(1).max(start);
        let end = match bytes[from..].iter().position(|&b| b == b'\n') {
            Some(i) if k < parts => from + i + 1,
            _ => bytes.len(),
        };
        if end > start {
            ranges.push((start, end));
        }
        start = end;
    }
    ranges
}

/// Makes sure an open file is readable by its owner only, even if it was created by
/// hand with wider permissions.
fn restrict_file(file: &File, path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(|e| StoreError::io(path, "set the permissions of", e))?;
    }
    #[cfg(not(unix))]
    let _ = (file, path);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split_at_lines;

    /// Each range ends after a newline or at the end, and together they cover the
    /// input once, in order.
    fn check(input: &str, parts: usize, expect: &[&str]) {
        let got: Vec<&str> = split_at_lines(input.as_bytes(), parts)
            .into_iter()
            .map(|(start, end)| &input[start..end])
            .collect();
        assert_eq!(got, expect, "{input:?} in {parts}");
    }

    #[test]
    fn chunks_end_at_line_ends() {
        check("", 2, &[]);
        check("a\n", 2, &["a\n"]);
        check("a\nb\n", 2, &["a\n", "b\n"]);
        check("a\nb", 2, &["a\n", "b"]);
        check("aaaa\nb\n", 2, &["aaaa\n", "b\n"]);
        check("a\nbbbbbbbb\n", 2, &["a\nbbbbbbbb\n"]);
        check("a\nb\nc\nd\n", 4, &["a\n", "b\n", "c\n", "d\n"]);
        check("a\nb\nc\nd", 3, &["a\n", "b\n", "c\nd"]);
        check("no newline at all", 2, &["no newline at all"]);
    }
}
