//! How a confined process is started: `<helper> sandbox-exec <profile> -- <program>
//! <args…>`, which of the two helper programs starts it, and how the helper reports that
//! confinement could not start.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::Confinement;

/// The file name of the small helper program, installed next to `warden`.
pub const SMALL_HELPER: &str = "warden-sandbox";

/// The programs that can apply a confinement, both with the same command line.
///
/// `warden` itself does it (`warden sandbox-exec`), and that is what an editor is asked
/// to run around a command. `warden-sandbox` does only this: a program of a few hundred
/// kilobytes with no runtime and the system's allocator, which starts in a fraction of
/// the time the whole `warden` binary takes (its dynamic relocations and its allocator's
/// set-up alone cost about a millisecond). Warden starts its own commands and MCP
/// servers with it when it is installed next to `warden`, and with `warden` when it is
/// not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Helper {
    warden: PathBuf,
    small: Option<PathBuf>,
}

impl Helper {
    /// The helpers of the `warden` binary at `warden`: itself, and `warden-sandbox` when
    /// an executable file of that name is next to it.
    pub fn beside(warden: PathBuf) -> Helper {
        let name = format!("{SMALL_HELPER}{}", std::env::consts::EXE_SUFFIX);
        let small = Some(warden.with_file_name(name)).filter(|p| is_executable_file(p));
        Helper { warden, small }
    }

    /// `warden` alone, as when no small helper is installed.
    pub fn warden_only(warden: PathBuf) -> Helper {
        Helper {
            warden,
            small: None,
        }
    }

    /// The program that confines the processes Warden starts itself.
    pub fn for_own_processes(&self) -> &Path {
        self.small.as_deref().unwrap_or(&self.warden)
    }

    /// The program an editor is asked to run around a command: `warden`, as the
    /// contract says, so the person reading the editor's terminal sees Warden's name.
    pub fn for_editor(&self) -> &Path {
        &self.warden
    }
}

#[cfg(unix)]
fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The hidden subcommand of the `warden` binary that applies a confinement and execs
/// (`warden-sandbox` takes the same command line).
pub const SUBCOMMAND: &str = "sandbox-exec";

/// The helper's exit code when confinement could not be applied: the program never ran.
pub const EXIT_SANDBOX_FAILED: i32 = 125;

/// The start of the one line the helper writes to stderr when confinement could not be
/// applied, so that whoever started it can tell that failure from the program's own.
pub const FAILURE_PREFIX: &str = "warden sandbox-exec: the sandbox could not start: ";

/// The program and arguments that run `program args…` inside `confinement`, through
/// `helper` (one of [`Helper`]'s programs).
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

    #[cfg(unix)]
    fn file(dir: &Path, name: &str, mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, "").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        path
    }

    #[cfg(unix)]
    #[test]
    fn the_small_helper_next_to_warden_starts_warden_s_own_processes_and_the_editor_runs_warden() {
        let dir = tempfile::tempdir().expect("a folder");
        let warden = file(dir.path(), "warden", 0o755);
        let small = file(dir.path(), SMALL_HELPER, 0o755);
        let helper = Helper::beside(warden.clone());
        assert_eq!(helper.for_own_processes(), small);
        assert_eq!(helper.for_editor(), warden);
    }

    #[cfg(unix)]
    #[test]
    fn without_an_executable_small_helper_next_to_it_warden_confines_its_own_processes() {
        let dir = tempfile::tempdir().expect("a folder");
        let warden = file(dir.path(), "warden", 0o755);
        assert_eq!(Helper::beside(warden.clone()).for_own_processes(), warden);
        // A file of that name that cannot be run is not used.
        file(dir.path(), SMALL_HELPER, 0o644);
        assert_eq!(Helper::beside(warden.clone()).for_own_processes(), warden);
        // Nor is a folder.
        let other = tempfile::tempdir().expect("a folder");
        let warden = file(other.path(), "warden", 0o755);
        std::fs::create_dir(other.path().join(SMALL_HELPER)).expect("mkdir");
        assert_eq!(Helper::beside(warden.clone()).for_own_processes(), warden);
        assert_eq!(
            Helper::warden_only(warden.clone()).for_own_processes(),
            warden
        );
    }
}
