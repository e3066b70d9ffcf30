//! What a `terminal` call needs beyond its default confinement (the contract's
//! section 10): the network, writes outside the paths it may write, or no sandbox at
//! all. The engine asks for a call with such needs whatever the mode; once the call
//! is allowed (by the user, a grant or the user's own rule), its confinement is widened
//! by exactly these needs.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;
use warden_sandbox::{Confinement, Workspace};

use crate::assess::{Assessment, Unit};
use crate::policy::SandboxSettings;
use crate::{Context, Sentence, ToolCall};

/// Why a call runs without confinement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "why", content = "detail", rename_all = "snake_case")]
pub enum Unconfined {
    /// The model asked for it (`"sandbox": false`).
    Requested,
    /// This system cannot confine commands (the detail says why).
    Unavailable(String),
    /// The user's or the administrator's policy turned confinement off.
    TurnedOff,
}

/// What one call needs beyond its default confinement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct SandboxNeeds {
    /// It uses the network (a download, a `git fetch`, a package install, a socket).
    pub network: bool,
    /// Paths it writes that its confinement does not let it write (outside the
    /// workspace and the temporary folders, or a protected file inside it).
    pub writes: Vec<PathBuf>,
    /// It runs without confinement, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconfined: Option<Unconfined>,
}

impl SandboxNeeds {
    /// Whether the call needs more than its default confinement gives.
    pub fn widens(&self) -> bool {
        self.network || !self.writes.is_empty()
    }

    /// The needs in words, for the permission request: "needs the network", "writes
    /// outside the workspace: ~/.bashrc", "runs WITHOUT the sandbox".
    pub fn words(&self, home: Option<&Path>) -> Vec<Sentence> {
        let mut words = Vec::new();
        match &self.unconfined {
            Some(Unconfined::Requested) => words.push(Sentence::new("engine-sandbox-off")),
            Some(Unconfined::Unavailable(why)) => {
                words.push(Sentence::new("engine-sandbox-unavailable").text("why", why.as_str()));
            }
            Some(Unconfined::TurnedOff) | None => {}
        }
        if self.unconfined.is_none() {
            if self.network {
                words.push(Sentence::new("engine-sandbox-network"));
            }
            if !self.writes.is_empty() {
                let paths: Vec<String> = self.writes.iter().map(|p| tilde(p, home)).collect();
                words.push(Sentence::new("engine-sandbox-writes").text("paths", paths.join(", ")));
            }
        }
        words
    }

    /// What an "always" answer widens, for its label: "with the network and writes to
    /// ~/.bashrc"; `None` when it widens nothing.
    pub fn widening_words(&self, home: Option<&Path>) -> Option<Sentence> {
        if self.unconfined.is_some() || !self.widens() {
            return None;
        }
        let paths: Vec<String> = self.writes.iter().map(|p| tilde(p, home)).collect();
        Some(match (self.network, paths.is_empty()) {
            (true, true) => Sentence::new("engine-widening-network"),
            (false, _) => Sentence::new("engine-widening-writes").text("paths", paths.join(", ")),
            (true, false) => {
                Sentence::new("engine-widening-network-and-writes").text("paths", paths.join(", "))
            }
        })
    }
}

/// `~/x` for a path in the home folder.
fn tilde(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// The temporary folders every command may write: `/tmp` and `$TMPDIR`, in their
/// real form. Found once per process: resolving them costs system calls, and every
/// evaluation of a command needs them.
pub fn temp_dirs() -> &'static [PathBuf] {
    static TEMP_DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    TEMP_DIRS.get_or_init(|| {
        let mut dirs = vec![PathBuf::from("/tmp"), std::env::temp_dir()];
        for dir in &mut dirs {
            if let Ok(real) = dir.canonicalize() {
                *dir = real;
            }
        }
        dirs.dedup();
        dirs
    })
}

/// The default confinement of a command in this context, under these settings: the
/// one the engine predicts writes against and the session confines commands to.
pub fn default_confinement(ctx: &Context, settings: &SandboxSettings) -> Confinement {
    workspace(ctx, settings).confinement()
}

/// What the default confinement is made of; the engine checks a command's writes
/// against it without building the confinement itself.
pub(crate) fn workspace(ctx: &Context, settings: &SandboxSettings) -> Workspace {
    let home = ctx.home.clone();
    let extra_writable = settings
        .writable
        .iter()
        .map(|p| match (p.strip_prefix("~"), &home) {
            (Ok(rest), Some(home)) => home.join(rest),
            _ => p.clone(),
        })
        .filter(|p| p.is_absolute())
        .collect();
    Workspace {
        roots: ctx.workspace_roots.clone(),
        home,
        warden_dirs: ctx.protected.clone(),
        temp_dirs: temp_dirs().to_vec(),
        extra_writable,
        network: settings.network,
        max_processes: settings.max_processes,
    }
}

/// The needs of a call, or `None` for a tool that starts no process of its own.
pub fn needs(
    call: &ToolCall,
    assessment: &Assessment,
    ctx: &Context,
    settings: &SandboxSettings,
) -> Option<SandboxNeeds> {
    if call.tool != "terminal" || assessment.malformed.is_some() {
        return None;
    }
    let unconfined = if !settings.enabled {
        Some(Unconfined::TurnedOff)
    } else if call.args.get("sandbox") == Some(&serde_json::Value::Bool(false)) {
        Some(Unconfined::Requested)
    } else {
        ctx.sandbox_missing.clone().map(Unconfined::Unavailable)
    };
    let workspace = workspace(ctx, settings);
    let mut total = SandboxNeeds {
        unconfined,
        ..SandboxNeeds::default()
    };
    for unit in &assessment.units {
        let part = unit_needs(unit, &workspace);
        total.network |= part.network;
        for path in part.writes {
            if !total.writes.contains(&path) {
                total.writes.push(path);
            }
        }
    }
    Some(total)
}

/// What one part of a call needs beyond the default confinement of `workspace`: what
/// a grant that covers the part must have been approved with.
pub(crate) fn unit_needs(unit: &Unit, workspace: &Workspace) -> SandboxNeeds {
    let mut writes: Vec<PathBuf> = Vec::new();
    for path in &unit.paths {
        // The confinement lets every command write `/dev/null` and its kind.
        if is_harmless_device(&path.lexical) {
            continue;
        }
        if !workspace.may_write(&path.real) && !writes.contains(&path.lexical) {
            writes.push(path.lexical.clone());
        }
    }
    SandboxNeeds {
        network: !workspace.network && uses_network(&unit.argv, &unit.text),
        writes,
        unconfined: None,
    }
}

/// Device files every command may write inside its confinement.
fn is_harmless_device(path: &Path) -> bool {
    const HARMLESS: &[&str] = &[
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/tty",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/random",
        "/dev/urandom",
    ];
    HARMLESS.iter().any(|d| path == Path::new(d))
        || path.starts_with("/dev/fd")
        || path.starts_with("/dev/pts")
        || path.starts_with("/dev/shm")
}

/// Programs that use the network whatever their arguments.
const NETWORK_PROGRAMS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "https",
    "xh",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "ssh",
    "scp",
    "sftp",
    "telnet",
    "ftp",
    "ping",
    "ping6",
    "dig",
    "nslookup",
    "host",
    "whois",
    "traceroute",
    "mosh",
    "npx",
    "bunx",
    "pnpx",
];

/// Programs that use the network for some of their subcommands.
const NETWORK_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "clone",
            "fetch",
            "pull",
            "push",
            "ls-remote",
            "submodule",
            "remote",
        ],
    ),
    (
        "npm",
        &[
            "install", "i", "ci", "add", "update", "publish", "view", "info", "audit", "outdated",
            "exec", "login", "search",
        ],
    ),
    (
        "pnpm",
        &[
            "install", "i", "add", "update", "publish", "dlx", "audit", "outdated",
        ],
    ),
    (
        "yarn",
        &["install", "add", "upgrade", "publish", "dlx", "npm"],
    ),
    ("bun", &["install", "i", "add", "update", "x", "publish"]),
    ("pip", &["install", "download", "search", "index"]),
    ("pip3", &["install", "download", "search", "index"]),
    (
        "uv",
        &["pip", "add", "sync", "lock", "tool", "run", "python"],
    ),
    ("poetry", &["install", "add", "update", "lock", "publish"]),
    (
        "cargo",
        &[
            "install",
            "fetch",
            "update",
            "publish",
            "search",
            "add",
            "login",
            "generate-lockfile",
        ],
    ),
    ("go", &["get", "install", "mod"]),
    (
        "apt",
        &["install", "update", "upgrade", "download", "full-upgrade"],
    ),
    (
        "apt-get",
        &[
            "install",
            "update",
            "upgrade",
            "download",
            "dist-upgrade",
            "source",
        ],
    ),
    ("brew", &["install", "update", "upgrade", "fetch", "tap"]),
    ("gem", &["install", "update", "fetch", "push"]),
    ("bundle", &["install", "update"]),
    ("composer", &["install", "update", "require"]),
    ("docker", &["pull", "push", "login", "build", "run"]),
    ("gh", &[]),
    ("rsync", &[]),
];

/// Whether a part of a command uses the network: a program that does, a subcommand
/// that does, or bash's `/dev/tcp` and `/dev/udp` redirections.
fn uses_network(argv: &[String], text: &str) -> bool {
    if text.contains("/dev/tcp/") || text.contains("/dev/udp/") {
        return true;
    }
    let Some(program) = argv.first() else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    if NETWORK_PROGRAMS.contains(&program) {
        return true;
    }
    let Some((_, subcommands)) = NETWORK_SUBCOMMANDS.iter().find(|(p, _)| *p == program) else {
        return false;
    };
    if program == "rsync" {
        // A remote side is `host:path` or `rsync://`.
        return argv[1..]
            .iter()
            .any(|a| !a.starts_with('/') && a.contains(':'));
    }
    if subcommands.is_empty() {
        return true;
    }
    argv[1..]
        .iter()
        .find(|a| !a.starts_with('-'))
        .is_some_and(|sub| subcommands.contains(&sub.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assess;

    fn ctx() -> Context {
        Context::new("/w/project").with_home("/home/u")
    }

    fn needs_of(command: &str) -> SandboxNeeds {
        let call = ToolCall::new("terminal", serde_json::json!({ "command": command }));
        let ctx = ctx();
        let assessment = assess(&call, &ctx);
        needs(&call, &assessment, &ctx, &SandboxSettings::default()).unwrap_or_default()
    }

    #[test]
    fn ordinary_work_in_the_workspace_needs_nothing() {
        for command in [
            "ls -la",
            "cat src/main.rs",
            "git status",
            "python3 -c 'print(1)' > out.txt",
            "echo hi > /tmp/x",
            "make",
            "cargo build",
            "echo x > /dev/null",
        ] {
            let needs = needs_of(command);
            assert!(!needs.widens(), "{command}: {needs:?}");
        }
    }

    #[test]
    fn writes_outside_the_workspace_are_named() {
        let needs = needs_of("echo 'alias ls=rm' >> ~/.bashrc");
        assert_eq!(needs.writes, [PathBuf::from("/home/u/.bashrc")]);
        assert_eq!(
            needs.words(Some(Path::new("/home/u"))),
            ["writes outside the workspace: ~/.bashrc"]
        );
        let needs = needs_of("rm -rf /w/other");
        assert_eq!(needs.writes, [PathBuf::from("/w/other")]);
    }

    #[test]
    fn a_protected_file_inside_the_workspace_is_a_write_beyond_the_sandbox() {
        let needs = needs_of("echo x > .git/hooks/pre-commit");
        assert_eq!(
            needs.writes,
            [PathBuf::from("/w/project/.git/hooks/pre-commit")]
        );
    }

    #[test]
    fn network_use_is_found() {
        for command in [
            "curl https://example.com",
            "git fetch origin",
            "npm install",
            "pip install requests",
            "cat < /dev/tcp/127.0.0.1/80",
            "ssh host ls",
        ] {
            assert!(needs_of(command).network, "{command}");
        }
        for command in ["git status", "npm test", "cargo build", "rsync -a a/ b/"] {
            assert!(!needs_of(command).network, "{command}");
        }
        assert_eq!(needs_of("curl x").words(None), ["needs the network"]);
    }

    /// What broke: only `curl -o FILE` and `wget -O FILE` spelled apart were seen, so
    /// `curl -sSLo ~/x URL`, `curl -O` in another folder, `wget -qO`, `wget -P` and the
    /// logs and cookie jars were asked for as "needs the network" alone, and failed on
    /// the sandbox's refusal once the user allowed them.
    #[test]
    fn download_output_options_are_predicted_writes() {
        for (command, written) in [
            ("curl -sSLo ~/x https://x.test/a", "/home/u/x"),
            ("curl -o ~/x https://x.test/a", "/home/u/x"),
            ("curl --output=/w/other/x https://x.test/a", "/w/other/x"),
            (
                "curl -O https://x.test/d/tool.sh --output-dir ~/bin",
                "/home/u/bin/tool.sh",
            ),
            (
                "cd ~ && curl -fsSLO https://x.test/d/tool.sh",
                "/home/u/tool.sh",
            ),
            ("curl -D ~/headers https://x.test/", "/home/u/headers"),
            ("curl -c ~/jar https://x.test/", "/home/u/jar"),
            ("wget -qO ~/x https://x.test/a", "/home/u/x"),
            ("wget -O ~/x https://x.test/a", "/home/u/x"),
            ("wget -P ~/dl https://x.test/d/f.tgz", "/home/u/dl/f.tgz"),
            (
                "wget --directory-prefix=/w/other https://x.test/",
                "/w/other/index.html",
            ),
            ("wget -o ~/log https://x.test/a", "/home/u/log"),
            ("cd ~ && wget https://x.test/d/f.tgz", "/home/u/f.tgz"),
            ("wget -r -P ~/mirror https://x.test/", "/home/u/mirror"),
        ] {
            let needs = needs_of(command);
            assert!(needs.network, "{command}");
            assert!(
                needs.writes.contains(&PathBuf::from(written)),
                "{command}: {needs:?}"
            );
        }
        for command in [
            "curl -sSL https://x.test/a",
            "curl -o out.html https://x.test/a",
            "curl -O https://x.test/d/tool.sh",
            "wget https://x.test/d/f.tgz",
            "wget -qO- https://x.test/a",
            "curl -o - https://x.test/a",
        ] {
            let needs = needs_of(command);
            assert!(needs.writes.is_empty(), "{command}: {needs:?}");
        }
    }

    #[test]
    fn the_user_s_settings_widen_the_default() {
        let call = ToolCall::new(
            "terminal",
            serde_json::json!({ "command": "curl x > ~/.cache/a" }),
        );
        let ctx = ctx();
        let assessment = assess(&call, &ctx);
        let settings = SandboxSettings {
            network: true,
            writable: vec![PathBuf::from("~/.cache")],
            ..SandboxSettings::default()
        };
        let needs = needs(&call, &assessment, &ctx, &settings).unwrap_or_default();
        assert!(!needs.widens(), "{needs:?}");
    }

    #[test]
    fn leaving_the_sandbox_is_its_own_need() {
        let call = ToolCall::new(
            "terminal",
            serde_json::json!({ "command": "ls", "sandbox": false }),
        );
        let ctx = ctx();
        let assessment = assess(&call, &ctx);
        let found = needs(&call, &assessment, &ctx, &SandboxSettings::default());
        assert_eq!(
            found.as_ref().and_then(|n| n.unconfined.clone()),
            Some(Unconfined::Requested)
        );
        assert_eq!(
            found.map(|n| n.words(None)).unwrap_or_default(),
            ["runs WITHOUT the sandbox"]
        );
        let other = ToolCall::new("fs_read", serde_json::json!({ "path": "x" }));
        assert_eq!(
            needs(
                &other,
                &assess(&other, &ctx),
                &ctx,
                &SandboxSettings::default()
            ),
            None
        );
    }

    #[test]
    fn a_system_without_a_sandbox_says_why() {
        let call = ToolCall::new("terminal", serde_json::json!({ "command": "ls" }));
        let ctx = ctx().with_sandbox_missing(Some("this system has no Landlock".to_owned()));
        let assessment = assess(&call, &ctx);
        let found = needs(&call, &assessment, &ctx, &SandboxSettings::default());
        assert_eq!(
            found.map(|n| n.words(None)).unwrap_or_default(),
            ["runs without a sandbox: this system has no Landlock"]
        );
    }
}
