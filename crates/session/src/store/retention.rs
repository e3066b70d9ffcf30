//! Pruning old sessions at start-up.

use std::time::{Duration, SystemTime};

use super::{SessionStore, SessionStoreError};

/// How long sessions are kept and how many: the user's `session_retention_days` and
/// `max_sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub days: u64,
    pub max_sessions: usize,
}

impl Retention {
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
    /// open). Returns how many were deleted. A session that cannot be deleted is
    /// skipped with a warning.
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
                Err(e) => {
                    tracing::warn!(session = %id, error = %e, "cannot prune a stored session")
                }
            }
        }
        Ok(removed)
    }
}
