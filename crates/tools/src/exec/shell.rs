//! Which shell runs a `terminal` command line.
//!
//! Warden's permission engine reads command lines with a bash grammar: brace
//! expansion, `[[ … ]]`, `((…))` arithmetic, `$'…'` strings and `echo` as bash has
//! them. `sh` is dash on Debian and Ubuntu, which reads several of these differently
//! (`((rm x))` is two nested subshells there, `{a,b}` a plain word), so commands run
//! with bash whenever it is installed, and the judgement is of the dialect that runs.
//! Bash is looked for once per process, on the first command.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The shell that runs command lines: its program and whether it is bash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandShell {
    /// The program to start with `-c <command line>`: bash's full path, or `sh`.
    pub program: PathBuf,
    /// False when bash was not found and commands run with `sh`.
    pub is_bash: bool,
}

/// Variables that make bash read a file or set options before the command line
/// runs (`BASH_ENV` and `ENV` name start-up files, `SHELLOPTS` and `BASHOPTS` turn on
/// options), or change what the line does without appearing in it (`CDPATH` moves
/// where `cd name` goes, `GLOBIGNORE` what a glob matches): removed from the shell's
/// environment, so what runs is the command line that was judged and nothing else.
pub const SHELL_STARTUP_ENV: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "CDPATH",
    "GLOBIGNORE",
];

/// The environment a command line's shell starts with: Warden's own (`parent`)
/// without its secrets and without [`SHELL_STARTUP_ENV`], and with git told not to
/// prompt (the shell has no terminal to prompt on).
pub(crate) fn shell_env(
    secrets: &crate::secrets::Secrets,
    parent: impl IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut env: Vec<_> = secrets
        .child_env(parent)
        .into_iter()
        .filter(|(name, _)| {
            !SHELL_STARTUP_ENV
                .iter()
                .any(|s| name.as_encoded_bytes() == s.as_bytes())
        })
        .filter(|(name, _)| name != "GIT_TERMINAL_PROMPT")
        .collect();
    // The group is in the background of Warden's terminal (if any); a program that
    // opened /dev/tty to ask for a password would stop there until the timeout.
    env.push(("GIT_TERMINAL_PROMPT".into(), "0".into()));
    env
}

/// The shell for command lines, found once: bash on `PATH` (or in `/bin`,
/// `/usr/bin`), else `sh`, with a warning that the dialect differs.
pub fn command_shell() -> &'static CommandShell {
    static SHELL: OnceLock<CommandShell> = OnceLock::new();
    SHELL.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let shell = find_bash(&path);
        if shell.is_bash {
            tracing::info!(shell = %shell.program.display(), "terminal commands run with bash");
        } else {
            tracing::warn!(
                "bash was not found: terminal commands run with sh, whose dialect differs \
                 from the bash grammar they are judged with"
            );
        }
        shell
    })
}

/// Looks for an executable `bash` in the folders of `path` (a `PATH` value), then in
/// `/bin` and `/usr/bin`.
pub fn find_bash(path: &std::ffi::OsStr) -> CommandShell {
    let fallback = [PathBuf::from("/bin"), PathBuf::from("/usr/bin")];
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .chain(fallback)
        .map(|dir| dir.join("bash"))
        .find(|candidate| is_executable(candidate))
        .map_or_else(
            || CommandShell {
                program: PathBuf::from("sh"),
                is_bash: false,
            },
            |program| CommandShell {
                program,
                is_bash: true,
            },
        )
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_starts_without_start_up_files_options_cdpath_or_secrets() {
        let secrets = crate::secrets::Secrets::new(&["MY_TOKEN".to_owned()], |name| {
            (name == "MY_TOKEN").then(|| "tok-0123456789abcdef".to_owned())
        });
        let parent = [
            ("PATH", "/usr/bin"),
            ("BASH_ENV", "/tmp/evil.sh"),
            ("ENV", "/tmp/evil.sh"),
            ("SHELLOPTS", "xtrace"),
            ("BASHOPTS", "extglob"),
            ("CDPATH", "/"),
            ("GLOBIGNORE", "*"),
            ("MY_TOKEN", "tok-0123456789abcdef"),
            ("GIT_TERMINAL_PROMPT", "1"),
            ("LANG", "C.UTF-8"),
        ]
        .map(|(n, v)| (std::ffi::OsString::from(n), std::ffi::OsString::from(v)));
        let env = shell_env(&secrets, parent);
        let names: Vec<String> = env
            .iter()
            .map(|(n, v)| format!("{}={}", n.to_string_lossy(), v.to_string_lossy()))
            .collect();
        assert_eq!(
            names,
            ["PATH=/usr/bin", "LANG=C.UTF-8", "GIT_TERMINAL_PROMPT=0"],
            "{names:?}"
        );
    }

    #[test]
    fn bash_is_found_on_the_path_and_sh_is_the_fallback() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("mkdir");
        let fake = bin.join("bash");
        std::fs::write(&fake, "#!/bin/sh\n").expect("write");
        // Not executable: not bash.
        let found = find_bash(bin.as_os_str());
        assert_ne!(found.program, fake);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let found = find_bash(bin.as_os_str());
        assert_eq!(found.program, fake);
        assert!(found.is_bash);
        // Relative PATH entries are never used.
        let found = find_bash(std::ffi::OsStr::new("bin"));
        assert_ne!(found.program, PathBuf::from("bin/bash"));
    }
}
