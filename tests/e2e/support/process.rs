//! The Warden child process: spawning it in an isolated home, writing to its stdin,
//! collecting its stdout lines and its stderr, signals and exit.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use tempfile::TempDir;

/// How long any single wait may take before the test is failed. It only keeps a broken
/// test from hanging: no test asserts on durations.
pub const WAIT_LIMIT: Duration = Duration::from_secs(10);

/// What the stdout reader thread reports.
#[derive(Debug)]
pub enum StdoutEvent {
    /// One line, without its trailing newline, as raw bytes (so non-UTF-8 output is
    /// caught rather than lost).
    Line(Vec<u8>),
    /// The agent closed stdout.
    Eof,
}

/// Why a wait for stdout ended without a line.
#[derive(Debug, PartialEq, Eq)]
pub enum RecvError {
    /// Nothing arrived within the limit.
    Timeout,
    /// The agent closed stdout.
    Eof,
}

/// Options for starting Warden.
#[derive(Debug, Default, Clone)]
pub struct Spawn {
    args: Vec<String>,
    env: Vec<(String, String)>,
    user: Option<(u32, u32)>,
    program: Option<std::path::PathBuf>,
}

impl Spawn {
    /// Adds a command-line argument (e.g. `--trace FILE` or `acp`).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Sets an environment variable for the child, on top of the isolated defaults.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs Warden as this user and group (the test runs as root); its temporary
    /// folder becomes theirs.
    pub fn user(mut self, uid: u32, gid: u32) -> Self {
        self.user = Some((uid, gid));
        self
    }

    /// Starts this copy of the `warden` binary instead of the one built for the tests
    /// (e.g. one installed without the small sandbox helper next to it).
    pub fn program(mut self, program: &Path) -> Self {
        self.program = Some(program.to_path_buf());
        self
    }
}

/// Gives a folder and everything in it to a user.
pub fn chown_tree(path: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid)).expect("chown");
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).expect("read_dir") {
            chown_tree(&entry.expect("entry").path(), uid, gid);
        }
    }
}

/// A running Warden process with its own temporary `WARDEN_HOME`.
#[derive(Debug)]
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<StdoutEvent>,
    stdout_closed: bool,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_done: Receiver<()>,
    exit: Option<ExitStatus>,
    dir: TempDir,
}

impl Process {
    /// Starts the `warden` binary built for these tests.
    ///
    /// The child gets a fresh `WARDEN_HOME`, a managed policy path that does not exist
    /// (`managed/policy.toml`),
    /// XDG directories inside the same temporary folder (so the user's own files never
    /// leak into a test), no `RUST_LOG`, and a `project/` folder to use as a session cwd.
    pub fn spawn(options: &Spawn) -> Process {
        let dir = tempfile::Builder::new()
            .prefix("warden-e2e-")
            .tempdir()
            .expect("create the test's temporary directory");
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).expect("create WARDEN_HOME");
        std::fs::create_dir_all(&project).expect("create the project folder");

        let built = Path::new(env!("CARGO_BIN_EXE_warden"));
        let mut command = Command::new(options.program.as_deref().unwrap_or(built));
        command
            .args(&options.args)
            .env_remove("RUST_LOG")
            // What a person reads follows the locale; the tests read English unless they
            // ask for another language themselves.
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("LANG")
            .env("WARDEN_HOME", &home)
            // In a folder of its own, like /etc/warden/: Warden protects the managed
            // policy's folder, so it must not be an ancestor of the project.
            .env(
                "WARDEN_MANAGED_POLICY",
                dir.path().join("managed").join("policy.toml"),
            )
            .env("XDG_CONFIG_HOME", dir.path().join("xdg-config"))
            .env("XDG_STATE_HOME", dir.path().join("xdg-state"))
            .env("XDG_DATA_HOME", dir.path().join("xdg-data"))
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in &options.env {
            command.env(key, value);
        }
        if let Some((uid, gid)) = options.user {
            use std::os::unix::process::CommandExt;
            chown_tree(dir.path(), uid, gid);
            // std drops root's supplementary groups when it sets the user.
            command.uid(uid).gid(gid);
        }
        let mut child = command.spawn().expect("spawn the warden binary");

        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");

        let (sender, receiver) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => {
                        let _ = sender.send(StdoutEvent::Eof);
                        return;
                    }
                    Ok(_) => {
                        if line.last() == Some(&b'\n') {
                            line.pop();
                        }
                        if sender.send(StdoutEvent::Line(line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });

        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        let (done, stderr_done) = mpsc::channel();
        thread::spawn(move || {
            let mut pipe = stderr_pipe;
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("stderr buffer lock")
                    .extend_from_slice(&chunk[..n]);
            }
            let _ = done.send(());
        });

        Process {
            child,
            stdin,
            stdout: receiver,
            stdout_closed: false,
            stderr,
            stderr_done,
            exit: None,
            dir,
        }
    }

    /// The process id, for signals and `/proc` look-ups.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The temporary folder holding `home/`, `project/` and anything a test puts there.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The `WARDEN_HOME` of this process.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// An absolute, existing folder to use as a session's `cwd`.
    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// Runs `warden ARGS` as a second process with this agent's folders (its
    /// `WARDEN_HOME`, managed policy and XDG folders) and the extra variables, the way
    /// a user in another terminal would; returns its output.
    pub fn cli(&self, args: &[&str], env: &[(&str, &Path)]) -> std::process::Output {
        let dir = self.dir.path();
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .args(args)
            .env_remove("RUST_LOG")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("LANG")
            .env("WARDEN_HOME", self.home())
            .env(
                "WARDEN_MANAGED_POLICY",
                dir.join("managed").join("policy.toml"),
            )
            .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
            .env("XDG_STATE_HOME", dir.join("xdg-state"))
            .env("XDG_DATA_HOME", dir.join("xdg-data"))
            .current_dir(dir)
            .stdin(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().expect("run warden")
    }

    /// Writes bytes to the agent's stdin exactly as given.
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("stdin is already closed"))?;
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// Closes the agent's stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next stdout line, waiting at most [`WAIT_LIMIT`].
    pub fn recv_line(&mut self) -> Result<Vec<u8>, RecvError> {
        self.recv_line_within(WAIT_LIMIT)
    }

    /// The next stdout line, waiting at most `limit`.
    pub fn recv_line_within(&mut self, limit: Duration) -> Result<Vec<u8>, RecvError> {
        if self.stdout_closed {
            return Err(RecvError::Eof);
        }
        match self.stdout.recv_timeout(limit) {
            Ok(StdoutEvent::Line(line)) => Ok(line),
            Ok(StdoutEvent::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                Err(RecvError::Eof)
            }
            Err(RecvTimeoutError::Timeout) => Err(RecvError::Timeout),
        }
    }

    /// Everything the agent wrote to stderr so far, lossily decoded.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().expect("stderr buffer lock")).into_owned()
    }

    /// Sends a signal to the agent.
    pub fn signal(&self, sig: Signal) {
        let pid = i32::try_from(self.pid()).expect("pid fits in i32");
        signal::kill(Pid::from_raw(pid), sig).expect("send a signal to warden");
    }

    /// Waits for the process to exit, at most [`WAIT_LIMIT`]; `None` if it is still
    /// running then (the caller fails the test; [`Drop`] kills the process).
    pub fn wait_exit(&mut self) -> Option<ExitStatus> {
        if let Some(status) = self.exit {
            return Some(status);
        }
        let deadline = Instant::now() + WAIT_LIMIT;
        loop {
            match self.child.try_wait().expect("poll the warden process") {
                Some(status) => {
                    self.exit = Some(status);
                    // The stderr reader ends once every holder of the pipe is gone; waiting
                    // for it makes the final log lines visible to the test. The wait is
                    // bounded because a leaked grandchild could hold the pipe open.
                    let _ = self.stderr_done.recv_timeout(Duration::from_secs(2));
                    return Some(status);
                }
                None if Instant::now() >= deadline => return None,
                None => thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    /// Kills the process if it is still running and reaps it.
    pub fn kill(&mut self) {
        if self.exit.is_none() {
            let _ = self.child.kill();
            if let Ok(status) = self.child.wait() {
                self.exit = Some(status);
            }
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}
