//! A non-interactive chat: start or spawn the agent, open a session, send each prompt,
//! print what happens, and end with the last turn's outcome.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    ContentBlock, Implementation, InitializeRequest, InitializeResponse, LoadSessionRequest,
    McpServer, NewSessionRequest, PromptRequest, SessionId, TextContent,
};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use warden_acp_transport::{
    AgentCommand, AgentConnection, AgentExtension, AgentRequestError, ConnectError, ConnectOptions,
};

use warden_i18n::{Args, Catalog, Language, catalog};

use crate::approve::Approve;
use crate::clean::clean;
use crate::exit::{Exit, stop_reason};
use crate::interactive::{self, Person};
use crate::interrupts::{CANCEL_GRACE, Interrupts};
use crate::screen::{Commands, Screen};
use crate::style::Style;
use crate::terminal::Terminal;
use crate::transcript::{Approvals, Transcript};

/// Which agent to talk to.
pub enum AgentSpec {
    /// An agent served in this process (Warden's own), over an in-memory pipe the binary
    /// set up.
    InProcess(InProcess),
    /// Any ACP agent, started as a child: the program and its arguments.
    Command(Vec<String>),
}

/// An agent served in this process: the binary starts it on the far end of a pipe and
/// hands the chat the near end.
pub struct InProcess {
    /// The chat's end of the pipe.
    pub stream: tokio::io::DuplexStream,
    /// The task serving the agent; it ends once the chat closes its end.
    pub serving: tokio::task::JoinHandle<()>,
    /// Called once the agent has stopped, or did not within a moment: Warden's agent
    /// flushes its audit log.
    pub stopped: Box<dyn FnOnce() + Send>,
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcess").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentSpec::InProcess(_) => f.write_str("InProcess"),
            AgentSpec::Command(argv) => f.debug_tuple("Command").field(argv).finish(),
        }
    }
}

/// Splits `--agent "CMD ARGS"` into words as a POSIX shell would, without running one.
pub fn split_command(line: &str) -> Result<Vec<String>, ChatError> {
    match shlex::split(line) {
        Some(words) if !words.is_empty() => Ok(words),
        Some(_) => Err(ChatError::EmptyCommand),
        None => Err(ChatError::UnsplittableCommand {
            line: line.to_owned(),
        }),
    }
}

/// Where the prompts come from.
pub enum Prompts {
    /// `--prompt TEXT`: one turn.
    One(String),
    /// One prompt per non-empty line, until the end of input.
    Lines(Box<dyn AsyncBufRead + Unpin + Send>),
    /// A person at the terminal (stdin and stdout are one): line editing, prompts
    /// answered on keys, Markdown and colour (none with `NO_COLOR`).
    Terminal,
}

impl std::fmt::Debug for Prompts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prompts::One(text) => f.debug_tuple("One").field(text).finish(),
            Prompts::Lines(_) => f.write_str("Lines"),
            Prompts::Terminal => f.write_str("Terminal"),
        }
    }
}

#[derive(Debug)]
pub struct ChatOptions {
    pub agent: AgentSpec,
    /// The session's folder; absolute.
    pub cwd: PathBuf,
    pub approve: Approve,
    pub prompts: Prompts,
    /// Where a child agent's stderr is appended; `None` discards it.
    pub agent_log: Option<PathBuf>,
    /// `--resume ID`: load this session (`session/load`) instead of opening a new one.
    pub resume: Option<String>,
    /// The interactive prompt's history file; `None` keeps it in memory only.
    pub history: Option<PathBuf>,
    /// MCP servers for the session (`session/new`, `session/load`).
    pub mcp_servers: Vec<McpServer>,
    /// The language of the chat's own words (the agent's are shown as it sends them).
    pub language: Language,
}

#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("the agent command is empty")]
    EmptyCommand,
    #[error("cannot split the agent command `{line}` (an unclosed quote?)")]
    UnsplittableCommand { line: String },
    #[error("cannot open the agent log {path}: {source}")]
    Log {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("installing the signal handlers failed: {0}")]
    Signals(#[source] std::io::Error),
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error(transparent)]
    Agent(#[from] AgentRequestError),
    #[error("reading prompts failed: {0}")]
    Input(#[source] std::io::Error),
    #[error(
        "{agent} cannot resume a session: it does not offer `session/load` (no `loadSession` in its `initialize` answer); start without --resume"
    )]
    NoLoadSession { agent: String },
    #[error("cannot use the terminal: {0}")]
    Terminal(#[source] std::io::Error),
}

impl ChatError {
    /// The error in the reader's language: the chat's own sentences from its catalog;
    /// what the transport or the system says is kept as it says it.
    pub fn describe(&self, words: &Catalog) -> String {
        let error = |source: &dyn std::fmt::Display| clean(&source.to_string());
        match self {
            ChatError::EmptyCommand => words.plain("chat-error-empty-command"),
            ChatError::UnsplittableCommand { line } => words.text(
                "chat-error-unsplittable-command",
                &Args::new().with("line", clean(line)),
            ),
            ChatError::Log { path, source } => words.text(
                "chat-error-agent-log",
                &Args::new()
                    .with("path", path.display().to_string())
                    .with("error", error(source)),
            ),
            ChatError::Signals(source) => words.text(
                "chat-error-signals",
                &Args::new().with("error", error(source)),
            ),
            ChatError::Input(source) => words.text(
                "chat-error-input",
                &Args::new().with("error", error(source)),
            ),
            ChatError::Terminal(source) => words.text(
                "chat-error-terminal",
                &Args::new().with("error", error(source)),
            ),
            ChatError::NoLoadSession { agent } => words.text(
                "chat-error-no-load-session",
                &Args::new().with("agent", agent.clone()),
            ),
            ChatError::Connect(err) => error(err),
            ChatError::Agent(err) => error(err),
        }
    }
}

/// An agent served in process, once connected: its task, and what to call once it
/// stopped.
struct Served {
    serving: tokio::task::JoinHandle<()>,
    stopped: Box<dyn FnOnce() + Send>,
}

/// The agent at the other end, and what must be wound down with it.
struct Peer {
    connection: AgentConnection,
    own: Option<Served>,
}

async fn start(
    spec: AgentSpec,
    cwd: &std::path::Path,
    agent_log: Option<&std::path::Path>,
    transcript: Arc<Transcript>,
) -> Result<Peer, ChatError> {
    match spec {
        AgentSpec::InProcess(InProcess {
            stream,
            serving,
            stopped,
        }) => {
            let (client_in, client_out) = tokio::io::split(stream);
            let connection = AgentConnection::connect(
                transcript,
                client_in,
                client_out,
                ConnectOptions::default(),
            )
            .await?;
            Ok(Peer {
                connection,
                own: Some(Served { serving, stopped }),
            })
        }
        AgentSpec::Command(argv) => {
            let mut words = argv.into_iter();
            let program = words.next().ok_or(ChatError::EmptyCommand)?;
            let stderr = match agent_log {
                Some(path) => {
                    if let Some(parent) = path.parent() {
                        let _ = std::fs::create_dir_all(parent);
                    }
                    // Readable by the user only: the agent's log may hold what was said.
                    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
                    let file = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .mode(0o600)
                        .open(path)
                        .and_then(|file| {
                            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
                            Ok(file)
                        })
                        .map_err(|source| ChatError::Log {
                            path: path.to_path_buf(),
                            source,
                        })?;
                    file.into()
                }
                None => std::process::Stdio::null(),
            };
            let command = AgentCommand {
                program: program.into(),
                args: words.map(Into::into).collect(),
                cwd: Some(cwd.to_path_buf()),
                stderr,
            };
            let connection =
                AgentConnection::spawn(transcript, command, ConnectOptions::default()).await?;
            Ok(Peer {
                connection,
                own: None,
            })
        }
    }
}

impl Peer {
    /// Closes the connection; a child agent is stopped with its process group, Warden's
    /// own agent winds its turns down and flushes its audit log.
    async fn stop(self) {
        let Peer { connection, own } = self;
        connection.close().await;
        if let Some(own) = own {
            let _ = tokio::time::timeout(Duration::from_secs(3), own.serving).await;
            (own.stopped)();
        }
    }
}

/// Runs the chat, printing to `writer`.
pub async fn run(options: ChatOptions, writer: Box<dyn Write + Send>) -> Result<Exit, ChatError> {
    let mut interrupts = Interrupts::install().map_err(ChatError::Signals)?;
    let ChatOptions {
        agent,
        cwd,
        prompts,
        agent_log,
        approve,
        resume,
        history,
        mcp_servers,
        language,
    } = options;
    let words = catalog(language);
    let again = again(&agent, &cwd);
    let (transcript, person) = transcript(&prompts, writer, approve, history, words)?;
    let peer = match start(agent, &cwd, agent_log.as_deref(), transcript.clone()).await {
        Ok(peer) => peer,
        Err(err) => {
            transcript.finish();
            return Err(err);
        }
    };
    let opening = open(&peer.connection, &cwd, resume, mcp_servers, &transcript);
    let opened = answering_while(opening, person.as_ref(), &transcript).await;
    let resumable = opened
        .as_ref()
        .ok()
        .filter(|(_, init)| init.agent_capabilities.load_session)
        .map(|(session, _)| clean(&session.to_string()));
    let result = match (opened, &person) {
        (Err(err), _) => Err(err),
        (Ok((session, _)), None) => {
            turns(
                &peer.connection,
                &session,
                prompts,
                &transcript,
                &mut interrupts,
            )
            .await
        }
        (Ok((session, init)), Some((terminal, approvals))) => {
            let person = Person {
                terminal,
                approvals: approvals.clone(),
                extras: reads_answer_meta(&init),
                warden: AgentExtension::read(init.agent_capabilities.meta.as_ref()).is_some(),
            };
            transcript.lines(&[transcript.style().dim(&words.plain("chat-banner"))]);
            // A loaded session's calls left waiting are asked again now, before the first
            // prompt, not when the person next types.
            let ended = interactive::agents_turn(
                &peer.connection,
                &session,
                &transcript,
                &person,
                &mut interrupts,
            )
            .await;
            if ended {
                Ok(Exit::Cancelled)
            } else {
                Ok(interactive::prompts(
                    &peer.connection,
                    &session,
                    &transcript,
                    &person,
                    &mut interrupts,
                )
                .await)
            }
        }
    };
    if let Some((terminal, _)) = &person {
        terminal.restore();
    }
    transcript.end_text();
    if let Some(id) = resumable {
        resume_hint(
            &transcript,
            words,
            format!("warden chat{again} --resume {id}"),
        );
    }
    peer.stop().await;
    // Blocks until the output is written: the last thing the chat does.
    transcript.finish();
    result
}

/// How to come back to this session: the command line of the agent, when it is not
/// Warden's own.
fn again(agent: &AgentSpec, cwd: &std::path::Path) -> String {
    match agent {
        AgentSpec::InProcess(_) => String::new(),
        AgentSpec::Command(argv) => {
            let line = shlex::try_join(argv.iter().map(String::as_str)).unwrap_or_default();
            format!(
                " --agent {} --cwd {}",
                shlex::try_quote(&line).unwrap_or_default(),
                shlex::try_quote(&cwd.display().to_string()).unwrap_or_default()
            )
        }
    }
}

/// Waits for the session to open. An agent may ask while it loads a session (a call
/// that was waiting for approval when it stopped is asked again): a person at the
/// terminal answers it here, without edits or notes, since what the agent reads is not
/// known before `initialize` returns.
async fn answering_while<F: std::future::Future>(
    opening: F,
    person: Option<&AtTerminal>,
    transcript: &Transcript,
) -> F::Output {
    let Some((terminal, approvals)) = person else {
        return opening.await;
    };
    let person = Person {
        terminal,
        approvals: approvals.clone(),
        extras: false,
        warden: false,
    };
    terminal.turn_started();
    let opened = interactive::while_opening(opening, transcript, &person).await;
    terminal.turn_ended();
    opened
}

/// Tells the person the command that comes back to this session.
fn resume_hint(transcript: &Transcript, words: &Catalog, command: String) {
    let style = transcript.style();
    transcript.lines(&[
        style.dim(&words.text("chat-resume-hint", &Args::new().with("command", command)))
    ]);
}

/// A person at the terminal: their terminal, and the requests waiting for their
/// answers.
type AtTerminal = (Terminal, Arc<Approvals>);

/// The transcript the chat prints to, and, when a person answers at a terminal, that
/// terminal and the requests waiting for their answers.
fn transcript(
    prompts: &Prompts,
    writer: Box<dyn Write + Send>,
    approve: Approve,
    history: Option<PathBuf>,
    words: &'static Catalog,
) -> Result<(Arc<Transcript>, Option<AtTerminal>), ChatError> {
    Ok(match prompts {
        Prompts::Terminal => {
            let style = Style::from_env();
            let commands = Commands::default();
            let approvals = Arc::new(Approvals::new(words));
            let terminal = Terminal::new(commands.clone(), history).map_err(ChatError::Terminal)?;
            let transcript = Arc::new(Transcript::interactive(
                writer,
                Screen::new(style, commands, words),
                approvals.clone(),
            ));
            (transcript, Some((terminal, approvals)))
        }
        _ => (Arc::new(Transcript::new(writer, approve, words)), None),
    })
}

/// Whether the agent reads Warden's extension on permission answers
/// (`agentCapabilities._meta.warden.permissionResponseMeta`: edited arguments and a note).
pub(crate) fn reads_answer_meta(init: &InitializeResponse) -> bool {
    AgentExtension::read(init.agent_capabilities.meta.as_ref()).is_some_and(|ext| {
        ext.permission_response_meta.edited_input && ext.permission_response_meta.note
    })
}

/// `initialize`, then a new session, or the one `--resume` names where the agent can load
/// it.
async fn open(
    connection: &AgentConnection,
    cwd: &std::path::Path,
    resume: Option<String>,
    servers: Vec<McpServer>,
    transcript: &Transcript,
) -> Result<(SessionId, InitializeResponse), ChatError> {
    let init =
        connection
            .initialize(InitializeRequest::new(ProtocolVersion::V1).client_info(
                Implementation::new("warden-chat", env!("CARGO_PKG_VERSION")),
            ))
            .await?;
    let name = init
        .agent_info
        .as_ref()
        .map(|info| info.title.clone().unwrap_or_else(|| info.name.clone()))
        .unwrap_or_else(|| transcript.words().plain("chat-the-agent"));
    transcript.set_agent_name(&name);
    let session = match resume {
        Some(id) if init.agent_capabilities.load_session => {
            let id = SessionId::new(id);
            // The agent replays the conversation as updates before it answers.
            connection
                .load_session(
                    LoadSessionRequest::new(id.clone(), cwd.to_path_buf()).mcp_servers(servers),
                )
                .await?;
            id
        }
        Some(_) => {
            return Err(ChatError::NoLoadSession {
                agent: clean(&name),
            });
        }
        None => {
            connection
                .new_session(NewSessionRequest::new(cwd.to_path_buf()).mcp_servers(servers))
                .await?
                .session_id
        }
    };
    // A child agent's pid is part of the log, so that a run can be checked for leftovers.
    let pid = connection
        .agent_pid()
        .map(|pid| format!(" (pid {pid})"))
        .unwrap_or_default();
    transcript.lines(&[transcript.words().text(
        "chat-session-line",
        &Args::new()
            .with("session", clean(&session.to_string()))
            .with("agent", format!("{}{pid}", clean(&name)))
            .with("folder", cwd.display().to_string()),
    )]);
    Ok((session, init))
}

/// The non-interactive prompts, one turn each.
async fn turns(
    connection: &AgentConnection,
    session: &SessionId,
    mut prompts: Prompts,
    transcript: &Transcript,
    interrupts: &mut Interrupts,
) -> Result<Exit, ChatError> {
    let mut last = Exit::Ended;
    loop {
        let text = match &mut prompts {
            Prompts::One(text) => {
                let text = std::mem::take(text);
                if text.is_empty() {
                    break;
                }
                text
            }
            Prompts::Terminal => break,
            Prompts::Lines(input) => {
                let mut line = String::new();
                let read = tokio::select! {
                    read = input.read_line(&mut line) => read.map_err(ChatError::Input)?,
                    () = interrupts.recv() => {
                        transcript.lines(&[transcript.words().plain("chat-log-interrupted")]);
                        return Ok(Exit::Cancelled);
                    }
                };
                if read == 0 {
                    break;
                }
                let line = line.trim_end_matches(['\n', '\r']).to_owned();
                if line.trim().is_empty() {
                    continue;
                }
                line
            }
        };
        for (i, prompt_line) in text.lines().enumerate() {
            let marker = if i == 0 { ">" } else { " " };
            transcript.lines(&[format!("{marker} {}", clean(prompt_line))]);
        }
        let (exit, stop) = turn(connection, session, text, transcript, interrupts).await;
        last = exit;
        if stop {
            break;
        }
    }
    Ok(last)
}

/// One turn; returns its outcome and whether the chat must stop (interrupted, or the
/// agent is gone).
async fn turn(
    connection: &AgentConnection,
    session: &SessionId,
    text: String,
    transcript: &Transcript,
    interrupts: &mut Interrupts,
) -> (Exit, bool) {
    let request = PromptRequest::new(
        session.clone(),
        vec![ContentBlock::Text(TextContent::new(text))],
    );
    let prompt = connection.prompt(request);
    tokio::pin!(prompt);
    let (result, interrupted) = tokio::select! {
        result = &mut prompt => (Some(result), false),
        () = interrupts.recv() => {
            transcript.end_text();
            transcript.lines(&[transcript.words().plain("chat-log-cancelling")]);
            if let Err(err) = connection.cancel(session.clone()) {
                tracing::debug!(%err, "could not send session/cancel");
            }
            // The agent answers the prompt `cancelled`; a second signal or the grace
            // period ends the wait.
            let result = tokio::select! {
                result = tokio::time::timeout(CANCEL_GRACE, &mut prompt) => result.ok(),
                () = interrupts.recv() => None,
            };
            (result, true)
        }
    };
    transcript.end_text();
    let exit = match result {
        Some(Ok(response)) => {
            let (exit, reason) = stop_reason(response.stop_reason);
            transcript.lines(&[transcript
                .words()
                .text("chat-turn-ended", &Args::new().with("reason", reason))]);
            exit
        }
        Some(Err(err)) => {
            transcript.lines(&[transcript.words().text(
                "chat-turn-failed",
                &Args::new().with("error", clean(&err.to_string())),
            )]);
            if matches!(err, AgentRequestError::Disconnected { .. }) {
                return (Exit::Failed, true);
            }
            Exit::Failed
        }
        None => {
            transcript.lines(&[transcript.words().plain("chat-log-not-answered")]);
            Exit::Cancelled
        }
    };
    // Interrupted means the user asked to stop, whatever the agent answered.
    if interrupted {
        return (Exit::Cancelled, true);
    }
    (exit, false)
}
