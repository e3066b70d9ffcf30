//! Kernel confinement for the processes Warden starts for tool calls: a `terminal`
//! command (run locally or through the editor) and a stdio MCP server.
//!
//! Confinement is data ([`Confinement`]: what a process may write, what it may not
//! read, whether it may use the network, how many processes it may have) and it is
//! applied in one place: [`exec_confined`], which the helper process runs just before it
//! replaces itself with the program. The helper is `warden-sandbox <profile> -- …`, a
//! small program of its own, or the hidden `warden sandbox-exec <profile> -- <program>
//! <args…>`, which an editor is asked to run ([`Helper`]; both run [`run_helper`]). On Linux that is a user and mount namespace (the
//! secret locations hidden, protected files bound read-only), a process bound
//! (`RLIMIT_NPROC`, counted in that user namespace), Landlock (filesystem and TCP) and
//! a seccomp filter (the sockets Landlock does not cover). Other systems build, and
//! [`Support::probe`] says confinement is unavailable there, so Warden fails closed.
//!
//! The crate holds no policy: which writes a call needs is the permission engine's
//! business, and whether confinement is on is the user's.

mod exec_config;
#[cfg(unix)]
mod group;
mod helper;
mod launch;
mod profile;
mod support;

#[cfg(target_os = "linux")]
mod linux;

pub use exec_config::{
    EXEC_CONFIG_FILES, EXEC_CONFIG_FOLDERS, is_exec_config, read_only_in_workspace,
};
#[cfg(unix)]
pub use group::ProcessGroup;
pub use helper::run_helper;
pub use launch::{
    EXIT_SANDBOX_FAILED, FAILURE_PREFIX, Helper, SMALL_HELPER, SUBCOMMAND, command_line,
};
pub use linux_or_not::{ExecError, exec_confined};
pub use profile::{
    Confinement, DEFAULT_MAX_PROCESSES, ProfileError, RESERVED_IN_WORKSPACE, SECRET_LOCATIONS,
    Workspace,
};
pub use support::{NoUserNamespaces, Support};

#[cfg(target_os = "linux")]
use linux as linux_or_not;

#[cfg(not(target_os = "linux"))]
mod elsewhere;
#[cfg(not(target_os = "linux"))]
use elsewhere as linux_or_not;
