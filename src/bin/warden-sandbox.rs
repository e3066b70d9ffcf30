//! `warden-sandbox sandbox-exec <profile> -- <program> <args…>`: Warden's sandbox helper
//! as a program of its own. It takes the command line `warden sandbox-exec` takes and
//! does the same (`warden_sandbox::run_helper`), but it holds nothing else: no runtime,
//! no protocol, the system's allocator. So it starts in a fraction of the time the whole
//! `warden` binary takes, and Warden starts its own commands and MCP servers with it
//! when it is installed next to `warden` (docs/decisions/0802-a-small-helper-program.md).

use std::process::ExitCode;

fn main() -> ExitCode {
    warden_sandbox::run_helper(std::env::args_os().skip(1))
}
