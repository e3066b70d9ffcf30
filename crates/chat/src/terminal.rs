//! The person's terminal: a thread of its own that owns standard input. It reads prompt
//! lines with `rustyline` (line editing, history, Tab completion of the agent's slash
//! commands), single keys for the permission prompt, and runs `$EDITOR`. The runtime's
//! thread never blocks on the keyboard; it asks this thread and awaits the answer.
//!
//! Modes: while a turn runs the terminal echoes nothing and reads no lines (input is
//! disabled until the agent's reply), signals stay on so Ctrl-C is SIGINT; at the prompt
//! `rustyline` takes the terminal raw and gives Ctrl-C and Ctrl-D to the chat as keys.
//! Whatever was typed during a turn is discarded before the next prompt.

use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use rustix::termios::{
    self, LocalModes, OptionalActions, QueueSelector, SpecialCodeIndex, Termios,
};
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Config, Context, Editor, Helper};
use tokio::sync::oneshot;

use crate::approvals::Key;
use crate::screen::Commands;

/// What a line read ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D on an empty line, or the terminal is gone.
    Eof,
}

/// Tab completion of the agent's slash commands.
struct Completion {
    commands: Commands,
}

impl Completer for Completion {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        // Only the first word of a line is a command.
        if !before.starts_with('/') || before.contains(char::is_whitespace) {
            return Ok((pos, Vec::new()));
        }
        let commands = self.commands.lock().map(|c| c.clone()).unwrap_or_default();
        let mut matches: Vec<String> = commands
            .into_iter()
            .filter(|c| c.starts_with(before))
            .map(|c| format!("{c} "))
            .collect();
        matches.sort();
        Ok((0, matches))
    }
}

impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
/// A line that ends with a backslash goes on on the next line: one prompt of several
/// lines (the scripted model proposes every `/call` line of a prompt as one batch).
impl Validator for Completion {
    fn validate(
        &self,
        ctx: &mut rustyline::validate::ValidationContext<'_>,
    ) -> rustyline::Result<rustyline::validate::ValidationResult> {
        Ok(if ctx.input().ends_with('\\') {
            rustyline::validate::ValidationResult::Incomplete
        } else {
            rustyline::validate::ValidationResult::Valid(None)
        })
    }
}

/// The prompt a person typed, without the backslashes that continued its lines.
pub fn joined(text: &str) -> String {
    text.replace("\\\n", "\n")
}
impl Helper for Completion {}

enum Job {
    Line {
        prompt: String,
        initial: String,
        history: bool,
        reply: oneshot::Sender<Line>,
    },
    Key {
        id: u64,
        reply: oneshot::Sender<Option<Key>>,
    },
    Editor {
        command: Vec<String>,
        text: String,
        reply: oneshot::Sender<Result<String, EditError>>,
    },
}

/// Why the arguments could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("the terminal is gone")]
    Gone,
    #[error("no editor")]
    NoEditor,
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the editor exited with {0}")]
    Exited(std::process::ExitStatus),
    #[error("cannot run the editor {program}: {source}")]
    Run {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("not edited")]
    NotEdited,
    #[error("the arguments must be a JSON object")]
    NotAnObject,
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
}

/// The terminal's modes: the one found at start (restored at the end and for lines) and
/// the quiet one of a running turn.
#[derive(Debug)]
struct Modes {
    original: Termios,
    quiet: Termios,
    /// Whether a turn is running (quiet mode is wanted between lines).
    turn: Mutex<bool>,
}

impl Modes {
    fn set(&self, mode: &Termios) {
        if let Err(err) = termios::tcsetattr(std::io::stdin().as_fd(), OptionalActions::Now, mode) {
            tracing::debug!(%err, "cannot set the terminal's mode");
        }
    }

    fn for_lines(&self) {
        self.set(&self.original);
    }

    fn after_lines(&self) {
        if *self.turn.lock().unwrap_or_else(|p| p.into_inner()) {
            self.set(&self.quiet);
        }
    }
}

/// The handle on the terminal's thread.
#[derive(Debug)]
pub struct Terminal {
    jobs: Option<mpsc::Sender<Job>>,
    modes: Arc<Modes>,
    /// Key reads up to this id are abandoned.
    abandoned: Arc<AtomicU64>,
    next_key: AtomicU64,
    wake: OwnedFd,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

impl Terminal {
    /// Takes over standard input, which must be a terminal.
    pub fn new(commands: Commands, history: Option<PathBuf>) -> std::io::Result<Terminal> {
        let original = termios::tcgetattr(std::io::stdin().as_fd())?;
        let mut quiet = original.clone();
        quiet.local_modes &= !(LocalModes::ICANON | LocalModes::ECHO);
        quiet.local_modes |= LocalModes::ISIG;
        quiet.special_codes[SpecialCodeIndex::VMIN] = 1;
        quiet.special_codes[SpecialCodeIndex::VTIME] = 0;
        let modes = Arc::new(Modes {
            original,
            quiet,
            turn: Mutex::new(false),
        });
        let (wake_read, wake) = rustix::pipe::pipe()?;
        let abandoned = Arc::new(AtomicU64::new(0));
        let (jobs, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("warden-chat-terminal".to_owned())
            .spawn({
                let modes = modes.clone();
                let abandoned = abandoned.clone();
                move || serve(rx, modes, abandoned, wake_read, commands, history)
            })?;
        Ok(Terminal {
            jobs: Some(jobs),
            modes,
            abandoned,
            next_key: AtomicU64::new(1),
            wake,
            thread: Some(thread),
        })
    }

    fn job(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }

    /// A turn starts: no echo, no line reading; Ctrl-C stays a signal.
    pub fn turn_started(&self) {
        *self.modes.turn.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.modes.set(&self.modes.quiet);
    }

    /// A turn ended: the terminal as it was, and what was typed meanwhile discarded.
    pub fn turn_ended(&self) {
        *self.modes.turn.lock().unwrap_or_else(|p| p.into_inner()) = false;
        self.modes.for_lines();
        let _ = termios::tcflush(std::io::stdin().as_fd(), QueueSelector::IFlush);
    }

    /// Reads a line at `prompt`, with `initial` already typed; `history` adds it to the
    /// history.
    pub async fn line(&self, prompt: &str, initial: &str, history: bool) -> Line {
        let (reply, rx) = oneshot::channel();
        self.job(Job::Line {
            prompt: prompt.to_owned(),
            initial: initial.to_owned(),
            history,
            reply,
        });
        rx.await.unwrap_or(Line::Eof)
    }

    /// Reads one key. Dropping the future abandons the read, so the key goes to no one
    /// and the next line is read normally. `None`: the terminal is gone.
    pub async fn key(&self) -> Option<Key> {
        let id = self.next_key.fetch_add(1, Ordering::SeqCst);
        let (reply, rx) = oneshot::channel();
        self.job(Job::Key { id, reply });
        let guard = Abandon { terminal: self, id };
        let key = rx.await.ok().flatten();
        std::mem::forget(guard);
        key
    }

    /// Runs the editor on `text`, returns the edited text.
    pub async fn edit(&self, command: Vec<String>, text: String) -> Result<String, EditError> {
        let (reply, rx) = oneshot::channel();
        self.job(Job::Editor {
            command,
            text,
            reply,
        });
        rx.await.unwrap_or(Err(EditError::Gone))
    }

    /// Gives the terminal back as it was found.
    pub fn restore(&self) {
        self.modes.for_lines();
    }
}

/// Abandons a key read whose future was dropped.
struct Abandon<'a> {
    terminal: &'a Terminal,
    id: u64,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        self.terminal.abandoned.fetch_max(self.id, Ordering::SeqCst);
        let _ = rustix::io::write(&self.terminal.wake, b"x");
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.restore();
        drop(self.jobs.take());
        // The thread may sit in a line read the person never finishes; it is not waited
        // for (the process is ending), only told to stop at its next job.
        drop(self.thread.take());
    }
}

fn serve(
    jobs: mpsc::Receiver<Job>,
    modes: Arc<Modes>,
    abandoned: Arc<AtomicU64>,
    wake: OwnedFd,
    commands: Commands,
    history: Option<PathBuf>,
) {
    let config = Config::builder().auto_add_history(false).build();
    let mut editor: Option<Editor<Completion, DefaultHistory>> = match Editor::with_config(config) {
        Ok(mut editor) => {
            editor.set_helper(Some(Completion { commands }));
            if let Some(path) = &history {
                // No history yet is the usual first run.
                let _ = editor.load_history(path);
            }
            Some(editor)
        }
        Err(err) => {
            tracing::warn!(%err, "cannot start the line editor");
            None
        }
    };
    let mut pending: Vec<u8> = Vec::new();
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Line {
                prompt,
                initial,
                history: keep,
                reply,
            } => {
                // Keys typed for a permission prompt that is gone mean nothing at the
                // chat's prompt.
                if keep {
                    pending.clear();
                }
                let Some(editor) = editor.as_mut() else {
                    let _ = reply.send(Line::Eof);
                    continue;
                };
                modes.for_lines();
                let read = editor.readline_with_initial(&prompt, (&initial, ""));
                modes.after_lines();
                let line = match read {
                    Ok(text) => {
                        if keep && !text.trim().is_empty() {
                            let _ = editor.add_history_entry(text.as_str());
                            if let Some(path) = &history {
                                save_history(editor, path);
                            }
                        }
                        Line::Text(text)
                    }
                    Err(ReadlineError::Interrupted) => Line::Interrupted,
                    Err(_) => Line::Eof,
                };
                let _ = reply.send(line);
            }
            Job::Key { id, reply } => {
                let key = read_key(id, &abandoned, wake.as_fd(), &mut pending);
                let _ = reply.send(key);
            }
            Job::Editor {
                command,
                text,
                reply,
            } => {
                modes.for_lines();
                let result = run_editor(&command, &text);
                modes.after_lines();
                let _ = reply.send(result);
            }
        }
    }
}

/// Saves the history, readable by the user only: prompts may hold what others should not
/// read.
fn save_history(editor: &mut Editor<Completion, DefaultHistory>, path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(err) = editor.save_history(path) {
        tracing::debug!(%err, "cannot save the chat's history");
        return;
    }
    if let Err(err) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)) {
        tracing::debug!(%err, "cannot make the chat's history private");
    }
}

/// Waits for a key on stdin, or for the read to be abandoned. Keys typed faster than
/// they are read arrive together: the ones after the first wait in `pending` for the next
/// reads, none is lost.
fn read_key(
    id: u64,
    abandoned: &AtomicU64,
    wake: BorrowedFd<'_>,
    pending: &mut Vec<u8>,
) -> Option<Key> {
    use rustix::event::{PollFd, PollFlags, poll};
    loop {
        if abandoned.load(Ordering::SeqCst) >= id {
            drain(wake);
            return None;
        }
        if !pending.is_empty() {
            let (key, used) = decode_one(pending);
            pending.drain(..used.clamp(1, pending.len()));
            if key.is_some() {
                return key;
            }
            continue;
        }
        let stdin = std::io::stdin();
        let mut fds = [
            PollFd::new(&stdin, PollFlags::IN),
            PollFd::from_borrowed_fd(wake, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        }
        if fds[1].revents().contains(PollFlags::IN) {
            drain(wake);
            continue;
        }
        let ready = fds[0].revents();
        if ready.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
            && !ready.contains(PollFlags::IN)
        {
            return None;
        }
        let mut buffer = [0u8; 64];
        let n = match std::io::stdin().lock().read(&mut buffer) {
            Ok(0) | Err(_) => return None,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buffer[..n]);
    }
}

fn drain(wake: BorrowedFd<'_>) {
    use rustix::event::{PollFd, PollFlags, poll};
    let mut buffer = [0u8; 16];
    loop {
        let mut fds = [PollFd::from_borrowed_fd(wake, PollFlags::IN)];
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        if !matches!(poll(&mut fds, Some(&zero)), Ok(n) if n > 0) {
            return;
        }
        if !matches!(rustix::io::read(wake, &mut buffer), Ok(n) if n > 0) {
            return;
        }
    }
}

/// The first key in `bytes` (Enter, or a character; escape sequences such as arrows and
/// other control bytes mean nothing here) and how many bytes it took. An escape sequence takes the
/// rest of the read (it arrives whole); a byte that starts no character takes one.
fn decode_one(bytes: &[u8]) -> (Option<Key>, usize) {
    match bytes.first() {
        None => (None, 0),
        Some(b'\r' | b'\n') => (Some(Key::Enter), 1),
        Some(0x1b) => (None, bytes.len()),
        Some(b) if b.is_ascii_control() => (None, 1),
        Some(_) => {
            let len = bytes.len().min(4);
            let text = (1..=len).find_map(|n| std::str::from_utf8(&bytes[..n]).ok());
            match text.and_then(|t| t.chars().next()) {
                Some(c) => (Some(Key::Char(c)), c.len_utf8()),
                None => (None, 1),
            }
        }
    }
}

/// The editor to run: `$VISUAL`, else `$EDITOR`, split as a shell would; `None` when
/// neither is set (the arguments are then edited inline).
pub fn editor_command() -> Option<Vec<String>> {
    ["VISUAL", "EDITOR"].iter().find_map(|name| {
        let value = std::env::var(name).ok()?;
        shlex::split(&value).filter(|words| !words.is_empty())
    })
}

fn run_editor(command: &[String], text: &str) -> Result<String, EditError> {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "warden-chat-{}-{}.json",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::SeqCst)
    ));
    let write = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()));
    if let Err(source) = write {
        return Err(EditError::Write { path, source });
    }
    let (program, args) = command.split_first().ok_or(EditError::NoEditor)?;
    let status = std::process::Command::new(program)
        .args(args)
        .arg(&path)
        .status();
    let result = match status {
        Ok(status) if status.success() => {
            std::fs::read_to_string(&path).map_err(|source| EditError::Read {
                path: path.clone(),
                source,
            })
        }
        Ok(status) => Err(EditError::Exited(status)),
        Err(source) => Err(EditError::Run {
            program: program.clone(),
            source,
        }),
    };
    let _ = std::fs::remove_file(&path);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_decode_from_bytes() {
        let check = |bytes: &[u8], expect: Option<Key>| {
            assert_eq!(decode_one(bytes).0, expect, "{bytes:?}");
        };
        check(b"o", Some(Key::Char('o')));
        check(b"\r", Some(Key::Enter));
        check(b"\n", Some(Key::Enter));
        check(b"\x1b[A", None);
        check(b"\x03", None);
        check("é".as_bytes(), Some(Key::Char('é')));
        check(b"", None);
        // Keys typed together are taken one at a time.
        assert_eq!(decode_one(b"\ro"), (Some(Key::Enter), 1));
        assert_eq!(decode_one("éo".as_bytes()), (Some(Key::Char('é')), 2));
        assert_eq!(decode_one(b"\x1b[Ao"), (None, 4));
    }
}
