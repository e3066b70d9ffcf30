//! `warden sandbox-exec <profile> -- <program> <args…>` (hidden): the helper that
//! confines itself as the profile says and replaces itself with the program
//! (`warden_sandbox::run_helper`, which `warden-sandbox` runs too). It runs before
//! anything else of the binary: no logging, no runtime, no threads.

use std::process::ExitCode;

use warden_sandbox::SUBCOMMAND;

/// Runs the helper when the command line asks for it.
pub fn intercept() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1).peekable();
    if *args.peek()? != SUBCOMMAND {
        return None;
    }
    Some(warden_sandbox::run_helper(args))
}
