//! Where a tool call happens: the facts about its surroundings that risk depends on.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::Locations;

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
    /// Why this system cannot confine commands (no Landlock, no user namespaces, …);
    /// `None` when it can. Every `terminal` call then asks, in any mode.
    pub sandbox_missing: Option<String>,
    /// The workspace roots as they were when [`Context::resolve_roots`] ran, each with
    /// its lexical and real form: resolving a root's symlinks costs a system call per
    /// component, and every evaluation needs them. Used only while `workspace_roots`
    /// still holds exactly these roots, so changing the field cannot leave it stale.
    resolved_roots: Option<Arc<[ResolvedRoot]>>,
}

/// A workspace root as given, lexically normalised, and with its symlinks resolved.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ResolvedRoot {
    pub given: PathBuf,
    pub lexical: PathBuf,
    pub real: PathBuf,
}

impl ResolvedRoot {
    pub(crate) fn of(root: &std::path::Path) -> ResolvedRoot {
        let lexical = crate::paths::normalize_lexically(root);
        let real = std::fs::canonicalize(root).unwrap_or_else(|_| lexical.clone());
        ResolvedRoot {
            given: root.to_path_buf(),
            lexical,
            real,
        }
    }
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
            sandbox_missing: None,
            resolved_roots: None,
        }
    }

    /// The context of a session in `cwd`: the one builder that the agent (at
    /// `session/new`) and `warden policy check` share, so that the command explains
    /// exactly what the agent would decide.
    ///
    /// The folder and the home folder are taken in their real form (when they exist),
    /// because the policy compares them with resolved paths: a folder reached through a
    /// symlink must not look like elsewhere. An empty `home` is no home. Warden's own
    /// folders are protected, and the workspace roots (`cwd` and `extra_roots`) are
    /// resolved once, now.
    pub fn for_session(
        cwd: &Path,
        home: Option<&Path>,
        extra_roots: &[PathBuf],
        locations: &Locations,
    ) -> Context {
        let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
        let mut ctx = Context::new(cwd).with_protected(locations.protected());
        if let Some(home) = home.filter(|h| !h.as_os_str().is_empty()) {
            ctx = ctx.with_home(home.canonicalize().unwrap_or_else(|_| home.to_path_buf()));
        }
        ctx.workspace_roots.extend(extra_roots.iter().cloned());
        ctx.resolve_roots()
    }

    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Context {
        self.home = Some(home.into());
        self
    }

    /// Says why this system cannot confine commands (`None`: it can).
    pub fn with_sandbox_missing(mut self, missing: Option<String>) -> Context {
        self.sandbox_missing = missing;
        self
    }

    pub fn with_protected(mut self, protected: Vec<PathBuf>) -> Context {
        self.protected = protected;
        self
    }

    /// Resolves the workspace roots' symlinks now, once, for every later evaluation
    /// in this context. A session does this when it starts, as it already takes its
    /// folder's real path then: a root replaced by a symlink during the session is
    /// still judged as the folder it was.
    pub fn resolve_roots(mut self) -> Context {
        self.resolved_roots = Some(self.roots());
        self
    }

    /// The workspace roots resolved: the ones [`Context::resolve_roots`] kept, if they
    /// were resolved for exactly the current roots, or else resolved now.
    pub(crate) fn roots(&self) -> Arc<[ResolvedRoot]> {
        match &self.resolved_roots {
            Some(resolved)
                if resolved.len() == self.workspace_roots.len()
                    && resolved
                        .iter()
                        .zip(&self.workspace_roots)
                        .all(|(r, root)| r.given == *root) =>
            {
                resolved.clone()
            }
            _ => self
                .workspace_roots
                .iter()
                .map(|root| ResolvedRoot::of(root))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::Context;
    use crate::Locations;

    /// The session's folder and home folder in their real form, an empty HOME as none,
    /// Warden's folders protected, the extra roots after the folder.
    #[test]
    fn a_session_context_takes_real_folders() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().canonicalize().expect("real");
        std::fs::create_dir_all(real.join("home")).expect("mkdir");
        std::fs::create_dir_all(real.join("project")).expect("mkdir");
        std::os::unix::fs::symlink(real.join("home"), real.join("home-link")).expect("link");
        std::os::unix::fs::symlink(real.join("project"), real.join("project-link")).expect("link");
        let state = real.join("state");
        let locations = Locations::from_vars(|name| {
            (name == "WARDEN_HOME").then(|| state.clone().into_os_string())
        });
        let extra = vec![PathBuf::from("/srv/shared")];

        let ctx = Context::for_session(
            &real.join("project-link"),
            Some(&real.join("home-link")),
            &extra,
            &locations,
        );
        assert_eq!(ctx.cwd, real.join("project"));
        assert_eq!(ctx.home, Some(real.join("home")));
        assert_eq!(
            ctx.workspace_roots,
            vec![real.join("project"), PathBuf::from("/srv/shared")]
        );
        assert_eq!(ctx.protected, locations.protected());

        let ctx = Context::for_session(&real, Some(std::path::Path::new("")), &[], &locations);
        assert_eq!(ctx.home, None);
    }
}
