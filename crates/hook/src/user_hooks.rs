//! Running the user's own hooks (`[[hook]]`): the one place they run, for the agent's
//! sessions, `warden policy check` and `warden hook` alike.
//!
//! Each hook is `sh -c <command>` in the session's folder, with `{"call": …,
//! "evaluation": …}` on its standard input; it answers `{"decision": …, "reason": …}`
//! on its standard output. A hook that cannot start, exits with a failure, takes longer
//! than its timeout or prints anything else has failed, which counts as `ask`
//! ([`warden_permissions::combine`] puts the answers together). The child processes
//! are awaited with `tokio::process`, so a slow hook never holds a runtime thread.

use std::path::Path;
use std::process::Stdio;

use tokio::io::AsyncWriteExt as _;
use warden_permissions::{Evaluation, HookEntry, HookInput, HookSaid, ToolCall};

/// Runs every hook, in the policy's order, and returns what each said, named by its
/// command.
pub async fn run(
    hooks: &[HookEntry],
    cwd: &Path,
    call: &ToolCall,
    evaluation: &Evaluation,
) -> Vec<(String, HookSaid)> {
    if hooks.is_empty() {
        return Vec::new();
    }
    let input = match serde_json::to_vec(&HookInput { call, evaluation }) {
        Ok(input) => input,
        Err(e) => {
            let problem = format!("the hook's input could not be encoded ({e})");
            return hooks
                .iter()
                .map(|h| {
                    (
                        h.command.clone(),
                        HookSaid::Failed {
                            problem: problem.clone(),
                        },
                    )
                })
                .collect();
        }
    };
    let mut said = Vec::with_capacity(hooks.len());
    for hook in hooks {
        said.push((hook.command.clone(), run_one(hook, cwd, &input).await));
    }
    said
}

/// [`run`] for a caller outside any runtime (`warden policy check`, `warden hook`): a
/// runtime of its own on this thread, made only when there are hooks to run.
pub fn run_blocking(
    hooks: &[HookEntry],
    cwd: &Path,
    call: &ToolCall,
    evaluation: &Evaluation,
) -> Vec<(String, HookSaid)> {
    if hooks.is_empty() {
        return Vec::new();
    }
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(run(hooks, cwd, call, evaluation)),
        Err(e) => hooks
            .iter()
            .map(|h| {
                let problem = format!("it could not be started ({e})");
                (h.command.clone(), HookSaid::Failed { problem })
            })
            .collect(),
    }
}

async fn run_one(hook: &HookEntry, cwd: &Path, input: &[u8]) -> HookSaid {
    let timeout = hook.timeout();
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(&hook.command)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        // In a group of its own, which is killed when the hook is done (answered, failed
        // or out of time): nothing a hook started in the background outlives it.
        .process_group(0)
        .kill_on_drop(true);
    // Starting a process waits until the child has exec'd; the runtime's thread, which
    // may serve the protocol, must not stall for it.
    let child = match tokio::task::spawn_blocking(move || command.spawn()).await {
        Ok(child) => child,
        Err(e) => Err(std::io::Error::other(e)),
    };
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            return HookSaid::Failed {
                problem: format!("it could not be started ({e})"),
            };
        }
    };
    let _group = warden_sandbox::ProcessGroup::led_by(child.id());
    let stdin = child.stdin.take();
    let finished = async move {
        if let Some(mut stdin) = stdin {
            // A hook that does not read its input is not an error: it may still answer.
            let _ = stdin.write_all(input).await;
            drop(stdin);
        }
        child.wait_with_output().await
    };
    match tokio::time::timeout(timeout, finished).await {
        Err(_) => HookSaid::Failed {
            problem: format!("it did not answer within {} s", timeout.as_secs_f32()),
        },
        Ok(Err(e)) => HookSaid::Failed {
            problem: format!("it could not be run ({e})"),
        },
        Ok(Ok(output)) if !output.status.success() => HookSaid::Failed {
            problem: format!("it exited with {}", output.status),
        },
        Ok(Ok(output)) => HookSaid::from_output(&output.stdout),
    }
}
