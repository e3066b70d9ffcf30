//! A real pseudo-terminal for `warden chat`: the chat runs as the session leader of a new
//! session with the pty as its controlling terminal (`setsid --ctty`), so Ctrl-C is a
//! SIGINT from the terminal as it is for a person. What it writes is collected by a
//! thread; a test waits for text on the screen (escape codes removed) with a deadline.

use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The terminal's height in rows.
const ROWS: u16 = 50;

/// How long a test waits for something to appear before it fails.
const DEADLINE: Duration = Duration::from_secs(20);

#[derive(Default)]
struct Output {
    raw: Vec<u8>,
    ended: bool,
}

pub struct Pty {
    cols: u16,
    master: std::fs::File,
    child: Child,
    output: Arc<(Mutex<Output>, Condvar)>,
    /// How much of the screen text earlier waits have consumed.
    seen: usize,
}

/// The text of what was written, without escape sequences and carriage returns.
pub fn strip(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

impl Pty {
    /// Starts `command` on a new pty `cols` columns wide.
    pub fn spawn(command: Command, cols: u16) -> Pty {
        let size = nix::pty::Winsize {
            ws_row: ROWS,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = nix::pty::openpty(Some(&size), None).expect("openpty");
        let slave: OwnedFd = pty.slave;
        let stdio = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup"));
        // `setsid --ctty` makes the pty the chat's controlling terminal; it replaces itself
        // with the chat (no fork: a spawned child is not a process group leader).
        let program = command.get_program().to_owned();
        let args: Vec<_> = command.get_args().map(ToOwned::to_owned).collect();
        let mut wrapped = Command::new("setsid");
        wrapped.arg("--ctty").arg(program).args(args);
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => wrapped.env(key, value),
                None => wrapped.env_remove(key),
            };
        }
        if let Some(dir) = command.get_current_dir() {
            wrapped.current_dir(dir);
        }
        let child = wrapped
            .env("TERM", "xterm-256color")
            .stdin(stdio(&slave))
            .stdout(stdio(&slave))
            .stderr(stdio(&slave))
            .spawn()
            .expect("spawn warden chat on a pty");
        drop(slave);
        let master = std::fs::File::from(pty.master);
        let output = Arc::new((Mutex::new(Output::default()), Condvar::new()));
        std::thread::spawn({
            let output = output.clone();
            let mut reader = master.try_clone().expect("dup master");
            let mut answers = master.try_clone().expect("dup master");
            move || {
                let mut buffer = [0u8; 8192];
                loop {
                    // EIO once the chat and everything it started closed the terminal.
                    let n = match reader.read(&mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let chunk = &buffer[..n];
                    // The line editor asks where the cursor is; a terminal answers.
                    if chunk.windows(4).any(|w| w == b"\x1b[6n") {
                        let _ = answers.write_all(b"\x1b[1;1R");
                    }
                    let (lock, changed) = &*output;
                    lock.lock().expect("lock").raw.extend_from_slice(chunk);
                    changed.notify_all();
                }
                let (lock, changed) = &*output;
                lock.lock().expect("lock").ended = true;
                changed.notify_all();
            }
        });
        Pty {
            cols,
            master,
            child,
            output,
            seen: 0,
        }
    }

    /// Types `text` (`\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D).
    pub fn send(&mut self, text: &str) {
        self.master.write_all(text.as_bytes()).expect("type");
        self.master.flush().expect("flush");
    }

    /// Everything written so far, as bytes.
    pub fn raw(&self) -> Vec<u8> {
        self.output.0.lock().expect("lock").raw.clone()
    }

    /// The screen's text so far.
    pub fn text(&self) -> String {
        strip(&self.raw())
    }

    /// The terminal's screen as a person sees it now: every byte written so far run
    /// through a terminal emulator, so that what was drawn over in place is gone.
    pub fn screen(&self) -> String {
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal has rows and columns");
        let mut parser = vt100::Parser::new(size(ROWS), size(self.cols), 0);
        parser.process(&self.raw());
        parser.screen().contents()
    }

    /// Waits until `text` appears after what earlier waits found; returns the screen.
    #[track_caller]
    pub fn expect(&mut self, text: &str) -> String {
        let started = Instant::now();
        let (lock, changed) = &*self.output;
        let mut output = lock.lock().expect("lock");
        loop {
            let screen = strip(&output.raw);
            if let Some(at) = screen.get(self.seen..).and_then(|rest| rest.find(text)) {
                self.seen += at + text.len();
                return screen;
            }
            let left = DEADLINE.saturating_sub(started.elapsed());
            if left.is_zero() || output.ended {
                let ended = output.ended;
                // Not panicking with the lock held, which would poison it for the reader.
                drop(output);
                panic!(
                    "{text:?} did not appear on the screen{}; the screen after the last match:\n{}",
                    if ended { " (the chat closed it)" } else { "" },
                    screen.get(self.seen..).unwrap_or("")
                );
            }
            output = changed.wait_timeout(output, left).expect("lock").0;
        }
    }

    /// Kills the chat at once (SIGKILL): nothing in it winds down, as when the machine
    /// or the process dies.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the chat to exit (killing it after the deadline).
    #[track_caller]
    pub fn wait(&mut self) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if started.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("the chat did not exit; the screen:\n{}", self.text());
            }
            // Wait for output or its end rather than spinning; a quiet exit ends the
            // terminal's output, which wakes this.
            let (lock, changed) = &*self.output;
            let output = lock.lock().expect("lock");
            if !output.ended {
                let _ = changed
                    .wait_timeout(output, Duration::from_millis(50))
                    .expect("lock");
            }
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
