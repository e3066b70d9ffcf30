//! Confinement on Linux, applied by the helper process to itself, in this order:
//!
//! 1. a user namespace with a mount namespace inside it (`namespace.rs`): the secret
//!    locations are covered by empty read-only mounts, the protected entries of the
//!    workspace bound read-only over themselves;
//! 2. the process bound (`RLIMIT_NPROC`, set after the user namespace exists, so that it
//!    counts the processes of this namespace only: the command's own tree);
//! 3. Landlock (`rules.rs`): reads everywhere, writes only below the writable folders,
//!    no TCP `bind` or `connect` without the network, no signals or abstract sockets
//!    out of the sandbox; it also sets `PR_SET_NO_NEW_PRIVS` and forbids any later
//!    mount, so the hidden locations stay hidden;
//! 4. seccomp (`filter.rs`): no UDP, raw or other non-TCP sockets without the network,
//!    no `io_uring`;
//! 5. `exec` of the program, which inherits all of it; or, when a protected entry of
//!    the workspace does not exist (so no mount can cover it), the program runs in a
//!    PID namespace of its own under a guard that removes what it created there
//!    (`guard.rs`).

mod filter;
mod guard;
mod namespace;
mod rules;

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

use crate::{Confinement, Support};

/// Why a confined program could not be started. The program never ran.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("could not create the user and mount namespaces: {0}")]
    Namespace(std::io::Error),
    #[error("could not {what} {}: {err}", path.display())]
    Mount {
        what: &'static str,
        path: PathBuf,
        err: std::io::Error,
    },
    #[error("could not set the process bound: {0}")]
    Limit(std::io::Error),
    #[error("Landlock: {0}")]
    Landlock(#[from] landlock::RulesetError),
    #[error("Landlock is not enforced by this kernel")]
    NotEnforced,
    #[error("seccomp: {0}")]
    Seccomp(#[from] seccompiler::Error),
    #[error("seccomp: {0}")]
    SeccompBackend(#[from] seccompiler::BackendError),
    #[error("could not start the guard of the protected entries: {0}")]
    Guard(std::io::Error),
    /// A protected entry that is a symbolic link to nothing: it cannot be bound
    /// read-only (there is nothing to bind) and is not missing (so it is not guarded),
    /// and the command could create what it points to.
    #[error(
        "{} is a symbolic link to nothing; commands do not run confined until it is removed or points at something",
        .0.display()
    )]
    DanglingProtected(PathBuf),
    #[error("cannot run {}: {err}", program.to_string_lossy())]
    Exec {
        program: OsString,
        err: std::io::Error,
    },
}

impl ExecError {
    /// True when confinement was in place and only the program could not be started
    /// (not found, not executable).
    pub fn is_exec(&self) -> bool {
        matches!(self, ExecError::Exec { .. })
    }
}

/// Confines this process and replaces it with `program args…`. Returns only on failure.
/// Must run while the process has one thread (a user namespace requires it).
pub fn exec_confined(confinement: &Confinement, program: &OsStr, args: &[OsString]) -> ExecError {
    let watched = guard::missing(confinement);
    if let Err(err) = confine(confinement, !watched.is_empty()) {
        return err;
    }
    if !watched.is_empty() {
        return guard::run(program, args, &watched);
    }
    let err = std::process::Command::new(program).args(args).exec();
    ExecError::Exec {
        program: program.to_owned(),
        err,
    }
}

/// Applies every layer to this process; `guarded` also unshares a PID namespace,
/// which the next child (the guard) will be the init of.
fn confine(confinement: &Confinement, guarded: bool) -> Result<(), ExecError> {
    namespace::enter(confinement, guarded)?;
    let bound = confinement.max_processes;
    rustix::process::setrlimit(
        rustix::process::Resource::Nproc,
        rustix::process::Rlimit {
            current: Some(bound),
            maximum: Some(bound),
        },
    )
    .map_err(|e| ExecError::Limit(e.into()))?;
    rules::restrict(confinement)?;
    filter::install(confinement.network)?;
    Ok(())
}

pub(crate) fn probe() -> Support {
    Support {
        landlock_abi: rules::abi_version(),
        seccomp: std::fs::read_to_string("/proc/self/status")
            .is_ok_and(|status| status.lines().any(|l| l.starts_with("Seccomp_filters:"))),
        user_namespaces: namespace::available(),
    }
}
