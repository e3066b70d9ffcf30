//! An ACP agent run as a child process: its own process group, stdin and stdout as the
//! protocol pipes, stderr wherever the caller says (a log file, never the user's
//! screen), and the whole group killed when it is dropped, so no agent outlives its
//! client.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// How to start an agent.
#[derive(Debug)]
pub struct AgentCommand {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// The working directory; `None` keeps the client's.
    pub cwd: Option<PathBuf>,
    /// Where the agent's stderr goes: a log file, or `Stdio::null()`. Never inherited by
    /// default, because the client owns the screen.
    pub stderr: Stdio,
}

impl AgentCommand {
    /// A command with no arguments whose stderr is discarded.
    pub fn new(program: impl Into<OsString>) -> AgentCommand {
        AgentCommand {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            stderr: Stdio::null(),
        }
    }
}

/// A running agent. Dropping it kills its process group.
#[derive(Debug)]
pub struct AgentProcess {
    child: Child,
    group: Option<Pid>,
}

impl AgentProcess {
    /// Starts the agent in a process group of its own, so that a terminal's Ctrl-C
    /// reaches the client only (which then cancels the turn properly) and the agent's
    /// own children can be killed with it.
    pub(crate) fn spawn(
        command: AgentCommand,
    ) -> std::io::Result<(AgentProcess, ChildStdout, ChildStdin)> {
        let mut builder = tokio::process::Command::new(&command.program);
        builder
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(command.stderr)
            .process_group(0)
            .kill_on_drop(true);
        if let Some(cwd) = &command.cwd {
            builder.current_dir(cwd);
        }
        let mut child = builder.spawn()?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(std::io::Error::other("the agent's pipes were not opened"));
        };
        // With `process_group(0)` the group id is the child's pid.
        let group = child
            .id()
            .and_then(|pid| Pid::from_raw(i32::try_from(pid).ok()?));
        Ok((AgentProcess { child, group }, stdout, stdin))
    }

    /// The agent's process id, while it has not been reaped.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits up to `grace` for the agent to exit by itself (its input is closed by
    /// then), then kills its group. Returns how it ended, if it could be reaped.
    pub(crate) async fn stop(mut self, grace: Duration) -> Option<ExitStatus> {
        let status = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(Ok(status)) => Some(status),
            Ok(Err(err)) => {
                tracing::warn!(%err, "waiting for the agent failed");
                None
            }
            Err(_) => {
                tracing::warn!("the agent did not exit after its input closed; killing it");
                self.kill_group();
                let _ = self.child.start_kill();
                self.child.wait().await.ok()
            }
        };
        // Whatever the leader did, members of its group it left behind go too.
        self.kill_group();
        self.group = None;
        status
    }

    fn kill_group(&self) {
        if let Some(group) = self.group {
            // ESRCH (the group is already gone) is the expected outcome of a clean exit.
            if let Err(err) = kill_process_group(group, Signal::KILL)
                && err != rustix::io::Errno::SRCH
            {
                tracing::warn!(%err, "killing the agent's process group failed");
            }
        }
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        // `kill_on_drop` kills the leader and tokio reaps it; the group kill reaches what
        // the agent started.
        self.kill_group();
    }
}
