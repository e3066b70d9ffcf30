//! The engine: policy layers, grants and the mode table put together.
//!
//! For each part of a call (each segment of a shell command, or the call itself):
//!
//! 1. the first deny rule (managed first, then project, then user) denies;
//! 2. a deny grant denies;
//! 3. the first ask rule asks (denies, in a mode that cannot ask);
//! 4. unless the part is Critical: the first allow rule allows, then an allow grant,
//!    then `auto_approved_tools` (in modes that can ask);
//! 5. otherwise the mode table decides (the built-in rules explain it in `ask` mode).
//!
//! The strictest part decides the call. A policy file that cannot be used turns every
//! "allow" into "ask" (or "deny", in modes that cannot ask); so does a grants file that
//! cannot be read, or has lines that cannot be read. A malformed call is denied.
//!
//! A session's grants are the session's own ([`SessionGrants`]), handed to each
//! evaluation; the engine keeps no state per session.
//!
//! The stored grants are read again before an evaluation whenever their file changed
//! (another process revoked, expired or added a grant), so such changes apply to the
//! next decision of a running agent.

//! The engine's concepts each have a file: `engine/decide.rs` is the ordered decision
//! for every part of a call and how the parts combine, `engine/explain.rs` the sentences
//! and deciders that explain it, and `engine/grants.rs` the stored grants (granting,
//! revoking, and re-reading them when their file changed).

mod decide;
mod explain;
mod grants;
mod outcome;
mod sandbox;

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use crate::assess::assess;
use crate::grant::{GrantSet, SessionGrants};
use crate::policy::{Policy, Settings};
use crate::store::{GrantStore, TrustStore};
use crate::{Context, Evaluation, Locations, Mode, ToolCall};

use grants::Stored;

/// The permission engine for one project. `Send + Sync`; evaluating takes read locks
/// only, except when the grants file changed since it was read (see [`Engine::decide`]).
#[derive(Debug)]
pub struct Engine {
    policy: Policy,
    project_root: PathBuf,
    store: Option<GrantStore>,
    stored: RwLock<Stored>,
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Engine {
    /// Loads the policy layers, the project's trust and the stored grants. Never
    /// fails: unusable policy files are recorded in the policy (and make calls ask),
    /// an unreadable grants file is logged and leaves no stored grants.
    pub fn load(locations: &Locations, project_root: &Path) -> Engine {
        Engine::load_for_client(locations, project_root, crate::rule::UNKNOWN_CLIENT)
    }

    /// [`Engine::load`] as the client called `client` (its `clientInfo.name`) is treated:
    /// its rules and its `[[client]]` defaults ([`Policy::for_client`]).
    pub fn load_for_client(locations: &Locations, project_root: &Path, client: &str) -> Engine {
        let root = project_root
            .canonicalize()
            .unwrap_or_else(|_| project_root.to_path_buf());
        let trusted = TrustStore::new(locations.trusted_projects()).is_trusted(&root);
        let policy = Policy::load(locations, &root, trusted, client);
        Engine::with_policy(policy, &root, Some(GrantStore::new(locations.grants())))
    }

    /// An engine over a policy built elsewhere, with an optional grants store. A
    /// grants file that cannot be read is handled as in [`Engine::load`].
    pub fn with_policy(policy: Policy, project_root: &Path, store: Option<GrantStore>) -> Engine {
        let stored = match &store {
            Some(store) => Stored::read(store, GrantSet::default()),
            None => Stored::default(),
        };
        Engine {
            policy,
            project_root: project_root.to_path_buf(),
            store,
            stored: RwLock::new(stored),
        }
    }

    /// The merged settings: default mode, timeouts, limits, model-hint policy.
    pub fn settings(&self) -> &Settings {
        &self.policy.settings
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The project root, canonical when it exists.
    pub fn project_root(&self) -> &Path {
        &self.project_root
    }

    /// Evaluates one call in a session, with the session's own grants.
    pub fn evaluate(
        &self,
        call: &ToolCall,
        ctx: &Context,
        mode: Mode,
        session: &SessionGrants,
    ) -> Evaluation {
        let assessment = assess(call, ctx);
        self.decide(call, &assessment, ctx, mode, session)
    }
}
