//! Systems other than Linux: no confinement yet (macOS's Seatbelt is a later step), so
//! the probe says so and Warden fails closed.

use std::ffi::OsString;

use crate::{Confinement, NoUserNamespaces, Support};

/// Why a confined program could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("confinement is only implemented on Linux")]
    Unsupported,
}

pub(crate) fn probe() -> Support {
    Support {
        landlock_abi: 0,
        seccomp: false,
        user_namespaces: Err(NoUserNamespaces::NotLinux),
    }
}

/// Never runs the program: there is no confinement on this system.
pub fn exec_confined(
    _confinement: &Confinement,
    _program: &OsString,
    _args: &[OsString],
) -> ExecError {
    ExecError::Unsupported
}
