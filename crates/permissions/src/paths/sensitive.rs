//! Which paths hold secrets or control code that runs later.

use std::path::{Component, Path};

use crate::Context;

/// Why a path is sensitive. Reading one is High risk, changing one Critical.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sensitive {
    /// An `.ssh` folder: keys, `authorized_keys`, `config`.
    SshDir,
    /// Cloud and registry credentials: `~/.aws`, `~/.azure`, `~/.kube`, gcloud,
    /// `.netrc`, `.git-credentials`, `~/.config/git/credentials`, `.npmrc`,
    /// `.pypirc`, `.vault-token`, docker and cargo credentials, the GitHub CLI's hosts
    /// file, Terraform state (`*.tfstate`).
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
    /// A file that makes programs run code later, when someone else starts them:
    /// Git's user configuration (`~/.gitconfig`, `~/.config/git/`), Cargo's
    /// configuration (`.cargo/config.toml` anywhere), editor settings and tasks
    /// (`.vscode/`, `.zed/`), Vim start-up files, Yarn's `.yarnrc.yml`, Python's
    /// `.pth` start-up files, the folders early on `PATH` (`~/bin`, `~/.local/bin`),
    /// desktop autostart entries, systemd user units, cron and systemd folders.
    /// Reading one is as risky as reading any file there; changing one is Critical.
    /// The named files and folders are one list with the sandbox's
    /// ([`warden_sandbox::EXEC_CONFIG_FILES`], [`warden_sandbox::EXEC_CONFIG_FOLDERS`]),
    /// which keeps them read-only at the top of the workspace.
    ExecConfig,
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
            Sensitive::ExecConfig => {
                "a file that makes programs run code later (configuration, start-up or autostart)"
            }
        }
    }

    /// The id of [`Sensitive::description`] in the engine's catalog, for people.
    pub fn message_id(self) -> &'static str {
        match self {
            Sensitive::SshDir => "engine-sensitive-ssh-dir",
            Sensitive::CloudCredentials => "engine-sensitive-cloud-credentials",
            Sensitive::GnuPg => "engine-sensitive-gnupg",
            Sensitive::EnvFile => "engine-sensitive-env-file",
            Sensitive::PrivateKey => "engine-sensitive-private-key",
            Sensitive::SystemSecret => "engine-sensitive-system-secret",
            Sensitive::ShellRc => "engine-sensitive-shell-rc",
            Sensitive::WardenProject => "engine-sensitive-warden-project",
            Sensitive::GitInternals => "engine-sensitive-git-internals",
            Sensitive::WardenState => "engine-sensitive-warden-state",
            Sensitive::Device => "engine-sensitive-device",
            Sensitive::ExecConfig => "engine-sensitive-exec-config",
        }
    }

    /// True when reading the file is itself risky (it holds secrets or is Warden's
    /// own state). Execution-config files are not secret: reading one is judged like
    /// any other file in its place, and only changing one is Critical.
    pub fn read_is_sensitive(self) -> bool {
        !matches!(self, Sensitive::ExecConfig)
    }

    /// The strictest of several reasons: one whose read is sensitive wins over an
    /// execution-config one (both make a change Critical), so a symlink named like an
    /// editor setting that points at a key is still a key to read.
    pub fn strictest(found: impl IntoIterator<Item = Option<Sensitive>>) -> Option<Sensitive> {
        let mut best = None;
        for s in found.into_iter().flatten() {
            if s.read_is_sensitive() {
                return Some(s);
            }
            best = best.or(Some(s));
        }
        best
    }

    /// The strictest reason `path` (absolute, normalised) is sensitive, if any.
    /// Names compare case-insensitively: on case-insensitive filesystems `.SSH` is
    /// `.ssh`.
    pub fn classify(path: &Path, ctx: &Context) -> Option<Sensitive> {
        let bytes = warden_paths::PathBytes::new(path);
        if ctx.protected.iter().any(|p| bytes.is_within(p)) {
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
                // Git keeps credentials beside its configuration; the credentials
                // file is a secret, the rest of the folder runs code later.
                ".config" if matches!(below, Some("git")) => {
                    return Some(if names.get(i + 2).is_some_and(|n| n == "credentials") {
                        Sensitive::CloudCredentials
                    } else {
                        Sensitive::ExecConfig
                    });
                }
                _ => {}
            }
        }
        if let Some(found) = classify_name(last) {
            return Some(found);
        }
        classify_exec_config(path, &names, ctx)
    }
}

/// Files and folders that make programs run code later (see
/// [`Sensitive::ExecConfig`]). Checked after every secret class, so a credentials
/// file inside such a folder keeps its stricter read risk.
fn classify_exec_config(path: &Path, names: &[String], ctx: &Context) -> Option<Sensitive> {
    let found = Some(Sensitive::ExecConfig);
    let last = names.last().map(String::as_str).unwrap_or("");
    let parent = names
        .len()
        .checked_sub(2)
        .and_then(|i| names.get(i))
        .map(String::as_str);
    // Folders of the home that programs are looked up in or started from. Only the
    // user's own home: a workspace's `bin/` is ordinary source.
    if let Some(home) = ctx.home.as_deref() {
        const HOME_FOLDERS: &[&str] = &[
            "bin",
            ".local/bin",
            ".config/autostart",
            ".config/systemd",
            ".config/environment.d",
            ".config/nvim",
            ".config/zed",
            ".config/code/user",
            ".config/vscodium/user",
            ".config/cursor/user",
            ".config/sublime-text",
            ".config/emacs",
            ".config/doom",
            ".config/fish",
            ".vim",
            ".emacs.d",
            ".cursor",
            ".cargo/bin",
            ".pyenv/shims",
            ".pyenv/bin",
            ".rbenv/shims",
            ".nodenv/shims",
            ".volta/bin",
            ".nvm",
            ".oh-my-zsh",
            ".local/share/applications",
        ];
        if let Ok(rest) = path.strip_prefix(home) {
            let rest = rest.to_string_lossy().to_lowercase();
            if HOME_FOLDERS.iter().any(|f| {
                rest.strip_prefix(f)
                    .is_some_and(|r| r.is_empty() || r.starts_with('/'))
            }) {
                return found;
            }
        }
    }
    // Named files, wherever they are, and the files of configuration folders: the
    // one list the sandbox also keeps read-only in the workspace.
    if warden_sandbox::is_exec_config(parent, last) {
        return found;
    }
    // A `.pth` file in a Python packages folder runs its `import` lines at every
    // interpreter start.
    if last.ends_with(".pth")
        && names
            .iter()
            .any(|n| n == "site-packages" || n == "dist-packages")
    {
        return found;
    }
    // System places that start programs: cron tables, systemd units, the dynamic
    // loader's preload list.
    let first = names.first().map(String::as_str);
    let second = names.get(1).map(String::as_str);
    match (first, second) {
        (Some("etc"), Some(s))
            if s.starts_with("cron")
                || matches!(
                    s,
                    "systemd" | "init.d" | "rc.local" | "ld.so.preload" | "xdg"
                ) =>
        {
            found
        }
        (Some("var"), Some("spool")) if names.get(2).is_some_and(|n| n == "cron") => found,
        _ => None,
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
        // X session and Emacs start-up files run their code at each session.
        ".xprofile",
        ".xinitrc",
        ".xsession",
        ".xsessionrc",
        ".emacs",
        ".emacs.el",
        ".spacemacs",
    ];
    const CREDENTIAL_FILES: &[&str] = &[
        ".netrc",
        ".vault-token",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        ".pgpass",
        ".my.cnf",
        "credentials.json",
        "client_secret.json",
        "service-account.json",
        "terraform.tfvars",
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
    // Terraform state holds every secret the managed resources were created with.
    if name.ends_with(".tfstate") || name.ends_with(".tfstate.backup") || name.ends_with(".tfvars")
    {
        return Some(Sensitive::CloudCredentials);
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
