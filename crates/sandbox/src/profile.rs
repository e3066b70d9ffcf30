//! A confinement as data: built from a workspace and the user's settings, widened by
//! what one call was allowed beyond it, passed to the helper as one JSON argument.

use std::path::{Path, PathBuf};

use warden_paths::{PathBytes, is_within};

use serde::{Deserialize, Serialize};

use crate::read_only_in_workspace;

/// The default bound on the processes of one confined command (its whole tree).
pub const DEFAULT_MAX_PROCESSES: u64 = 512;

/// Locations below the home folder that hold keys and credentials: no confined process
/// reads them.
pub const SECRET_LOCATIONS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
];

/// Protected folders of a workspace that are created empty when they are missing (and
/// their parent exists), so that they can be bound read-only: Git's hooks folder, inside
/// `.git`, where an empty folder changes nothing Git or the user sees.
pub const RESERVED_IN_WORKSPACE: &[&str] = &[".git/hooks"];

/// What a confined process may do. Paths are absolute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Confinement {
    /// Folders (and files) it may change, with everything below them.
    pub writable: Vec<PathBuf>,
    /// Entries inside `writable` that stay read-only.
    pub read_only: Vec<PathBuf>,
    /// Folders among `read_only` to create empty when missing inside an existing
    /// parent, so that nothing can be created in them.
    #[serde(default)]
    pub reserve: Vec<PathBuf>,
    /// Entries it may not read at all (they appear empty).
    pub hidden: Vec<PathBuf>,
    /// Whether it may use the network (TCP, UDP, raw sockets).
    pub network: bool,
    /// The most processes its tree may have at once.
    pub max_processes: u64,
}

impl Default for Confinement {
    /// Nothing writable, nothing hidden, no network.
    fn default() -> Self {
        Confinement {
            writable: Vec::new(),
            read_only: Vec::new(),
            reserve: Vec::new(),
            hidden: Vec::new(),
            network: false,
            max_processes: DEFAULT_MAX_PROCESSES,
        }
    }
}

/// Why a profile argument could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("the sandbox profile is not valid: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the sandbox profile names a relative path: {}", .0.display())]
    Relative(PathBuf),
    #[error("the sandbox profile allows no process at all")]
    NoProcesses,
}

/// Where a command runs and what the user's settings add: what the default
/// confinement of a command is made of.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// The session's workspace roots (its `cwd` first).
    pub roots: Vec<PathBuf>,
    /// The user's home folder, where the secret locations are.
    pub home: Option<PathBuf>,
    /// Warden's own configuration and state folders.
    pub warden_dirs: Vec<PathBuf>,
    /// The temporary folders (`/tmp`, `$TMPDIR`).
    pub temp_dirs: Vec<PathBuf>,
    /// More folders the user's settings make writable.
    pub extra_writable: Vec<PathBuf>,
    /// Whether the user's settings allow the network to every command.
    pub network: bool,
    /// The user's process bound.
    pub max_processes: u64,
}

impl Workspace {
    /// The default confinement of a command in this workspace.
    pub fn confinement(&self) -> Confinement {
        let mut writable = self.roots.clone();
        writable.extend(self.temp_dirs.iter().cloned());
        writable.extend(self.extra_writable.iter().cloned());
        let read_only = self
            .roots
            .iter()
            .flat_map(|root| read_only_in_workspace().map(move |e| root.join(e)))
            .collect();
        let reserve = self
            .roots
            .iter()
            .flat_map(|root| RESERVED_IN_WORKSPACE.iter().map(move |e| root.join(e)))
            .collect();
        let mut hidden: Vec<PathBuf> = self
            .home
            .iter()
            .flat_map(|home| SECRET_LOCATIONS.iter().map(move |s| home.join(s)))
            .collect();
        hidden.extend(self.warden_dirs.iter().cloned());
        Confinement {
            writable: dedup(writable),
            read_only,
            reserve,
            hidden: dedup(hidden),
            network: self.network,
            max_processes: self.max_processes.max(1),
        }
    }
}

impl Workspace {
    /// Whether `path` (absolute, normalised) may be written inside the default
    /// confinement: what `self.confinement().may_write(path)` says, without building
    /// the confinement (a path per protected entry and per secret location), because
    /// the permission engine asks it for every path of every evaluated command.
    pub fn may_write(&self, path: &Path) -> bool {
        let bytes = PathBytes::new(path);
        let writable = self
            .roots
            .iter()
            .chain(&self.temp_dirs)
            .chain(&self.extra_writable)
            .any(|w| bytes.is_within(w));
        let read_only = || {
            self.roots.iter().any(|root| {
                path.strip_prefix(root).is_ok_and(|rest| {
                    let rest = PathBytes::new(rest);
                    read_only_in_workspace().any(|e| rest.is_within(Path::new(e)))
                })
            })
        };
        let hidden = || {
            self.home.as_deref().is_some_and(|home| {
                path.strip_prefix(home).is_ok_and(|rest| {
                    let rest = PathBytes::new(rest);
                    SECRET_LOCATIONS
                        .iter()
                        .any(|s| rest.is_within(Path::new(s)))
                })
            }) || self.warden_dirs.iter().any(|d| bytes.is_within(d))
        };
        writable && !read_only() && !hidden()
    }
}

fn dedup(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| seen.insert(p.clone()));
    paths
}

impl Confinement {
    /// This confinement widened by what one call was allowed beyond it: the network,
    /// and writes to these paths (a file's folder becomes writable, so that a program
    /// that replaces the file through a temporary one beside it still works).
    pub fn widened(&self, network: bool, writes: &[PathBuf]) -> Confinement {
        let mut wider = self.clone();
        wider.network |= network;
        for path in writes {
            let target = if path.is_dir() {
                path.clone()
            } else {
                path.parent()
                    .map_or_else(|| path.clone(), Path::to_path_buf)
            };
            wider.writable.push(target);
            // A write the user allowed to a protected entry lifts its protection.
            wider
                .read_only
                .retain(|p| !p.starts_with(path) && !path.starts_with(p));
            wider
                .reserve
                .retain(|p| !p.starts_with(path) && !path.starts_with(p));
        }
        wider.writable = dedup(wider.writable);
        wider
    }

    /// The profile as one command-line argument.
    pub fn to_arg(&self) -> String {
        // Serialising plain data into a string cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a profile argument; every path must be absolute.
    pub fn from_arg(arg: &str) -> Result<Confinement, ProfileError> {
        let profile: Confinement = serde_json::from_str(arg)?;
        let paths = profile
            .writable
            .iter()
            .chain(&profile.read_only)
            .chain(&profile.reserve)
            .chain(&profile.hidden);
        if let Some(relative) = paths.into_iter().find(|p| !p.is_absolute()) {
            return Err(ProfileError::Relative(relative.clone()));
        }
        if profile.max_processes == 0 {
            return Err(ProfileError::NoProcesses);
        }
        Ok(profile)
    }

    /// Whether `path` (absolute, normalised) may be written inside this confinement.
    pub fn may_write(&self, path: &Path) -> bool {
        let path = PathBytes::new(path);
        self.writable.iter().any(|w| path.is_within(w))
            && !self.read_only.iter().any(|r| path.is_within(r))
            && !self.hidden.iter().any(|h| path.is_within(h))
    }

    /// Whether `path` (absolute, normalised) is hidden inside this confinement.
    pub fn hides(&self, path: &Path) -> bool {
        self.hidden.iter().any(|h| is_within(h, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> Workspace {
        Workspace {
            roots: vec![PathBuf::from("/home/u/project")],
            home: Some(PathBuf::from("/home/u")),
            warden_dirs: vec![
                PathBuf::from("/home/u/.config/warden"),
                PathBuf::from("/home/u/.local/state/warden"),
            ],
            temp_dirs: vec![PathBuf::from("/tmp"), PathBuf::from("/tmp")],
            extra_writable: vec![PathBuf::from("/home/u/.cache/sccache")],
            network: false,
            max_processes: 512,
        }
    }

    #[test]
    fn the_default_confinement_writes_the_workspace_and_temp_only() {
        let c = workspace().confinement();
        assert_eq!(
            c.writable,
            ["/home/u/project", "/tmp", "/home/u/.cache/sccache"].map(PathBuf::from)
        );
        assert!(c.may_write(Path::new("/home/u/project/src/main.rs")));
        assert!(c.may_write(Path::new("/tmp/x")));
        assert!(!c.may_write(Path::new("/home/u/.bashrc")));
        assert!(!c.may_write(Path::new("/etc/passwd")));
        assert!(!c.network);
        assert_eq!(c.max_processes, 512);
    }

    #[test]
    fn git_hooks_config_and_critical_configs_stay_read_only_in_the_workspace() {
        let c = workspace().confinement();
        for protected in [
            "/home/u/project/.git/hooks/pre-commit",
            "/home/u/project/.git/config",
            "/home/u/project/.warden/policy.toml",
            "/home/u/project/.cargo/config.toml",
            "/home/u/project/.vscode/tasks.json",
            "/home/u/project/.vscode/anything-new.json",
            "/home/u/project/.zed/tasks.json",
            "/home/u/project/.cargo/config",
            "/home/u/project/.envrc",
            "/home/u/project/.yarnrc.yml",
            "/home/u/project/rust-toolchain.toml",
            "/home/u/project/.cursor/mcp.json",
            "/home/u/project/.mcp.json",
        ] {
            assert!(!c.may_write(Path::new(protected)), "{protected}");
        }
        assert_eq!(c.reserve, [PathBuf::from("/home/u/project/.git/hooks")]);
        assert!(c.may_write(Path::new("/home/u/project/.git/index")));
    }

    #[test]
    fn the_workspace_s_write_check_is_the_confinement_s() {
        let ws = workspace();
        let c = ws.confinement();
        for path in [
            "/home/u/project/src/main.rs",
            "/home/u/project",
            "/home/u/project/.git/hooks/pre-commit",
            "/home/u/project/.git/index",
            "/home/u/project/.envrc",
            "/home/u/project/sub/.envrc",
            "/home/u/project/.vscode",
            "/home/u/project/.vscodex",
            "/home/u/project/rust-toolchain.toml",
            "/home/u/.bashrc",
            "/home/u/.ssh/id_rsa",
            "/home/u/.cache/sccache/x",
            "/home/u/.config/warden/policy.toml",
            "/tmp/x",
            "/etc/passwd",
            "/",
        ] {
            let path = Path::new(path);
            assert_eq!(ws.may_write(path), c.may_write(path), "{}", path.display());
        }
        let inside_secret = Workspace {
            roots: vec![PathBuf::from("/home/u/.ssh/work")],
            ..workspace()
        };
        let path = Path::new("/home/u/.ssh/work/x");
        assert_eq!(
            inside_secret.may_write(path),
            inside_secret.confinement().may_write(path)
        );
    }

    #[test]
    fn secrets_and_warden_s_own_folders_are_hidden() {
        let c = workspace().confinement();
        for secret in [
            "/home/u/.ssh/id_rsa",
            "/home/u/.aws/credentials",
            "/home/u/.gnupg",
            "/home/u/.config/gcloud/x",
            "/home/u/.kube/config",
            "/home/u/.docker/config.json",
            "/home/u/.netrc",
            "/home/u/.git-credentials",
            "/home/u/.config/warden/policy.toml",
            "/home/u/.local/state/warden/grants.jsonl",
        ] {
            assert!(c.hides(Path::new(secret)), "{secret}");
        }
        assert!(!c.hides(Path::new("/home/u/.bashrc")));
        assert!(!c.hides(Path::new("/home/u/.docker/other.json")));
    }

    #[test]
    fn widening_adds_exactly_the_network_and_the_written_paths() {
        let c = workspace().confinement();
        let wide = c.widened(true, &[PathBuf::from("/home/u/.bashrc")]);
        assert!(wide.network);
        assert!(wide.may_write(Path::new("/home/u/.bashrc")));
        assert!(!wide.may_write(Path::new("/etc/passwd")));
        assert_eq!(wide.hidden, c.hidden);
        let hook = PathBuf::from("/home/u/project/.git/hooks/pre-commit");
        let hooks = c.widened(false, std::slice::from_ref(&hook));
        assert!(hooks.may_write(&hook));
        assert!(!hooks.network);
        assert!(!hooks.may_write(Path::new("/home/u/project/.git/config")));
    }

    #[test]
    fn a_profile_round_trips_and_a_bad_one_is_refused() {
        let c = workspace().confinement();
        assert_eq!(Confinement::from_arg(&c.to_arg()).ok(), Some(c));
        assert!(Confinement::from_arg("{").is_err());
        let relative =
            r#"{"writable":["x"],"read_only":[],"hidden":[],"network":false,"max_processes":5}"#;
        assert!(matches!(
            Confinement::from_arg(relative),
            Err(ProfileError::Relative(_))
        ));
        let unknown =
            r#"{"writable":[],"read_only":[],"hidden":[],"network":false,"max_processes":5,"x":1}"#;
        assert!(Confinement::from_arg(unknown).is_err());
        let none =
            r#"{"writable":[],"read_only":[],"hidden":[],"network":false,"max_processes":0}"#;
        assert!(matches!(
            Confinement::from_arg(none),
            Err(ProfileError::NoProcesses)
        ));
    }
}
