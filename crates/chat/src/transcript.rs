//! The chat's side of the connection: it prints what the agent does and answers its
//! permission requests under `--approve`.

use std::io::Write;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use agent_client_protocol::v1::schema::{
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SessionNotification,
};
use tokio::sync::{Notify, oneshot};
use warden_acp_transport::{ClientHandler, TurnEnded};
use warden_i18n::Catalog;

use crate::view::View;

use crate::approvals::{Batch, Pending};
use crate::approve::{Approve, pick};
use crate::render::{self, Titles};
use crate::screen::{PromptView, Screen};
use crate::style::terminal_width;

/// What is needed to lay the text out, kept in the order the updates arrive.
#[derive(Default)]
struct Layout {
    /// Whether streamed text left the cursor in the middle of a line.
    mid_line: bool,
    titles: Titles,
    /// The interactive screen; `None` for the plain log.
    screen: Option<Screen>,
    /// How many rows the last prompt's buttons take, while nothing was drawn after them
    /// (so the disposition can take their place).
    buttons_rows: Option<usize>,
    /// The request whose prompt is the last thing on screen, and how many rows the whole
    /// prompt takes: drawing it again replaces it rather than adding a copy.
    prompt: Option<(usize, usize)>,
    /// How many rows the live lines (running tools) take at the bottom, the cursor at
    /// the end of the last one; everything else drawn replaces them first.
    live_rows: usize,
    /// The answered requests of the batch drawn one after the other with nothing else
    /// between them and the prompt on screen: (request, rows of its block).
    answered: Vec<(usize, usize)>,
}

/// The permission requests waiting for the person at the terminal.
#[derive(Debug, Default)]
pub struct Approvals {
    pub batch: Mutex<Batch>,
    /// Woken when a request arrives, or the prompt must be drawn again.
    pub arrived: Notify,
    /// The prompt on screen was taken away for an update: draw it again.
    pub redraw: std::sync::atomic::AtomicBool,
    /// Requests taken in whose answers have not yet been handed to the connection.
    unsent: std::sync::atomic::AtomicUsize,
    /// Woken when an answer has been handed to the connection.
    sent: Notify,
}

impl Approvals {
    /// No request yet; buttons and dispositions read in `words`' language.
    pub fn new(words: &'static Catalog) -> Approvals {
        Approvals {
            batch: Mutex::new(Batch::new(words)),
            arrived: Notify::new(),
            redraw: std::sync::atomic::AtomicBool::new(false),
            unsent: std::sync::atomic::AtomicUsize::new(0),
            sent: Notify::new(),
        }
    }

    pub fn batch(&self) -> MutexGuard<'_, Batch> {
        lock(&self.batch)
    }

    /// Waits until the answer of every request taken in has been handed to the
    /// connection, so that a prompt sent next reaches the agent after them: an agent
    /// that reads its messages in order and waits for its answer would not see a prompt
    /// that came first.
    pub async fn answers_sent(&self) {
        use std::sync::atomic::Ordering;
        loop {
            let sent = self.sent.notified();
            if self.unsent.load(Ordering::SeqCst) == 0 {
                return;
            }
            sent.await;
        }
    }
}

/// What the writer thread is given: text, or a request to say when all before it is out.
enum Out {
    Text(String),
    Synced(oneshot::Sender<()>),
}

/// The thread that writes, and the way to it.
struct Writer {
    tx: Option<mpsc::Sender<Out>>,
    thread: Option<JoinHandle<()>>,
}

/// Prints the session for logs and answers permission requests. Offers no `fs/*` or
/// `terminal/*`: the agent uses its own.
///
/// The text is written by a thread of its own: the connection (and, in process, Warden's
/// agent on the same runtime) never waits for a slow reader of the output.
pub struct Transcript {
    layout: Mutex<Layout>,
    writer: Mutex<Writer>,
    approve: Approve,
    agent: Mutex<String>,
    /// Set for the interactive chat: requests wait for the person.
    approvals: Option<Arc<Approvals>>,
    /// When the agent last sent an update or a request.
    heard: Mutex<std::time::Instant>,
    /// The chat's own words, in the reader's language.
    words: &'static Catalog,
    /// Woken (a permit kept until it is awaited) when Warden's agent says the turn it
    /// resumed after a restart has ended.
    resumed_turn_ended: Notify,
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcript")
            .field("approve", &self.approve)
            .finish_non_exhaustive()
    }
}

/// A poisoned lock means a panic half-way through an update; the transcript stays usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write_all(mut writer: Box<dyn Write + Send>, rx: mpsc::Receiver<Out>) {
    while let Ok(first) = rx.recv() {
        let mut batch = String::new();
        let mut synced = Vec::new();
        let mut next = Some(first);
        // Whatever else is queued goes out with it, in one write and one flush.
        while let Some(out) = next {
            match out {
                Out::Text(text) => batch.push_str(&text),
                Out::Synced(tx) => synced.push(tx),
            }
            next = rx.try_recv().ok();
        }
        // A closed stdout (a log pipe gone) must not stop the session; it is logged.
        if let Err(err) = writer
            .write_all(batch.as_bytes())
            .and_then(|()| writer.flush())
        {
            tracing::debug!(%err, "could not write the transcript");
        }
        for tx in synced {
            let _ = tx.send(());
        }
    }
}

impl Transcript {
    pub fn new(
        writer: Box<dyn Write + Send>,
        approve: Approve,
        words: &'static Catalog,
    ) -> Transcript {
        Transcript::with_screen(writer, approve, None, words)
    }

    /// A transcript for the interactive terminal: updates drawn by `screen`, requests
    /// answered by the person through `approvals`.
    pub fn interactive(
        writer: Box<dyn Write + Send>,
        screen: Screen,
        approvals: Arc<Approvals>,
    ) -> Transcript {
        let words = screen.words();
        let mut transcript = Transcript::with_screen(writer, Approve::Ask, Some(screen), words);
        transcript.approvals = Some(approvals);
        transcript
    }

    fn with_screen(
        writer: Box<dyn Write + Send>,
        approve: Approve,
        screen: Option<Screen>,
        words: &'static Catalog,
    ) -> Transcript {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("warden-chat-transcript".to_owned())
            .spawn(move || write_all(writer, rx))
            .map_err(|err| tracing::warn!(%err, "cannot start the transcript's thread"))
            .ok();
        Transcript {
            layout: Mutex::new(Layout {
                screen,
                ..Layout::default()
            }),
            writer: Mutex::new(Writer {
                tx: Some(tx),
                thread,
            }),
            approve,
            agent: Mutex::new(words.plain("chat-the-agent")),
            words,
            approvals: None,
            heard: Mutex::new(std::time::Instant::now()),
            resumed_turn_ended: Notify::new(),
        }
    }

    /// Resolves once everything sent so far is written (before the line editor draws
    /// its prompt on the same terminal).
    pub async fn synced(&self) {
        let (tx, rx) = oneshot::channel();
        let sent = match &lock(&self.writer).tx {
            Some(writer) => writer.send(Out::Synced(tx)).is_ok(),
            None => false,
        };
        if sent {
            let _ = rx.await;
        }
    }

    /// Draws the prompt of request `index` of the batch.
    pub fn draw_prompt(
        &self,
        pending: &Pending,
        index: usize,
        total: usize,
        extras: bool,
        undo: bool,
    ) {
        let agent = lock(&self.agent).clone();
        let mut layout = lock(&self.layout);
        let Some(screen) = layout.screen.as_mut() else {
            return;
        };
        let view = PromptView {
            index,
            total,
            show_args: pending.show_args,
            whole_diff: pending.whole_diff,
            edited: pending.edited.as_ref(),
            note: pending.note.as_deref(),
            buttons: &pending.buttons,
            extras,
            undo,
        };
        let mut lines = screen.prompt(&pending.request, &agent, &view);
        lines.insert(0, String::new());
        let ansi = screen.style().ansi;
        let width = terminal_width();
        let buttons: usize = lines
            .iter()
            .rev()
            .take(2)
            .map(|line| rows(line, width))
            .sum();
        let all: usize = lines.iter().map(|line| rows(line, width)).sum();
        let mut buffer = layout
            .screen
            .as_mut()
            .map(Screen::end_text)
            .unwrap_or_default();
        // The same request's prompt, still the last thing on screen: drawn over in place.
        if let (true, true, Some((shown, shown_rows))) = (ansi, buffer.is_empty(), layout.prompt)
            && shown == index
        {
            buffer.push_str(&crate::style::Style { ansi }.erase_up(shown_rows));
        }
        push_lines(&mut layout, &mut buffer, &lines);
        self.out(&mut layout, buffer);
        layout.buttons_rows = Some(buttons);
        layout.prompt = Some((index, all));
    }

    /// The prompt on screen gets `extra` rows below it (a line read under it), which a
    /// redraw in place clears too.
    pub fn below_prompt(&self, extra: usize) {
        let mut layout = lock(&self.layout);
        layout.buttons_rows = None;
        if let Some((_, shown)) = layout.prompt.as_mut() {
            *shown += extra;
        }
    }

    /// How many rows `line` takes on this terminal.
    pub fn rows_of(&self, line: &str) -> usize {
        rows(line, terminal_width())
    }

    /// Shows what became of the prompt on screen: in place of its buttons when nothing
    /// was drawn after them and escape codes are allowed, else below.
    pub fn disposition(&self, line: &str) {
        let mut layout = lock(&self.layout);
        let ansi = layout.screen.as_ref().is_some_and(|s| s.style().ansi);
        let mut buffer = String::new();
        // The answered request's block (its prompt without the options, and this line),
        // while nothing else is drawn after it, so that an undo can take it away.
        let block = match (ansi, layout.buttons_rows, layout.prompt) {
            (true, Some(rows), Some((index, all))) => {
                buffer.push_str(&crate::style::Style { ansi }.erase_up(rows));
                Some((index, all - rows + self.rows_of(line)))
            }
            (true, Some(rows), None) => {
                buffer.push_str(&crate::style::Style { ansi }.erase_up(rows));
                None
            }
            _ => None,
        };
        push_lines(&mut layout, &mut buffer, &[line.to_owned()]);
        self.out(&mut layout, buffer);
        match block {
            Some(block) => layout.answered.push(block),
            None => layout.answered.clear(),
        }
    }

    /// Takes away the prompt on screen and the block of answered request `index` above
    /// it, when they are the last things drawn, so that its prompt is drawn again in
    /// their place. `false` when they are not (the undone prompt then comes below).
    pub fn undo(&self, index: usize) -> bool {
        let mut layout = lock(&self.layout);
        let ansi = screen_ansi(&layout);
        let (Some(&(answered, block)), Some((_, shown))) = (layout.answered.last(), layout.prompt)
        else {
            return false;
        };
        if !ansi || answered != index || layout.live_rows > 0 {
            return false;
        }
        layout.answered.pop();
        layout.prompt = None;
        layout.buttons_rows = None;
        self.send(crate::style::Style { ansi }.erase_up(shown + block));
        true
    }

    /// Resolves once Warden's agent has said that the turn it resumed after a restart
    /// has ended (at once when it said so already).
    pub async fn resumed_turn_ended(&self) {
        self.resumed_turn_ended.notified().await;
    }

    /// The chat's own words, in the reader's language.
    pub fn words(&self) -> &'static Catalog {
        self.words
    }

    /// How long ago the agent last sent an update or a request.
    pub fn quiet_for(&self) -> std::time::Duration {
        lock(&self.heard).elapsed()
    }

    /// The calls waiting for an answer and the calls running, as the agent last said
    /// (none for the plain log, which keeps no screen).
    pub fn open_calls(&self) -> (usize, usize) {
        lock(&self.layout)
            .screen
            .as_ref()
            .map_or((0, 0), Screen::open_calls)
    }

    /// The agent's slash commands, as it last sent them.
    pub fn commands(&self) -> Vec<String> {
        lock(&self.layout)
            .screen
            .as_ref()
            .map(Screen::commands)
            .unwrap_or_default()
    }

    /// The screen's style (plain for the log).
    pub fn style(&self) -> crate::style::Style {
        lock(&self.layout)
            .screen
            .as_ref()
            .map(Screen::style)
            .unwrap_or(crate::style::Style::PLAIN)
    }

    /// The agent's name for the prompt, from its `initialize` answer.
    pub fn set_agent_name(&self, name: &str) {
        *lock(&self.agent) = crate::clean::clean(name);
    }

    /// Sends `text`, replacing the live lines if they are on screen (they come back with
    /// the next tick).
    fn out(&self, layout: &mut Layout, text: String) {
        if text.is_empty() {
            return;
        }
        let live = std::mem::take(&mut layout.live_rows);
        if live == 0 {
            return self.send(text);
        }
        let ansi = screen_ansi(layout);
        let mut cleared = crate::style::Style { ansi }.erase_up(live - 1);
        cleared.push_str(&text);
        self.send(cleared);
    }

    /// Draws the live lines again (frame `frame` of the spinner): the running tools with
    /// their time and streamed output. Nothing without escape codes, and nothing while
    /// a permission prompt is the last thing on screen.
    pub fn tick(&self, frame: usize) {
        let mut layout = lock(&self.layout);
        let Some(screen) = layout.screen.as_ref() else {
            return;
        };
        let style = screen.style();
        if !style.ansi || layout.prompt.is_some() || layout.buttons_rows.is_some() {
            return;
        }
        let lines = screen.live(frame);
        if lines.is_empty() && layout.live_rows == 0 {
            return;
        }
        let width = terminal_width();
        let mut text = match layout.live_rows {
            0 => String::new(),
            rows => style.erase_up(rows - 1),
        };
        text.push_str(&lines.join("\n"));
        layout.live_rows = lines.iter().map(|line| rows(line, width)).sum();
        self.send(text);
    }

    fn send(&self, text: String) {
        if text.is_empty() {
            return;
        }
        if let Some(tx) = &lock(&self.writer).tx {
            let _ = tx.send(Out::Text(text));
        }
    }

    /// Prints whole lines, after ending any streamed text's line.
    pub fn lines(&self, lines: &[String]) {
        let mut layout = lock(&self.layout);
        layout.answered.clear();
        let mut buffer = String::new();
        push_lines(&mut layout, &mut buffer, lines);
        // Sent under the layout's lock, so texts leave in the order they were laid out.
        self.out(&mut layout, buffer);
    }

    /// Ends the line streamed text left open, if any.
    pub fn end_text(&self) {
        let mut layout = lock(&self.layout);
        if let Some(screen) = layout.screen.as_mut() {
            let rest = screen.end_text();
            layout.buttons_rows = None;
            layout.prompt = None;
            // The turn is over: the live lines go too.
            let clear = std::mem::take(&mut layout.live_rows);
            if clear > 0 {
                let ansi = screen_ansi(&layout);
                let mut text = crate::style::Style { ansi }.erase_up(clear - 1);
                text.push_str(&rest);
                self.send(text);
            } else {
                self.send(rest);
            }
            return;
        }
        if layout.mid_line {
            layout.mid_line = false;
            self.send("\n".to_owned());
        }
    }

    /// Ends any open line and waits until everything is written. Text sent afterwards is
    /// dropped.
    pub fn finish(&self) {
        self.end_text();
        let (tx, thread) = {
            let mut writer = lock(&self.writer);
            (writer.tx.take(), writer.thread.take())
        };
        drop(tx);
        if let Some(thread) = thread
            && thread.join().is_err()
        {
            tracing::warn!("the transcript's thread panicked");
        }
    }
}

/// Whether the screen may use escape codes.
fn screen_ansi(layout: &Layout) -> bool {
    layout.screen.as_ref().is_some_and(|s| s.style().ansi)
}

/// How many rows `line` takes on a terminal `width` columns wide (escape codes take none,
/// wide characters two columns).
fn rows(line: &str, width: usize) -> usize {
    let mut visible = 0usize;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: up to and including the final byte.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            // A Chinese character takes two columns, a combining mark none.
            visible += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        }
    }
    visible.div_ceil(width.max(1)).max(1)
}

fn push_lines(layout: &mut Layout, buffer: &mut String, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    layout.buttons_rows = None;
    layout.prompt = None;
    if layout.mid_line {
        buffer.push('\n');
        layout.mid_line = false;
    }
    for line in lines {
        buffer.push_str(line);
        buffer.push('\n');
    }
}

impl ClientHandler for Transcript {
    fn session_update(&self, notification: SessionNotification) {
        *lock(&self.heard) = std::time::Instant::now();
        if TurnEnded::is(&notification.update) {
            self.resumed_turn_ended.notify_one();
            return;
        }
        let update = View::of(&notification.update);
        let mut layout = lock(&self.layout);
        if let Some(screen) = layout.screen.as_mut() {
            let mut drawn = screen.update(&update);
            let ansi = screen.style().ansi;
            if !drawn.is_empty() {
                // The prompt on screen stays the last thing there: it is taken away, the
                // update drawn, and the prompt drawn again below it.
                if let (true, Some((_, rows))) = (ansi, layout.prompt) {
                    drawn.insert_str(0, &crate::style::Style { ansi }.erase_up(rows));
                    if let Some(approvals) = &self.approvals {
                        approvals
                            .redraw
                            .store(true, std::sync::atomic::Ordering::SeqCst);
                        approvals.arrived.notify_one();
                    }
                }
                layout.buttons_rows = None;
                layout.prompt = None;
                layout.answered.clear();
            }
            self.out(&mut layout, drawn);
            return;
        }
        let rendered = render::update(&update, &mut layout.titles, self.words);
        let mut buffer = String::new();
        if !rendered.text.is_empty() {
            buffer.push_str(&rendered.text);
            layout.mid_line = !rendered.text.ends_with('\n');
        }
        push_lines(&mut layout, &mut buffer, &rendered.lines);
        self.out(&mut layout, buffer);
    }

    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, agent_client_protocol::Error> {
        *lock(&self.heard) = std::time::Instant::now();
        if let Some(approvals) = &self.approvals {
            let (tx, rx) = oneshot::channel();
            approvals
                .unsent
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            approvals.batch().push(request, tx);
            approvals.arrived.notify_one();
            // No answer (the chat is ending) is `cancelled`: never consent.
            return Ok(rx.await.unwrap_or_else(|_| {
                RequestPermissionResponse::new(RequestPermissionOutcome::Cancelled)
            }));
        }
        let picked = pick(self.approve, &request);
        let agent = lock(&self.agent).clone();
        self.lines(&render::permission(&request, &agent, &picked, self.words));
        Ok(picked.response())
    }

    fn permission_answered(&self) {
        if let Some(approvals) = &self.approvals {
            // Only answers of requests taken in are counted (each is answered once).
            let _ = approvals.unsent.fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |n| n.checked_sub(1),
            );
            approvals.sent.notify_waiters();
        }
    }
}
