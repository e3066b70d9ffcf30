//! A command run locally: `bash -c` (or `sh -c` where bash is missing, see `shell.rs`) in
//! its own process group, stdin closed, stdout and stderr
//! captured (never Warden's own stdout, which is the protocol wire), the whole group killed on
//! timeout, on cancel and when the call is dropped.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::process::Signal;
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;
use warden_sandbox::ProcessGroup;

use super::capture::Capture;
use crate::launch::Launch;
use crate::secrets::Secrets;

/// How long output is still read after the command exited, for background processes that keep
/// the pipes open; they are killed afterwards.
const DRAIN: Duration = Duration::from_millis(250);

/// Why the command stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    Exited,
    TimedOut,
    Cancelled,
}

/// A finished local command.
#[derive(Debug)]
pub(crate) struct LocalRun {
    pub(crate) ending: Ending,
    pub(crate) exit_code: Option<i32>,
    pub(crate) signal: Option<i32>,
    pub(crate) output: String,
    pub(crate) truncated: bool,
    pub(crate) pid: Option<u32>,
}

/// The next step of the kill sequence on timeout or cancel: SIGTERM to the group, `grace` for
/// the shell to exit, then SIGKILL to the group.
async fn terminate(
    child: &mut tokio::process::Child,
    guard: &ProcessGroup,
    grace: Duration,
) -> io::Result<ExitStatus> {
    guard.signal(Signal::TERM);
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        guard.signal(Signal::KILL);
        return status;
    }
    guard.signal(Signal::KILL);
    // The shell is in the group, so SIGKILL reached it; kill it directly too in case it moved
    // itself to another group.
    let _ = child.start_kill();
    child.wait().await
}

/// Runs `command` with `bash -c` (`sh -c` without bash) in `cwd`, started as `launch`
/// says (confined, through the sandbox helper, or not).
pub(crate) async fn run(
    command: &str,
    launch: &Launch,
    cwd: &Path,
    timeout: Duration,
    cx: &super::ExecContext<'_>,
) -> io::Result<LocalRun> {
    let (grace, max_output) = (cx.limits.kill_grace, cx.limits.output_bytes);
    let (cancel, secrets): (&CancellationToken, &Secrets) = (&cx.cancel, cx.secrets);
    let (program, args) = launch.command(
        super::command_shell().program.clone().into_os_string(),
        vec!["-c".into(), command.into()],
    );
    let mut command_line = tokio::process::Command::new(program);
    // Nothing is inherited unseen: the environment is exactly `shell_env`'s.
    command_line
        .env_clear()
        .envs(super::shell::shell_env(secrets, std::env::vars_os()))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    // Starting a process waits until the child has exec'd (hundreds of microseconds);
    // Warden's protocol and turns share one thread, which must not stall for it.
    let mut child = tokio::task::spawn_blocking(move || command_line.spawn())
        .await
        .map_err(io::Error::other)??;
    let pid = child.id();
    // Killed when dropped, so a call abandoned half-way (its future dropped) leaves
    // nothing running.
    let guard = ProcessGroup::led_by(pid);
    // Secrets are redacted as the output arrives, before the capture keeps its head
    // and tail: a secret cut in two by the capture's gap could not be found later.
    let capture = Arc::new(Mutex::new(Capture::new(
        max_output,
        secrets.values().stream(),
    )));
    let mut pumps = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        pumps.push(tokio::spawn(pump(stdout, capture.clone())));
    }
    if let Some(stderr) = child.stderr.take() {
        pumps.push(tokio::spawn(pump(stderr, capture.clone())));
    }
    let waited = tokio::select! {
        biased;
        () = cancel.cancelled() => None,
        () = tokio::time::sleep(timeout) => Some(None),
        status = child.wait() => Some(Some(status)),
    };
    let (ending, status) = match waited {
        Some(Some(status)) => (Ending::Exited, status),
        Some(None) => (Ending::TimedOut, terminate(&mut child, &guard, grace).await),
        None => (
            Ending::Cancelled,
            terminate(&mut child, &guard, grace).await,
        ),
    };
    let _ = tokio::time::timeout(DRAIN, futures::future::join_all(pumps.iter_mut())).await;
    // Whatever the command left running in its group (`server &`) goes with it.
    drop(guard);
    for pump in &pumps {
        pump.abort();
    }
    let status = status?;
    let (output, truncated) = match capture.lock() {
        Ok(mut capture) => capture.finish(),
        Err(poisoned) => poisoned.into_inner().finish(),
    };
    Ok(LocalRun {
        ending,
        exit_code: status.code(),
        signal: status.signal(),
        output,
        truncated,
        pid,
    })
}

async fn pump(mut from: impl tokio::io::AsyncRead + Unpin, into: Arc<Mutex<Capture>>) {
    let mut buf = vec![0u8; 8192];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => match into.lock() {
                Ok(mut capture) => capture.push(&buf[..n]),
                Err(poisoned) => poisoned.into_inner().push(&buf[..n]),
            },
        }
    }
}
