//! `[[hook]]`: a command of the user's (or the administrator's) that takes part in
//! every decision (docs/policy.md, "Your own hooks").

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How long a hook may take when its entry does not say, in seconds.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 2;

/// One `[[hook]]` entry as written. Read from the user's and the managed policy only:
/// a project's hook would be a command that any cloned repository runs on its
/// reader's machine, so a project file that has one is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookEntry {
    /// A shell command line, run with `sh -c` in the session's folder.
    pub command: String,
    /// How long it may take before it counts as having said `ask`.
    pub timeout_secs: Option<u64>,
}

impl HookEntry {
    /// The entry's timeout, or the default.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.unwrap_or(DEFAULT_HOOK_TIMEOUT_SECS))
    }
}
