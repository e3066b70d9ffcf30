//! `warden hook --for claude|codex|gemini`: Warden as another agent's pre-tool-use
//! hook (docs/hooks.md).
//!
//! All three agents let a call through when its hook crashes, hangs or exits with
//! anything but 0 or 2, so this command always answers: input it cannot read, a tool
//! it does not know and its own failures (a panic included) are answered `ask` (a
//! refusal that says how to approve, for Codex), and it exits 0.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use warden_hook::{Agent, Judged, Payload, PayloadError, audit_events, judge, render};
use warden_permissions::Locations;

use super::evaluate::{Confinement, Evaluator};

#[derive(Debug, clap::Args)]
pub struct HookArgs {
    /// The agent whose hook this is: `claude` (Claude Code), `codex` or `gemini`
    /// (Gemini CLI).
    #[arg(long = "for", value_name = "AGENT", value_parser = parse_agent)]
    agent: Agent,
}

fn parse_agent(s: &str) -> Result<Agent, String> {
    s.parse::<Agent>().map_err(|e| e.to_string())
}

/// Answers one payload from stdin. Never fails: see the module's documentation.
pub fn run(args: &HookArgs) -> ExitCode {
    let agent = args.agent;
    let input = read_input();
    let payload = input.as_deref().map(Payload::parse);
    let judged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &payload {
        Ok(parsed) => judge_payload(agent, parsed.as_ref()),
        Err(problem) => Judged::unjudged(problem.to_string()),
    }))
    .unwrap_or_else(|_| Judged::unjudged("Warden failed while judging this call.".to_owned()));
    let answer = render(agent, &judged);
    let mut out = std::io::stdout().lock();
    // Nothing but the answer goes to stdout; a closed pipe leaves nothing to do.
    let _ = out.write_all(answer.stdout.as_bytes());
    let _ = out.flush();
    drop(out);
    record(
        agent,
        payload.as_ref().ok().and_then(|p| p.as_ref().ok()),
        &judged,
    );
    ExitCode::from(answer.exit_code)
}

/// The payload's bytes, at most one more than a payload may have.
fn read_input() -> Result<Vec<u8>, String> {
    let limit = u64::try_from(warden_hook::MAX_PAYLOAD_BYTES + 1).unwrap_or(u64::MAX);
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("Warden could not read the hook's input ({e})."))?;
    Ok(bytes)
}

fn judge_payload(agent: Agent, payload: Result<&Payload, &PayloadError>) -> Judged {
    let cwd = project_folder(payload.ok());
    // Loaded only when a call is to be evaluated (not for an unknown tool).
    let mut evaluator: Option<Evaluator> = None;
    let mut evaluate = |call: &warden_permissions::ToolCall| {
        evaluator
            .get_or_insert_with(|| {
                Evaluator::for_project(&cwd, agent.client(), None, Confinement::Bounds)
            })
            .evaluate(call)
    };
    judge(agent, payload, &mut evaluate)
}

/// The payload's `cwd` when it names a folder, else the folder the agent started
/// the hook in.
fn project_folder(payload: Option<&Payload>) -> PathBuf {
    let given = payload
        .and_then(|p| p.cwd.clone())
        .filter(|cwd| cwd.is_absolute() && cwd.is_dir());
    let cwd = given.or_else(|| std::env::current_dir().ok());
    super::policy::session_dir(cwd).unwrap_or_else(|_| PathBuf::from("/"))
}

/// Writes the verdict to the audit log, with the agent as the client. A log that
/// cannot be opened is reported on stderr, never in the answer.
fn record(agent: Agent, payload: Option<&Payload>, judged: &Judged) {
    match super::audit_log::open(&Locations::from_env()) {
        Ok(log) => {
            for event in audit_events(agent, payload, judged) {
                log.record(event);
            }
            // Dropping the log drains its queue before the process ends.
            drop(log);
        }
        Err(err) => tracing::warn!(%err, "cannot open the audit log; this verdict is not recorded"),
    }
}
