//! The chat's side of the connection: it prints what the agent does and answers its
//! permission requests under `--approve`.

use std::io::Write;
use std::sync::{Mutex, MutexGuard};

use agent_client_protocol::v1::schema::{
    RequestPermissionRequest, RequestPermissionResponse, SessionNotification,
};
use warden_acp_transport::ClientHandler;

use crate::approve::{Approve, pick};
use crate::render::{self, Titles};

struct Out {
    writer: Box<dyn Write + Send>,
    /// Whether streamed text left the cursor in the middle of a line.
    mid_line: bool,
    titles: Titles,
}

/// Prints the session for logs and answers permission requests. Offers no `fs/*` or
/// `terminal/*`: the agent uses its own.
pub struct Transcript {
    out: Mutex<Out>,
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

impl Transcript {
    pub fn new(writer: Box<dyn Write + Send>, approve: Approve) -> Transcript {
        Transcript {
            out: Mutex::new(Out {
                writer,
                mid_line: false,
                titles: Titles::default(),
            }),
            approve,
            agent: Mutex::new("the agent".to_owned()),
        }
    }

    /// The agent's name for the prompt, from its `initialize` answer.
    pub fn set_agent_name(&self, name: &str) {
        if let Ok(mut agent) = self.agent.lock() {
            *agent = render::clean(name);
        }
    }

    fn out(&self) -> Option<MutexGuard<'_, Out>> {
        // A poisoned lock means a write panicked half-way; the transcript stays usable.
        Some(
            self.out
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    /// Prints whole lines, after ending any streamed text's line.
    pub fn lines(&self, lines: &[String]) {
        let Some(mut out) = self.out() else { return };
        let out = &mut *out;
        let mut buffer = String::new();
        if out.mid_line && !lines.is_empty() {
            buffer.push('\n');
            out.mid_line = false;
        }
        for line in lines {
            buffer.push_str(line);
            buffer.push('\n');
        }
        write(out, &buffer);
    }

    /// Ends the line streamed text left open, if any.
    pub fn end_text(&self) {
        let Some(mut out) = self.out() else { return };
        if out.mid_line {
            out.mid_line = false;
            write(&mut out, "\n");
        }
    }
}

fn write(out: &mut Out, text: &str) {
    // A closed stdout (a log pipe gone) must not stop the session; it is logged.
    if let Err(err) = out
        .writer
        .write_all(text.as_bytes())
        .and_then(|()| out.writer.flush())
    {
        tracing::debug!(%err, "could not write the transcript");
    }
}

impl ClientHandler for Transcript {
    fn session_update(&self, notification: SessionNotification) {
        let Ok(update) = serde_json::to_value(&notification.update) else {
            return;
        };
        let Some(mut out) = self.out() else { return };
        let out = &mut *out;
        let rendered = render::update(&update, &mut out.titles);
        let mut buffer = String::new();
        if !rendered.text.is_empty() {
            buffer.push_str(&rendered.text);
            out.mid_line = !rendered.text.ends_with('\n');
        }
        if !rendered.lines.is_empty() {
            if out.mid_line {
                buffer.push('\n');
                out.mid_line = false;
            }
            for line in &rendered.lines {
                buffer.push_str(line);
                buffer.push('\n');
            }
        }
        if !buffer.is_empty() {
            write(out, &buffer);
        }
    }

    async fn request_permission(
        &self,
        request: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, agent_client_protocol::Error> {
        let picked = pick(self.approve, &request);
        let agent = self
            .agent
            .lock()
            .map(|name| name.clone())
            .unwrap_or_default();
        self.lines(&render::permission(&request, &agent, &picked));
        Ok(picked.response())
    }
}
