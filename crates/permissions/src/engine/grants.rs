//! The grant registry: the grants of each session in memory, and the stored grants as
//! the engine last read them, read again whenever their file changed.

use std::time::SystemTime;

use crate::Layer;
use crate::grant::{Effect, Grant, GrantProposal, GrantSet, Scope, SessionGrants};
use crate::policy::PolicyError;
use crate::store::{Fingerprint, GrantStore, LoadedGrants, StoreError};

use super::{Engine, read, write};

/// The stored grants as the engine last read them.
#[derive(Debug, Default)]
pub(super) struct Stored {
    pub(super) set: GrantSet,
    /// The file's fingerprint when it was read (`Some(None)`: there was no file).
    /// `None` when it could not even be looked at: then it is looked at again before
    /// the next evaluation.
    pub(super) seen: Option<Option<Fingerprint>>,
    /// Why the stored grants cannot be trusted, when they cannot: the file or some of
    /// its lines could not be read. It acts like a policy file that cannot be used.
    pub(super) error: Option<PolicyError>,
}

impl Stored {
    /// The grants of a successful read. Unreadable lines make it fail closed: a lost
    /// line may have been a revocation or a "reject always", so nothing that would be
    /// allowed is allowed unasked until the file is repaired. The grants that were read
    /// are kept, so their deny grants still deny. A last line without its newline is
    /// not among them: its append never finished, so it was never acknowledged.
    pub(super) fn of(store: &GrantStore, loaded: LoadedGrants) -> Stored {
        let error = loaded.damage().map(|damage| {
            tracing::warn!(
                file = %store.path().display(),
                lines = loaded.skipped,
                "some stored grants cannot be read; calls that would be allowed ask instead \
                 (`warden grants repair` keeps them aside and rewrites the file)"
            );
            grants_error(store, damage)
        });
        Stored {
            set: GrantSet::new(loaded.grants),
            seen: Some(loaded.fingerprint),
            error,
        }
    }

    /// After a failed read: the grants read before stay (their deny grants still
    /// deny), and everything that would be allowed asks.
    fn failed(
        store: &GrantStore,
        before: GrantSet,
        seen: Option<Option<Fingerprint>>,
        e: &StoreError,
    ) -> Stored {
        tracing::warn!(error = %e, "cannot load the stored grants; calls that would be allowed ask instead");
        Stored {
            set: before,
            seen,
            error: Some(grants_error(
                store,
                format!("the stored grants cannot be read: {e}"),
            )),
        }
    }

    pub(super) fn read(store: &GrantStore, before: GrantSet) -> Stored {
        match store.load_checked() {
            Ok(loaded) => Stored::of(store, loaded),
            Err(e) => {
                // Looked at separately, so that a file that exists but cannot be read is
                // not read again before every evaluation, only once it changed.
                let seen = store.fingerprint().ok();
                Stored::failed(store, before, seen, &e)
            }
        }
    }
}

/// A grants file that cannot be read may hold "reject always" decisions or
/// revocations; without them a permissive mode would allow what the user rejected. So
/// it counts as a policy error: every call that would be allowed asks instead.
fn grants_error(store: &GrantStore, error: String) -> PolicyError {
    PolicyError {
        file: store.path().display().to_string(),
        layer: Layer::User,
        error,
    }
}

impl Engine {
    /// Reads the stored grants again if their file changed since the last read, so that
    /// `warden grants revoke` and `warden grants expire` in another process take effect
    /// before this engine's next decision. What it costs when nothing changed is one
    /// `statx` of the file and a read lock.
    pub(super) fn refresh_grants(&self) {
        let Some(store) = &self.store else {
            return;
        };
        let now = store.fingerprint();
        let unchanged = |stored: &Stored| match (&stored.seen, &now) {
            (Some(seen), Ok(now)) => seen == now,
            _ => false,
        };
        if unchanged(&read(&self.stored)) {
            return;
        }
        let mut stored = write(&self.stored);
        // Another thread may have read the file while this one waited for the lock.
        if unchanged(&stored) {
            return;
        }
        let before = std::mem::take(&mut stored.set);
        *stored = match &now {
            Ok(_) => Stored::read(store, before),
            // Warned about once, not before every evaluation while it lasts.
            Err(_) if stored.seen.is_none() && stored.error.is_some() => Stored {
                set: before,
                seen: None,
                error: stored.error.take(),
            },
            Err(e) => Stored::failed(store, before, None, e),
        };
    }

    /// Turns a proposal into a grant: `Once` stores nothing, `Session` adds it to the
    /// session's own grants, `Project` and `User` store it in `grants.jsonl` (an equal
    /// stored grant is returned instead of a duplicate).
    pub fn grant(
        &self,
        session: &SessionGrants,
        proposal: &GrantProposal,
        scope: Scope,
        effect: Effect,
        client: &str,
    ) -> Result<Grant, StoreError> {
        self.grant_until(session, proposal, scope, effect, client, None)
    }

    /// Like [`Engine::grant`], with an expiry time.
    pub fn grant_until(
        &self,
        session: &SessionGrants,
        proposal: &GrantProposal,
        scope: Scope,
        effect: Effect,
        client: &str,
        expires_at: Option<SystemTime>,
    ) -> Result<Grant, StoreError> {
        let grant = Grant {
            id: Grant::new_id(),
            created_at: SystemTime::now(),
            expires_at,
            client: client.to_owned(),
            effect,
            scope,
            project: (scope == Scope::Project).then(|| self.project_root.clone()),
            session: (scope == Scope::Session).then(|| session.id().to_owned()),
            matchers: proposal.matchers.clone(),
            max_risk: proposal.max_risk,
            widens: proposal.widens.clone(),
        };
        match scope {
            Scope::Once => Ok(grant),
            Scope::Session => {
                session.insert(grant.clone());
                Ok(grant)
            }
            Scope::Project | Scope::User => {
                let stored = match &self.store {
                    Some(store) => store.add(grant)?,
                    None => grant,
                };
                let set = &mut write(&self.stored).set;
                if !set.grants().iter().any(|g| g.id == stored.id) {
                    set.insert(stored.clone());
                }
                Ok(stored)
            }
        }
    }

    /// Revokes a stored grant. Returns false when there is none with this id. (A
    /// session's grants are revoked through its [`SessionGrants`].)
    pub fn revoke(&self, id: &str) -> Result<bool, StoreError> {
        let mut found = false;
        if let Some(store) = &self.store {
            found |= store.revoke(id)?;
        }
        let stored = &mut write(&self.stored).set;
        if stored.grants().iter().any(|g| g.id == id) {
            *stored = GrantSet::new(
                stored
                    .grants()
                    .iter()
                    .filter(|g| g.id != id)
                    .cloned()
                    .collect(),
            );
            found = true;
        }
        Ok(found)
    }

    /// Why the stored grants cannot be trusted to allow, when they cannot (the file, or
    /// some of its lines, cannot be read), as of now: the file is read again first if it
    /// changed. This is what a session tells the user when it starts.
    pub fn grants_error(&self) -> Option<PolicyError> {
        self.refresh_grants();
        read(&self.stored).error.clone()
    }

    /// Re-reads the stored grants now, whether or not the file changed. (Evaluations
    /// re-read them by themselves once the file changed.)
    pub fn reload_grants(&self) -> Result<(), StoreError> {
        if let Some(store) = &self.store {
            let loaded = store.load_checked()?;
            *write(&self.stored) = Stored::of(store, loaded);
        }
        Ok(())
    }

    /// The stored grants and the given session's.
    pub fn grants(&self, session: Option<&SessionGrants>) -> Vec<Grant> {
        self.refresh_grants();
        let mut out: Vec<Grant> = read(&self.stored).set.grants().to_vec();
        if let Some(session) = session {
            out.extend(session.list());
        }
        out
    }
}
