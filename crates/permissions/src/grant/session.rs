//! A session's own grants: the answers given "for this session", held by the session
//! that gave them and gone with it.

use std::sync::RwLock;

use super::{Grant, GrantSet};

/// The grants of one session. The session owns them (Warden's session registry keeps
/// them with the session's other state) and hands them to every evaluation; the engine
/// matches them in the same ordered decision as the stored grants.
#[derive(Debug, Default)]
pub struct SessionGrants {
    /// The session's id, recorded in each grant.
    id: String,
    set: RwLock<GrantSet>,
}

impl SessionGrants {
    pub fn new(session_id: impl Into<String>) -> SessionGrants {
        SessionGrants {
            id: session_id.into(),
            set: RwLock::new(GrantSet::default()),
        }
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its grants, in the order they were given.
    pub fn list(&self) -> Vec<Grant> {
        self.read().grants().to_vec()
    }

    /// Removes the grant with this id; false when the session has none.
    pub fn revoke(&self, id: &str) -> bool {
        let mut set = self
            .set
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !set.grants().iter().any(|g| g.id == id) {
            return false;
        }
        *set = GrantSet::new(
            set.grants()
                .iter()
                .filter(|g| g.id != id)
                .cloned()
                .collect(),
        );
        true
    }

    /// Gives back a grant this session made before (a stored session loaded again).
    /// Only a live grant "for this session" made by a session of this id is taken.
    pub fn restore(&self, grant: Grant, now: std::time::SystemTime) {
        let ours = grant.scope == super::Scope::Session
            && grant.session.as_deref() == Some(self.id.as_str())
            && grant.expires_at.is_none_or(|at| at > now);
        if ours {
            self.insert(grant);
        }
    }

    pub(crate) fn insert(&self, grant: Grant) {
        self.set
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(grant);
    }

    pub(crate) fn read(&self) -> std::sync::RwLockReadGuard<'_, GrantSet> {
        self.set
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
