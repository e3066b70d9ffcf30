//! Proposing a generalised grant for a call that asks.

use std::path::PathBuf;

use super::{GrantMatcher, GrantProposal};
use crate::assess::{Assessment, Unit};
use crate::{Risk, ToolCall};

/// Programs for which no command grant is ever proposed: interpreters and shells
/// (whatever follows is arbitrary code), wrappers that run another program, and
/// privilege changers. "Always allow `python …`" would allow everything.
pub const OVER_BROAD_PROGRAMS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "Rscript",
    "julia",
    "osascript",
    "pwsh",
    "powershell",
    "bash",
    "sh",
    "zsh",
    "fish",
    "dash",
    "ksh",
    "csh",
    "tcsh",
    "busybox",
    "env",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "xargs",
    "eval",
    "exec",
    "source",
    ".",
    "nohup",
    "timeout",
    "nice",
    "time",
    "command",
    "builtin",
    "stdbuf",
    "setsid",
    "ionice",
    "watch",
    "awk",
    "gawk",
    "mawk",
    "ssh",
    "parallel",
    "find",
];

/// Programs whose first operand is a subcommand that says what they do
/// (`git log`, `npm test`, `cargo build`); their grants name it.
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "git",
    "npm",
    "pnpm",
    "yarn",
    "cargo",
    "go",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "make",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "pipenv",
    "bundle",
    "gem",
    "mvn",
    "gradle",
    "./gradlew",
    "dotnet",
    "brew",
    "apt",
    "apt-get",
    "dnf",
    "systemctl",
    "terraform",
    "gh",
    "rustup",
    "just",
    "npx",
    "pnpx",
    "composer",
    "mix",
    "stack",
    "cabal",
    "swift",
    "zig",
    "nix",
    "jj",
    "hg",
    "svn",
];

/// Subcommands that run a named script; the script's name is part of the grant
/// (`npm run build`).
const SCRIPT_RUNNERS: &[(&str, &str)] = &[
    ("npm", "run"),
    ("npm", "exec"),
    ("pnpm", "run"),
    ("pnpm", "exec"),
    ("yarn", "run"),
    ("cargo", "run"),
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("bundle", "exec"),
    ("go", "run"),
];

/// Programs whose grants name the exact command: they delete, overwrite or change
/// files, processes or state, so "always allow" for one of their commands must not
/// cover another operand (`rm -rf build` is not `rm -rf src`).
const DESTRUCTIVE_PROGRAMS: &[&str] = &[
    "rm",
    "unlink",
    "shred",
    "srm",
    "rmdir",
    "dd",
    "truncate",
    "mv",
    "cp",
    "install",
    "ln",
    "chmod",
    "chown",
    "chgrp",
    "chattr",
    "setfacl",
    "kill",
    "pkill",
    "killall",
    "rsync",
    "tee",
    "touch",
    "mkdir",
    "mkfifo",
    "sed",
    "perl",
    "patch",
    "sponge",
    "tar",
    "unzip",
    "crontab",
    "systemctl",
    "launchctl",
    "iptables",
    "nft",
    "ufw",
    "userdel",
    "groupdel",
    "passwd",
];

/// Subcommands that discard work or state: `git clean`, `docker rm`, `kubectl delete`.
const DESTRUCTIVE_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "clean",
            "reset",
            "rm",
            "restore",
            "checkout",
            "switch",
            "push",
            "branch",
            "stash",
            "tag",
            "worktree",
            "update-ref",
            "filter-branch",
            "filter-repo",
            "gc",
            "prune",
            "reflog",
            "rebase",
            "mv",
            "config",
            "remote",
            "submodule",
            "apply",
            "am",
        ],
    ),
    (
        "docker",
        &[
            "rm",
            "rmi",
            "prune",
            "kill",
            "stop",
            "system",
            "volume",
            "network",
            "image",
            "container",
        ],
    ),
    (
        "podman",
        &[
            "rm",
            "rmi",
            "prune",
            "kill",
            "stop",
            "system",
            "volume",
            "network",
            "image",
            "container",
        ],
    ),
    (
        "kubectl",
        &[
            "delete", "apply", "replace", "patch", "scale", "drain", "cordon", "edit",
        ],
    ),
    ("helm", &["uninstall", "delete", "rollback", "upgrade"]),
    (
        "terraform",
        &["destroy", "apply", "import", "state", "taint"],
    ),
    ("npm", &["uninstall", "unpublish", "publish", "prune", "rm"]),
    ("cargo", &["publish", "yank", "clean", "uninstall"]),
    ("gh", &["repo", "release", "secret", "api"]),
];

/// Whether a grant for this segment must name it exactly: it changes files (a
/// redirection, a target the analyser saw), or its program or subcommand is
/// destructive.
pub(crate) fn needs_exact(unit: &Unit) -> bool {
    if unit.writes_files || !unit.paths.is_empty() {
        return true;
    }
    let Some((program, rest)) = unit.argv.split_first() else {
        return false;
    };
    let program = basename(program);
    if DESTRUCTIVE_PROGRAMS.contains(&program) {
        return true;
    }
    let sub = rest.iter().find(|w| !is_flag(w));
    DESTRUCTIVE_SUBCOMMANDS
        .iter()
        .any(|(p, subs)| *p == program && sub.is_some_and(|s| subs.contains(&s.as_str())))
}

/// The exact matcher for a destructive segment, or none when a word of it is only
/// known at run time (`rm -rf $DIR` is not the same command twice).
fn exact_matcher(unit: &Unit) -> Option<GrantMatcher> {
    if unit.opaque
        || unit.argv.is_empty()
        || unit
            .argv
            .iter()
            .any(|w| w.contains('$') || w.contains('`') || w.contains(['*', '?', '[']))
    {
        return None;
    }
    // The grants file never holds a secret: a command that carries one (a token in
    // an option) gets no exact grant.
    if unit
        .argv
        .iter()
        .any(|w| matches!(warden_redact::redact_text(w), std::borrow::Cow::Owned(_)))
    {
        return None;
    }
    let mut paths: Vec<PathBuf> = unit.paths.iter().map(|p| p.real.clone()).collect();
    paths.sort();
    paths.dedup();
    Some(GrantMatcher::Exact {
        argv: unit.argv.clone(),
        paths,
    })
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

fn is_flag(word: &str) -> bool {
    word.starts_with('-')
}

/// The argv prefix a command grant for this segment names, if a narrow one exists.
pub(crate) fn command_prefix(unit: &Unit) -> Option<Vec<String>> {
    let (program, rest) = unit.argv.split_first()?;
    if unit.opaque
        || !unit.env.is_empty()
        || !crate::shell::reconfiguring_options(&unit.argv).is_empty()
        || program.is_empty()
        || program.starts_with('$')
    {
        return None;
    }
    if OVER_BROAD_PROGRAMS.contains(&basename(program))
        || crate::shell::is_wrapper(basename(program))
    {
        return None;
    }
    // The analyser unwraps wrappers (`xargs echo` is judged as `echo`); a grant must
    // not generalise a wrapped command either, since the wrapper changes what runs
    // (`xargs` adds operands read at run time).
    let written = unit
        .text
        .split_whitespace()
        .find(|w| !w.contains('=') || w.starts_with('='));
    if written.is_some_and(|w| {
        let w = basename(w.trim_matches(['\'', '"', '\\']));
        OVER_BROAD_PROGRAMS.contains(&w) || crate::shell::is_wrapper(w)
    }) {
        return None;
    }
    let mut prefix = vec![program.clone()];
    if SUBCOMMAND_PROGRAMS.contains(&program.as_str()) {
        match rest.first() {
            // A bare `make` or `cargo` is named exactly.
            None => {}
            Some(sub) if is_flag(sub) => return None,
            Some(sub) => {
                prefix.push(sub.clone());
                if SCRIPT_RUNNERS.contains(&(program.as_str(), sub.as_str())) {
                    match rest.get(1) {
                        Some(script) if !is_flag(script) => prefix.push(script.clone()),
                        _ => return None,
                    }
                }
            }
        }
    }
    Some(prefix)
}

fn is_root_like(path: &std::path::Path, home: Option<&std::path::Path>) -> bool {
    path.parent().is_none() || Some(path) == home
}

fn matcher_for(
    call: &ToolCall,
    assessment: &Assessment,
    unit: &Unit,
    home: Option<&std::path::Path>,
) -> Option<GrantMatcher> {
    let tool = call.tool.clone();
    let reals = || {
        unit.paths
            .iter()
            .map(|p| p.real.clone())
            .collect::<Vec<PathBuf>>()
    };
    match call.tool.as_str() {
        // A destructive segment is granted exactly, never by program or subcommand:
        // approving `rm -rf build` must not allow `rm -rf src`.
        "terminal" if needs_exact(unit) => {
            command_prefix(unit)?;
            exact_matcher(unit)
        }
        "terminal" => command_prefix(unit).map(|prefix| GrantMatcher::Command { prefix }),
        // Reads generalise to the folder: reading one file of a folder the user let
        // the agent read is no news. A folder that is the root or the home folder
        // would be too broad; then the file itself.
        "fs_read" | "fs_list" | "fs_search" => {
            let path = unit.paths.first()?;
            let folder = if call.tool == "fs_read" {
                path.real.parent()?.to_path_buf()
            } else {
                path.real.clone()
            };
            if is_root_like(&folder, home) {
                Some(GrantMatcher::Files {
                    tool,
                    paths: reals(),
                })
            } else {
                Some(GrantMatcher::Folder { tool, path: folder })
            }
        }
        "fs_write" | "fs_edit" | "fs_delete" | "fs_move" => {
            (!unit.paths.is_empty()).then(|| GrantMatcher::Files {
                tool,
                paths: reals(),
            })
        }
        "http_fetch" => assessment
            .domain
            .clone()
            .map(|domain| GrantMatcher::Domain { tool, domain }),
        // An MCP tool is granted on its server's identity (the name with its command or
        // URL), never by the name the model sees: another server could borrow the name.
        // A call whose server is not known (no origin) gets no grant.
        _ if call.mcp_parts().is_some() => call.origin.as_ref().map(|o| GrantMatcher::McpTool {
            server: o.server.clone(),
            identity: o.identity.clone(),
            tool: o.tool.clone(),
        }),
        _ => Some(GrantMatcher::Tool { tool }),
    }
}

/// Proposes a grant that covers the parts of a call that asked (`asking`), or none
/// when one of them cannot be generalised narrowly or is Critical.
pub fn propose(
    call: &ToolCall,
    assessment: &Assessment,
    asking: &[(&Unit, Risk)],
    home: Option<&std::path::Path>,
) -> Option<GrantProposal> {
    if asking.is_empty() || assessment.malformed.is_some() {
        return None;
    }
    let mut matchers: Vec<GrantMatcher> = Vec::new();
    let mut max_risk = Risk::Low;
    for (unit, risk) in asking {
        if *risk == Risk::Critical {
            return None;
        }
        let matcher = matcher_for(call, assessment, unit, home)?;
        if !matchers.contains(&matcher) {
            matchers.push(matcher);
        }
        max_risk = max_risk.max(*risk);
    }
    let subject = matchers
        .iter()
        .map(GrantMatcher::describe)
        .collect::<Vec<_>>()
        .join(", ");
    Some(GrantProposal {
        label: format!("{subject} in this project"),
        subject,
        matchers,
        max_risk,
        widens: super::Widening::default(),
    })
}
