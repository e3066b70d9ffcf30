//! `terminal`: through the editor's `terminal/*` when it offers them (the terminal is embedded
//! in the tool call, killed on timeout and cancel, and always released), as a local process
//! otherwise.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::local_process::{self, Ending};
use super::plain_text::plain_text;
use super::refusal;
use super::{ExecContext, ToolOutput};
use crate::call::TerminalArgs;
use crate::content::Content;
use crate::editor::{Editor, EditorError, TerminalExit, TerminalRequest};
use crate::launch::{Launch, sandbox_failure};
use crate::paths::{display, resolve};

const TOOL: &str = "terminal";

/// The timeout that applies, and whether the call asked for more than the session allows.
#[derive(Debug, Clone, Copy)]
struct Timeout {
    limit: Duration,
    capped: bool,
}

pub(crate) async fn run(args: &TerminalArgs, launch: &Launch, cx: &ExecContext<'_>) -> ToolOutput {
    let cwd = resolve(
        cx.cwd,
        cx.home,
        args.cwd.as_deref().unwrap_or(Path::new("")),
    );
    let requested = args
        .timeout_secs
        .map_or(cx.limits.terminal_timeout, Duration::from_secs);
    let timeout = Timeout {
        limit: requested.min(cx.limits.terminal_max_timeout),
        capped: requested > cx.limits.terminal_max_timeout,
    };
    if !cwd.is_dir() {
        return ToolOutput::failed(
            TOOL,
            format!(
                "the working directory {} is not a directory",
                display(cx.cwd, cx.home, &cwd)
            ),
        );
    }
    match &cx.editor {
        Some(editor) if editor.can_terminal() => {
            in_editor(editor.clone(), &args.command, launch, cwd, timeout, cx).await
        }
        _ => locally(&args.command, launch, &cwd, timeout, cx).await,
    }
}

/// The first line for the model: how the command ended.
fn verdict(ending: Ending, code: Option<i64>, signal: Option<String>, timeout: Timeout) -> String {
    match ending {
        Ending::TimedOut if timeout.capped => format!(
            "Timed out after {} s (the longest timeout allowed); the command was killed.",
            timeout.limit.as_secs()
        ),
        Ending::TimedOut => format!(
            "Timed out after {} s; the command was killed.",
            timeout.limit.as_secs()
        ),
        Ending::Cancelled => "Cancelled; the command was killed.".to_owned(),
        Ending::Exited => match (code, signal) {
            (Some(code), _) => format!("Exit code {code}."),
            (None, Some(signal)) => format!("Killed by signal {signal}."),
            (None, None) => "Exited with an unknown status.".to_owned(),
        },
    }
}

/// The name of a signal, as editors report it (`SIGKILL`), or its number when uncommon.
fn signal_name(number: i32) -> String {
    let name = match number {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return format!("signal {number}"),
    };
    name.to_owned()
}

/// What the model reads: the ending, then the output as plain text (see
/// [`plain_text`]).
fn for_model(verdict: &str, output: &str, truncated: bool) -> String {
    let output = &plain_text(output);
    let mut text = verdict.to_owned();
    if output.is_empty() {
        text.push_str("\n(no output)");
    } else {
        text.push('\n');
        text.push_str(output);
        if !output.ends_with('\n') {
            text.push('\n');
        }
        if truncated {
            text.push_str("[terminal: the output was truncated]");
        }
    }
    text
}

async fn locally(
    command: &str,
    launch: &Launch,
    cwd: &Path,
    timeout: Timeout,
    cx: &ExecContext<'_>,
) -> ToolOutput {
    let run = local_process::run(command, launch, cwd, timeout.limit, cx).await;
    let run = match run {
        Ok(run) => run,
        Err(err) => return ToolOutput::failed(TOOL, format!("could not run `sh -c`: {err}")),
    };
    if let Some(why) = sandbox_failure(run.exit_code, &run.output) {
        return ToolOutput::failed(
            TOOL,
            format!("the sandbox could not start ({why}), so the command did not run"),
        );
    }
    let signal = run.signal.map(signal_name);
    let verdict = verdict(
        run.ending,
        run.exit_code.map(i64::from),
        signal.clone(),
        timeout,
    );
    let mut text = for_model(&verdict, &run.output, run.truncated);
    let ok = run.ending == Ending::Exited && run.exit_code == Some(0);
    let mut shown = if run.output.is_empty() {
        verdict.clone()
    } else {
        format!(
            "{verdict}\n```\n{}\n```",
            plain_text(&run.output).trim_end_matches('\n')
        )
    };
    let refused = refusals(&run.output, launch, cwd, cx);
    if let Some(paragraph) = refusal::paragraph(&refused) {
        text = format!("{text}\n{paragraph}");
        shown = format!("{shown}\n\n{paragraph}");
    }
    ToolOutput {
        ok,
        timed_out: run.ending == Ending::TimedOut,
        content: vec![Content::Text(shown)],
        raw_output: json!({
            "exit_code": run.exit_code,
            "signal": run.signal,
            "timed_out": run.ending == Ending::TimedOut,
            "cancelled": run.ending == Ending::Cancelled,
            "output": run.output,
            "truncated": run.truncated,
            "pid": run.pid,
            "sandbox_refused": refused,
        }),
        for_model: text,
    }
}

/// What the sandbox refused a confined command, in sentences (a command may end well
/// although a part of it was refused).
fn refusals(output: &str, launch: &Launch, cwd: &Path, cx: &ExecContext<'_>) -> Vec<String> {
    match launch.confinement() {
        Some(confinement) => refusal::explain(output, confinement, cwd, cx.home),
        None => Vec::new(),
    }
}

/// Makes sure an editor terminal is released: explicitly at the end of a call, or, when the
/// call's future is dropped half-way, by a background task that kills and releases it.
struct Release {
    editor: Option<Arc<dyn Editor>>,
    id: String,
    limit: Duration,
}

impl Release {
    async fn now(mut self) {
        if let Some(editor) = self.editor.take()
            && let Err(err) = step(
                "terminal/release",
                self.limit,
                editor.release_terminal(&self.id),
            )
            .await
        {
            tracing::warn!(terminal = %self.id, %err, "terminal/release failed");
        }
    }
}

/// One follow-up request to the editor (kill, output, release), bounded in time: an editor
/// that stops answering must not keep a cancelled turn from ending.
async fn step<T>(
    method: &'static str,
    limit: Duration,
    request: impl Future<Output = Result<T, EditorError>>,
) -> Result<T, EditorError> {
    match tokio::time::timeout(limit, request).await {
        Ok(result) => result,
        Err(_) => Err(EditorError::Failed {
            method,
            message: match limit.subsec_millis() {
                0 => format!("no answer within {} s", limit.as_secs()),
                _ => format!("no answer within {} ms", limit.as_millis()),
            },
        }),
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        let Some(editor) = self.editor.take() else {
            return;
        };
        let id = std::mem::take(&mut self.id);
        let limit = self.limit;
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    let _ = step("terminal/kill", limit, editor.kill_terminal(&id)).await;
                    let release = step("terminal/release", limit, editor.release_terminal(&id));
                    if let Err(err) = release.await {
                        tracing::warn!(terminal = %id, %err, "terminal/release failed");
                    }
                });
            }
            Err(_) => tracing::warn!(terminal = %id, "no runtime left to release the terminal"),
        }
    }
}

/// The terminal the editor is asked to create for the command.
fn editor_request(
    command: &str,
    launch: &Launch,
    cwd: &std::path::Path,
    cx: &ExecContext<'_>,
) -> TerminalRequest {
    // The editor runs on this machine: the same shell as a local command, by name
    // (the editor's PATH finds it), so the command runs in the dialect it was judged
    // in. Its environment is the editor's, which Warden does not control; confined, the
    // editor runs Warden's sandbox helper around it.
    let shell = if super::command_shell().is_bash {
        "bash"
    } else {
        "sh"
    };
    let (program, args) = launch.editor_command(shell.into(), vec!["-c".into(), command.into()]);
    TerminalRequest {
        command: program.to_string_lossy().into_owned(),
        args: args
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        cwd: cwd.to_path_buf(),
        env: Vec::new(),
        output_byte_limit: Some(cx.limits.output_bytes as u64),
    }
}

async fn in_editor(
    editor: Arc<dyn Editor>,
    command: &str,
    launch: &Launch,
    cwd: PathBuf,
    timeout: Timeout,
    cx: &ExecContext<'_>,
) -> ToolOutput {
    let request = editor_request(command, launch, &cwd, cx);
    // Creation is not raced against cancel: a terminal created after we stopped waiting would
    // never be released.
    let id = match editor.create_terminal(request).await {
        Ok(id) => id,
        Err(err) => return ToolOutput::failed(TOOL, err),
    };
    let release = Release {
        editor: Some(editor.clone()),
        id: id.clone(),
        limit: cx.limits.editor_step_timeout,
    };
    (cx.progress)(vec![Content::Terminal { id: id.clone() }]);
    let waited = tokio::select! {
        biased;
        () = cx.cancel.cancelled() => Err(Ending::Cancelled),
        () = tokio::time::sleep(timeout.limit) => Err(Ending::TimedOut),
        exit = editor.wait_for_terminal_exit(&id) => Ok(exit),
    };
    let (ending, waited_exit, wait_error) = match waited {
        Ok(Ok(exit)) => (Ending::Exited, Some(exit), None),
        Ok(Err(err)) => (Ending::Exited, None, Some(err)),
        Err(ending) => {
            let limit = cx.limits.editor_step_timeout;
            if let Err(err) = step("terminal/kill", limit, editor.kill_terminal(&id)).await {
                tracing::warn!(terminal = %id, %err, "terminal/kill failed");
            }
            (ending, None, None)
        }
    };
    let output = step(
        "terminal/output",
        cx.limits.editor_step_timeout,
        editor.terminal_output(&id),
    )
    .await;
    release.now().await;
    if let Some(err) = wait_error {
        return ToolOutput::failed(TOOL, err);
    }
    let output = match output {
        Ok(output) => output,
        Err(err) => return ToolOutput::failed(TOOL, err),
    };
    let exit = waited_exit
        .or_else(|| output.exit.clone())
        .unwrap_or_else(TerminalExit::default);
    let verdict = verdict(
        ending,
        exit.exit_code.map(i64::from),
        exit.signal.clone(),
        timeout,
    );
    if let Some(why) = sandbox_failure(
        exit.exit_code.and_then(|c| i32::try_from(c).ok()),
        &output.output,
    ) {
        return ToolOutput::failed(
            TOOL,
            format!("the sandbox could not start ({why}), so the command did not run"),
        );
    }
    let ok = ending == Ending::Exited && exit.exit_code == Some(0);
    let refused = refusals(&output.output, launch, &cwd, cx);
    let mut text = for_model(&verdict, &output.output, output.truncated);
    let mut content = vec![Content::Terminal { id: id.clone() }];
    if let Some(paragraph) = refusal::paragraph(&refused) {
        text = format!("{text}\n{paragraph}");
        content.push(Content::Text(paragraph));
    }
    ToolOutput {
        ok,
        timed_out: ending == Ending::TimedOut,
        content,
        raw_output: json!({
            "terminal_id": id,
            "exit_code": exit.exit_code,
            "signal": exit.signal,
            "timed_out": ending == Ending::TimedOut,
            "cancelled": ending == Ending::Cancelled,
            "output": output.output,
            "truncated": output.truncated,
            "sandbox_refused": refused,
        }),
        for_model: text,
    }
}
