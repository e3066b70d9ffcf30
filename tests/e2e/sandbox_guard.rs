//! The guard of the protected entries that are missing when a command starts, through
//! the helper itself (`warden sandbox-exec`), started as the unprivileged user the way
//! Warden starts it: the leader of a process group of its own, which the caller kills.
//! Whatever ends the command (its own exit, SIGTERM to the group, or SIGKILL to the
//! group, which reaches the helper but not the guard), what it created at a protected
//! place is removed, no process of it is left, and the command's exit code (or a
//! program that cannot run) comes back as without the guard.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use warden_sandbox::{Workspace, command_line};

use super::sandbox::{outside_tmp, processes_in, unprivileged};
use super::support::process::WAIT_LIMIT;

/// A workspace with none of the protected entries (so every one is guarded), owned by
/// the unprivileged user.
fn workspace(uid: u32, gid: u32) -> tempfile::TempDir {
    outside_tmp("warden-guard-", uid, gid)
}

/// Starts `bash -c <script>` through the helper in `workspace`, as the user, in a
/// process group of its own, with its output captured.
fn start(workspace: &Path, uid: u32, gid: u32, script: &str) -> Child {
    start_program(workspace, uid, gid, "/bin/bash", &["-c", script])
}

/// Like [`start`], with the helper's open-file limit set to `limit` (by `prlimit`, which
/// then runs the helper).
fn start_with_open_files(workspace: &Path, uid: u32, gid: u32, script: &str, limit: u32) -> Child {
    let (helper, line) = helper_line(workspace, "/bin/bash", &["-c", script]);
    let mut prlimit = Command::new("prlimit");
    prlimit
        .arg(format!("--nofile={limit}:{limit}"))
        .arg(helper)
        .args(line);
    spawn_as(prlimit, workspace, uid, gid)
}

fn start_program(workspace: &Path, uid: u32, gid: u32, program: &str, args: &[&str]) -> Child {
    let (helper, line) = helper_line(workspace, program, args);
    let mut command = Command::new(helper);
    command.args(line);
    spawn_as(command, workspace, uid, gid)
}

/// The helper's command line for `program args…` in `workspace`.
fn helper_line(
    workspace: &Path,
    program: &str,
    args: &[&str],
) -> (std::ffi::OsString, Vec<std::ffi::OsString>) {
    let confinement = Workspace {
        roots: vec![workspace.to_path_buf()],
        home: None,
        warden_dirs: Vec::new(),
        temp_dirs: vec![PathBuf::from("/tmp")],
        extra_writable: Vec::new(),
        network: false,
        max_processes: 64,
    }
    .confinement();
    let helper = Path::new(env!("CARGO_BIN_EXE_warden"));
    command_line(helper, &confinement, program, args.iter().copied())
}

/// Starts `command` as the user in `workspace`, in a process group of its own, with its
/// output captured.
fn spawn_as(mut command: Command, workspace: &Path, uid: u32, gid: u32) -> Child {
    command
        .current_dir(workspace)
        .uid(uid)
        .gid(gid)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the helper")
}

/// Waits for the command to print `started` (it has written its entries by then).
fn wait_started(child: &mut Child) {
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(WAIT_LIMIT).expect("the command started");
    assert_eq!(line, "started\n");
}

/// Everything written to stderr until every holder of it (the helper, the guard, each
/// process of the command) has closed it: the guard's end, whoever ended first.
fn stderr_to_end(child: &mut Child) -> String {
    let mut stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    rx.recv_timeout(WAIT_LIMIT)
        .expect("the guard and the command ended")
}

fn kill_group(child: &Child, signal: Signal) {
    let pgid = i32::try_from(child.id()).expect("a pid");
    signal::killpg(Pid::from_raw(pgid), signal).expect("kill the group");
}

/// Signals the helper alone, as a caller does that signals the process it started.
fn kill_helper(child: &Child, signal: Signal) {
    let pid = i32::try_from(child.id()).expect("a pid");
    signal::kill(Pid::from_raw(pid), signal).expect("signal the helper");
}

/// Asserts that the entry the command created at a protected place is gone, and that
/// the command's stderr says it was removed.
fn assert_removed(workspace: &Path, entry: &str, stderr: &str) {
    let path = workspace.join(entry);
    assert!(
        std::fs::symlink_metadata(&path).is_err(),
        "{entry} outlived the command; stderr: {stderr}"
    );
    assert!(
        stderr.contains(&format!("removed {}", path.display())),
        "{stderr}"
    );
}

/// Asserts that nothing of the command is left: no entry it created at a protected
/// place, no process.
fn assert_nothing_left(workspace: &Path, stderr: &str) {
    for entry in [".envrc", ".vscode"] {
        assert_removed(workspace, entry, stderr);
    }
    let left = processes_in(workspace);
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

/// The script of a command that creates two protected entries, leaves a process
/// behind (in a session and process group of its own, out of reach of the caller's
/// group kill) to write a third one later, says it started and keeps running.
const CREATES_AND_STAYS: &str = "echo x > .envrc; mkdir .vscode; echo '{}' > .vscode/tasks.json; \
     setsid -f sh -c 'sleep 60; echo {} > .mcp.json' > /dev/null 2>&1; echo started; sleep 60";

#[test]
fn a_guarded_command_killed_with_its_group_leaves_nothing_behind() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let mut child = start(dir.path(), uid, gid, CREATES_AND_STAYS);
    wait_started(&mut child);
    // The command did write them: they are guarded, not refused.
    assert!(dir.path().join(".vscode/tasks.json").exists());
    // The caller's last resort: SIGKILL to the group, which ends the helper and the
    // command at once, but not the guard (outside the group), which ends the process
    // the command left in a group of its own and cleans up.
    kill_group(&child, Signal::SIGKILL);
    let status = child.wait().expect("wait");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(Signal::SIGKILL as i32)
    );
    let stderr = stderr_to_end(&mut child);
    assert_nothing_left(dir.path(), &stderr);
}

#[test]
fn a_guarded_command_ended_by_sigterm_to_its_group_is_cleaned_up_before_the_helper_exits() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let mut child = start(dir.path(), uid, gid, CREATES_AND_STAYS);
    wait_started(&mut child);
    kill_group(&child, Signal::SIGTERM);
    let status = child.wait().expect("wait");
    // The helper waits for its guard and exits as a shell reports a command that
    // SIGTERM ended: by then, the guard has removed the entries.
    assert_eq!(
        status.code(),
        Some(128 + Signal::SIGTERM as i32),
        "{status:?}"
    );
    assert!(std::fs::symlink_metadata(dir.path().join(".envrc")).is_err());
    let stderr = stderr_to_end(&mut child);
    assert_nothing_left(dir.path(), &stderr);
}

/// A caller that sends SIGTERM to the helper alone: the helper passes it to the guard,
/// which passes it to every process of the command; the helper exits once the guard
/// has cleaned up. (Were the signal not passed on, the command would run on and the
/// wait for its end would time out.)
#[test]
fn sigterm_to_the_helper_alone_reaches_the_guarded_command() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let mut child = start(dir.path(), uid, gid, CREATES_AND_STAYS);
    wait_started(&mut child);
    kill_helper(&child, Signal::SIGTERM);
    let stderr = stderr_to_end(&mut child);
    let status = child.wait().expect("wait");
    assert_eq!(
        status.code(),
        Some(128 + Signal::SIGTERM as i32),
        "{stderr}"
    );
    assert_nothing_left(dir.path(), &stderr);
}

/// A caller that kills the helper alone: the guard, told by its parent-death signal,
/// ends every process of the command and cleans up. (Otherwise the command would run
/// on and the wait for its end would time out.)
#[test]
fn a_guarded_command_ends_when_its_helper_alone_is_killed() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let mut child = start(dir.path(), uid, gid, CREATES_AND_STAYS);
    wait_started(&mut child);
    kill_helper(&child, Signal::SIGKILL);
    let stderr = stderr_to_end(&mut child);
    let status = child.wait().expect("wait");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(Signal::SIGKILL as i32)
    );
    assert_nothing_left(dir.path(), &stderr);
}

#[test]
fn a_guarded_command_gives_its_exit_code_and_a_program_that_cannot_run_gives_127() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let mut child = start(dir.path(), uid, gid, "echo x > .envrc; exit 7");
    let stderr = stderr_to_end(&mut child);
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(7), "{stderr}");
    assert!(std::fs::symlink_metadata(dir.path().join(".envrc")).is_err());
    assert!(stderr.contains("removed"), "{stderr}");

    let missing = "/nonexistent/warden-guard-test-program";
    let mut child = start_program(dir.path(), uid, gid, missing, &[]);
    let stderr = stderr_to_end(&mut child);
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(127), "{stderr}");
    assert!(
        stderr.contains(&format!("warden sandbox-exec: cannot run {missing}")),
        "{stderr}"
    );
}

/// A protected entry that is a symbolic link to nothing can be neither bound read-only
/// nor guarded as missing, and writing through it would create what it points to: the
/// helper refuses to start the command, and nothing is created.
#[test]
fn a_dangling_link_at_a_protected_name_keeps_the_command_from_running() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let target = dir.path().join("envrc-target");
    std::os::unix::fs::symlink(&target, dir.path().join(".envrc")).expect("link");
    let mut child = start(
        dir.path(),
        uid,
        gid,
        "echo ran > .envrc; echo ran > ran.txt",
    );
    let stderr = stderr_to_end(&mut child);
    let status = child.wait().expect("wait");
    assert_ne!(status.code(), Some(0), "{stderr}");
    assert!(!target.exists(), "the link's target was created: {stderr}");
    assert!(
        !dir.path().join("ran.txt").exists(),
        "the command ran: {stderr}"
    );
    assert!(stderr.contains("symbolic link to nothing"), "{stderr}");
}

/// The command runs as the same user as its guard, in the same Landlock domain, and
/// sees the host's `/proc`; still it cannot attach to the guard (pid 1 in its
/// namespace) with `ptrace`, which would let it keep the guard from cleaning up: the
/// guard holds every capability in the user namespace the helper made, and the command,
/// once its program is started, none (the same check guards the guard's memory
/// through `/proc/<pid>/mem`).
#[test]
fn a_guarded_command_cannot_ptrace_its_guard() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let attach = "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); \
                  r = libc.ptrace(16, 1, None, None); \
                  print(r, os.strerror(ctypes.get_errno()) if r else 'attached')";
    let mut child = start_program(
        dir.path(),
        uid,
        gid,
        "/usr/bin/python3",
        &["-c", &format!("open('.envrc', 'w').write('x'); {attach}")],
    );
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("read");
    let stderr = stderr_to_end(&mut child);
    let status = child.wait().expect("wait");
    assert!(status.success(), "{stderr}");
    assert_eq!(stdout.trim(), "-1 Operation not permitted", "{stderr}");
    assert!(std::fs::symlink_metadata(dir.path().join(".envrc")).is_err());
}

/// Removing a folder recursively needs an open file per level: a command that buries a
/// protected folder's content under a tree deeper than the helper's open-file limit
/// must not keep that folder. It is moved aside (one `rename`), then removed.
#[test]
fn regression_a_protected_folder_over_a_tree_deeper_than_the_open_file_limit_is_removed() {
    let (uid, gid) = unprivileged();
    let dir = workspace(uid, gid);
    let script = "mkdir .vscode && echo '{}' > .vscode/tasks.json && cd .vscode && \
                  for i in $(seq 400); do mkdir a && cd a || exit 1; done; echo started";
    let mut child = start_with_open_files(dir.path(), uid, gid, script, 64);
    wait_started(&mut child);
    let stderr = stderr_to_end(&mut child);
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status:?}; stderr: {stderr}");
    assert_removed(dir.path(), ".vscode", &stderr);
}
