//! Where a tool call happens: the facts about its surroundings that risk depends on.

use std::path::PathBuf;

/// The surroundings of a tool call. Paths are absolute; `cwd` is the session's
/// working directory and the first workspace root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The session's working directory, against which relative paths resolve.
    pub cwd: PathBuf,
    /// The project folders the session works in. Always holds at least `cwd`.
    pub workspace_roots: Vec<PathBuf>,
    /// The user's home folder, when known.
    pub home: Option<PathBuf>,
    /// Warden's own configuration and state folders: touching them is how an agent
    /// would loosen its own leash, so they count as sensitive.
    pub protected: Vec<PathBuf>,
}

impl Context {
    /// A context whose only workspace root is `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Context {
        let cwd = cwd.into();
        Context {
            workspace_roots: vec![cwd.clone()],
            cwd,
            home: None,
            protected: Vec::new(),
        }
    }

    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Context {
        self.home = Some(home.into());
        self
    }

    pub fn with_protected(mut self, protected: Vec<PathBuf>) -> Context {
        self.protected = protected;
        self
    }
}
