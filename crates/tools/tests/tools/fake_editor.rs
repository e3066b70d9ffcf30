//! An in-memory editor that records every request, to prove which paths the tools take.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::sync::watch;
use warden_tools::{Editor, EditorError, TerminalExit, TerminalOutput, TerminalRequest};

/// How the fake's terminal commands behave.
#[derive(Debug, Clone)]
pub enum Command {
    /// Exits at once with this code and output.
    Exits(u32, &'static str),
    /// Runs until killed.
    Hangs,
    /// `terminal/wait_for_exit` fails.
    WaitFails,
    /// After `terminal/create`, the editor never answers again.
    Unresponsive,
}

#[derive(Debug)]
pub struct FakeEditor {
    pub read: bool,
    pub write: bool,
    pub terminal: bool,
    pub command: Command,
    pub create_fails: bool,
    /// The editor's buffers.
    pub files: Mutex<HashMap<PathBuf, String>>,
    log: Mutex<Vec<String>>,
    killed: watch::Sender<bool>,
}

impl FakeEditor {
    pub fn new(read: bool, write: bool, terminal: bool) -> Self {
        FakeEditor {
            read,
            write,
            terminal,
            command: Command::Exits(0, "done\n"),
            create_fails: false,
            files: Mutex::new(HashMap::new()),
            log: Mutex::new(Vec::new()),
            killed: watch::channel(false).0,
        }
    }

    pub fn with_command(mut self, command: Command) -> Self {
        self.command = command;
        self
    }

    pub fn with_file(self, path: &Path, text: &str) -> Self {
        self.files
            .lock()
            .expect("lock")
            .insert(path.to_path_buf(), text.to_owned());
        self
    }

    pub fn log(&self) -> Vec<String> {
        self.log.lock().expect("lock").clone()
    }

    fn record(&self, entry: String) {
        self.log.lock().expect("lock").push(entry);
    }
}

impl Editor for FakeEditor {
    fn can_read(&self) -> bool {
        self.read
    }

    fn can_write(&self) -> bool {
        self.write
    }

    fn can_terminal(&self) -> bool {
        self.terminal
    }

    fn read_text_file(
        &self,
        path: &Path,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> BoxFuture<'_, Result<String, EditorError>> {
        self.record(format!("read {} {line:?} {limit:?}", path.display()));
        let text = self.files.lock().expect("lock").get(path).cloned();
        async move {
            let text = text.ok_or_else(|| EditorError::Failed {
                method: "fs/read_text_file",
                message: "Resource not found".into(),
            })?;
            let first = line.unwrap_or(1) as usize - 1;
            let count = limit.map_or(usize::MAX, |l| l as usize);
            Ok(text
                .split_inclusive('\n')
                .skip(first)
                .take(count)
                .collect::<String>())
        }
        .boxed()
    }

    fn write_text_file(
        &self,
        path: &Path,
        content: &str,
    ) -> BoxFuture<'_, Result<(), EditorError>> {
        self.record(format!("write {} {content:?}", path.display()));
        self.files
            .lock()
            .expect("lock")
            .insert(path.to_path_buf(), content.to_owned());
        async { Ok(()) }.boxed()
    }

    fn create_terminal(&self, req: TerminalRequest) -> BoxFuture<'_, Result<String, EditorError>> {
        self.record(format!(
            "create {} {:?} in {} env {:?} limit {:?}",
            req.command,
            req.args,
            req.cwd.display(),
            req.env,
            req.output_byte_limit
        ));
        let fails = self.create_fails;
        async move {
            if fails {
                Err(EditorError::Failed {
                    method: "terminal/create",
                    message: "no shell".into(),
                })
            } else {
                Ok("term-1".to_owned())
            }
        }
        .boxed()
    }

    fn wait_for_terminal_exit(&self, id: &str) -> BoxFuture<'_, Result<TerminalExit, EditorError>> {
        self.record(format!("wait {id}"));
        let mut killed = self.killed.subscribe();
        let command = self.command.clone();
        async move {
            match command {
                Command::Exits(code, _) => Ok(TerminalExit {
                    exit_code: Some(code),
                    signal: None,
                }),
                Command::WaitFails => Err(EditorError::Closed {
                    method: "terminal/wait_for_exit",
                }),
                Command::Unresponsive => futures::future::pending().await,
                Command::Hangs => {
                    let _ = killed.wait_for(|k| *k).await;
                    // Like a real terminal, a killed command's exit is reported after a while.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    Ok(TerminalExit {
                        exit_code: None,
                        signal: Some("SIGKILL".into()),
                    })
                }
            }
        }
        .boxed()
    }

    fn terminal_output(&self, id: &str) -> BoxFuture<'_, Result<TerminalOutput, EditorError>> {
        self.record(format!("output {id}"));
        if let Command::Unresponsive = self.command {
            return futures::future::pending().boxed();
        }
        let output = match self.command {
            Command::Exits(code, text) => TerminalOutput {
                output: text.to_owned(),
                truncated: false,
                exit: Some(TerminalExit {
                    exit_code: Some(code),
                    signal: None,
                }),
            },
            Command::Hangs | Command::WaitFails | Command::Unresponsive => TerminalOutput {
                output: "partial\n".to_owned(),
                truncated: false,
                exit: Some(TerminalExit {
                    exit_code: None,
                    signal: Some("SIGKILL".into()),
                }),
            },
        };
        async move { Ok(output) }.boxed()
    }

    fn kill_terminal(&self, id: &str) -> BoxFuture<'_, Result<(), EditorError>> {
        self.record(format!("kill {id}"));
        self.killed.send_replace(true);
        if let Command::Unresponsive = self.command {
            return futures::future::pending().boxed();
        }
        async { Ok(()) }.boxed()
    }

    fn release_terminal(&self, id: &str) -> BoxFuture<'_, Result<(), EditorError>> {
        self.record(format!("release {id}"));
        if let Command::Unresponsive = self.command {
            return futures::future::pending().boxed();
        }
        async { Ok(()) }.boxed()
    }
}
