//! A JSON Lines file with locked appends.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

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
    pub(crate) fn read<T: DeserializeOwned + Send>(&self) -> Result<Vec<T>, StoreError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io(&self.path, "read", e)),
        };
        let lines: Vec<(usize, &[u8])> = bytes
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
            .collect();
        let parse = |chunk: &[(usize, &[u8])]| -> Vec<T> {
            let mut out = Vec::with_capacity(chunk.len());
            for (n, line) in chunk {
                match serde_json::from_slice(line) {
                    Ok(record) => out.push(record),
                    Err(e) => tracing::warn!(
                        file = %self.path.display(),
                        line = n + 1,
                        error = %e,
                        "skipping a torn or corrupt line"
                    ),
                }
            }
            out
        };
        const PARALLEL_FROM: usize = 4096;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        if lines.len() < PARALLEL_FROM || threads < 2 {
            return Ok(parse(&lines));
        }
        let chunk = lines.len().div_ceil(threads);
        let parts: Vec<Vec<T>> = std::thread::scope(|scope| {
            let handles: Vec<_> = lines
                .chunks(chunk)
                .map(|c| scope.spawn(move || parse(c)))
                .collect();
            // A panicking parser thread is a bug; its lines are lost rather than the
            // whole file (the records are still on disk).
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        Ok(parts.into_iter().flatten().collect())
    }

    /// Appends one record as a line and fsyncs. The caller holds the lock.
    pub(crate) fn append<T: Serialize>(&self, record: &T) -> Result<(), StoreError> {
        self.ensure_dir()?;
        let mut line = serde_json::to_vec(record).map_err(|source| StoreError::Encode {
            path: self.path.clone(),
            source,
        })?;
        line.push(b'\n');
        let mut file = open_private(
            &self.path,
            OpenOptions::new().create(true).read(true).append(true),
        )
        .map_err(|e| StoreError::io(&self.path, "open", e))?;
        // A line torn by a crash must not swallow the next record: start afresh.
        let len = file
            .seek(SeekFrom::End(0))
            .map_err(|e| StoreError::io(&self.path, "seek", e))?;
        if len > 0 {
            file.seek(SeekFrom::End(-1))
                .map_err(|e| StoreError::io(&self.path, "seek", e))?;
            let mut last = [0u8];
            file.read_exact(&mut last)
                .map_err(|e| StoreError::io(&self.path, "read", e))?;
            if last[0] != b'\n' {
                line.insert(0, b'\n');
            }
        }
        file.write_all(&line)
            .map_err(|e| StoreError::io(&self.path, "write", e))?;
        file.sync_all()
            .map_err(|e| StoreError::io(&self.path, "sync", e))?;
        restrict(&self.path)
    }

    /// Replaces the file's contents atomically (temp file, fsync, rename). The
    /// caller holds the lock.
    pub(crate) fn rewrite<T: Serialize>(&self, records: &[T]) -> Result<(), StoreError> {
        self.ensure_dir()?;
        let mut tmp_name = self.path.as_os_str().to_owned();
        tmp_name.push(".tmp");
        let tmp = PathBuf::from(tmp_name);
        let mut buf = Vec::new();
        for r in records {
            serde_json::to_writer(&mut buf, r).map_err(|source| StoreError::Encode {
                path: self.path.clone(),
                source,
            })?;
            buf.push(b'\n');
        }
        let mut file = open_private(
            &tmp,
            OpenOptions::new().create(true).write(true).truncate(true),
        )
        .map_err(|e| StoreError::io(&tmp, "create", e))?;
        file.write_all(&buf)
            .map_err(|e| StoreError::io(&tmp, "write", e))?;
        file.sync_all()
            .map_err(|e| StoreError::io(&tmp, "sync", e))?;
        std::fs::rename(&tmp, &self.path).map_err(|e| StoreError::io(&self.path, "replace", e))?;
        restrict(&self.path)
    }
}

/// Makes sure the file is readable by its owner only, even if it was created by
/// hand with wider permissions.
fn restrict(path: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| StoreError::io(path, "set the permissions of", e))?;
    }
    Ok(())
}
