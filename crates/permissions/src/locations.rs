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

    /// Folders an agent must not touch without the strictest checks.
    pub fn protected(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.config_dir.clone(), self.state_dir.clone()];
        if let Some(parent) = self
            .managed_policy
            .parent()
            .filter(|p| p != &Path::new("/"))
        {
            dirs.push(parent.to_path_buf());
        }
        dirs.dedup();
        dirs
    }
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

    #[test]
    fn managed_policy_can_be_moved() {
        let l = locations(&[("HOME", "/h"), ("WARDEN_MANAGED_POLICY", "/opt/p.toml")]);
        assert_eq!(l.managed_policy, PathBuf::from("/opt/p.toml"));
    }
}
