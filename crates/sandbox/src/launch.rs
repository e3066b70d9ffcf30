//! How a confined process is started: `<warden> sandbox-exec <profile> -- <program>
//! <args…>`, and how the helper reports that confinement could not start.

use std::ffi::OsString;
use std::path::Path;

use crate::Confinement;

/// The hidden subcommand of the `warden` binary that applies a confinement and execs.
pub const SUBCOMMAND: &str = "sandbox-exec";

/// The helper's exit code when confinement could not be applied: the program never ran.
pub const EXIT_SANDBOX_FAILED: i32 = 125;

/// The start of the one line the helper writes to stderr when confinement could not be
/// applied, so that whoever started it can tell that failure from the program's own.
pub const FAILURE_PREFIX: &str = "warden sandbox-exec: the sandbox could not start: ";

/// The program and arguments that run `program args…` inside `confinement`, through
/// `helper` (the `warden` binary).
pub fn command_line(
    helper: &Path,
    confinement: &Confinement,
    program: impl Into<OsString>,
    args: impl IntoIterator<Item = impl Into<OsString>>,
) -> (OsString, Vec<OsString>) {
    let mut line: Vec<OsString> = vec![
        SUBCOMMAND.into(),
        confinement.to_arg().into(),
        "--".into(),
        program.into(),
    ];
    line.extend(args.into_iter().map(Into::into));
    (helper.as_os_str().to_owned(), line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_names_the_helper_the_profile_and_the_program() {
        let confinement = Confinement::default();
        let (program, args) = command_line(
            Path::new("/usr/bin/warden"),
            &confinement,
            "bash",
            ["-c", "ls"],
        );
        assert_eq!(program, "/usr/bin/warden");
        assert_eq!(args[0], "sandbox-exec");
        assert_eq!(
            Confinement::from_arg(args[1].to_str().unwrap_or_default()).ok(),
            Some(confinement)
        );
        assert_eq!(&args[2..], ["--", "bash", "-c", "ls"].map(OsString::from));
    }
}
