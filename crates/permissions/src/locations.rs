//! Where Warden keeps its files (docs/contract.md, section 1).
//!
//! `WARDEN_HOME` puts everything in one folder; otherwise the policy lives in the XDG
//! config folder and the grants, audit log and sessions in the XDG state folder.

use std::path::{Path, PathBuf};

/// The locations of Warden's user-level files, resolved once from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The folder of the user's `policy.toml`.
    pub config_dir: PathBuf,
    /// The folder of `grants.jsonl`, `audit.jsonl`, `trusted.jsonl` and `sessions/`.
    pub state_dir: PathBuf,
    /// The administrator's policy file.
    pub managed_policy: PathBuf,
}

/// The project policy's path below a project root.
pub const PROJECT_POLICY: &str = ".warden/policy.toml";

impl Locations {
    /// Reads `WARDEN_HOME`, `WARDEN_MANAGED_POLICY`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`
    /// and `HOME` from the process environment.
    pub fn from_env() -> Locations {
        Locations::from_vars(|name| std::env::var_os(name).filter(|v| !v.is_empty()))
    }

    /// Resolves the locations from any variable source, so tests need not touch the
    /// process environment.
    pub fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Locations {
        let managed_policy = var("WARDEN_MANAGED_POLICY")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/etc/warden/policy.toml"));
        if let Some(home) = var("WARDEN_HOME") {
            let home = PathBuf::from(home);
            return Locations {
                config_dir: home.clone(),
                state_dir: home,
                managed_policy,
            };
        }
        let user_home = var("HOME").map(PathBuf::from);
        let xdg = |name: &str, fallback: &str| {
            var(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .or_else(|| user_home.as_ref().map(|h| h.join(fallback)))
                // Without a home folder there is no good place; the working folder
                // would put state into a repository, so use a fixed temp location.
                .unwrap_or_else(|| std::env::temp_dir().join("warden-nohome"))
                .join("warden")
        };
        Locations {
            config_dir: xdg("XDG_CONFIG_HOME", ".config"),
            state_dir: xdg("XDG_STATE_HOME", ".local/state"),
            managed_policy,
        }
    }

    pub fn user_policy(&self) -> PathBuf {
        self.config_dir.join("policy.toml")
    }

    /// The user's settings that are not policy (`model`).
    pub fn user_config(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    pub fn grants(&self) -> PathBuf {
        self.state_dir.join("grants.jsonl")
    }

    pub fn audit_log(&self) -> PathBuf {
        self.state_dir.join("audit.jsonl")
    }

    pub fn trusted_projects(&self) -> PathBuf {
        self.state_dir.join("trusted.jsonl")
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.state_dir.join("sessions")
    }

    /// Warden's own files and folders, which an agent must not touch without the
    /// strictest checks.
    ///
    /// A folder is protected whole only when it is Warden's own (named `warden`, as
    /// the XDG defaults and `/etc/warden` are); in any other folder (a `WARDEN_HOME`
    /// or a managed policy placed in the home folder) only Warden's files are, so
    /// `WARDEN_MANAGED_POLICY=$HOME/managed.toml` protects that file, not the home
    /// folder.
    pub fn protected(&self) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        for dir in [&self.config_dir, &self.state_dir] {
            if is_own_folder(dir) {
                paths.push(dir.clone());
            } else {
                paths.extend(OWN_FILES.iter().map(|f| dir.join(f)));
            }
        }
        paths.push(self.managed_policy.clone());
        if let Some(parent) = self.managed_policy.parent().filter(|p| is_own_folder(p)) {
            paths.push(parent.to_path_buf());
        }
        paths.sort();
        paths.dedup();
        paths
    }
}

/// The files Warden keeps in its configuration and state folders (with the lock
/// files beside the ones written under a lock).
const OWN_FILES: &[&str] = &[
    "policy.toml",
    "config.toml",
    "grants.jsonl",
    "grants.jsonl.lock",
    "audit.jsonl",
    "audit.jsonl.lock",
    "trusted.jsonl",
    "trusted.jsonl.lock",
    "sessions",
];

/// Whether a folder is Warden's own, so that all of it may be protected.
fn is_own_folder(dir: &Path) -> bool {
    dir.parent().is_some()
        && dir
            .file_name()
            .is_some_and(|n| n.eq_ignore_ascii_case("warden") || n.eq_ignore_ascii_case(".warden"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn locations(vars: &[(&str, &str)]) -> Locations {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        Locations::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn warden_home_holds_everything() {
        let l = locations(&[("WARDEN_HOME", "/w"), ("HOME", "/home/u")]);
        assert_eq!(l.user_policy(), PathBuf::from("/w/policy.toml"));
        assert_eq!(l.grants(), PathBuf::from("/w/grants.jsonl"));
        assert_eq!(l.managed_policy, PathBuf::from("/etc/warden/policy.toml"));
    }

    #[test]
    fn xdg_folders_split_config_and_state() {
        let l = locations(&[("HOME", "/home/u"), ("XDG_STATE_HOME", "/s")]);
        assert_eq!(
            l.user_policy(),
            PathBuf::from("/home/u/.config/warden/policy.toml")
        );
        assert_eq!(l.audit_log(), PathBuf::from("/s/warden/audit.jsonl"));
    }

    #[test]
    fn relative_xdg_values_are_ignored_as_the_spec_requires() {
        let l = locations(&[("HOME", "/home/u"), ("XDG_CONFIG_HOME", "rel")]);
        assert_eq!(l.config_dir, PathBuf::from("/home/u/.config/warden"));
    }

    /// `WARDEN_MANAGED_POLICY=$HOME/managed.toml` once made every write in the home
    /// folder Critical, because the managed file's parent was protected whole.
    #[test]
    fn only_warden_s_own_files_and_folders_are_protected() {
        let protects =
            |l: &Locations, p: &str| l.protected().iter().any(|x| Path::new(p).starts_with(x));
        let l = locations(&[("HOME", "/h"), ("WARDEN_MANAGED_POLICY", "/h/managed.toml")]);
        for p in [
            "/h/managed.toml",
            "/h/.config/warden/policy.toml",
            "/h/.local/state/warden/grants.jsonl",
            "/h/.config/warden",
        ] {
            assert!(protects(&l, p), "{p}: {:?}", l.protected());
        }
        for p in [
            "/h",
            "/h/notes.txt",
            "/h/project/src/main.rs",
            "/h/managed.toml.bak",
            "/h/.config/other",
            "/h/.local/state",
        ] {
            assert!(!protects(&l, p), "{p}: {:?}", l.protected());
        }
        // The default managed policy's folder is Warden's own.
        let l = locations(&[("HOME", "/h")]);
        assert!(protects(&l, "/etc/warden/other.toml"));
        assert!(!protects(&l, "/etc/hosts"));
        // A WARDEN_HOME that is not Warden's own folder: its files only.
        let l = locations(&[("WARDEN_HOME", "/h"), ("HOME", "/h")]);
        for p in [
            "/h/policy.toml",
            "/h/grants.jsonl",
            "/h/grants.jsonl.lock",
            "/h/audit.jsonl",
            "/h/trusted.jsonl",
            "/h/sessions/s1.json",
            "/h/config.toml",
        ] {
            assert!(protects(&l, p), "{p}: {:?}", l.protected());
        }
        for p in ["/h/notes.txt", "/h/project/a.rs"] {
            assert!(!protects(&l, p), "{p}");
        }
        let l = locations(&[
            ("WARDEN_HOME", "/opt/warden"),
            ("WARDEN_MANAGED_POLICY", "/opt/p.toml"),
        ]);
        assert!(protects(&l, "/opt/warden/anything"));
        assert!(protects(&l, "/opt/p.toml"));
        assert!(!protects(&l, "/opt/other.toml"));
    }

    #[test]
    fn managed_policy_can_be_moved() {
        let l = locations(&[("HOME", "/h"), ("WARDEN_MANAGED_POLICY", "/opt/p.toml")]);
        assert_eq!(l.managed_policy, PathBuf::from("/opt/p.toml"));
    }
}
