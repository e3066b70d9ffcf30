//! Pruning old sessions at start-up.

use std::time::{Duration, SystemTime};

use crate::{SessionStore, SessionStoreError};

/// How long sessions are kept and how many: the user's `session_retention_days` and
/// `max_sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub days: u64,
    pub max_sessions: usize,
}

impl Retention {
    /// Reads the retention from the user's and the administrator's policy files (a
    /// project has no say, so none is read). `None` when either file has an error: the
    /// setting it meant may be a longer one, and nothing is deleted on a guess.
    pub fn load(locations: &warden_permissions::Locations) -> Option<Retention> {
        use warden_permissions::policy::Source;
        use warden_permissions::{Layer, Policy};
        let sources: Vec<Source> = [
            (Layer::User, locations.user_policy()),
            (Layer::Managed, locations.managed_policy.clone()),
        ]
        .into_iter()
        .filter_map(|(layer, path)| Source::read(layer, &path))
        .collect();
        let policy = Policy::from_sources(&sources, false);
        if let Some(e) = policy.errors.first() {
            tracing::warn!(file = %e.file, error = %e.error, "not pruning stored sessions: the policy has an error");
            return None;
        }
        Some(Retention::from_settings(&policy.settings))
    }

    pub fn from_settings(settings: &warden_permissions::Settings) -> Retention {
        Retention {
            days: settings.session_retention_days,
            max_sessions: settings.max_sessions,
        }
    }
}

impl SessionStore {
    /// Deletes the sessions not written for longer than the retention, then the oldest
    /// beyond `max_sessions`, never one named in `keep` (the sessions this process has
    /// open) nor one a process holds open (see `lock.rs`). Returns how many were
    /// deleted. A session that cannot be deleted is skipped with a warning.
    pub fn prune(
        &self,
        now: SystemTime,
        retention: Retention,
        keep: &[&str],
    ) -> Result<usize, SessionStoreError> {
        let max_age = Duration::from_secs(retention.days.saturating_mul(24 * 60 * 60));
        let ids = self.ids()?;
        let mut removed = 0;
        // The sessions in use count towards the limit first: they stay whatever
        // their age, so the others make room for them.
        let mut kept = ids
            .iter()
            .filter(|(id, _)| keep.contains(&id.as_str()))
            .count();
        for (id, modified) in ids {
            if keep.contains(&id.as_str()) {
                continue;
            }
            let age = now.duration_since(modified).unwrap_or_default();
            if age <= max_age && kept < retention.max_sessions {
                kept += 1;
                continue;
            }
            match self.delete(&id) {
                Ok(_) => removed += 1,
                // A session a running Warden has open is in use, whatever its age.
                Err(e @ (SessionStoreError::Busy { .. } | SessionStoreError::BusyHere { .. })) => {
                    tracing::debug!(session = %id, error = %e, "not pruning a session in use");
                }
                Err(e) => {
                    tracing::warn!(session = %id, error = %e, "cannot prune a stored session")
                }
            }
        }
        Ok(removed)
    }
}

/// Prunes the stored sessions as the user's policy says: what the agent runs from a
/// task of its own once `initialize` is answered, so that start-up never waits for it.
/// Problems are logged, never fatal.
pub fn prune_at_start(locations: &warden_permissions::Locations, keep: &[&str]) -> usize {
    // The folder first: without it there is nothing to prune, and the policy files
    // need not be read.
    let dir = locations.sessions_dir();
    if !dir.exists() {
        return 0;
    }
    let Some(retention) = Retention::load(locations) else {
        return 0;
    };
    match SessionStore::open(&dir).and_then(|s| s.prune(SystemTime::now(), retention, keep)) {
        Ok(n) => {
            if n > 0 {
                tracing::info!(pruned = n, "pruned old stored sessions");
            }
            n
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot prune the stored sessions");
            0
        }
    }
}
