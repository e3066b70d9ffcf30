//! `warden sandbox-exec <profile> -- <program> <args…>` (hidden): the helper that
//! confines itself as the profile says and replaces itself with the program
//! (`warden_sandbox::exec_confined`). It runs before anything else of the binary (no
//! logging, no runtime, no threads: a user namespace needs a single-threaded process),
//! and says why on stderr, with its own exit code, when confinement cannot start.

use std::ffi::OsString;
use std::process::ExitCode;

use warden_sandbox::{Confinement, EXIT_SANDBOX_FAILED, FAILURE_PREFIX, SUBCOMMAND};

/// Runs the helper when the command line asks for it.
pub fn intercept() -> Option<ExitCode> {
    let mut args = std::env::args_os();
    args.next();
    if args.next()? != SUBCOMMAND {
        return None;
    }
    Some(run(args.collect()))
}

fn fail(message: &str, code: i32) -> ExitCode {
    // The helper has no logging set up; its stderr is the command's, which is read.
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{message}");
    }
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn run(args: Vec<OsString>) -> ExitCode {
    let [profile, separator, program, rest @ ..] = args.as_slice() else {
        return fail(
            &format!("{FAILURE_PREFIX}usage: warden {SUBCOMMAND} <profile> -- <program> <args…>"),
            EXIT_SANDBOX_FAILED,
        );
    };
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
    let err = warden_sandbox::exec_confined(&confinement, program, rest);
    if err.is_exec() {
        // As a shell reports a command it cannot run.
        return fail(&format!("warden {SUBCOMMAND}: {err}"), 127);
    }
    fail(&format!("{FAILURE_PREFIX}{err}"), EXIT_SANDBOX_FAILED)
}
