//! A folder of its own for one `warden chat` run: Warden's home, the user's home, the
//! managed policy's folder and the project, and the command that starts the chat there
//! with nothing of the developer's environment.

use std::path::PathBuf;
use std::process::Command;

pub struct ChatEnv {
    _dir: tempfile::TempDir,
    root: PathBuf,
    pub project: PathBuf,
}

impl ChatEnv {
    pub fn new() -> ChatEnv {
        // Not the default `.tmp…` name: the engine treats hidden folders as sensitive.
        let dir = tempfile::Builder::new()
            .prefix("warden-chat-")
            .tempdir()
            .expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let project = root.join("project");
        for sub in ["warden-home", "home", "managed", "project"] {
            std::fs::create_dir_all(root.join(sub)).expect("mkdir");
        }
        ChatEnv {
            _dir: dir,
            root,
            project,
        }
    }

    /// The user's home folder of the chat and its agent (where `~` points).
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// Warden's own folder (`WARDEN_HOME`).
    pub fn warden_home(&self) -> PathBuf {
        self.root.join("warden-home")
    }

    /// `warden chat ARGS` in the project.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .arg("chat")
            .args(args)
            .current_dir(&self.project)
            .env("WARDEN_HOME", self.warden_home())
            // In a folder of its own: Warden protects the managed policy's folder.
            .env(
                "WARDEN_MANAGED_POLICY",
                self.root.join("managed/policy.toml"),
            )
            .env("HOME", self.home())
            .env_remove("WARDEN_MODEL")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("RUST_LOG")
            .env_remove("NO_COLOR")
            .env_remove("EDITOR")
            .env_remove("VISUAL");
        command
    }

    /// A file of the project, if it exists.
    pub fn file(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.project.join(name)).ok()
    }
}
