//! A stdio server's process: started in a process group of its own, with Warden's
//! environment less its secrets plus the editor's variables, and its stderr in
//! Warden's log. The whole group is killed when the [`Group`] is dropped, so a server
//! and every process it started stop with its connection, its session and Warden.

use std::path::Path;
use std::process::Stdio;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};
use warden_sandbox::ProcessGroup;
use warden_tools::{Launch, Secrets};

use crate::config::ConnectError;

/// The longest stderr line kept in the log; the rest of a longer line is dropped.
const MAX_LOG_LINE: usize = 4096;

/// A started server: its pipes, and the guard of its process group.
#[derive(Debug)]
pub(crate) struct Started {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) group: Group,
}

/// Kills a server's process group when dropped.
#[derive(Debug)]
pub(crate) struct Group {
    _group: ProcessGroup,
    /// Held so that the direct child is also killed and reaped (`kill_on_drop`) when a
    /// server moved itself out of the group.
    _child: Child,
}

/// Starts `command args` in `cwd`, confined as `launch` says. The start itself runs
/// off the runtime's thread (it waits for the child's `exec`).
pub(crate) async fn start(
    server: &str,
    (command, args): (&Path, &[String]),
    launch: &Launch,
    env: &[(String, String)],
    cwd: &Path,
    secrets: &Secrets,
) -> Result<Started, ConnectError> {
    let spawn_error = |source| ConnectError::Spawn {
        command: command.display().to_string(),
        source,
    };
    // Confined, the helper starts and only then fails to find the program: look for it
    // first, so that a missing server is reported as one.
    if matches!(launch, Launch::Confined(_)) && !findable(command, env) {
        return Err(spawn_error(std::io::Error::from(
            std::io::ErrorKind::NotFound,
        )));
    }
    let (program, argv) = launch.command(
        command.as_os_str().to_owned(),
        args.iter().map(Into::into).collect(),
    );
    let mut cmd = tokio::process::Command::new(program);
    secrets.scrub_command(&mut cmd);
    // The editor's variables are the user's choice for this server, but never a way
    // to hand it one of Warden's own secrets under another name.
    let kept = secrets.child_env(
        env.iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect::<Vec<(std::ffi::OsString, std::ffi::OsString)>>(),
    );
    cmd.envs(kept)
        .args(argv)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = tokio::task::spawn_blocking(move || cmd.spawn())
        .await
        .map_err(|err| spawn_error(std::io::Error::other(err)))?
        .map_err(spawn_error)?;
    let group = ProcessGroup::led_by(child.id());
    let missing = || spawn_error(std::io::Error::other("a pipe was not set up"));
    let stdin = child.stdin.take().ok_or_else(missing)?;
    let stdout = child.stdout.take().ok_or_else(missing)?;
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(log_stderr(server.to_owned(), stderr));
    }
    Ok(Started {
        stdin,
        stdout,
        group: Group {
            _group: group,
            _child: child,
        },
    })
}

/// Whether `command` names an executable file, directly (a path) or on `PATH` (the
/// server's own, else Warden's).
fn findable(command: &Path, env: &[(String, String)]) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if command.components().count() > 1 {
        return executable(command);
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v))
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    std::env::split_paths(&path).any(|dir| executable(&dir.join(command)))
}

/// Copies a server's stderr to Warden's log, a line at a time, each line cut to
/// [`MAX_LOG_LINE`] so that a server cannot make Warden hold an endless line.
async fn log_stderr(server: String, mut stderr: tokio::process::ChildStderr) {
    let mut buf = vec![0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    let mut cut = false;
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &byte in buf.iter().take(n) {
            if byte == b'\n' {
                emit(&server, &line, cut);
                line.clear();
                cut = false;
            } else if line.len() < MAX_LOG_LINE {
                line.push(byte);
            } else {
                cut = true;
            }
        }
    }
    if !line.is_empty() {
        emit(&server, &line, cut);
    }
}

fn emit(server: &str, line: &[u8], cut: bool) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches('\r');
    if cut {
        tracing::info!(target: "warden::mcp::stderr", server, "{text}…");
    } else {
        tracing::info!(target: "warden::mcp::stderr", server, "{text}");
    }
}
