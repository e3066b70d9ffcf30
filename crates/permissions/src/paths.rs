//! Path classification: where a file operation really lands, and how risky it is.
//!
//! A path is judged twice: as written (made absolute and `..`-normalised without
//! touching the disk, the *lexical* path) and as the kernel would see it (symlinks
//! resolved, the *real* path). A path counts as inside the workspace only when both
//! are, so neither `../` nor a symlink that points outside can smuggle a write out of
//! the project; and it is sensitive when either is.

mod glob;
mod resolve;
mod sensitive;

use std::path::{Path, PathBuf};

use crate::{Context, Risk};

pub use resolve::{
    MAX_GLOB_LISTINGS, Resolver, UNKNOWN_HOME, is_within, normalize_lexically, resolve,
};
pub use sensitive::Sensitive;

/// What a tool does to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileOp {
    Read,
    Write,
    Delete,
}

impl FileOp {
    /// The operation's name in the engine's messages, which choose their verb by it.
    fn id(self) -> &'static str {
        match self {
            FileOp::Read => "read",
            FileOp::Write => "write",
            FileOp::Delete => "delete",
        }
    }

    /// The risk of this operation on an ordinary file inside the workspace.
    fn base_risk(self) -> Risk {
        match self {
            FileOp::Read => Risk::Low,
            FileOp::Write => Risk::Medium,
            FileOp::Delete => Risk::High,
        }
    }
}

/// A path as given by a tool call, resolved against a [`Context`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The path as given.
    pub raw: String,
    /// Absolute, with `~` expanded and `.`/`..` normalised without touching the disk.
    pub lexical: PathBuf,
    /// With symlinks resolved: the canonical form of the path, or of its nearest
    /// existing ancestor followed by the rest (for a file that does not exist yet).
    pub real: PathBuf,
    /// True when BOTH the lexical and the real path lie inside some workspace root.
    pub inside_workspace: bool,
    /// Set when the lexical or the real path is sensitive.
    pub sensitive: Option<Sensitive>,
}

impl ResolvedPath {
    /// The path to show to people: the lexical one, and the real one too when a
    /// symlink makes them differ.
    pub fn display(&self) -> String {
        if self.real == self.lexical {
            self.lexical.display().to_string()
        } else {
            format!(
                "{} (really {})",
                self.lexical.display(),
                self.real.display()
            )
        }
    }
}

/// Whether the file at `path` holds secrets (a `.env` file, a private key, a credentials
/// file, anything in `~/.ssh`, ...) by its own name or by the file a link leads to: a
/// read of one is asked about on its own (High), so a tool that sweeps a folder (the
/// `fs_search` tool) leaves it out.
pub fn holds_secrets(path: &Path, ctx: &Context) -> bool {
    let real = std::fs::canonicalize(path).ok();
    Sensitive::strictest([
        Sensitive::classify(path, ctx),
        real.as_deref().and_then(|r| Sensitive::classify(r, ctx)),
    ])
    .is_some_and(Sensitive::read_is_sensitive)
}

/// The risk of `op` on `path`, with a sentence that says why.
///
/// Inside the workspace reads are Low, writes Medium and deletes High; outside it each
/// is one step higher. Sensitive paths are High for reads and Critical for writes and
/// deletes, except that execution-config files ([`Sensitive::ExecConfig`]) are read
/// like ordinary files.
pub fn path_risk(op: FileOp, path: &ResolvedPath) -> (Risk, crate::Sentence) {
    let shown = path.display().to_string();
    if let Some(sensitive) = path.sensitive
        && (op != FileOp::Read || sensitive.read_is_sensitive())
    {
        let risk = match op {
            FileOp::Read => Risk::High,
            FileOp::Write | FileOp::Delete => Risk::Critical,
        };
        let reason = crate::Sentence::new("engine-path-sensitive")
            .text("op", op.id())
            .text("path", shown)
            .sentence("what", crate::Sentence::new(sensitive.message_id()));
        return (risk, reason);
    }
    if path.inside_workspace {
        let reason = crate::Sentence::new("engine-path-inside")
            .text("op", op.id())
            .text("path", shown);
        (op.base_risk(), reason)
    } else {
        let reason = crate::Sentence::new("engine-path-outside")
            .text("op", op.id())
            .text("path", shown);
        (op.base_risk().raise(), reason)
    }
}

/// True for the places whose recursive deletion (or recursive permission change)
/// would be a disaster: the filesystem root, the home folder, a workspace root, any
/// ancestor of those or of Warden's own files, and top-level system folders. A final glob component (`~/*`)
/// counts as its parent.
pub fn is_precious(path: &ResolvedPath, ctx: &Context) -> bool {
    precious(path, ctx).is_some()
}

/// Why a path is precious (see [`is_precious`]), as a phrase for people that fits
/// "deletes X, {phrase}".
pub fn precious(path: &ResolvedPath, ctx: &Context) -> Option<&'static str> {
    let mut candidates = vec![path.lexical.clone(), path.real.clone()];
    for p in [&path.lexical, &path.real] {
        let has_glob = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains(['*', '?', '[']));
        if has_glob && let Some(parent) = p.parent() {
            candidates.push(parent.to_path_buf());
        }
    }
    let root = std::path::Path::new("/");
    let mut found: Option<&'static str> = None;
    for c in &candidates {
        let phrase = if c.parent().is_none() {
            Some("the whole file system")
        } else if ctx.home.as_deref() == Some(c.as_path()) {
            Some("the home folder")
        } else if ctx.workspace_roots.iter().any(|r| r == c) {
            Some("the workspace root")
        } else if ctx
            .workspace_roots
            .iter()
            .chain(ctx.home.iter())
            .any(|a| is_within(c, a))
        {
            Some("a folder that holds the home folder or the workspace")
        } else if ctx.protected.iter().any(|a| is_within(c, a)) {
            Some("a folder that holds Warden's own files")
        } else if c.parent() == Some(root) {
            Some("a top-level system folder")
        } else {
            None
        };
        // The first candidate (the path as written) names it best; later ones only
        // fill in.
        found = found.or(phrase);
    }
    found
}

/// The catalog's words for a [`precious`] phrase, as they read after "deletes X, ".
pub fn precious_sentence(phrase: &str) -> crate::Sentence {
    let id = match phrase {
        "the whole file system" => "engine-precious-root",
        "the home folder" => "engine-precious-home",
        "the workspace root" => "engine-precious-workspace",
        "a folder that holds the home folder or the workspace" => "engine-precious-holder",
        "a folder that holds Warden's own files" => "engine-precious-warden",
        "a top-level system folder" => "engine-precious-system",
        other => return crate::Sentence::verbatim(other),
    };
    crate::Sentence::new(id)
}

/// Places below the home folder that are sensitive (one file or folder standing for
/// each kind), for [`sensitive_below`].
const HOME_PLACES: &[&str] = &[
    ".ssh/config",
    ".aws/credentials",
    ".gnupg/pubring.kbx",
    ".bashrc",
    ".profile",
    ".gitconfig",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".docker/config.json",
    ".kube/config",
    ".cargo/config.toml",
    ".local/bin/x",
    ".config/git/config",
    ".config/autostart/x.desktop",
    ".config/systemd/user/x.service",
    ".config/fish/config.fish",
    ".config/gh/hosts.yml",
    ".config/gcloud/credentials.db",
];

/// Places below a workspace root that are sensitive, for [`sensitive_below`].
const WORKSPACE_PLACES: &[&str] = &[
    ".git/hooks/pre-commit",
    ".git/config",
    ".warden/policy.toml",
    ".env",
    ".vscode/tasks.json",
    ".cargo/config.toml",
];

/// The strictest kind of sensitive place that lies strictly below the folder `path`
/// (an ancestor of `~/.ssh`, of `~/.config/autostart`, of a workspace's `.git/hooks`,
/// of Warden's own folders, ...): creating, replacing or moving the folder as a whole
/// creates, replaces or moves them too. `in_workspaces` adds the places every
/// workspace may hold (`.env`, `.git/hooks`); a search leaves those to the tool, which
/// does not print files that hold secrets.
pub fn sensitive_below(
    path: &std::path::Path,
    ctx: &Context,
    in_workspaces: bool,
) -> Option<Sensitive> {
    let mut places: Vec<PathBuf> = Vec::new();
    if let Some(home) = &ctx.home {
        places.extend(HOME_PLACES.iter().map(|p| home.join(p)));
    }
    if in_workspaces {
        for root in &ctx.workspace_roots {
            places.extend(WORKSPACE_PLACES.iter().map(|p| root.join(p)));
        }
    }
    places.extend(ctx.protected.iter().map(|p| p.join("x")));
    Sensitive::strictest(
        places
            .iter()
            .filter(|p| p.starts_with(path) && p.as_path() != path)
            .map(|p| Sensitive::classify(p, ctx)),
    )
}
