//! The helper's own run, shared by both programs that apply a confinement
//! (`warden sandbox-exec` and `warden-sandbox`, [`crate::Helper`]): read the command
//! line [`crate::command_line`] wrote, confine this process, and replace it with the
//! program. It runs before anything else of either binary (no logging, no runtime, no
//! threads: a user namespace needs a single-threaded process), and says why on stderr,
//! with its own exit code, when confinement cannot start.

use std::ffi::OsString;
use std::process::ExitCode;

use crate::{Confinement, EXIT_SANDBOX_FAILED, FAILURE_PREFIX, SUBCOMMAND};

/// Runs the helper on `args`, the command line after the program's own name
/// (`sandbox-exec <profile> -- <program> <args…>`). Returns only when the program could
/// not be started; then the exit code says why (see [`EXIT_SANDBOX_FAILED`]).
pub fn run_helper(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    let [subcommand, profile, separator, program, rest @ ..] = args.as_slice() else {
        return usage();
    };
    if subcommand != SUBCOMMAND {
        return usage();
    }
    if separator != "--" {
        return fail(
            &format!("{FAILURE_PREFIX}expected `--` after the profile"),
            EXIT_SANDBOX_FAILED,
        );
    }
    let confinement = match profile.to_str().map(Confinement::from_arg) {
        Some(Ok(confinement)) => confinement,
        Some(Err(err)) => return fail(&format!("{FAILURE_PREFIX}{err}"), EXIT_SANDBOX_FAILED),
        None => {
            return fail(
                &format!("{FAILURE_PREFIX}the profile is not UTF-8"),
                EXIT_SANDBOX_FAILED,
            );
        }
    };
    let err = crate::exec_confined(&confinement, program, rest);
    if err.is_exec() {
        // As a shell reports a command it cannot run.
        return fail(&format!("warden {SUBCOMMAND}: {err}"), 127);
    }
    fail(&format!("{FAILURE_PREFIX}{err}"), EXIT_SANDBOX_FAILED)
}

fn usage() -> ExitCode {
    fail(
        &format!("{FAILURE_PREFIX}usage: warden {SUBCOMMAND} <profile> -- <program> <args…>"),
        EXIT_SANDBOX_FAILED,
    )
}

fn fail(message: &str, code: i32) -> ExitCode {
    // The helper has no logging set up; its stderr is the command's, which is read.
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{message}");
    }
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
