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
//!
//! The guard is not a copy of the helper but a process that shares its memory
//! (`process.rs`), and it spawns the command the same way, so that what it adds to a
//! command's start stays small.

mod process;

use std::ffi::{OsStr, OsString, c_void};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use rustix::process::{Pid, Signal, WaitOptions, WaitStatus};

use super::ExecError;
use crate::Confinement;

/// The signals passed on to the command, as a process group would pass them.
const FORWARDED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

/// The guard's parent-death signal: the helper died (the caller killed it), so the
/// command ends now.
const HELPER_GONE: libc::c_int = libc::SIGUSR1;

/// Every signal either process handles.
const SIGNALS: [libc::c_int; 5] = [
    FORWARDED[0],
    FORWARDED[1],
    FORWARDED[2],
    FORWARDED[3],
    HELPER_GONE,
];

/// The guard's pid, where the helper's handler sends the signals it gets (0 until the
/// guard exists). The guard's own handler sends them to every process of its namespace.
static TO_GUARD: AtomicI32 = AtomicI32::new(0);

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

/// What the helper gives the guard, and what the guard leaves for the helper when it
/// could not start the command. It lives in the helper's memory, which the guard
/// shares (`process`).
struct Job<'a> {
    program: &'a OsStr,
    args: &'a [OsString],
    watched: &'a [PathBuf],
    /// The helper's signal mask before it blocked the forwarded signals.
    mask: libc::sigset_t,
    failed: Option<ExecError>,
}

/// Runs `program args…` under a guard that removes what it creates at `watched`.
/// Must run confined, with a PID namespace unshared for the next child and one thread.
/// Returns only when the guard or the command cannot start.
pub(super) fn run(program: &OsStr, args: &[OsString], watched: &[PathBuf]) -> ExecError {
    let stack = match process::Stack::new() {
        Ok(stack) => stack,
        Err(err) => return ExecError::Guard(err),
    };
    // No forwarded signal is handled until each process has its own handler: the
    // helper's is set here, before the guard exists (so that the helper calls no C
    // library function afterwards), the guard's in the guard.
    let mask = block(&SIGNALS);
    forward(&FORWARDED, to_guard);
    let mut job = Job {
        program,
        args,
        watched,
        mask,
        failed: None,
    };
    let job: *mut Job = &raw mut job;
    let guard_pid = match process::start(&stack, guard_main, job) {
        Ok(pid) => pid,
        Err(err) => {
            set_mask(&mask);
            return ExecError::Guard(err);
        }
    };
    // From here until the guard has ended: raw system calls only (`process`).
    TO_GUARD.store(guard_pid, Ordering::SeqCst);
    set_mask(&mask);
    let code = wait_for(guard_pid);
    std::sync::atomic::fence(Ordering::SeqCst);
    // SAFETY: the guard has ended, so nothing else uses `job` any more, and everything
    // it wrote there is visible.
    #[allow(unsafe_code)]
    if let Some(err) = unsafe { (*job).failed.take() } {
        return err;
    }
    exit_now(code)
}

/// The guard's process: runs the guard and, when the command could not be started,
/// leaves the reason for the helper.
extern "C" fn guard_main(job: *mut c_void) -> libc::c_int {
    // SAFETY: the helper's `Job`, valid until the helper has waited for this process,
    // and not touched by the helper until then.
    #[allow(unsafe_code)]
    let job = unsafe { &mut *job.cast::<Job>() };
    let err = guard(job.program, job.args, job.watched, &job.mask);
    job.failed = Some(err);
    1
}

/// The guard: the init of the command's PID namespace.
fn guard(
    program: &OsStr,
    args: &[OsString],
    watched: &[PathBuf],
    mask: &libc::sigset_t,
) -> ExecError {
    // SAFETY: sets this process's parent-death signal, a number.
    #[allow(unsafe_code)]
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, HELPER_GONE as libc::c_ulong);
    }
    forward(&SIGNALS, to_command);
    set_mask(mask);
    // The command: in the caller's process group (the terminal's foreground one, if
    // any, and the one the caller kills), with the signals it would have had. It is
    // spawned, not forked: `posix_spawn` shares this process's memory until the exec
    // (the C library blocks every signal meanwhile and resets the handlers above to
    // their default in the child), so no page table is copied and nothing is faulted
    // in again before the program starts.
    let command = match std::process::Command::new(program).args(args).spawn() {
        Ok(child) => child.id(),
        Err(err) => {
            return ExecError::Exec {
                program: program.to_owned(),
                err,
            };
        }
    };
    // Only now does the guard leave that group, so that the caller's SIGKILL to it
    // does not end the guard before it has cleaned up.
    // SAFETY: makes this process the leader of a group of its own.
    #[allow(unsafe_code)]
    unsafe {
        libc::setpgid(0, 0);
    }
    // The guard holds no end of the command's input or output, so that whoever reads
    // them sees them end with the command. (The guard's file table is its own.)
    // SAFETY: closing this process's own standard input and output.
    #[allow(unsafe_code)]
    unsafe {
        libc::close(0);
        libc::close(1);
    }
    let code = reap(command);
    let removed = remove_created(watched);
    report(&removed);
    exit_now(code)
}

/// Waits for every process of the namespace; when the command itself ends, the rest
/// is ended too (as the caller's group kill does after a command without the guard).
/// Returns the command's exit code (128 + the signal that ended it).
fn reap(command: u32) -> i32 {
    let mut code = 1;
    loop {
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some((pid, status))) => {
                if u32::try_from(pid.as_raw_nonzero().get()) == Ok(command) {
                    code = exit_code(status);
                    ENDING.store(true, Ordering::SeqCst);
                }
            }
            Err(rustix::io::Errno::INTR) => {}
            // No child is left.
            Ok(None) | Err(_) => return code,
        }
        if ENDING.load(Ordering::SeqCst) {
            end_all();
        }
    }
}

/// Ends every process of the namespace but the guard.
fn end_all() {
    kill_all(libc::SIGKILL);
}

/// Sends `signal` to every process this one may signal: in the guard, inside its PID
/// namespace, whose init it is, that is every process of the command and none outside.
/// Also called from the guard's signal handler, so `errno` is left as it was.
fn kill_all(signal: libc::c_int) {
    // SAFETY: `kill` is async-signal-safe; `errno` is this thread's own variable.
    #[allow(unsafe_code)]
    unsafe {
        let errno = libc::__errno_location();
        let saved = *errno;
        libc::kill(-1, signal);
        *errno = saved;
    }
}

/// What became of an entry the command created at a watched place.
#[derive(Debug)]
enum Removal {
    /// It is gone.
    Removed,
    /// It was moved aside (the watched place is free), but what was in it could not all
    /// be removed: it is left at this path, where no program looks for it.
    MovedAside(PathBuf, std::io::Error),
    /// It is still there.
    Failed(std::io::Error),
}

/// Removes each watched entry that exists now; returns what became of each.
///
/// Each is first moved aside, in its own folder, to a name no program reads
/// ([`aside`]): one `rename`, whatever the entry holds, so the watched place is free even
/// when its content cannot all be removed (a tree deeper than the open-file limit, which
/// removing a folder recursively needs one descriptor per level of). Then it is removed.
fn remove_created(watched: &[PathBuf]) -> Vec<(PathBuf, Removal)> {
    let mut removed = Vec::new();
    for path in watched {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        let outcome = match move_aside(path) {
            Err(err) => Removal::Failed(err),
            // A symbolic link is removed, never followed; a folder with everything in it.
            Ok(moved) => match if meta.is_dir() {
                std::fs::remove_dir_all(&moved)
            } else {
                std::fs::remove_file(&moved)
            } {
                Ok(()) => Removal::Removed,
                Err(err) => Removal::MovedAside(moved, err),
            },
        };
        removed.push((path.clone(), outcome));
    }
    removed
}

/// The name an entry at `path` is moved aside to, the `n`th try: a hidden name in the
/// same folder that no program reads, and that says what it was.
fn aside(path: &Path, n: u32) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(
        ".warden-removed-{}-{}-{n}",
        name.trim_start_matches('.'),
        std::process::id()
    ))
}

/// Moves the entry at `path` aside without replacing anything; returns where it is.
fn move_aside(path: &Path) -> std::io::Result<PathBuf> {
    let mut n = 0;
    loop {
        let to = aside(path, n);
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            path,
            rustix::fs::CWD,
            &to,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => return Ok(to),
            Err(rustix::io::Errno::EXIST) if n < 100 => n += 1,
            Err(err) => return Err(err.into()),
        }
    }
}

/// Says on the command's stderr what the guard removed. The helper has no logging;
/// its stderr is the command's own, which the caller reads (as it reads the line the
/// helper writes when confinement cannot start).
fn report(removed: &[(PathBuf, Removal)]) {
    let mut stderr = std::io::stderr();
    for (path, outcome) in removed {
        let line = match outcome {
            Removal::Removed => format!(
                "warden sandbox-exec: removed {}, which the command created: it makes programs run code later, and only the user may allow writing it\n",
                path.display()
            ),
            Removal::MovedAside(moved, err) => format!(
                "warden sandbox-exec: removed {}, which the command created: it makes programs run code later, and only the user may allow writing it; what it held could not all be deleted ({err}) and is left in {}\n",
                path.display(),
                moved.display()
            ),
            Removal::Failed(err) => format!(
                "warden sandbox-exec: could not remove {}, which the command created ({err}): it makes programs run code later\n",
                path.display()
            ),
        };
        let _ = stderr.write_all(line.as_bytes());
    }
}

/// The exit code a shell would give for a wait status.
fn exit_code(status: WaitStatus) -> i32 {
    status
        .exit_status()
        .or_else(|| status.terminating_signal().map(|signal| 128 + signal))
        .unwrap_or(1)
}

/// Waits for `pid` and returns its exit code. Raw system calls only: the helper runs
/// this while the guard shares its memory.
fn wait_for(pid: libc::pid_t) -> i32 {
    let Some(pid) = Pid::from_raw(pid) else {
        return 1;
    };
    loop {
        match rustix::process::waitpid(Some(pid), WaitOptions::empty()) {
            Ok(Some((_, status))) => return exit_code(status),
            Err(rustix::io::Errno::INTR) => {}
            Ok(None) | Err(_) => return 1,
        }
    }
}

/// Ends this process (the helper or the guard) with `code`, without the C library's
/// exit handlers: neither has buffered output (their one message goes to the unbuffered
/// stderr), the allocator's clean-up at exit would only add to every command's end,
/// and the helper may not call more of the C library while the guard runs.
fn exit_now(code: i32) -> ! {
    // SAFETY: `_exit` ends the process at once; nothing of it is used afterwards.
    #[allow(unsafe_code)]
    unsafe {
        libc::_exit(code)
    }
}

/// The helper's handler: passes the signal to the guard. A raw system call only, since
/// the guard shares the helper's memory (`errno` included).
extern "C" fn to_guard(signal: libc::c_int) {
    let to = Pid::from_raw(TO_GUARD.load(Ordering::SeqCst));
    if let (Some(to), Some(signal)) = (to, Signal::from_named_raw(signal)) {
        let _ = rustix::process::kill_process(to, signal);
    }
}

/// The guard's handler: passes the signal to every process of the command; the
/// parent-death signal (the helper is gone) ends them all.
extern "C" fn to_command(signal: libc::c_int) {
    let signal = if signal == HELPER_GONE {
        ENDING.store(true, Ordering::SeqCst);
        libc::SIGKILL
    } else {
        signal
    };
    kill_all(signal);
}

fn forward(signals: &[libc::c_int], handler: extern "C" fn(libc::c_int)) {
    for &signal in signals {
        // SAFETY: installs a handler that only reads and stores atomics and sends a
        // signal (async-signal-safe); the structure is zeroed and then filled.
        #[allow(unsafe_code)]
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as libc::sighandler_t;
            libc::sigemptyset(&raw mut action.sa_mask);
            libc::sigaction(signal, &raw const action, std::ptr::null_mut());
        }
    }
}

/// Blocks `signals`; returns the mask as it was.
fn block(signals: &[libc::c_int]) -> libc::sigset_t {
    // SAFETY: fills local signal sets; `pthread_sigmask` returns its error rather than
    // setting `errno`, and cannot fail with these arguments.
    #[allow(unsafe_code)]
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&raw mut set);
        for &signal in signals {
            libc::sigaddset(&raw mut set, signal);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &raw const set, &raw mut old);
        old
    }
}

/// Sets the signal mask back to `mask`. Sets no `errno` (see `block`).
fn set_mask(mask: &libc::sigset_t) {
    // SAFETY: as in `block`.
    #[allow(unsafe_code)]
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, mask, std::ptr::null_mut());
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
        assert!(
            removed.iter().all(|(_, r)| matches!(r, Removal::Removed)),
            "{removed:?}"
        );
        // Nothing is left aside either.
        let left: Vec<_> = std::fs::read_dir(root).expect("read_dir").collect();
        assert!(left.is_empty(), "{left:?}");
        assert!(!root.join(".vscode").exists());
        assert!(std::fs::symlink_metadata(root.join(".cargo")).is_err());
        // The link was removed, not what it pointed at.
        assert!(outside.path().join("keep").exists());
    }

    /// Removing a folder recursively keeps a descriptor open per level, so a tree deeper
    /// than the open-file limit cannot be removed; moving it aside first frees the
    /// watched place whatever it holds.
    #[test]
    fn regression_a_tree_too_deep_to_remove_is_still_moved_off_its_watched_place() {
        use rustix::fs::{Mode, OFlags};
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir(root.join(".vscode")).expect("mkdir");
        std::fs::write(root.join(".vscode/tasks.json"), "{}").expect("write");
        let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
        let mut at = rustix::fs::open(root.join(".vscode"), flags, Mode::empty()).expect("open");
        for _ in 0..2_000 {
            rustix::fs::mkdirat(&at, "a", Mode::from_raw_mode(0o755)).expect("mkdirat");
            at = rustix::fs::openat(&at, "a", flags, Mode::empty()).expect("openat");
        }
        let moved = move_aside(&root.join(".vscode")).expect("moved aside");
        assert!(std::fs::symlink_metadata(root.join(".vscode")).is_err());
        assert!(moved.join("tasks.json").exists());
        let name = moved
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        assert!(name.starts_with(".warden-removed-vscode-"), "{name}");
        // A second one of the same name is moved aside next to the first, not over it.
        std::fs::create_dir(root.join(".vscode")).expect("mkdir");
        let again = move_aside(&root.join(".vscode")).expect("moved aside");
        assert_ne!(again, moved);
        assert!(moved.join("tasks.json").exists());
    }
}
