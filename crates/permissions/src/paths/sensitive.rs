//! Which paths hold secrets or control code that runs later.

use std::path::{Component, Path};

use crate::Context;

/// Why a path is sensitive. Reading one is High risk, changing one Critical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sensitive {
    /// An `.ssh` folder: keys, `authorized_keys`, `config`.
    SshDir,
    /// Cloud and registry credentials: `~/.aws`, `~/.azure`, `~/.kube`, gcloud,
    /// `.netrc`, `.git-credentials`, `.npmrc`, `.pypirc`, docker and cargo
    /// credentials, the GitHub CLI's hosts file.
    CloudCredentials,
    /// A `.gnupg` folder.
    GnuPg,
    /// A dotenv file (`.env`, `.env.local`, ..., and direnv's `.envrc`; not the
    /// `.example`, `.sample`, `.template` and `.dist` files that by convention hold
    /// no secrets).
    EnvFile,
    /// A private key or key store (`*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.jks`,
    /// `*.keystore`, `*.ppk`, `id_rsa`-style SSH keys but not their `.pub` halves).
    PrivateKey,
    /// System secrets and account databases: `/etc/shadow`, `/etc/gshadow`,
    /// `/etc/passwd`, `/etc/group`, `/etc/sudoers*`, `/etc/ssh/`, `/root`, a
    /// process's `environ`.
    SystemSecret,
    /// A shell start-up file (`.bashrc`, `.zshrc`, `.profile`, ...): code in it runs
    /// in every new shell.
    ShellRc,
    /// The project's `.warden/` folder: its policy decides what the agent may do.
    WardenProject,
    /// Git's internals below `.git/` (hooks run code, `config` holds credentials).
    GitInternals,
    /// Warden's own configuration and state folders (`Context::protected`).
    WardenState,
    /// A device file other than the harmless ones (`/dev/null`, `/dev/tty`, ...):
    /// writing a disk device destroys it.
    Device,
}

impl Sensitive {
    /// A phrase for people, fitting "... which is {description}".
    pub fn description(self) -> &'static str {
        match self {
            Sensitive::SshDir => "inside an SSH folder (keys and SSH configuration)",
            Sensitive::CloudCredentials => "a cloud or registry credentials file",
            Sensitive::GnuPg => "inside the GnuPG keyring folder",
            Sensitive::EnvFile => "an environment file that usually holds secrets",
            Sensitive::PrivateKey => "a private key",
            Sensitive::SystemSecret => "a system account or secrets file",
            Sensitive::ShellRc => "a shell start-up file whose code runs in every new shell",
            Sensitive::WardenProject => "the project's Warden policy folder",
            Sensitive::GitInternals => "inside Git's internal folder (hooks, config)",
            Sensitive::WardenState => "Warden's own configuration or state",
            Sensitive::Device => "a device file",
        }
    }

    /// The strictest reason `path` (absolute, normalised) is sensitive, if any.
    /// Names compare case-insensitively: on case-insensitive filesystems `.SSH` is
    /// `.ssh`.
    pub fn classify(path: &Path, ctx: &Context) -> Option<Sensitive> {
        if ctx.protected.iter().any(|p| path.starts_with(p)) {
            return Some(Sensitive::WardenState);
        }
        let names: Vec<String> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().to_lowercase()),
                _ => None,
            })
            .collect();
        let last = names.last().map(String::as_str).unwrap_or("");

        // `/root` is another user's home, and so secret, unless it is the user's own
        // (Warden running as root): then only what is sensitive in any home counts.
        let own_root_home = ctx.home.as_deref().is_some_and(|h| h == Path::new("/root"));
        if let Some(found) = classify_system(&names)
            && !(own_root_home && names.first().is_some_and(|n| n == "root"))
        {
            return Some(found);
        }
        for (i, name) in names.iter().enumerate() {
            let below = names.get(i + 1).map(String::as_str);
            match name.as_str() {
                ".ssh" => return Some(Sensitive::SshDir),
                ".gnupg" => return Some(Sensitive::GnuPg),
                ".aws" | ".azure" | ".kube" => return Some(Sensitive::CloudCredentials),
                ".warden" => return Some(Sensitive::WardenProject),
                ".git" => return Some(Sensitive::GitInternals),
                ".config" if matches!(below, Some("gcloud")) => {
                    return Some(Sensitive::CloudCredentials);
                }
                ".config" if matches!(below, Some("gh")) && names.len() > i + 2 => {
                    return Some(Sensitive::CloudCredentials);
                }
                ".docker" if matches!(below, Some("config.json")) => {
                    return Some(Sensitive::CloudCredentials);
                }
                ".cargo" if below.is_some_and(|b| b.starts_with("credentials")) => {
                    return Some(Sensitive::CloudCredentials);
                }
                ".config" if matches!(below, Some("fish")) => return Some(Sensitive::ShellRc),
                _ => {}
            }
        }
        classify_name(last)
    }
}

/// Sensitivity decided by the file name alone.
fn classify_name(name: &str) -> Option<Sensitive> {
    const RC_FILES: &[&str] = &[
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".bash_aliases",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".inputrc",
    ];
    const CREDENTIAL_FILES: &[&str] = &[
        ".netrc",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        ".pgpass",
        ".my.cnf",
    ];
    const KEY_SUFFIXES: &[&str] = &[
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".jks",
        ".keystore",
        ".ppk",
        ".p8",
    ];
    const SSH_KEY_PREFIXES: &[&str] = &["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];
    const ENV_TEMPLATES: &[&str] = &[".example", ".sample", ".template", ".dist"];

    if RC_FILES.contains(&name) {
        return Some(Sensitive::ShellRc);
    }
    if CREDENTIAL_FILES.contains(&name) {
        return Some(Sensitive::CloudCredentials);
    }
    if name == ".env"
        || name == ".envrc"
        || (name.starts_with(".env.") && !ENV_TEMPLATES.iter().any(|t| name.ends_with(t)))
        || name.ends_with(".env")
    {
        return Some(Sensitive::EnvFile);
    }
    if KEY_SUFFIXES
        .iter()
        .any(|s| name.ends_with(s) && name.len() > s.len())
    {
        return Some(Sensitive::PrivateKey);
    }
    if SSH_KEY_PREFIXES.iter().any(|p| name.starts_with(p)) && !name.ends_with(".pub") {
        return Some(Sensitive::PrivateKey);
    }
    None
}

/// Sensitivity of system locations, decided by the leading components.
fn classify_system(names: &[String]) -> Option<Sensitive> {
    let first = names.first().map(String::as_str)?;
    let second = names.get(1).map(String::as_str);
    match (first, second) {
        ("root", _) => Some(Sensitive::SystemSecret),
        ("etc", Some("shadow" | "gshadow" | "passwd" | "group" | "sudoers" | "sudoers.d"))
        | ("etc", Some("ssh" | "shadow-" | "gshadow-" | "master.passwd")) => {
            Some(Sensitive::SystemSecret)
        }
        ("etc", Some("profile" | "bashrc" | "bash.bashrc" | "zshrc" | "zshenv" | "profile.d"))
        | ("etc", Some("environment")) => Some(Sensitive::ShellRc),
        ("proc", _) if names.last().is_some_and(|n| n == "environ" || n == "mem") => {
            Some(Sensitive::SystemSecret)
        }
        ("dev", None) => None,
        ("dev", Some(dev)) => {
            const HARMLESS: &[&str] = &[
                "null", "zero", "tty", "stdin", "stdout", "stderr", "random", "urandom", "fd",
                "full", "ptmx", "pts", "shm",
            ];
            if HARMLESS.contains(&dev) {
                None
            } else {
                Some(Sensitive::Device)
            }
        }
        _ => None,
    }
}
