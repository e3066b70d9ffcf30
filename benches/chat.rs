//! `warden chat` start-up with Warden's own agent, on the release binary: from spawning
//! `warden chat --prompt '/say hi'` to its session line (the agent initialized and a
//! session open, so the first prompt is being sent), and to the end of that first turn.
//!
//! The interactive path on a real pseudo-terminal: from spawning `warden chat` to its line
//! editor's first `> ` (ready to accept a prompt), and to the answer of a first `/say hi`
//! typed there. And the screen's side of streaming: 10,000 agent text chunks handed to the
//! interactive transcript while its output is blocked, timed where the agent waits.
//!
//! Run with `cargo bench --bench chat` (`-- --runs N`, default 30). It prints three tables;
//! the figures are recorded in `docs/performance.md`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench setup: a failed step panics"
)]
#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionNotification, SessionUpdate, TextContent,
};
use warden_acp_transport::ClientHandler;

// The end-to-end tests' pseudo-terminal, one home for it.
#[path = "../tests/e2e/chat_pty/pty.rs"]
#[allow(dead_code, reason = "the bench uses part of the tests' harness")]
mod pty;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn print_table(title: &str, rows: Vec<(&str, Vec<Duration>)>) {
    println!("{title}");
    println!("| figure | median | p90 |");
    println!("| --- | --- | --- |");
    for (name, mut figures) in rows {
        figures.sort();
        println!(
            "| {name} | {:.1} ms | {:.1} ms |",
            percentile(&figures, 0.5).as_secs_f64() * 1000.0,
            percentile(&figures, 0.9).as_secs_f64() * 1000.0
        );
    }
}

/// The interactive chat on a pty: spawn → `> `, and spawn → the reply to `/say hi`.
fn interactive(runs: usize) {
    let mut to_prompt = Vec::new();
    let mut to_reply = Vec::new();
    for _ in 0..runs {
        let dir = tempfile::Builder::new()
            .prefix("warden-chat-bench-")
            .tempdir()
            .expect("tempdir");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).expect("mkdir");
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .arg("chat")
            .current_dir(&project)
            .env_remove("RUST_LOG")
            .env_remove("WARDEN_MODEL")
            .env("WARDEN_HOME", dir.path().join("home"))
            .env(
                "WARDEN_MANAGED_POLICY",
                dir.path().join("managed/policy.toml"),
            );
        let started = Instant::now();
        let mut chat = pty::Pty::spawn(command, 100);
        chat.expect("Ctrl-D leaves.");
        chat.expect("> ");
        to_prompt.push(started.elapsed());
        chat.send("/say hi\r");
        chat.expect("\nhi");
        to_reply.push(started.elapsed());
        // Keys typed before the next `> ` belong to the turn and are discarded.
        chat.expect("\n> ");
        chat.send("\x04");
        assert_eq!(chat.wait().code(), Some(0));
    }
    print_table(
        &format!("interactive warden chat on a pty, Warden's own agent, {runs} processes"),
        vec![
            ("spawn → first `> ` (a prompt can be typed)", to_prompt),
            ("spawn → reply to the first prompt (`/say hi`)", to_reply),
        ],
    );
}

/// A writer that blocks until it is opened, as a terminal nobody reads does.
struct Gate {
    open: Arc<(Mutex<bool>, Condvar)>,
}

impl Write for Gate {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (lock, opened) = &*self.open;
        let mut open = lock.lock().expect("lock");
        while !*open {
            open = opened.wait(open).expect("lock");
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// 10,000 text chunks into the interactive transcript while the screen takes nothing:
/// the time the connection (and an in-process agent) spends handing them over.
fn streaming(runs: usize) {
    const CHUNKS: usize = 10_000;
    let mut handed = Vec::new();
    let mut drained = Vec::new();
    for _ in 0..runs {
        let open = Arc::new((Mutex::new(false), Condvar::new()));
        let style = warden_chat::Style { ansi: true };
        let transcript = warden_chat::Transcript::interactive(
            Box::new(Gate { open: open.clone() }),
            warden_chat::Screen::new(
                style,
                warden_chat::Commands::default(),
                warden_i18n::catalog(warden_i18n::Language::English),
            ),
            Arc::new(warden_chat::Approvals::default()),
        );
        let chunks: Vec<SessionNotification> = (0..CHUNKS)
            .map(|i| {
                // Markdown in words of a few bytes, a line every eighth chunk.
                let text = match i % 8 {
                    7 => format!("`chunk {i}`\n"),
                    3 => format!("**bold {i}** "),
                    _ => format!("word{i} "),
                };
                SessionNotification::new(
                    "s".to_owned(),
                    SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::Text(
                        TextContent::new(text),
                    ))),
                )
            })
            .collect();
        let started = Instant::now();
        for chunk in chunks {
            transcript.session_update(chunk);
        }
        handed.push(started.elapsed());
        let (lock, opened) = &*open;
        *lock.lock().expect("lock") = true;
        opened.notify_all();
        let started = Instant::now();
        transcript.finish();
        drained.push(started.elapsed());
    }
    print_table(
        &format!(
            "{CHUNKS} text chunks into the interactive transcript, output blocked, {runs} runs"
        ),
        vec![
            ("all chunks handed over (the agent's side)", handed),
            ("the screen then written (the writer thread)", drained),
        ],
    );
}

fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(30);
    let mut to_session = Vec::new();
    let mut to_end = Vec::new();
    for _ in 0..runs {
        let dir = tempfile::Builder::new()
            .prefix("warden-chat-bench-")
            .tempdir()
            .expect("tempdir");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).expect("mkdir");
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(["chat", "--prompt", "/say hi"])
            .current_dir(&project)
            .env_remove("RUST_LOG")
            .env_remove("WARDEN_MODEL")
            .env("WARDEN_HOME", dir.path().join("home"))
            .env(
                "WARDEN_MANAGED_POLICY",
                dir.path().join("managed/policy.toml"),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn warden chat");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        for line in stdout.lines() {
            let line = line.expect("read");
            if line.starts_with("Session ") {
                to_session.push(started.elapsed());
            }
            if line.starts_with("[turn ended") {
                to_end.push(started.elapsed());
            }
        }
        let status = child.wait().expect("wait");
        assert!(status.success(), "warden chat failed: {status}");
    }
    print_table(
        &format!("warden chat --prompt, Warden's own agent, {runs} processes"),
        vec![
            ("spawn → session line (first prompt sent)", to_session),
            ("spawn → first turn ended (`/say hi`)", to_end),
        ],
    );
    interactive(runs);
    streaming(runs);
}
