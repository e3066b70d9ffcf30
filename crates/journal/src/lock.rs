//! One process owns a session's journal.
//!
//! A journal is held under an advisory exclusive lock (`flock` on Linux, through std's
//! `File::try_lock`) for as long as its [`Journal`](super::Journal) lives, so that two
//! Wardens never both append to one session: the second is refused, before it writes
//! anything. The lock belongs to the open file, so the kernel lets go of it when the
//! process dies, however it dies; a stale lock cannot outlive its holder.
//!
//! Within one process the lock is also what a second open of the same journal meets,
//! since every open is a file of its own. A session closed here may still be finishing
//! its last turn (a cancelled call being recorded) when the editor loads it again; the
//! process therefore counts the journals it holds, and an open that finds the lock held
//! by this very process waits, a bounded time, for it to be let go, while one held by
//! another process is refused at once.

use std::collections::BTreeMap;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::SessionStoreError;

/// How long an open waits for this process's own hold on a journal to end: enough for a
/// closed session's cancelled turn to record its last calls and finish.
pub(crate) const WAIT_FOR_OURS: Duration = Duration::from_secs(5);

/// The journals this process holds, by path, each with how many locks it holds on it
/// (briefly two, while one is being let go as the next is taken).
static HELD: Mutex<BTreeMap<PathBuf, usize>> = Mutex::new(BTreeMap::new());

/// Signalled whenever this process lets go of a journal.
static RELEASED: Condvar = Condvar::new();

/// How many times an open began to wait for this process's own hold: what tells a
/// test that the wait, not luck, let the open through.
#[cfg(test)]
pub(crate) static WAITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn held() -> MutexGuard<'static, BTreeMap<PathBuf, usize>> {
    HELD.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A journal file under this process's exclusive lock; dropping it lets go.
#[derive(Debug)]
pub(crate) struct Locked {
    file: File,
    path: PathBuf,
}

impl Locked {
    /// Takes the lock on `file`, the journal at `path` of session `id`. Held by another
    /// process: [`SessionStoreError::Busy`] at once. Held by this process: waits up to
    /// `wait` for it to be let go (blocking the calling thread, so call it from the
    /// blocking pool when `wait` is not zero), then [`SessionStoreError::BusyHere`].
    pub(crate) fn take(
        file: File,
        path: &Path,
        id: &str,
        wait: Duration,
    ) -> Result<Locked, SessionStoreError> {
        let deadline = Instant::now() + wait;
        // The try and the look at what this process holds are made under one guard,
        // and a holder here lets go of the lock before it takes the guard to say so:
        // a lock found held while the path is not counted is another process's.
        let mut guard = held();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => {
                    return Err(SessionStoreError::io(path, "lock", e));
                }
            }
            if !guard.contains_key(path) {
                return Err(SessionStoreError::Busy { id: id.to_owned() });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(SessionStoreError::BusyHere { id: id.to_owned() });
            }
            #[cfg(test)]
            WAITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            guard = RELEASED
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *guard.entry(path.to_owned()).or_insert(0) += 1;
        drop(guard);
        let locked = Locked {
            file,
            path: path.to_owned(),
        };
        // The path may have been deleted (`warden sessions delete`) between the open
        // and the lock: the file held is then no longer the session's journal.
        if !locked.is_at_path()? {
            return Err(SessionStoreError::NotFound { id: id.to_owned() });
        }
        Ok(locked)
    }

    pub(crate) fn file(&mut self) -> &mut File {
        &mut self.file
    }

    #[cfg(unix)]
    fn is_at_path(&self) -> Result<bool, SessionStoreError> {
        use std::os::unix::fs::MetadataExt;
        let open = self
            .file
            .metadata()
            .map_err(|e| SessionStoreError::io(&self.path, "look at", e))?;
        Ok(match std::fs::metadata(&self.path) {
            Ok(now) => (now.dev(), now.ino()) == (open.dev(), open.ino()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(SessionStoreError::io(&self.path, "look at", e)),
        })
    }

    #[cfg(not(unix))]
    fn is_at_path(&self) -> Result<bool, SessionStoreError> {
        Ok(self.path.exists())
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        // The lock goes first, then the count: whoever waits here finds the lock free
        // when it is told.
        if let Err(e) = self.file.unlock() {
            tracing::debug!(file = %self.path.display(), error = %e, "cannot unlock a session journal; closing it lets go");
        }
        let mut guard = held();
        if let Some(n) = guard.get_mut(&self.path) {
            *n -= 1;
            if *n == 0 {
                guard.remove(&self.path);
            }
        }
        drop(guard);
        RELEASED.notify_all();
    }
}
