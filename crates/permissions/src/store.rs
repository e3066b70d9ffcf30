//! Persistence: `grants.jsonl` and `trusted.jsonl` in the user's state folder.
//!
//! Both are JSON Lines files, one record a line, written only under an advisory lock
//! on a sibling `.lock` file (so that two Warden processes granting at once lose
//! nothing), fsynced after each write, and created with mode 0600. Reading needs no
//! lock: appends are whole lines, and a torn or corrupt line is skipped with a
//! warning while the others load ([`GrantStore::load_checked`] counts them, so that
//! the engine can fail closed while they are there).
//!
//! A running engine notices another process's changes by the file's
//! [`Fingerprint`], one `statx` per evaluation.
//!
//! Revoking a grant appends a revocation record rather than rewriting the file: an
//! append cannot lose a concurrent writer's line, and the history stays visible.
//! [`GrantStore::expire`] compacts the file (drops expired and revoked grants) by
//! rewriting it under the lock.

mod jsonl;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::grant::{Grant, time};

use jsonl::JsonlFile;
pub use jsonl::{Fingerprint, StoreError};

/// One line of `grants.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GrantRecord {
    Grant(Grant),
    Revoke(Revocation),
}

/// A revocation of an earlier grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revocation {
    pub id: String,
    #[serde(with = "time")]
    pub at: SystemTime,
}

/// The stored grants as one read found them.
#[derive(Debug)]
pub struct LoadedGrants {
    /// Every grant not revoked, as in [`GrantStore::load`].
    pub grants: Vec<Grant>,
    /// Lines that could not be read. One of them may have been a revocation or a deny
    /// grant, so a reader that decides with the grants must not trust the rest to allow.
    pub skipped: usize,
    /// The file's fingerprint, taken before it was read: a change during the read
    /// shows as a different fingerprint at the next look.
    pub fingerprint: Option<Fingerprint>,
}

/// The grants file.
#[derive(Debug, Clone)]
pub struct GrantStore {
    file: JsonlFile,
}

/// Applies the records: the grants that no revocation names. Ids are random and
/// unique, so no further deduplication is needed (an equal grant is never written
/// twice, see [`GrantStore::add`]).
fn replay(records: Vec<GrantRecord>) -> Vec<Grant> {
    let revoked: HashSet<&str> = records
        .iter()
        .filter_map(|r| match r {
            GrantRecord::Revoke(r) => Some(r.id.as_str()),
            GrantRecord::Grant(_) => None,
        })
        .collect();
    if revoked.is_empty() {
        return records
            .into_iter()
            .filter_map(|r| match r {
                GrantRecord::Grant(g) => Some(g),
                GrantRecord::Revoke(_) => None,
            })
            .collect();
    }
    let revoked: HashSet<String> = revoked.into_iter().map(str::to_owned).collect();
    records
        .into_iter()
        .filter_map(|r| match r {
            GrantRecord::Grant(g) if !revoked.contains(&g.id) => Some(g),
            _ => None,
        })
        .collect()
}

impl GrantStore {
    pub fn new(path: impl Into<PathBuf>) -> GrantStore {
        GrantStore {
            file: JsonlFile::new(path.into()),
        }
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Every grant not revoked (expired ones included: the engine ignores them, and
    /// `warden grants list` shows them as expired). A missing file holds none.
    pub fn load(&self) -> Result<Vec<Grant>, StoreError> {
        Ok(replay(self.file.read::<GrantRecord>()?))
    }

    /// Like [`GrantStore::load`], with the number of unreadable lines and the file's
    /// fingerprint (see [`GrantStore::fingerprint`]).
    pub fn load_checked(&self) -> Result<LoadedGrants, StoreError> {
        let fingerprint = self.file.fingerprint()?;
        let read = self.file.read_counted::<GrantRecord>()?;
        Ok(LoadedGrants {
            grants: replay(read.records),
            skipped: read.skipped,
            fingerprint,
        })
    }

    /// What identifies the file's current contents, from its metadata alone (one system
    /// call): when it equals the fingerprint of the last load, the grants are unchanged.
    /// A missing file has none.
    pub fn fingerprint(&self) -> Result<Option<Fingerprint>, StoreError> {
        self.file.fingerprint()
    }

    /// Stores a grant, unless an equal one is already stored: then that one is
    /// returned and nothing is written.
    pub fn add(&self, grant: Grant) -> Result<Grant, StoreError> {
        let _lock = self.file.lock()?;
        let current = replay(self.file.read::<GrantRecord>()?);
        if let Some(existing) = current.into_iter().find(|g| g.same_decision(&grant)) {
            return Ok(existing);
        }
        self.file.append(&GrantRecord::Grant(grant.clone()))?;
        Ok(grant)
    }

    /// Revokes a grant by id. Returns false when no such grant is stored.
    pub fn revoke(&self, id: &str) -> Result<bool, StoreError> {
        let _lock = self.file.lock()?;
        let current = replay(self.file.read::<GrantRecord>()?);
        if !current.iter().any(|g| g.id == id) {
            return Ok(false);
        }
        self.file.append(&GrantRecord::Revoke(Revocation {
            id: id.to_owned(),
            at: SystemTime::now(),
        }))?;
        Ok(true)
    }

    /// Rewrites the file without the grants that expired before `now` and without
    /// revoked ones. Returns how many grants were dropped.
    pub fn expire(&self, now: SystemTime) -> Result<usize, StoreError> {
        let _lock = self.file.lock()?;
        let current = replay(self.file.read::<GrantRecord>()?);
        let before = current.len();
        let keep: Vec<GrantRecord> = current
            .into_iter()
            .filter(|g| g.expires_at.is_none_or(|t| t > now))
            .map(GrantRecord::Grant)
            .collect();
        let dropped = before - keep.len();
        self.file.rewrite(&keep)?;
        Ok(dropped)
    }
}

/// One line of `trusted.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustRecord {
    /// The project's canonical root.
    pub path: PathBuf,
    #[serde(with = "time")]
    pub trusted_at: SystemTime,
}

/// The trusted-projects file.
#[derive(Debug, Clone)]
pub struct TrustStore {
    file: JsonlFile,
}

impl TrustStore {
    pub fn new(path: impl Into<PathBuf>) -> TrustStore {
        TrustStore {
            file: JsonlFile::new(path.into()),
        }
    }

    /// Whether the project at `root` is trusted. The root is compared in canonical
    /// form, so a symlink or `..` cannot make another folder look trusted. A file that
    /// cannot be read trusts nothing.
    pub fn is_trusted(&self, root: &Path) -> bool {
        let Ok(canonical) = root.canonicalize() else {
            return false;
        };
        match self.file.read::<TrustRecord>() {
            Ok(records) => records.iter().any(|r| r.path == canonical),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the trusted projects; trusting none");
                false
            }
        }
    }

    /// Marks the project at `root` as trusted; returns its canonical path.
    pub fn trust(&self, root: &Path) -> Result<PathBuf, StoreError> {
        let canonical = root
            .canonicalize()
            .map_err(|source| StoreError::io(root, "resolve the project folder", source))?;
        let _lock = self.file.lock()?;
        if !self
            .file
            .read::<TrustRecord>()?
            .iter()
            .any(|r| r.path == canonical)
        {
            self.file.append(&TrustRecord {
                path: canonical.clone(),
                trusted_at: SystemTime::now(),
            })?;
        }
        Ok(canonical)
    }

    /// The trusted projects.
    pub fn list(&self) -> Result<Vec<TrustRecord>, StoreError> {
        self.file.read()
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::{GrantRecord, GrantStore, Revocation};
    use crate::Risk;
    use crate::grant::{Effect, Grant, GrantMatcher, Scope};

    fn grant(i: usize) -> Grant {
        Grant {
            id: format!("g-{i:016x}"),
            created_at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000),
            expires_at: None,
            client: "zed".into(),
            effect: Effect::Allow,
            scope: Scope::User,
            project: None,
            session: None,
            matchers: vec![GrantMatcher::Tool {
                tool: format!("mcp__s__t{i}"),
            }],
            max_risk: Risk::High,
        }
    }

    /// A file large enough to be parsed on several threads, with bad lines spread
    /// through it (one chunk holds invalid UTF-8, which takes the bytes path): every
    /// good line loads, every bad one is skipped, and a revocation in one chunk
    /// removes a grant from another.
    #[test]
    fn large_file_with_bad_lines_loads_every_good_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("grants.jsonl");
        let mut bytes = Vec::new();
        let n = 10_000;
        for i in 0..n {
            bytes.extend(serde_json::to_vec(&GrantRecord::Grant(grant(i))).expect("json"));
            bytes.push(b'\n');
            match i {
                10 => bytes.extend(b"not json at all\n"),
                5_000 => bytes.extend(b"{\"grant\": {\"id\": \"\xff\xfe\"}}\n   \n"),
                9_000 => bytes.extend(b"{\"grant\":{\"id\":\"g-torn\",\"crea\n"),
                _ => {}
            }
        }
        let revoke = GrantRecord::Revoke(Revocation {
            id: grant(3).id,
            at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_001),
        });
        bytes.extend(serde_json::to_vec(&revoke).expect("json"));
        assert!(
            bytes.len() > 1 << 20,
            "the file must take the parallel path"
        );
        std::fs::write(&path, &bytes).expect("write");

        let loaded = GrantStore::new(&path).load().expect("load");
        let expected: Vec<Grant> = (0..n).filter(|&i| i != 3).map(grant).collect();
        assert_eq!(loaded, expected);
    }

    /// The fingerprint is what tells a running engine that `warden grants revoke`
    /// (an append) or `warden grants expire` (a rewrite) changed the file; it stays
    /// the same while nothing writes, so the engine does not read the file again.
    #[test]
    fn the_fingerprint_changes_with_every_write_and_only_then() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = GrantStore::new(dir.path().join("grants.jsonl"));
        assert_eq!(store.fingerprint().expect("look"), None, "no file yet");
        store.add(grant(1)).expect("add");
        store.add(grant(2)).expect("add");
        let added = store.fingerprint().expect("look");
        assert!(added.is_some());
        assert_eq!(store.fingerprint().expect("look"), added, "nothing wrote");
        let loaded = store.load_checked().expect("load");
        assert_eq!(loaded.fingerprint, added);
        assert_eq!((loaded.grants.len(), loaded.skipped), (2, 0));

        assert!(store.revoke(&grant(1).id).expect("revoke"));
        let revoked = store.fingerprint().expect("look");
        assert_ne!(revoked, added);

        // The rewrite keeps one grant, a file as long as after the first add.
        store.expire(SystemTime::now()).expect("expire");
        let rewritten = store.fingerprint().expect("look");
        assert_ne!(rewritten, revoked);
        assert_eq!(store.load().expect("load"), vec![grant(2)]);
    }

    /// Unreadable lines are counted, so that the engine can fail closed; the lines that
    /// parse still load.
    #[test]
    fn load_checked_counts_the_lines_it_skips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("grants.jsonl");
        let store = GrantStore::new(&path);
        store.add(grant(1)).expect("add");
        let mut text = std::fs::read_to_string(&path).expect("read");
        text.push_str("garbage\n\n{\"grant\": 3}\n");
        std::fs::write(&path, text).expect("write");
        store.add(grant(2)).expect("add");
        let loaded = store.load_checked().expect("load");
        assert_eq!(loaded.grants, vec![grant(1), grant(2)]);
        assert_eq!(loaded.skipped, 2);
    }
}
