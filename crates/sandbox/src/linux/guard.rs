//! Protected entries that do not exist when a command starts: a missing `.envrc`, a
//! `.vscode/` where there is none, a `.git` that `git init` would make. A mount needs an
//! existing entry to cover, and Landlock cannot refuse one new name inside a writable
//! folder, so the command could create them with something in them that runs code
//! later, outside the sandbox. Reserving them would mean creating files and folders in
//! the user's project.
//!
//! Instead, when any is missing, the helper runs the command in a PID namespace of its
//! own under a guard process (its init), and when the command has ended (and with it,
//! by the kernel's rule for a PID namespace's init, every process it left) the guard
//! removes each watched entry that now exists and says so on the command's stderr.
//! Nothing the command created there outlives it:
//!
//! - the guard leaves the caller's process group (the command stays in it), so the
//!   caller's group kill (SIGTERM, then SIGKILL) reaches the helper and the command but
//!   not the guard; the helper also forwards the catchable signals to the guard, which
//!   passes them to every process of the command;
//! - when the helper dies (SIGKILL), the guard is told (its parent-death signal) and
//!   ends the command's processes, then removes what they created;
//! - the command cannot signal the guard: it is the init of the command's PID
//!   namespace, which receives only the signals it handles, and those end the command.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use super::ExecError;
use crate::Confinement;

/// The signals passed on to the command, as a process group would pass them.
const FORWARDED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

/// The guard's parent-death signal: the helper died (the caller killed it), so the
/// command ends now.
const HELPER_GONE: libc::c_int = libc::SIGUSR1;

/// Where a handler sends the signal it got: the guard's pid for the helper, `-1`
/// (every process of the namespace but the guard) for the guard.
static FORWARD_TO: AtomicI32 = AtomicI32::new(0);

/// Set in the guard once the command is to end (it ended, or the helper is gone):
/// from then on every process of the namespace is killed until none is left, since a
/// process that was forking while one kill went round can outlive that kill.
static ENDING: AtomicBool = AtomicBool::new(false);

/// The protected entries of `confinement` that do not exist now and that the helper
/// does not reserve (create empty and bind read-only) itself.
pub(super) fn missing(confinement: &Confinement) -> Vec<PathBuf> {
    confinement
        .read_only
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .filter(|p| {
            let reserved = confinement.reserve.contains(p);
            !(reserved && p.parent().is_some_and(Path::is_dir))
        })
        .cloned()
        .collect()
}

/// Runs `program args…` under a guard that removes what it creates at `watched`.
/// Must run confined, with a PID namespace unshared for the next child and one thread.
/// Returns only when the guard cannot start (or, in the command's own process, when
/// the program cannot be started).
pub(super) fn run(program: &OsStr, args: &[OsString], watched: &[PathBuf]) -> ExecError {
    match fork() {
        Err(err) => ExecError::Guard(err),
        Ok(0) => guard(program, args, watched),
        Ok(guard_pid) => {
            FORWARD_TO.store(guard_pid, Ordering::SeqCst);
            forward(&FORWARDED);
            let code = wait_for(guard_pid);
            std::process::exit(code)
        }
    }
}

/// The guard: the init of the command's PID namespace.
fn guard(program: &OsStr, args: &[OsString], watched: &[PathBuf]) -> ExecError {
    // SAFETY: sets this process's parent-death signal, a number.
    #[allow(unsafe_code)]
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, HELPER_GONE as libc::c_ulong);
    }
    FORWARD_TO.store(-1, Ordering::SeqCst);
    forward(&FORWARDED);
    forward(&[HELPER_GONE]);
    let command = match fork() {
        Err(err) => return ExecError::Guard(err),
        Ok(0) => {
            // The command: in the caller's process group (the terminal's foreground
            // one, if any, and the one the caller kills), with the signals it would
            // have had.
            reset(&FORWARDED);
            reset(&[HELPER_GONE]);
            let err = std::process::Command::new(program).args(args).exec();
            return ExecError::Exec {
                program: program.to_owned(),
                err,
            };
        }
        Ok(pid) => pid,
    };
    // Only now does the guard leave that group, so that the caller's SIGKILL to it
    // does not end the guard before it has cleaned up.
    // SAFETY: makes this process the leader of a group of its own.
    #[allow(unsafe_code)]
    unsafe {
        libc::setpgid(0, 0);
    }
    // The guard holds no end of the command's input or output, so that whoever reads
    // them sees them end with the command.
    // SAFETY: closing this process's own standard input and output.
    #[allow(unsafe_code)]
    unsafe {
        libc::close(0);
        libc::close(1);
    }
    let code = reap(command);
    let removed = remove_created(watched);
    report(&removed);
    std::process::exit(code)
}

/// Waits for every process of the namespace; when the command itself ends, the rest
/// is ended too (as the caller's group kill does after a command without the guard).
/// Returns the command's exit code (128 + the signal that ended it).
fn reap(command: libc::pid_t) -> i32 {
    let mut code = 1;
    loop {
        let mut status = 0;
        // SAFETY: waits for any child, writing its status into a local.
        #[allow(unsafe_code)]
        let pid = unsafe { libc::waitpid(-1, &raw mut status, 0) };
        if pid == command {
            code = exit_code(status);
            ENDING.store(true, Ordering::SeqCst);
        } else if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            // No child is left.
            return code;
        }
        if ENDING.load(Ordering::SeqCst) {
            end_all();
        }
    }
}

/// Ends every process of the namespace but the guard.
fn end_all() {
    // SAFETY: a signal to every process this one may signal: inside its PID namespace,
    // whose init it is, that is every process of the command and none outside.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(-1, libc::SIGKILL);
    }
}

/// Removes each watched entry that exists now; returns those removed and those that
/// could not be.
fn remove_created(watched: &[PathBuf]) -> Vec<(PathBuf, Option<std::io::Error>)> {
    let mut removed = Vec::new();
    for path in watched {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        // A symbolic link is removed, never followed; a folder with everything in it.
        let result = if meta.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        removed.push((path.clone(), result.err()));
    }
    removed
}

/// Says on the command's stderr what the guard removed. The helper has no logging;
/// its stderr is the command's own, which the caller reads (as it reads the line the
/// helper writes when confinement cannot start).
fn report(removed: &[(PathBuf, Option<std::io::Error>)]) {
    let mut stderr = std::io::stderr();
    for (path, err) in removed {
        let line = match err {
            None => format!(
                "warden sandbox-exec: removed {}, which the command created: it makes programs run code later, and only the user may allow writing it\n",
                path.display()
            ),
            Some(err) => format!(
                "warden sandbox-exec: could not remove {}, which the command created ({err}): it makes programs run code later\n",
                path.display()
            ),
        };
        let _ = stderr.write_all(line.as_bytes());
    }
}

/// The exit code a shell would give for a wait status.
fn exit_code(status: libc::c_int) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    }
}

/// Waits for `pid` and returns its exit code.
fn wait_for(pid: libc::pid_t) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: waits for one child, writing its status into a local.
        #[allow(unsafe_code)]
        let got = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        if got == pid {
            return exit_code(status);
        }
        if got < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 1;
        }
    }
}

fn fork() -> std::io::Result<libc::pid_t> {
    // SAFETY: the helper has one thread (a user namespace required it), so the child
    // inherits no lock held by another thread.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(pid)
    }
}

/// The handler: passes the signal on (the guard's parent-death signal ends everything).
extern "C" fn pass_on(signal: libc::c_int) {
    let to = FORWARD_TO.load(Ordering::SeqCst);
    let signal = if signal == HELPER_GONE {
        ENDING.store(true, Ordering::SeqCst);
        libc::SIGKILL
    } else {
        signal
    };
    if to != 0 {
        // SAFETY: `kill` is async-signal-safe.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(to, signal);
        }
    }
}

fn forward(signals: &[libc::c_int]) {
    for &signal in signals {
        set_handler(signal, pass_on as *const () as libc::sighandler_t);
    }
}

fn reset(signals: &[libc::c_int]) {
    for &signal in signals {
        set_handler(signal, libc::SIG_DFL);
    }
}

fn set_handler(signal: libc::c_int, handler: libc::sighandler_t) {
    // SAFETY: installs a handler that only calls `kill` (async-signal-safe) and reads
    // an atomic, or the default action; the structure is zeroed and then filled.
    #[allow(unsafe_code)]
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler;
        libc::sigemptyset(&raw mut action.sa_mask);
        libc::sigaction(signal, &raw const action, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_entries_that_do_not_exist_and_are_not_reserved_are_watched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).expect("mkdir");
        std::fs::write(root.join(".envrc"), "").expect("write");
        let confinement = Confinement {
            writable: vec![root.to_path_buf()],
            read_only: [".envrc", ".vscode", ".git/hooks", ".git/config"]
                .iter()
                .map(|e| root.join(e))
                .collect(),
            reserve: vec![root.join(".git/hooks")],
            ..Confinement::default()
        };
        assert_eq!(
            missing(&confinement),
            [root.join(".vscode"), root.join(".git/config")]
        );
        std::fs::remove_dir_all(root.join(".git")).expect("rm");
        // Without `.git`, its hooks folder cannot be reserved: it is watched.
        assert!(missing(&confinement).contains(&root.join(".git/hooks")));
    }

    #[test]
    fn what_was_created_at_a_watched_place_is_removed_and_nothing_else() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("keep"), "x").expect("write");
        std::fs::create_dir_all(root.join(".vscode/sub")).expect("mkdir");
        std::fs::write(root.join(".vscode/tasks.json"), "{}").expect("write");
        std::os::unix::fs::symlink(outside.path(), root.join(".cargo")).expect("symlink");
        let watched = [".vscode", ".cargo", ".envrc"].map(|e| root.join(e));
        let removed = remove_created(&watched);
        assert_eq!(removed.len(), 2);
        assert!(removed.iter().all(|(_, err)| err.is_none()));
        assert!(!root.join(".vscode").exists());
        assert!(std::fs::symlink_metadata(root.join(".cargo")).is_err());
        // The link was removed, not what it pointed at.
        assert!(outside.path().join("keep").exists());
    }
}
