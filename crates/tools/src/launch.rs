//! How the processes of a call start: confined, through Warden's sandbox helper
//! (`warden-sandbox` or `warden sandbox-exec`, then `<profile> -- <program> <args…>`),
//! or not.

use std::ffi::OsString;
use std::sync::Arc;

use warden_sandbox::{Confinement, Helper};

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

/// A confinement and the programs that apply it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    pub helper: Arc<Helper>,
    pub confinement: Confinement,
}

impl Launch {
    /// The program and arguments with which Warden starts `program args…` itself.
    pub fn command(&self, program: OsString, args: Vec<OsString>) -> (OsString, Vec<OsString>) {
        match self {
            Launch::Confined(c) => warden_sandbox::command_line(
                c.helper.for_own_processes(),
                &c.confinement,
                program,
                args,
            ),
            Launch::Unconfined => (program, args),
        }
    }

    /// The program and arguments an editor is asked to run (`terminal/create`) for
    /// `program args…`: confined, that is `warden sandbox-exec …`.
    pub fn editor_command(
        &self,
        program: OsString,
        args: Vec<OsString>,
    ) -> (OsString, Vec<OsString>) {
        match self {
            Launch::Confined(c) => {
                warden_sandbox::command_line(c.helper.for_editor(), &c.confinement, program, args)
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
            helper: Arc::new(Helper::warden_only("/bin/warden".into())),
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

    /// Warden starts its own processes through the small helper when it is installed,
    /// and an editor is asked to run `warden sandbox-exec`, as the contract says.
    #[cfg(unix)]
    #[test]
    fn the_editor_is_asked_to_run_warden_and_warden_s_own_processes_start_with_the_small_helper() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("a folder");
        for name in ["warden", warden_sandbox::SMALL_HELPER] {
            let path = dir.path().join(name);
            std::fs::write(&path, "").expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let confined = Launch::Confined(Confined {
            helper: Arc::new(Helper::beside(dir.path().join("warden"))),
            confinement: Confinement::default(),
        });
        let line = || vec!["-c".into(), "ls".into()];
        let (own, own_args) = confined.command("bash".into(), line());
        let (editor, editor_args) = confined.editor_command("bash".into(), line());
        assert_eq!(
            own,
            dir.path().join(warden_sandbox::SMALL_HELPER).as_os_str()
        );
        assert_eq!(editor, dir.path().join("warden").as_os_str());
        assert_eq!(own_args, editor_args);
        assert_eq!(editor_args[0], "sandbox-exec");
        let (program, args) = Launch::Unconfined.editor_command("bash".into(), line());
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
