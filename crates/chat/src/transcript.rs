//! The chat's side of the connection: it prints what the agent does and answers its
//! permission requests under `--approve`.

use std::io::Write;
use std::sync::mpsc;
use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;

use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, RequestPermissionResponse, SessionNotification,
};
use warden_acp_transport::ClientHandler;

use crate::approve::{Approve, pick};
use crate::render::{self, Titles};

/// What is needed to lay the text out, kept in the order the updates arrive.
#[derive(Default)]
struct Layout {
    /// Whether streamed text left the cursor in the middle of a line.
    mid_line: bool,
    titles: Titles,
}

/// The thread that writes, and the way to it.
struct Writer {
    tx: Option<mpsc::Sender<String>>,
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

fn write_all(mut writer: Box<dyn Write + Send>, rx: mpsc::Receiver<String>) {
    while let Ok(text) = rx.recv() {
        let mut batch = text;
        // Whatever else is queued goes out with it, in one write and one flush.
        while let Ok(more) = rx.try_recv() {
            batch.push_str(&more);
        }
        // A closed stdout (a log pipe gone) must not stop the session; it is logged.
        if let Err(err) = writer
            .write_all(batch.as_bytes())
            .and_then(|()| writer.flush())
        {
            tracing::debug!(%err, "could not write the transcript");
        }
    }
}

impl Transcript {
    pub fn new(writer: Box<dyn Write + Send>, approve: Approve) -> Transcript {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("chat-transcript".to_owned())
            .spawn(move || write_all(writer, rx))
            .map_err(|err| tracing::warn!(%err, "cannot start the transcript's thread"))
            .ok();
        Transcript {
            layout: Mutex::new(Layout::default()),
            writer: Mutex::new(Writer {
                tx: Some(tx),
                thread,
            }),
            approve,
            agent: Mutex::new("the agent".to_owned()),
        }
    }

    /// The agent's name for the prompt, from its `initialize` answer.
    pub fn set_agent_name(&self, name: &str) {
        *lock(&self.agent) = render::clean(name);
    }

    fn send(&self, text: String) {
        if text.is_empty() {
            return;
        }
        if let Some(tx) = &lock(&self.writer).tx {
            let _ = tx.send(text);
        }
    }

    /// Prints whole lines, after ending any streamed text's line.
    pub fn lines(&self, lines: &[String]) {
        let mut layout = lock(&self.layout);
        let mut buffer = String::new();
        push_lines(&mut layout, &mut buffer, lines);
        // Sent under the layout's lock, so texts leave in the order they were laid out.
        self.send(buffer);
    }

    /// Ends the line streamed text left open, if any.
    pub fn end_text(&self) {
        let mut layout = lock(&self.layout);
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

fn push_lines(layout: &mut Layout, buffer: &mut String, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
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
        let Ok(update) = serde_json::to_value(&notification.update) else {
            return;
        };
        let mut layout = lock(&self.layout);
        let rendered = render::update(&update, &mut layout.titles);
        let mut buffer = String::new();
        if !rendered.text.is_empty() {
            buffer.push_str(&rendered.text);
            layout.mid_line = !rendered.text.ends_with('\n');
        }
        push_lines(&mut layout, &mut buffer, &rendered.lines);
        self.send(buffer);
    }

    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, agent_client_protocol::Error> {
        let picked = pick(self.approve, &request);
        let agent = lock(&self.agent).clone();
        self.lines(&render::permission(&request, &agent, &picked));
        Ok(picked.response())
    }
}
