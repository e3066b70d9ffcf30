//! The risk of one simple command, from its program and arguments.

use super::normalize::normalize_argv;
use super::words::Word;
use crate::paths::{FileOp, ResolvedPath, Resolver, is_precious, path_risk};
use crate::{Context, Risk};

/// Where a command's standard input comes from, as far as it matters.
#[derive(Debug, Clone, Default)]
pub(super) enum Stdin {
    /// The terminal or whatever the caller gives: nothing we can see.
    #[default]
    Inherited,
    /// An earlier pipeline stage. `download` when some earlier stage fetched from the
    /// network; `echo` when the previous stage was `echo`/`printf` with static text.
    Pipe {
        download: bool,
        echo: Option<String>,
    },
    /// A here-document or here-string; `None` when its text is only known at run time.
    Text(Option<String>),
}

/// What the walker knows around a simple command.
#[derive(Debug)]
pub(super) struct Input<'a> {
    /// The program's basename.
    pub program: &'a str,
    /// Its arguments (after the program).
    pub args: &'a [Word],
    pub ctx: &'a Context,
    /// Resolves paths against the workspace roots of `ctx`.
    pub resolver: &'a Resolver,
    /// Run by `xargs`: more operands follow that we cannot see.
    pub xargs: bool,
    pub stdin: &'a Stdin,
    /// One of its arguments is a substitution that downloads (`bash <(curl ..)`).
    pub substituted_download: bool,
}

impl Input<'_> {
    fn resolve(&self, raw: &str) -> ResolvedPath {
        self.resolver.resolve(raw, self.ctx)
    }
}

/// The judgement of one simple command.
#[derive(Debug)]
pub(super) struct Verdict {
    pub risk: Risk,
    pub reason: String,
    pub writes: Vec<ResolvedPath>,
    /// Shell scripts this command runs whose text we know (`bash -c '...'`): the
    /// walker analyses them as further segments.
    pub scripts: Vec<String>,
    /// We cannot tell what this command runs.
    pub opaque: bool,
}

impl Default for Verdict {
    fn default() -> Verdict {
        Verdict {
            risk: Risk::Low,
            reason: String::new(),
            writes: Vec::new(),
            scripts: Vec::new(),
            opaque: false,
        }
    }
}

impl Verdict {
    fn new(risk: Risk, reason: impl Into<String>) -> Verdict {
        Verdict {
            risk,
            reason: reason.into(),
            ..Verdict::default()
        }
    }

    /// Raises the risk to `risk` with `reason` if that is stricter.
    fn raise(&mut self, risk: Risk, reason: impl Into<String>) {
        if risk > self.risk || self.reason.is_empty() {
            self.risk = risk;
            self.reason = reason.into();
        }
    }

    fn file(&mut self, op: FileOp, path: ResolvedPath) {
        let (risk, reason) = path_risk(op, &path);
        self.raise(risk, reason);
        if op != FileOp::Read {
            self.writes.push(path);
        }
    }

    /// Judges `op` on a word: static words resolve to paths, dynamic ones are judged
    /// as unknown paths (Medium to read, High to change).
    fn word(&mut self, op: FileOp, word: &Word, input: &Input<'_>) {
        if word.dynamic {
            let (risk, verb) = match op {
                FileOp::Read => (Risk::Medium, "Reads"),
                FileOp::Write => (Risk::High, "Writes"),
                FileOp::Delete => (Risk::High, "Deletes"),
            };
            self.raise(
                risk,
                format!("{verb} {}, a path only known at run time.", word.text),
            );
        } else {
            self.file(op, input.resolve(&word.text));
        }
    }
}

/// Programs that fetch data from the network: piping their output into a shell runs
/// whatever the server sends.
pub(super) const DOWNLOADERS: &[&str] = &[
    "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "netcat", "socat",
    "ftp", "tftp", "ssh", "lynx", "w3m",
];

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "busybox",
];

const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "perl",
    "ruby",
    "php",
    "lua",
    "luajit",
    "Rscript",
    "osascript",
    "pwsh",
    "powershell",
    "tclsh",
    "wish",
    "irb",
    "jshell",
    "groovy",
];

/// Read-only programs whose operands are files they read.
const READERS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "file",
    "stat",
    "du",
    "tree",
    "less",
    "more",
    "bat",
    "batcat",
    "nl",
    "od",
    "hexdump",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "strings",
    "readlink",
    "realpath",
    "diff",
    "cmp",
    "comm",
    "sort",
    "uniq",
    "cut",
    "column",
    "fold",
    "paste",
    "join",
    "tac",
    "rev",
    "expand",
    "unexpand",
    "fmt",
    "pr",
    "look",
    "exa",
    "eza",
    "lsd",
    "dir",
    "vdir",
    "zcat",
    "bzcat",
    "xzcat",
    "zless",
    "lsattr",
    "getfacl",
    "sha1",
    "md5",
    "shasum",
    "base64",
    "base32",
    "iconv",
];

/// Read-only programs that take a pattern or filter first, then files.
const PATTERN_READERS: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "jq", "yq", "zgrep",
];

/// Read-only programs whose arguments are not files.
const HARMLESS: &[&str] = &[
    "echo",
    "printf",
    "pwd",
    "true",
    "false",
    ":",
    "whoami",
    "id",
    "uname",
    "which",
    "whereis",
    "type",
    "printenv",
    "seq",
    "sleep",
    "test",
    "[",
    "basename",
    "dirname",
    "cd",
    "pushd",
    "popd",
    "tty",
    "groups",
    "locale",
    "nproc",
    "arch",
    "uptime",
    "free",
    "ps",
    "jobs",
    "wait",
    "exit",
    "return",
    "shift",
    "set",
    "unset",
    "export",
    "declare",
    "local",
    "readonly",
    "typeset",
    "read",
    "yes",
    "clear",
    "hash",
    "df",
    "tr",
    "cal",
    "users",
    "who",
    "w",
    "logname",
    "getconf",
    "lsb_release",
    "sw_vers",
    "hostnamectl",
    "lscpu",
    "lsblk",
    "env",
    "dirs",
    "break",
    "continue",
    "let",
    "shopt",
    "umask",
    "history",
    "alias",
    "unalias",
    "help",
    "man",
    "info",
    "apropos",
    "whatis",
    "tput",
    "stty",
    "pgrep",
    "top",
    "htop",
    "vmstat",
    "iostat",
    "mount",
    "findmnt",
    "command",
    "hostname",
    "date",
    "expr",
    "bc",
    "dc",
    "factor",
    "numfmt",
    "xxd",
];

const POWER: &[&str] = &["shutdown", "reboot", "halt", "poweroff"];

const PRIVILEGE: &[&str] = &[
    "sudo",
    "su",
    "doas",
    "pkexec",
    "run0",
    "sudoedit",
    "machinectl",
];

const DISK_TOOLS: &[&str] = &[
    "fdisk",
    "sfdisk",
    "cfdisk",
    "gdisk",
    "sgdisk",
    "parted",
    "wipefs",
    "mkswap",
    "mke2fs",
    "badblocks",
    "blkdiscard",
    "cryptsetup",
    "zpool",
    "lvremove",
    "vgremove",
    "pvremove",
];

const NETWORK: &[&str] = &[
    "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "netcat", "socat",
    "ftp", "tftp", "ssh", "scp", "sftp", "rsync", "telnet", "lynx", "w3m", "mosh",
];

/// Judges one simple command.
pub(super) fn judge(input: &Input<'_>) -> Verdict {
    let mut v = judge_program(input);
    if input.xargs && v.risk < Risk::Medium {
        v.raise(
            Risk::Medium,
            format!(
                "Runs {} through xargs, with arguments only known at run time.",
                input.program
            ),
        );
    }
    if v.reason.is_empty() {
        v.reason = format!("Runs {}.", input.program);
    }
    v
}

/// The arguments, with one unknown operand added for `xargs`.
fn operands_of(input: &Input<'_>) -> Vec<Word> {
    let mut args: Vec<Word> = input.args.to_vec();
    if input.xargs {
        args.push(Word::unknown("(input of xargs)"));
    }
    args
}

/// Splits normalised arguments into flags and operands (after `--` everything is an
/// operand).
fn split_flags(args: &[Word]) -> (Vec<String>, Vec<Word>) {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut only_operands = false;
    for a in args {
        if only_operands || a.dynamic || !a.text.starts_with('-') || a.text == "-" {
            operands.push(a.clone());
        } else if a.text == "--" {
            only_operands = true;
        } else {
            flags.push(a.text.clone());
        }
    }
    (flags, operands)
}

/// Normalises a program's arguments with its option spec, keeping which were dynamic.
fn normalized(program: &str, args: &[Word]) -> Vec<Word> {
    let mut argv = vec![program.to_string()];
    argv.extend(args.iter().map(|w| w.text.clone()));
    let norm = normalize_argv(&argv);
    norm.into_iter()
        .skip(1)
        .map(|text| {
            let dynamic = args.iter().any(|w| w.dynamic && w.text == text);
            Word { text, dynamic }
        })
        .collect()
}

fn judge_program(input: &Input<'_>) -> Verdict {
    let p = input.program;
    if PRIVILEGE.contains(&p) {
        return Verdict::new(
            Risk::Critical,
            format!("Runs {p}, which executes commands with administrator rights."),
        );
    }
    if POWER.contains(&p) {
        return Verdict::new(
            Risk::Critical,
            format!("Runs {p}, which stops the machine."),
        );
    }
    if (p == "init" || p == "telinit") && !input.args.is_empty() {
        return Verdict::new(
            Risk::Critical,
            format!("Runs {p}, which changes the run level."),
        );
    }
    if p.starts_with("mkfs") || DISK_TOOLS.contains(&p) {
        return Verdict::new(
            Risk::Critical,
            format!("Runs {p}, which rewrites disks or file systems."),
        );
    }
    if SHELLS.contains(&p) {
        return shell(input);
    }
    if INTERPRETERS.contains(&p) || p.starts_with("python3.") {
        return interpreter(input);
    }
    match p {
        "rm" | "unlink" | "shred" | "srm" => return rm(input),
        "rmdir" => return operands_op(input, FileOp::Delete),
        "find" => return find(input),
        "cp" | "install" => return copy(input, false),
        "mv" => return copy(input, true),
        "ln" => return link(input),
        "touch" | "mkdir" | "tee" | "mkfifo" | "truncate" => return writer(input),
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => return chmod(input),
        "dd" => return dd(input),
        "git" => return git(input),
        "eval" => return eval(input),
        "source" | "." => return source(input),
        "sed" => return sed(input),
        "awk" | "gawk" | "mawk" | "nawk" => return awk(input),
        "kill" | "pkill" | "killall" => return kill(input),
        "systemctl" => return systemctl(input),
        "watch" => return watch(input),
        "date"
            if input
                .args
                .iter()
                .any(|a| a.text == "-s" || a.text.starts_with("--set")) =>
        {
            return Verdict::new(Risk::High, "Sets the system clock.");
        }
        "hostname" if !input.args.is_empty() && !input.args[0].text.starts_with('-') => {
            return Verdict::new(Risk::High, "Changes the machine's host name.");
        }
        "mount" if !input.args.is_empty() => {
            return Verdict::new(Risk::High, "Mounts a file system.");
        }
        "xxd" if input.args.iter().any(|a| !a.text.starts_with('-')) => {
            return readers(input, 0);
        }
        "cargo" | "npm" | "pnpm" | "yarn" | "bun" | "go" | "pip" | "pip3" | "uv" | "poetry"
        | "pipenv" | "gem" | "bundle" | "composer" | "deno" | "dotnet" | "swift" | "mix"
        | "brew" | "apt" | "apt-get" | "dnf" | "yum" | "pacman" | "npx" | "pnpx" | "bunx"
        | "rustup" => return package_tool(input),
        _ => {}
    }
    if NETWORK.contains(&p) {
        return network(input);
    }
    if PATTERN_READERS.contains(&p) {
        let explicit_pattern = input.args.iter().any(|a| {
            matches!(a.text.as_str(), "-e" | "-f" | "--regexp" | "--file")
                || a.text.starts_with("--regexp=")
                || a.text.starts_with("--file=")
        });
        return readers(input, usize::from(!explicit_pattern));
    }
    if READERS.contains(&p) {
        return readers(input, 0);
    }
    if HARMLESS.contains(&p) {
        return Verdict::new(Risk::Low, format!("Runs {p}, which only reads."));
    }
    if is_build_tool(p) {
        return Verdict::new(
            Risk::Medium,
            format!("Runs {p}, a build or test tool that runs the project's own code."),
        );
    }
    Verdict::new(
        Risk::High,
        format!("Runs {p}, a program Warden does not know."),
    )
}

fn is_build_tool(p: &str) -> bool {
    const BUILD: &[&str] = &[
        "make",
        "gmake",
        "cmake",
        "ninja",
        "just",
        "meson",
        "bazel",
        "pytest",
        "tox",
        "nox",
        "mvn",
        "gradle",
        "rustc",
        "rustfmt",
        "gcc",
        "g++",
        "cc",
        "c++",
        "clang",
        "clang++",
        "javac",
        "tsc",
        "jest",
        "vitest",
        "mocha",
        "eslint",
        "prettier",
        "black",
        "ruff",
        "mypy",
        "pylint",
        "flake8",
        "isort",
        "gofmt",
        "golangci-lint",
        "shellcheck",
        "cargo-nextest",
        "ctest",
        "phpunit",
        "rspec",
        "rake",
        "zig",
        "ghc",
        "stack",
        "cabal",
        "sbt",
        "ld",
    ];
    BUILD.contains(&p)
}

/// Read-only programs: Low, unless an operand (or an option's `=value`) is a path
/// that is sensitive or outside the workspace. The first `skip` operands are not
/// paths (a grep pattern). `sort -o`, `uniq IN OUT` and `tree -o` write.
fn readers(input: &Input<'_>, skip: usize) -> Verdict {
    let p = input.program;
    let mut v = Verdict::new(Risk::Low, format!("Runs {p}, which only reads."));
    let args = operands_of(input);
    let mut seen_operands = 0;
    let mut only_operands = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if !only_operands && !a.dynamic && a.text == "--" {
            only_operands = true;
            continue;
        }
        if !only_operands && !a.dynamic && a.text.starts_with('-') && a.text != "-" {
            let output_flag = match p {
                "sort" => matches!(a.text.as_str(), "-o" | "--output"),
                "tree" => a.text == "-o",
                _ => false,
            };
            if output_flag {
                if let Some(target) = args.get(i) {
                    v.word(FileOp::Write, target, input);
                    i += 1;
                }
                continue;
            }
            if let Some((flag, value)) = a.text.split_once('=') {
                let op = if p == "sort" && (flag == "--output") {
                    FileOp::Write
                } else {
                    FileOp::Read
                };
                if !value.is_empty() {
                    v.word(op, &Word::literal(value), input);
                }
            } else if p == "sort" && a.text.starts_with("-o") && a.text.len() > 2 {
                v.word(FileOp::Write, &Word::literal(&a.text[2..]), input);
            }
            continue;
        }
        seen_operands += 1;
        if seen_operands <= skip {
            continue;
        }
        let op = if p == "uniq" && seen_operands == 2 {
            FileOp::Write
        } else {
            FileOp::Read
        };
        if a.text == "-" && !a.dynamic {
            continue;
        }
        v.word(op, a, input);
    }
    v
}

/// `rm` and friends: every operand is deleted; recursive deletes of precious places
/// or of anything outside the workspace are Critical.
fn rm(input: &Input<'_>) -> Verdict {
    let args = normalized(input.program, &operands_of(input));
    let (flags, operands) = split_flags(&args);
    let recursive = input.program == "rm" && flags.iter().any(|f| f == "-r");
    let mut v = Verdict::new(
        Risk::Low,
        format!(
            "Runs {} without operands, which deletes nothing.",
            input.program
        ),
    );
    if flags.iter().any(|f| f == "--no-preserve-root") {
        v.raise(
            Risk::Critical,
            "Deletes with --no-preserve-root, which allows deleting the whole file system.",
        );
    }
    for operand in &operands {
        if operand.dynamic {
            if recursive {
                v.raise(
                    Risk::Critical,
                    format!(
                        "Recursively deletes {}, a path only known at run time.",
                        operand.text
                    ),
                );
            } else {
                v.word(FileOp::Delete, operand, input);
            }
            continue;
        }
        let path = input.resolve(&operand.text);
        if recursive && is_precious(&path, input.ctx) {
            v.raise(
                Risk::Critical,
                format!(
                    "Recursively deletes {}, which holds the system, the home folder or the workspace.",
                    path.display()
                ),
            );
        } else if recursive && !path.inside_workspace {
            v.raise(
                Risk::Critical,
                format!(
                    "Recursively deletes {}, outside the workspace.",
                    path.display()
                ),
            );
        }
        v.file(FileOp::Delete, path);
    }
    v
}

/// Programs whose every operand receives `op` (`rmdir`).
fn operands_op(input: &Input<'_>, op: FileOp) -> Verdict {
    let args = normalized(input.program, &operands_of(input));
    let (_, operands) = split_flags(&args);
    let mut v = Verdict::new(
        Risk::Low,
        format!("Runs {} without operands.", input.program),
    );
    for operand in &operands {
        v.word(op, operand, input);
    }
    v
}

/// `touch`, `mkdir`, `tee`, `truncate`, `mkfifo`: every operand is written. The
/// values of valued options (`mkdir -m 755`, `truncate -s 0`, `touch -d DATE`) are
/// not paths.
fn writer(input: &Input<'_>) -> Verdict {
    let valued: &[&str] = match input.program {
        "mkdir" | "mkfifo" => &["-m", "--mode"],
        "touch" => &["-d", "-r", "-t", "--date", "--reference"],
        "truncate" => &["-s", "-r", "--size", "--reference"],
        _ => &[],
    };
    let args = normalized(input.program, &operands_of(input));
    let mut v = Verdict::new(
        Risk::Low,
        format!("Runs {} without operands.", input.program),
    );
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if !only_operands && !a.dynamic {
            if a.text == "--" {
                only_operands = true;
                continue;
            }
            if valued.contains(&a.text.as_str()) {
                i += 1;
                continue;
            }
            if a.text.starts_with('-') && a.text != "-" {
                continue;
            }
        }
        v.word(FileOp::Write, a, input);
    }
    v
}

/// `cp SRC... DEST` / `mv SRC... DEST` (and `-t DEST SRC...`): sources are read (or
/// deleted, for `mv`), the destination written. Moving a precious folder is Critical.
fn copy(input: &Input<'_>, is_move: bool) -> Verdict {
    let args = normalized(input.program, &operands_of(input));
    let mut target: Option<Word> = None;
    let mut rest: Vec<Word> = Vec::new();
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let a = &args[i];
        if !only_operands && !a.dynamic && a.text == "--" {
            only_operands = true;
        } else if !only_operands && !a.dynamic && (a.text == "-t" || a.text == "-S") {
            if a.text == "-t" {
                target = args.get(i + 1).cloned();
            }
            i += 1;
        } else if only_operands || a.dynamic || !a.text.starts_with('-') || a.text == "-" {
            rest.push(a.clone());
        }
        i += 1;
    }
    if target.is_none() && rest.len() >= 2 {
        target = rest.pop();
    }
    let verb = if is_move { "Moves" } else { "Copies" };
    let mut v = Verdict::new(Risk::Low, format!("{verb} nothing."));
    let source_op = if is_move {
        FileOp::Delete
    } else {
        FileOp::Read
    };
    for source in &rest {
        if is_move && !source.dynamic {
            let path = input.resolve(&source.text);
            if is_precious(&path, input.ctx) {
                v.raise(
                    Risk::Critical,
                    format!(
                        "Moves {}, which holds the system, the home folder or the workspace.",
                        path.display()
                    ),
                );
            }
        }
        v.word(source_op, source, input);
    }
    if let Some(target) = &target {
        v.word(FileOp::Write, target, input);
    }
    v
}

/// `ln [-s] TARGET [LINK]`: the link is written; the target is judged as a read, so a
/// link to a secret counts like reading it.
fn link(input: &Input<'_>) -> Verdict {
    let args = normalized(input.program, &operands_of(input));
    let mut dir: Option<Word> = None;
    let mut operands: Vec<Word> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if !a.dynamic && a.text == "-t" {
            dir = args.get(i + 1).cloned();
            i += 1;
        } else if a.dynamic || !a.text.starts_with('-') {
            operands.push(a.clone());
        }
        i += 1;
    }
    let mut v = Verdict::new(Risk::Low, "Creates no link.");
    let link = if dir.is_some() {
        dir
    } else if operands.len() >= 2 {
        operands.pop()
    } else {
        operands.first().map(|t| {
            let name = t.text.rsplit('/').next().unwrap_or(&t.text).to_string();
            Word {
                text: name,
                dynamic: t.dynamic,
            }
        })
    };
    for target in &operands {
        v.word(FileOp::Read, target, input);
    }
    if let Some(link) = &link {
        v.word(FileOp::Write, link, input);
    }
    v
}

/// `chmod MODE FILE...`, `chown OWNER FILE...`: the files are written; recursive
/// changes of precious places are Critical.
fn chmod(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let args = normalized(p, &operands_of(input));
    let (flags, mut operands) = split_flags(&args);
    let recursive = flags.iter().any(|f| f == "-R");
    let has_reference = flags.iter().any(|f| f.starts_with("--reference"));
    if !has_reference && !operands.is_empty() && matches!(p, "chmod" | "chown" | "chgrp") {
        operands.remove(0);
    }
    let mut v = Verdict::new(Risk::Low, format!("Runs {p} without files."));
    for operand in &operands {
        if recursive {
            let precious = operand.dynamic || is_precious(&input.resolve(&operand.text), input.ctx);
            if precious {
                v.raise(
                    Risk::Critical,
                    format!(
                        "Recursively changes the permissions of {}, which holds the system or the home folder (or is unknown).",
                        operand.text
                    ),
                );
            }
        }
        v.word(FileOp::Write, operand, input);
    }
    v
}

/// `dd if=... of=...`: writing a device is Critical (through the path rules).
fn dd(input: &Input<'_>) -> Verdict {
    let mut v = Verdict::new(
        Risk::Medium,
        "Runs dd, which copies raw data to its output.",
    );
    for a in &operands_of(input) {
        if let Some(target) = a.text.strip_prefix("of=") {
            v.word(
                FileOp::Write,
                &Word {
                    text: target.to_string(),
                    dynamic: a.dynamic,
                },
                input,
            );
        } else if let Some(source) = a.text.strip_prefix("if=") {
            v.word(
                FileOp::Read,
                &Word {
                    text: source.to_string(),
                    dynamic: a.dynamic,
                },
                input,
            );
        }
    }
    v
}

/// `find` tests that narrow what `-delete` removes.
const FIND_FILTERS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-newer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-empty",
    "-user",
    "-group",
    "-perm",
    "-links",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
];

/// `find ROOTS... EXPRESSION`: read-only unless the expression deletes, runs
/// commands or writes files.
fn find(input: &Input<'_>) -> Verdict {
    let args = operands_of(input);
    let mut roots: Vec<Word> = Vec::new();
    let mut i = 0;
    // Leading options -H -L -P -D x -Ox.
    while i < args.len() && matches!(args[i].text.as_str(), "-H" | "-L" | "-P") {
        i += 1;
    }
    while i < args.len() {
        let a = &args[i];
        if !a.dynamic && (a.text.starts_with('-') || a.text == "(" || a.text == "!") {
            break;
        }
        roots.push(a.clone());
        i += 1;
    }
    if roots.is_empty() {
        roots.push(Word::literal("."));
    }
    let mut v = Verdict::new(Risk::Low, "Runs find, which only reads.");
    for root in &roots {
        v.word(FileOp::Read, root, input);
    }
    let mut filtered = false;
    while i < args.len() {
        let a = args[i].text.as_str();
        i += 1;
        filtered |= FIND_FILTERS.contains(&a);
        match a {
            "-delete" => {
                for root in &roots {
                    if root.dynamic {
                        v.raise(
                            Risk::Critical,
                            format!(
                                "Deletes files below {}, a path only known at run time.",
                                root.text
                            ),
                        );
                        continue;
                    }
                    let path = input.resolve(&root.text);
                    // `find . -delete` empties the workspace; `find . -name '*.o'
                    // -delete` only deletes what matches.
                    if (is_precious(&path, input.ctx) && !filtered) || !path.inside_workspace {
                        v.raise(
                            Risk::Critical,
                            format!("Deletes files below {}, recursively.", path.display()),
                        );
                    } else {
                        v.file(FileOp::Delete, path);
                    }
                }
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = i;
                while i < args.len() && args[i].text != ";" && args[i].text != "+" {
                    i += 1;
                }
                let inner: Vec<Word> = args[start..i]
                    .iter()
                    .map(|w| {
                        if w.text.contains("{}") {
                            Word::unknown(w.text.clone())
                        } else {
                            w.clone()
                        }
                    })
                    .collect();
                i += 1;
                if let Some((program, rest)) = inner.split_first() {
                    if program.dynamic {
                        v.opaque = true;
                        v.raise(Risk::High, "find runs a program only known at run time.");
                        continue;
                    }
                    let name = super::wrappers::basename(&program.text);
                    let nested = judge(&Input {
                        program: name,
                        args: rest,
                        ctx: input.ctx,
                        resolver: input.resolver,
                        xargs: false,
                        stdin: &Stdin::Inherited,
                        substituted_download: false,
                    });
                    let risk = nested.risk.max(Risk::Medium);
                    v.raise(
                        risk,
                        format!("find runs {name} on each file it finds: {}", nested.reason),
                    );
                    v.writes.extend(nested.writes);
                    v.scripts.extend(nested.scripts);
                    v.opaque |= nested.opaque;
                }
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                if let Some(target) = args.get(i) {
                    v.word(FileOp::Write, target, input);
                }
                i += 1;
            }
            _ => {}
        }
    }
    v
}

/// Shells: `-c STRING` is analysed as a script; a script file cannot be read (High);
/// reading the script from standard input is Critical after a download.
fn shell(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let args = input.args;
    let mut i = 0;
    let mut has_c = false;
    let mut reads_stdin = false;
    if p == "busybox" {
        // `busybox sh ...`: the applet is the first argument.
        match args.first() {
            Some(a) if !a.dynamic && SHELLS.contains(&a.text.as_str()) => i = 1,
            Some(_) => return Verdict::new(Risk::High, "Runs a busybox applet."),
            None => return Verdict::new(Risk::Low, "Runs busybox, which lists its applets."),
        }
    }
    while i < args.len() {
        let a = &args[i];
        if a.dynamic {
            break;
        }
        let t = a.text.as_str();
        if t == "--" || t == "-" {
            reads_stdin |= t == "-";
            i += 1;
            break;
        }
        if t == "-o" || t == "+o" || t == "-O" || t == "+O" || t == "--rcfile" || t == "--init-file"
        {
            i += 2;
            continue;
        }
        if t.starts_with("--") {
            i += 1;
            continue;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            has_c |= t.contains('c') && t.starts_with('-');
            reads_stdin |= t.contains('s') && t.starts_with('-');
            i += 1;
            continue;
        }
        break;
    }
    if has_c {
        return match args.get(i) {
            Some(script) if !script.dynamic => {
                let mut v = Verdict::new(
                    Risk::Low,
                    format!("Runs {p} -c with a script whose parts are judged on their own."),
                );
                if input.substituted_download {
                    v.raise(
                        Risk::Critical,
                        format!("Runs {p} on a script downloaded from the network."),
                    );
                }
                v.scripts.push(script.text.clone());
                v
            }
            Some(script) => {
                let mut v = Verdict::new(
                    Risk::High,
                    format!(
                        "Runs {p} -c with a script only known at run time ({}).",
                        script.text
                    ),
                );
                if input.substituted_download {
                    v.raise(
                        Risk::Critical,
                        format!("Runs {p} on a script downloaded from the network."),
                    );
                }
                v.opaque = true;
                v
            }
            None => Verdict::new(Risk::High, format!("Runs {p} -c without a script.")),
        };
    }
    if i < args.len() && !reads_stdin {
        let mut v = Verdict::new(
            Risk::High,
            format!(
                "Runs {p} on the script {}, whose content Warden does not read.",
                args[i].text
            ),
        );
        if input.substituted_download {
            v.raise(
                Risk::Critical,
                format!("Runs {p} on a script downloaded from the network."),
            );
        }
        return v;
    }
    stdin_script(input, p)
}

/// A shell or interpreter that reads its program from standard input.
fn stdin_script(input: &Input<'_>, p: &str) -> Verdict {
    match input.stdin {
        Stdin::Pipe { download: true, .. } => Verdict::new(
            Risk::Critical,
            format!("Pipes a download into {p}, which runs whatever the server sends."),
        ),
        Stdin::Pipe {
            echo: Some(text), ..
        }
        | Stdin::Text(Some(text))
            if SHELLS.contains(&p) =>
        {
            let mut v = Verdict::new(
                Risk::Low,
                format!("Runs {p} on a script whose parts are judged on their own."),
            );
            v.scripts.push(text.clone());
            v
        }
        Stdin::Pipe { .. } => Verdict::new(
            Risk::High,
            format!("Runs {p} on a script read from another command's output."),
        ),
        Stdin::Text(_) => Verdict::new(Risk::High, format!("Runs {p} on a here-document.")),
        Stdin::Inherited => Verdict::new(
            Risk::High,
            format!("Starts {p}, which runs whatever it is given."),
        ),
    }
}

/// Interpreters run code we do not analyse: High, except version queries and the test
/// runners behind `python -m`.
fn interpreter(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let args = input.args;
    if input.substituted_download {
        return Verdict::new(
            Risk::Critical,
            format!("Runs {p} on code downloaded from the network."),
        );
    }
    if args.len() == 1 && matches!(args[0].text.as_str(), "--version" | "-V" | "-v" | "version") {
        return Verdict::new(Risk::Low, format!("Asks {p} for its version."));
    }
    if p.starts_with("python")
        && let Some(pos) = args.iter().position(|a| a.text == "-m")
    {
        let module = args.get(pos + 1).map(|a| a.text.as_str()).unwrap_or("");
        let rest = args.get(pos + 2..).unwrap_or(&[]);
        return match module {
            "pytest" | "unittest" | "mypy" | "black" | "ruff" | "pylint" | "flake8" | "isort"
            | "tox" | "nox" | "build" | "compileall" | "doctest" => Verdict::new(
                Risk::Medium,
                format!("Runs {p} -m {module}, a build or test tool."),
            ),
            "pip" => package_tool(&Input {
                program: "pip",
                args: rest,
                ..*input
            }),
            "json.tool" => Verdict::new(Risk::Low, "Formats JSON."),
            _ => Verdict::new(Risk::High, format!("Runs the Python module {module}.")),
        };
    }
    let code_flag = args.iter().any(|a| {
        matches!(
            a.text.as_str(),
            "-c" | "-e" | "-E" | "--eval" | "-p" | "--print" | "-r"
        )
    });
    if code_flag {
        return Verdict::new(
            Risk::High,
            format!("Runs {p} with inline code that Warden does not analyse."),
        );
    }
    let has_script = args.iter().any(|a| !a.text.starts_with('-'));
    if has_script {
        return Verdict::new(
            Risk::High,
            format!("Runs a {p} program whose code Warden does not analyse."),
        );
    }
    stdin_script(input, p)
}

/// `eval ARGS`: the joined arguments are a script.
fn eval(input: &Input<'_>) -> Verdict {
    if input.substituted_download {
        return Verdict::new(
            Risk::Critical,
            "Evaluates code downloaded from the network.",
        );
    }
    if input.args.iter().any(|a| a.dynamic) || input.xargs {
        let mut v = Verdict::new(Risk::High, "Evaluates a script only known at run time.");
        v.opaque = true;
        return v;
    }
    let script: Vec<&str> = input.args.iter().map(|a| a.text.as_str()).collect();
    let mut v = Verdict::new(
        Risk::Low,
        "Evaluates a script whose parts are judged on their own.",
    );
    v.scripts.push(script.join(" "));
    v
}

/// `source FILE` / `. FILE`: runs a script in this shell.
fn source(input: &Input<'_>) -> Verdict {
    if input.substituted_download {
        return Verdict::new(Risk::Critical, "Sources code downloaded from the network.");
    }
    Verdict::new(
        Risk::High,
        format!(
            "Runs the script {} in this shell, whose content Warden does not read.",
            input.args.first().map_or("(none)", |a| a.text.as_str())
        ),
    )
}

/// `watch [-n N] CMD...` runs its arguments through `sh -c`.
fn watch(input: &Input<'_>) -> Verdict {
    let mut i = 0;
    let args = input.args;
    while i < args.len() && args[i].text.starts_with('-') {
        let t = args[i].text.as_str();
        i += if matches!(t, "-n" | "--interval" | "-d" | "-q") && t != "-d" {
            2
        } else {
            1
        };
    }
    if args[i.min(args.len())..].iter().any(|a| a.dynamic) {
        let mut v = Verdict::new(Risk::High, "watch runs a command only known at run time.");
        v.opaque = true;
        return v;
    }
    let script: Vec<&str> = args[i.min(args.len())..]
        .iter()
        .map(|a| a.text.as_str())
        .collect();
    let mut v = Verdict::new(
        Risk::Low,
        "watch runs a command whose parts are judged on their own.",
    );
    v.scripts.push(script.join(" "));
    v
}

/// `sed`: Medium (a sed script can write files and run commands); `-i` writes its
/// files.
fn sed(input: &Input<'_>) -> Verdict {
    let args = operands_of(input);
    let in_place = args.iter().any(|a| {
        !a.dynamic
            && (a.text.starts_with("-i")
                || a.text.starts_with("--in-place")
                || (a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('i')))
    });
    let explicit_script = args
        .iter()
        .any(|a| matches!(a.text.as_str(), "-e" | "-f" | "--expression" | "--file"));
    let mut v = Verdict::new(
        Risk::Medium,
        "Runs sed, whose scripts can write files and run commands.",
    );
    let mut operands = 0;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if !a.dynamic
            && matches!(
                a.text.as_str(),
                "-e" | "-f" | "--expression" | "--file" | "-l" | "-s"
            )
        {
            if matches!(a.text.as_str(), "-e" | "-f" | "--expression" | "--file") {
                i += 1;
            }
            continue;
        }
        if !a.dynamic && a.text.starts_with('-') && a.text != "-" {
            continue;
        }
        operands += 1;
        if operands == 1 && !explicit_script {
            continue;
        }
        v.word(
            if in_place {
                FileOp::Write
            } else {
                FileOp::Read
            },
            a,
            input,
        );
    }
    v
}

/// `awk`: Medium; High when the program can run commands or write files
/// (`system(`, pipes, output redirection).
fn awk(input: &Input<'_>) -> Verdict {
    let args = operands_of(input);
    let mut v = Verdict::new(Risk::Medium, "Runs awk, a programming language.");
    let mut program_seen = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if !a.dynamic && matches!(a.text.as_str(), "-F" | "-v" | "-f") {
            if a.text == "-f" {
                v.raise(
                    Risk::High,
                    "Runs an awk program from a file Warden does not read.",
                );
                program_seen = true;
            }
            i += 1;
            continue;
        }
        if !a.dynamic && a.text.starts_with('-') {
            continue;
        }
        if !program_seen {
            program_seen = true;
            if a.dynamic
                || a.text.contains("system")
                || a.text.contains('|')
                || a.text.contains('>')
                || a.text.contains("getline")
            {
                v.raise(
                    Risk::High,
                    "Runs an awk program that can run commands or write files.",
                );
            }
            continue;
        }
        v.word(FileOp::Read, a, input);
    }
    v
}

fn kill(input: &Input<'_>) -> Verdict {
    if input.args.len() >= 2 && input.args.last().is_some_and(|a| a.text == "-1") {
        return Verdict::new(
            Risk::Critical,
            "Signals every process of the user (kill -1).",
        );
    }
    Verdict::new(
        Risk::High,
        format!("Runs {}, which stops processes.", input.program),
    )
}

fn systemctl(input: &Input<'_>) -> Verdict {
    let verb = input
        .args
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str());
    match verb {
        Some("poweroff" | "reboot" | "halt" | "kexec" | "emergency" | "rescue" | "soft-reboot") => {
            Verdict::new(
                Risk::Critical,
                "Runs systemctl to stop or restart the machine.",
            )
        }
        Some(
            "status" | "list-units" | "list-unit-files" | "is-active" | "is-enabled" | "show"
            | "cat",
        )
        | None => Verdict::new(Risk::Low, "Runs systemctl to look at services."),
        Some(other) => Verdict::new(
            Risk::High,
            format!("Runs systemctl {other}, which changes services."),
        ),
    }
}

fn network(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let mut v = Verdict::new(Risk::High, format!("Runs {p}, which talks to the network."));
    let args = input.args;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let output = match (p, a.text.as_str()) {
            ("curl", "-o" | "--output") | ("wget", "-O" | "--output-document") => {
                args.get(i).cloned().inspect(|_| i += 1)
            }
            ("curl", t) if t.starts_with("-o") && t.len() > 2 => Some(Word {
                text: t[2..].to_string(),
                dynamic: a.dynamic,
            }),
            ("wget", t) if t.starts_with("-O") && t.len() > 2 => Some(Word {
                text: t[2..].to_string(),
                dynamic: a.dynamic,
            }),
            ("wget", t) if t.starts_with("--output-document=") => Some(Word {
                text: t["--output-document=".len()..].to_string(),
                dynamic: a.dynamic,
            }),
            ("curl", t) if t.starts_with("--output=") => Some(Word {
                text: t["--output=".len()..].to_string(),
                dynamic: a.dynamic,
            }),
            _ => None,
        };
        if let Some(target) = output.filter(|t| t.text != "-") {
            v.word(FileOp::Write, &target, input);
        }
    }
    v
}

/// Package managers and language tool chains: installs and publishing are High
/// (they run code from the network), everything else Medium (build and test).
fn package_tool(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let sub = input
        .args
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str())
        .unwrap_or("");
    if matches!(p, "npx" | "pnpx" | "bunx") {
        return Verdict::new(
            Risk::High,
            format!("Runs {p}, which downloads and runs packages."),
        );
    }
    if matches!(p, "brew" | "apt" | "apt-get" | "dnf" | "yum" | "pacman") {
        return match sub {
            "list" | "search" | "info" | "show" | "policy" => {
                Verdict::new(Risk::Low, format!("Runs {p} {sub}, which only reads."))
            }
            _ => Verdict::new(
                Risk::High,
                format!("Runs {p} {sub}, which changes installed software."),
            ),
        };
    }
    let high = match p {
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
    };
    if high {
        return Verdict::new(
            Risk::High,
            format!(
                "Runs {p} {sub}, which installs, publishes or runs code from outside the project."
            ),
        );
    }
    let low = match p {
        "pip" | "pip3" => matches!(sub, "list" | "show" | "freeze" | "check"),
        "cargo" => matches!(
            sub,
            "tree" | "metadata" | "search" | "version" | "--version" | "-V"
        ),
        "go" => matches!(sub, "version" | "env" | "list"),
        "npm" | "pnpm" | "yarn" => matches!(
            sub,
            "ls" | "list" | "outdated" | "view" | "--version" | "-v"
        ),
        _ => false,
    };
    if low {
        return Verdict::new(Risk::Low, format!("Runs {p} {sub}, which only reads."));
    }
    Verdict::new(
        Risk::Medium,
        format!("Runs {p} {sub}, a build or test tool that runs the project's own code.")
            .replace("  ", " "),
    )
}

/// `git`: read-only subcommands are Low, changes to the repository Medium, discarding
/// work or publishing High, rewriting a remote's history Critical.
fn git(input: &Input<'_>) -> Verdict {
    let args = normalized("git", input.args);
    // Global options left by the normal form before the subcommand.
    let mut i = 0;
    let mut v = Verdict::new(Risk::Low, "");
    while i < args.len() && args[i].text.starts_with('-') && !args[i].dynamic {
        match args[i].text.as_str() {
            "-c" | "--exec-path" | "--config-env" => {
                v.raise(Risk::High, "Runs git with configuration set on the command line, which can run any program.");
                i += 2;
            }
            "--git-dir" | "--work-tree" | "--namespace" => {
                v.raise(Risk::Medium, "Runs git on another repository or work tree.");
                i += 2;
            }
            t if t.starts_with("--git-dir=") || t.starts_with("--work-tree=") => {
                v.raise(Risk::Medium, "Runs git on another repository or work tree.");
                i += 1;
            }
            "--version" | "--help" | "-h" => {
                return Verdict::new(Risk::Low, "Asks git for its version or help.");
            }
            t if t.starts_with("--exec-path") || t.starts_with("--config-env") => {
                v.raise(
                    Risk::High,
                    "Runs git with a program path set on the command line.",
                );
                i += 1;
            }
            other => {
                v.raise(
                    Risk::High,
                    format!("Runs git with the option {other}, which Warden does not know."),
                );
                i += 1;
            }
        }
    }
    let Some(sub_word) = args.get(i) else {
        v.raise(
            Risk::Low,
            "Runs git without a subcommand, which prints its help.",
        );
        return v;
    };
    if sub_word.dynamic {
        v.raise(
            Risk::High,
            format!(
                "Runs git with a subcommand only known at run time ({}).",
                sub_word.text
            ),
        );
        v.opaque = true;
        return v;
    }
    let sub = sub_word.text.as_str();
    let rest = &args[i + 1..];
    let (flags, operands) = split_flags(rest);
    let has = |f: &str| {
        flags
            .iter()
            .any(|x| x == f || x.starts_with(&format!("{f}=")))
    };
    let first_operand = operands.first().map(|w| w.text.as_str());
    let (risk, reason): (Risk, String) = match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "ls-tree" | "blame"
        | "shortlog" | "describe" | "grep" | "cat-file" | "whatchanged" | "count-objects"
        | "merge-base" | "name-rev" | "for-each-ref" | "show-ref" | "rev-list" | "check-ignore"
        | "var" | "version" | "help" | "annotate" | "show-branch" | "ls-remote" | "range-diff"
        | "diff-tree" | "diff-files" | "diff-index" | "verify-commit" | "verify-tag" | "fsck" => {
            if has("--output") || has("--ext-diff") {
                (
                    Risk::Medium,
                    format!("Runs git {sub} with an option that writes a file or runs a program."),
                )
            } else {
                (Risk::Low, format!("Runs git {sub}, which only reads."))
            }
        }
        "branch" => {
            if has("-D") || (has("-d") && has("-f")) {
                (
                    Risk::High,
                    "Force-deletes a git branch, which can lose commits.".into(),
                )
            } else if operands.is_empty()
                || has("-l")
                || has("--list")
                || has("--show-current")
                || has("--contains")
            {
                (Risk::Low, "Lists git branches.".into())
            } else {
                (
                    Risk::Medium,
                    "Creates, renames or deletes a git branch.".into(),
                )
            }
        }
        "tag" => {
            if operands.is_empty() || has("-l") || has("--list") {
                (Risk::Low, "Lists git tags.".into())
            } else {
                (Risk::Medium, "Creates or deletes a git tag.".into())
            }
        }
        "remote" => match first_operand {
            None | Some("show" | "get-url") => (Risk::Low, "Lists git remotes.".into()),
            Some(_) => (Risk::Medium, "Changes git remotes.".into()),
        },
        "stash" => match first_operand {
            Some("list" | "show") => (Risk::Low, "Lists git stashes.".into()),
            Some("drop" | "clear") => (
                Risk::High,
                "Drops git stashes, which loses their changes.".into(),
            ),
            _ => (Risk::Medium, "Stashes or restores changes.".into()),
        },
        "config" => {
            if has("--get")
                || has("--list")
                || has("-l")
                || has("--get-all")
                || has("--get-regexp")
                || operands.len() == 1
            {
                (Risk::Low, "Reads git configuration.".into())
            } else if has("--global") || has("--system") {
                (
                    Risk::High,
                    "Changes the user's or the system's git configuration.".into(),
                )
            } else {
                (
                    Risk::Medium,
                    "Changes the repository's git configuration.".into(),
                )
            }
        }
        "worktree" => match first_operand {
            Some("list") => (Risk::Low, "Lists git worktrees.".into()),
            _ => (Risk::Medium, "Changes git worktrees.".into()),
        },
        "submodule" => match first_operand {
            None | Some("status" | "summary") => (Risk::Low, "Lists git submodules.".into()),
            _ => (Risk::Medium, "Changes git submodules.".into()),
        },
        "reflog" => match first_operand {
            None | Some("show") => (Risk::Low, "Shows the git reflog.".into()),
            _ => (
                Risk::High,
                "Changes the git reflog, which can lose history.".into(),
            ),
        },
        "add" | "commit" | "checkout" | "switch" | "merge" | "rebase" | "cherry-pick"
        | "revert" | "init" | "fetch" | "pull" | "mv" | "restore" | "am" | "apply" | "notes"
        | "gc" | "prune" | "repack" | "bisect" | "sparse-checkout" | "lfs" | "format-patch" => {
            if sub == "checkout" && has("-f")
                || sub == "restore" && operands.iter().any(|o| o.text == ".")
                || sub == "checkout" && operands.iter().any(|o| o.text == ".")
            {
                (
                    Risk::High,
                    format!("Runs git {sub} in a way that discards uncommitted changes."),
                )
            } else if sub == "commit" && has("-n") {
                (
                    Risk::Medium,
                    "Commits without running the repository's hooks.".into(),
                )
            } else {
                (
                    Risk::Medium,
                    format!("Runs git {sub}, which changes the repository."),
                )
            }
        }
        "reset" => {
            if has("--hard") || has("--merge") || has("--keep") {
                (
                    Risk::High,
                    "Runs git reset --hard, which discards uncommitted changes.".into(),
                )
            } else {
                (
                    Risk::Medium,
                    "Runs git reset, which moves the branch.".into(),
                )
            }
        }
        "clean" => {
            if has("-n") {
                (Risk::Low, "Runs git clean as a dry run.".into())
            } else {
                (
                    Risk::High,
                    "Runs git clean, which deletes untracked files for good.".into(),
                )
            }
        }
        "rm" => {
            if has("--cached") {
                (Risk::Medium, "Removes files from the git index.".into())
            } else {
                (Risk::High, "Deletes tracked files with git rm.".into())
            }
        }
        "push" => {
            let force_refspec = operands.iter().any(|o| o.text.starts_with('+'));
            if has("-f")
                || has("--force-with-lease")
                || has("--force-if-includes")
                || has("--mirror")
                || force_refspec
            {
                (
                    Risk::Critical,
                    "Force-pushes with git, which can overwrite others' history on the remote."
                        .into(),
                )
            } else if has("-d") || operands.iter().any(|o| o.text.starts_with(':')) {
                (Risk::High, "Deletes a branch on the git remote.".into())
            } else if has("-n") {
                (Risk::Low, "Runs git push as a dry run.".into())
            } else {
                (
                    Risk::High,
                    "Pushes commits to a git remote, which publishes them.".into(),
                )
            }
        }
        "clone" => (
            Risk::High,
            "Clones a git repository from the network.".into(),
        ),
        "filter-branch" | "filter-repo" | "replace" | "update-ref" | "symbolic-ref" => (
            Risk::High,
            format!("Runs git {sub}, which rewrites repository history or references."),
        ),
        _ => (
            Risk::High,
            format!("Runs git {sub}, a subcommand (or alias) Warden does not know."),
        ),
    };
    v.raise(risk, reason);
    if v.reason.is_empty() {
        v.reason = format!("Runs git {sub}.");
    }
    v
}
