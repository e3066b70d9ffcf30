//! Persistence: `grants.jsonl` and `trusted.jsonl` in the user's state folder.
//!
//! Both are JSON Lines files, one record a line, written only under an advisory lock
//! on a sibling `.lock` file (so that two Warden processes granting at once lose
//! nothing), fsynced after each write, and created with mode 0600. Reading needs no
//! lock.
//!
//! Every line ends with a newline, and a record is acknowledged only once it and its
//! newline are synced. So a last line without its newline is an append a crash cut
//! short, which nobody was told had succeeded: readers leave it out (it is not
//! damage), and the next append cuts it off before writing, so it never becomes a line
//! in the middle. A line in the middle that cannot be read is damage: it is skipped
//! with a warning while the others load, and [`GrantStore::load_checked`] counts it,
//! so that the engine can fail closed while it is there. [`GrantStore::repair`] keeps
//! such lines aside in a `.corrupt-<time>` file and rewrites the file without them.
//!
//! A running engine notices another process's changes by the file's
//! [`Fingerprint`], one `statx` per evaluation.
//!
//! Revoking a grant appends a revocation record rather than rewriting the file: an
//! append cannot lose a concurrent writer's line, and the history stays visible.
//! [`GrantStore::expire`] compacts the file (drops expired and revoked grants) by
//! rewriting it under the lock; it refuses a file with damaged lines, which it would
//! lose.

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
    /// A last line without its newline is not counted: it was never acknowledged.
    pub skipped: usize,
    /// Whether a last line without its newline (an unfinished append) was left out.
    pub torn: bool,
    /// The file's fingerprint, taken before it was read: a change during the read
    /// shows as a different fingerprint at the next look.
    pub fingerprint: Option<Fingerprint>,
}

impl LoadedGrants {
    /// What to tell the user about the lines that cannot be read, and how to repair the
    /// file; `None` when every line could be read (a last line without its newline is
    /// not damage).
    pub fn damage(&self) -> Option<String> {
        let lines = self.skipped;
        let (noun, them) = match lines {
            0 => return None,
            1 => ("line", "it"),
            _ => ("lines", "them"),
        };
        Some(format!(
            "{lines} unreadable {noun} skipped; `warden grants repair` keeps {them} in \
             grants.jsonl.corrupt-<time> and rewrites the file"
        ))
    }
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
            torn: read.torn,
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
    /// revoked ones. Returns how many grants were dropped. A file with lines that cannot
    /// be read is refused ([`StoreError::Unreadable`]): the rewrite would lose them, and
    /// one may be a revocation; [`GrantStore::repair`] keeps them aside first.
    pub fn expire(&self, now: SystemTime) -> Result<usize, StoreError> {
        let _lock = self.file.lock()?;
        let read = self.file.read_counted::<GrantRecord>()?;
        if read.skipped > 0 {
            return Err(StoreError::Unreadable {
                path: self.path().to_owned(),
                lines: read.skipped,
            });
        }
        let current = replay(read.records);
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

    /// Moves the lines that cannot be read (and a last line without its newline) to a
    /// new file beside this one, `grants.jsonl.corrupt-<time>` (mode 0600), then
    /// rewrites this file with the lines that can, byte for byte and in their order.
    /// Both happen under the writers' lock, so an append waits and is not lost; the
    /// aside file is synced before the rewrite, so a crash between them loses nothing.
    /// A file with nothing to repair is left alone, so a second repair does nothing.
    pub fn repair(&self, now: SystemTime) -> Result<Repair, StoreError> {
        let _lock = self.file.lock()?;
        let sorted = self.file.sort_lines::<GrantRecord>()?;
        let unreadable = sorted.unreadable.len();
        let torn = sorted.torn.is_some();
        if unreadable == 0 && !torn {
            return Ok(Repair {
                kept: sorted.good_lines,
                unreadable,
                torn,
                aside: None,
            });
        }
        let mut lines = sorted.unreadable;
        lines.extend(sorted.torn);
        let aside = self.file.keep_aside(&lines, now)?;
        self.file.rewrite_bytes(&sorted.good)?;
        Ok(Repair {
            kept: sorted.good_lines,
            unreadable,
            torn,
            aside: Some(aside),
        })
    }
}

/// What [`GrantStore::repair`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    /// The lines that could be read, and are still in the grants file.
    pub kept: usize,
    /// The lines that could not be read, now in the `aside` file.
    pub unreadable: usize,
    /// Whether a last line without its newline was moved to the `aside` file too.
    pub torn: bool,
    /// The file that holds the lines taken out; `None` when there was nothing to
    /// repair and nothing was written.
    pub aside: Option<PathBuf>,
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

    use super::{GrantRecord, GrantStore, Repair, Revocation};
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
            widens: Default::default(),
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
        bytes.push(b'\n');
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

    fn line(record: &GrantRecord) -> String {
        let mut line = serde_json::to_string(record).expect("json");
        line.push('\n');
        line
    }

    fn mode(path: &std::path::Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).expect("meta").permissions().mode() & 0o777
    }

    /// A crash during an append leaves a last line without its newline. It was never
    /// acknowledged, so it is left out without counting as damage (the file's grants
    /// stay trusted), and the next append cuts it off, so that it does not become a
    /// damaged line in the middle and the new grant starts on a line of its own.
    #[test]
    fn a_torn_last_line_is_dropped_and_the_next_append_starts_a_fresh_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("grants.jsonl");
        let store = GrantStore::new(&path);
        store.add(grant(1)).expect("add");
        let good = std::fs::read_to_string(&path).expect("read");
        // Half of a revocation of grant 1: never acknowledged, so it revokes nothing.
        let revoke = line(&GrantRecord::Revoke(Revocation {
            id: grant(1).id,
            at: SystemTime::UNIX_EPOCH,
        }));
        let torn = &revoke[..revoke.len() / 2];
        std::fs::write(&path, format!("{good}{torn}")).expect("write");

        let loaded = store.load_checked().expect("load");
        assert_eq!(loaded.grants, vec![grant(1)]);
        assert_eq!((loaded.skipped, loaded.torn), (0, true));
        assert_eq!(loaded.damage(), None);

        store.add(grant(2)).expect("add");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            format!("{good}{}", line(&GrantRecord::Grant(grant(2)))),
            "the torn line is cut off, and the new grant follows the last whole line"
        );
        let loaded = store.load_checked().expect("load");
        assert_eq!(loaded.grants, vec![grant(1), grant(2)]);
        assert_eq!((loaded.skipped, loaded.torn), (0, false));

        // A revocation cuts a torn line off the same way; so does a torn line that is
        // the whole file.
        std::fs::write(&path, torn).expect("write");
        assert_eq!(store.load_checked().expect("load").grants, vec![]);
        store.add(grant(3)).expect("add");
        assert!(store.revoke(&grant(3).id).expect("revoke"));
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.starts_with("{\"grant\":"), "{text}");
        assert_eq!(text.lines().count(), 2, "{text}");
        assert_eq!(store.load_checked().expect("load").skipped, 0);
    }

    /// Lines in the middle that cannot be read are damage: counted, and told with
    /// their number and how to repair the file. The grants around them load.
    #[test]
    fn garbage_in_the_middle_is_reported_with_its_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("grants.jsonl");
        let store = GrantStore::new(&path);
        store.add(grant(1)).expect("add");
        let mut text = std::fs::read_to_string(&path).expect("read");
        text.push_str("garbage\n{\"grant\": 3}\n");
        std::fs::write(&path, text).expect("write");
        store.add(grant(2)).expect("add");
        let loaded = store.load_checked().expect("load");
        assert_eq!(loaded.grants, vec![grant(1), grant(2)]);
        assert_eq!((loaded.skipped, loaded.torn), (2, false));
        assert_eq!(
            loaded.damage().as_deref(),
            Some(
                "2 unreadable lines skipped; `warden grants repair` keeps them in \
                 grants.jsonl.corrupt-<time> and rewrites the file"
            )
        );
        // Compacting would lose them (one may be a revocation): refused.
        let refused = store.expire(SystemTime::now());
        assert!(
            matches!(refused, Err(super::StoreError::Unreadable { lines: 2, .. })),
            "{refused:?}"
        );
        assert_eq!(store.load_checked().expect("load").skipped, 2);
    }

    /// The repair keeps every line that can be read, byte for byte and in order, moves
    /// the others (and a torn last line) to a private `.corrupt-<time>` file, and a
    /// second repair finds nothing to do.
    #[test]
    fn repair_keeps_every_good_grant_and_writes_the_corrupt_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("grants.jsonl");
        let store = GrantStore::new(&path);
        let g = |i| line(&GrantRecord::Grant(grant(i)));
        let revoke = line(&GrantRecord::Revoke(Revocation {
            id: grant(2).id,
            at: SystemTime::UNIX_EPOCH,
        }));
        std::fs::write(
            &path,
            format!(
                "{}garbage\n{}\n{{\"grant\": 3}}\n{revoke}{}{{\"revo",
                g(1),
                g(2),
                g(4)
            ),
        )
        .expect("write");
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000);
        let repair = store.repair(at).expect("repair");
        let aside = dir.path().join("grants.jsonl.corrupt-20260921T141320Z");
        assert_eq!(
            repair,
            Repair {
                kept: 4,
                unreadable: 2,
                torn: true,
                aside: Some(aside.clone()),
            }
        );
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            format!("{}{}{revoke}{}", g(1), g(2), g(4))
        );
        assert_eq!(
            std::fs::read_to_string(&aside).expect("read"),
            "garbage\n{\"grant\": 3}\n{\"revo\n"
        );
        assert_eq!(mode(&aside), 0o600);
        assert_eq!(mode(&path), 0o600);
        let loaded = store.load_checked().expect("load");
        assert_eq!(loaded.grants, vec![grant(1), grant(4)]);
        assert_eq!((loaded.skipped, loaded.torn), (0, false));

        let again = store.repair(at).expect("repair");
        assert_eq!(
            again,
            Repair {
                kept: 4,
                unreadable: 0,
                torn: false,
                aside: None,
            }
        );
        let files = std::fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(files, 3, "grants.jsonl, its lock and one aside file");

        // Damage found again later, in the same second, goes to a file of its own.
        std::fs::write(&path, format!("{}junk\n", g(1))).expect("write");
        let third = store.repair(at).expect("repair");
        assert_eq!(
            third.aside,
            Some(dir.path().join("grants.jsonl.corrupt-20260921T141320Z-1"))
        );
        assert_eq!(
            std::fs::read_to_string(&aside).expect("read"),
            "garbage\n{\"grant\": 3}\n{\"revo\n",
            "the first aside file is never overwritten"
        );
    }

    /// A repair holds the writers' lock from its read to its rename: a grant stored
    /// meanwhile by another writer is in the repaired file, and every damaged line ends
    /// up in exactly one aside file. Without the lock, a rename would drop the grants
    /// appended after the repair read the file.
    #[test]
    fn an_append_during_a_repair_is_not_lost() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("grants.jsonl");
        let n = 60;
        let writer = {
            let store = GrantStore::new(&path);
            std::thread::spawn(move || {
                for i in 0..n {
                    store.add(grant(i)).expect("add");
                    // Damage of its own, written under the lock, so that the repairs
                    // keep rewriting the file.
                    let _lock = store.file.lock().expect("lock");
                    let mut file = std::fs::OpenOptions::new()
                        .append(true)
                        .open(store.path())
                        .expect("open");
                    writeln!(file, "damage {i}").expect("write");
                }
            })
        };
        let store = GrantStore::new(&path);
        let mut k = 0;
        let mut rewrites = 0;
        loop {
            let done = writer.is_finished();
            let at = SystemTime::UNIX_EPOCH + Duration::from_secs(k);
            k += 1;
            if store.repair(at).expect("repair").aside.is_some() {
                rewrites += 1;
            }
            if done {
                break;
            }
        }
        writer.join().expect("writer");
        store
            .repair(SystemTime::UNIX_EPOCH + Duration::from_secs(k))
            .expect("repair");
        assert!(
            rewrites > 1,
            "the repairs ran while the writer wrote ({rewrites})"
        );

        let loaded = store.load_checked().expect("load");
        let ids: Vec<String> = loaded.grants.into_iter().map(|g| g.id).collect();
        assert_eq!(ids, (0..n).map(|i| grant(i).id).collect::<Vec<_>>());
        assert_eq!(loaded.skipped, 0);
        let mut damage: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.to_string_lossy().contains(".corrupt-"))
            .flat_map(|p| {
                std::fs::read_to_string(p)
                    .expect("read")
                    .lines()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        damage.sort_by_key(|l| l[7..].parse::<usize>().unwrap_or(usize::MAX));
        assert_eq!(
            damage,
            (0..n).map(|i| format!("damage {i}")).collect::<Vec<_>>()
        );
    }
}
