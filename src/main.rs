//! The `warden` binary: the ACP agent on stdio, and the commands that inspect and
//! manage its policy, grants and audit log.

mod allocator;
mod cli;

use std::process::ExitCode;

use clap::Parser;

// Most of a tool call's path is small allocations (the SDK's JSON values above all);
// decision 0005 has the figures. With `no_thp` mimalloc does not ask for transparent huge
// pages, so that the resident set stays small.
#[global_allocator]
static GLOBAL: allocator::Mimalloc = allocator::Mimalloc;

fn main() -> ExitCode {
    // The sandbox helper runs before anything else: it must stay single-threaded and
    // start its program quickly.
    if let Some(code) = cli::sandbox::intercept() {
        return code;
    }
    // Editors start `warden` with no arguments. Clap would build its whole command tree
    // (every subcommand's arguments and help) only to find none given, which costs a
    // good part of start-up's code pages; what it makes of no arguments is fixed, so
    // that is used as is (`cli::tests` holds the two equal).
    let cli = if std::env::args_os().len() == 1 {
        cli::Cli::without_arguments()
    } else {
        cli::Cli::parse()
    };
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            // The error goes to stderr through tracing's writer setup in `cli::run` is not
            // guaranteed to exist yet, so print it plainly: stdout stays clean either way.
            #[allow(clippy::print_stderr)]
            {
                eprintln!("warden: {err:#}");
            }
            ExitCode::from(2)
        }
    }
}
