//! How the processes of a call start: confined, through Warden's sandbox helper
//! (`warden sandbox-exec <profile> -- <program> <args…>`), or not.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use warden_sandbox::Confinement;

/// How a call's process starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// Inside this confinement.
    Confined(Confined),
    /// Without confinement: only when the user was asked for exactly that (a call
    /// that asked to leave the sandbox, a system that cannot confine), or turned
    /// confinement off in their policy.
    Unconfined,
}

/// A confinement and the program that applies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    /// Warden's own binary, whose hidden `sandbox-exec` applies the confinement.
    pub helper: Arc<PathBuf>,
    pub confinement: Confinement,
}

impl Launch {
    /// The program and arguments that start `program args…` this way.
    pub fn command(&self, program: OsString, args: Vec<OsString>) -> (OsString, Vec<OsString>) {
        match self {
            Launch::Confined(c) => {
                warden_sandbox::command_line(&c.helper, &c.confinement, program, args)
            }
            Launch::Unconfined => (program, args),
        }
    }

    /// The confinement, when confined.
    pub fn confinement(&self) -> Option<&Confinement> {
        match self {
            Launch::Confined(c) => Some(&c.confinement),
            Launch::Unconfined => None,
        }
    }
}

/// When the sandbox helper could not confine the command (it never ran): why, from its
/// output.
pub(crate) fn sandbox_failure(exit_code: Option<i32>, output: &str) -> Option<String> {
    if exit_code != Some(warden_sandbox::EXIT_SANDBOX_FAILED) {
        return None;
    }
    output.lines().find_map(|line| {
        line.strip_prefix(warden_sandbox::FAILURE_PREFIX)
            .map(str::to_owned)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_confined_launch_goes_through_the_helper_and_an_unconfined_one_does_not() {
        let confined = Launch::Confined(Confined {
            helper: Arc::new(PathBuf::from("/bin/warden")),
            confinement: Confinement::default(),
        });
        let (program, args) = confined.command("bash".into(), vec!["-c".into(), "ls".into()]);
        assert_eq!(program, "/bin/warden");
        assert_eq!(args[0], "sandbox-exec");
        assert_eq!(&args[2..], ["--", "bash", "-c", "ls"].map(OsString::from));
        let (program, args) =
            Launch::Unconfined.command("bash".into(), vec!["-c".into(), "ls".into()]);
        assert_eq!(program, "bash");
        assert_eq!(args, ["-c", "ls"].map(OsString::from));
    }

    #[test]
    fn a_helper_failure_is_told_from_the_command_s_own() {
        let output = format!("{}no user namespaces\n", warden_sandbox::FAILURE_PREFIX);
        assert_eq!(
            sandbox_failure(Some(125), &output).as_deref(),
            Some("no user namespaces")
        );
        assert_eq!(sandbox_failure(Some(1), &output), None);
        assert_eq!(sandbox_failure(Some(125), "boom"), None);
    }
}
