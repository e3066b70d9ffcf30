//! `warden` / `warden acp`: the ACP agent on stdin/stdout.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use warden_acp_transport::{ServeOptions, Trace, serve};
use warden_permissions::Locations;
use warden_session::{AgentConfig, WardenAgent};

/// The environment variable that overrides the longest accepted protocol line.
const MAX_LINE_VAR: &str = "WARDEN_MAX_LINE_BYTES";

pub fn run(trace: Option<&Path>) -> anyhow::Result<ExitCode> {
    if std::io::stdin().is_terminal() {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "warden: an ACP agent speaking JSON-RPC on stdin/stdout, for editors such as Zed \
                 (see the README); to talk to it yourself, run `warden chat`. Press Ctrl-D to quit"
            );
        }
    }
    protect_own_environment();
    let mut options = ServeOptions {
        handle_signals: true,
        ..ServeOptions::default()
    };
    if let Some(limit) = std::env::var_os(MAX_LINE_VAR) {
        let limit = limit.to_string_lossy();
        options.max_line_bytes = limit.parse().ok().filter(|n| *n > 0).with_context(|| {
            format!("{MAX_LINE_VAR} must be a positive number of bytes, not `{limit}`")
        })?;
    }
    if let Some(path) = trace {
        let trace = Trace::open(path)
            .with_context(|| format!("cannot open the trace file {}", path.display()))?;
        options.trace = Some(Arc::new(trace));
    }
    let config = agent_config();
    // One thread runs the protocol and every turn (decision 0004): a message passes
    // from stdin through the SDK and a turn to stdout without waking another thread.
    // Blocking work (files, starting processes) goes to tokio's blocking pool, and the
    // audit log has its own thread.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let agent = Arc::new(WardenAgent::new(config));
    let serving = agent.clone();
    let result = runtime.block_on(async {
        let (input, output) = stdio();
        // A task of its own rather than `block_on`'s future, so that the connection is
        // scheduled in turn with the tasks it wakes: a turn that yields after sending
        // then runs again only after the connection and its writer have written.
        tokio::spawn(serve(serving, input, output, options)).await
    });
    // Whatever ended the connection, even a panic in its task: flush the audit log, and
    // do not wait for the stdin reader, which may sit in a blocking read that nothing
    // will end.
    agent.flush();
    runtime.shutdown_background();
    match result {
        Ok(Ok(ended)) => {
            tracing::debug!(?ended, "connection ended");
            Ok(ExitCode::SUCCESS)
        }
        Ok(Err(err)) => Err(err).context("serving ACP failed"),
        Err(err) => Err(err).context("the ACP connection's task failed"),
    }
}

/// The agent's setup from the environment (`WARDEN_HOME`, `WARDEN_MODEL`, ...); `warden
/// chat` runs the same agent in process.
pub fn agent_config() -> AgentConfig {
    AgentConfig {
        locations: Locations::from_env(),
        model_spec: std::env::var("WARDEN_MODEL").ok().filter(|v| !v.is_empty()),
        env: Arc::new(|name| std::env::var(name).ok().filter(|v| !v.is_empty())),
        tool_limits: warden_tools::Limits::default(),
        max_model_requests: 50,
        // Confinement is applied by this very program (`warden sandbox-exec`), or by the
        // small `warden-sandbox` installed next to it, which starts faster.
        sandbox_helper: std::env::current_exe()
            .ok()
            .map(warden_sandbox::Helper::beside),
    }
}

/// Tool processes run as the same user as Warden, and on Linux such a process may read
/// `/proc/<warden's pid>/environ`, where the model's API key is, whatever Warden removed
/// from the tool's own environment. A process that is not "dumpable" keeps its `/proc`
/// entries (`environ`, `mem`) and `ptrace` from other unprivileged processes; the flag
/// is not inherited across `exec`, so tools are unaffected. Warden then leaves no core
/// dump either, which would hold the key as well.
pub fn protect_own_environment() {
    #[cfg(target_os = "linux")]
    if let Err(err) =
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
    {
        tracing::warn!(%err, "cannot keep other processes out of Warden's /proc entries");
    }
}

type Input = Box<dyn tokio::io::AsyncRead + Unpin + Send>;
type Output = Box<dyn tokio::io::AsyncWrite + Unpin + Send>;

/// stdin and stdout as async streams. When they are pipes (an editor's case) they are
/// read and written directly by the runtime; tokio's `stdin()`/`stdout()` instead hand
/// every read and write to a blocking thread, which costs a thread hand-off per line.
/// Anything else (a terminal, a file) falls back to those.
fn stdio() -> (Input, Output) {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;
    let input: Input = match std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(pipe::Receiver::from_owned_fd)
    {
        Ok(receiver) => Box::new(receiver),
        Err(_) => Box::new(tokio::io::stdin()),
    };
    let output: Output = match std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(pipe::Sender::from_owned_fd)
    {
        Ok(sender) => Box::new(sender),
        Err(_) => Box::new(tokio::io::stdout()),
    };
    (input, output)
}
