//! The risk of one simple command, from its program and arguments.

mod build;
mod carried;
mod download;
mod environ;
mod exec;
mod files;
mod git;
mod system;
mod unpack;

pub(super) use environ::{prints_secrets, secret_expansion};
use exec::{alias_or_trap, awk, eval, interpreter, sed, shell, source, stdin_script, watch};
use files::{chmod, copy, dd, find, link, operands_op, readers, rm, writer};
use git::git;
use unpack::{line_editor, patch, tar};

pub(super) use build::is_build_entry;
pub(super) use carried::{GitKey, git_config_key, git_value_script};
use system::{kill, network, package_tool, systemctl};

use super::normalize::normalize_argv;
use super::options::{self, Does};
use super::provenance::Provenance;
use super::words::Word;
use crate::paths::{FileOp, ResolvedPath, Resolver, path_risk};
use crate::{Context, Risk, Sentence as S};

/// Where a command's standard input comes from, as far as it matters.
#[derive(Debug, Clone, Default)]
pub(super) enum Stdin {
    /// The terminal or whatever the caller gives: nothing we can see.
    #[default]
    Inherited,
    /// An earlier pipeline stage, and what it writes.
    Pipe(Provenance),
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
    /// One of its arguments or here-strings holds data from the network: a
    /// substitution that downloads (`bash <(curl ..)`) or a variable set from one.
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
    pub reason: crate::Sentence,
    pub writes: Vec<ResolvedPath>,
    /// Files read and not changed.
    pub reads: Vec<ResolvedPath>,
    /// Shell scripts this command runs whose text we know (`bash -c '...'`): the
    /// walker analyses them as further segments.
    pub scripts: Vec<String>,
    /// We cannot tell what this command runs.
    pub opaque: bool,
    /// The program is not one Warden knows.
    pub unknown: bool,
    /// It reads or prints what may be secrets (variables, git's tokens, every file of
    /// a folder): with a network part in the same command they could leave.
    pub secrets: bool,
}

impl Default for Verdict {
    fn default() -> Verdict {
        Verdict {
            risk: Risk::Low,
            reason: crate::Sentence::verbatim(""),
            writes: Vec::new(),
            reads: Vec::new(),
            scripts: Vec::new(),
            opaque: false,
            unknown: false,
            secrets: false,
        }
    }
}

impl Verdict {
    fn new(risk: Risk, reason: impl Into<crate::Sentence>) -> Verdict {
        Verdict {
            risk,
            reason: reason.into(),
            ..Verdict::default()
        }
    }

    /// Raises the risk to `risk` with `reason` if that is stricter.
    fn raise(&mut self, risk: Risk, reason: impl Into<crate::Sentence>) {
        if risk > self.risk || self.reason.is_empty() {
            self.risk = risk;
            self.reason = reason.into();
        }
    }

    fn file(&mut self, op: FileOp, path: ResolvedPath) {
        let (risk, reason) = path_risk(op, &path);
        self.raise(risk, reason);
        if op == FileOp::Read {
            self.reads.push(path);
        } else {
            self.writes.push(path);
        }
    }

    /// Judges `op` on a word: static words resolve to paths, dynamic ones are judged
    /// as unknown paths (Medium to read, High to change).
    fn word(&mut self, op: FileOp, word: &Word, input: &Input<'_>) {
        // `<(cmd)` and `>(cmd)` are pipes to commands that are segments of their own:
        // reading or writing them touches no file.
        let pipe = match op {
            FileOp::Read => "<(",
            _ => ">(",
        };
        if word.dynamic && word.text.starts_with(pipe) && word.text.ends_with(')') {
            return;
        }
        if word.dynamic {
            let (risk, op) = match op {
                FileOp::Read => (Risk::Medium, "read"),
                FileOp::Write => (Risk::High, "write"),
                FileOp::Delete => (Risk::High, "delete"),
            };
            self.raise(
                risk,
                S::new("engine-path-dynamic")
                    .text("op", op)
                    .text("path", word.text.as_str()),
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

pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "busybox",
];

pub(super) const INTERPRETERS: &[&str] = &[
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
pub(super) const READERS: &[&str] = &[
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
    "bc",
];

/// Read-only programs that take a pattern or filter first, then files.
pub(super) const PATTERN_READERS: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "jq", "yq", "zgrep", "fd", "fdfind",
];

/// Read-only programs whose arguments are not files.
const HARMLESS: &[&str] = &[
    // The end of a `{ ...; }` group that tree-sitter-bash read as a command.
    "}",
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
    "factor",
    "numfmt",
    "xxd",
    // Socket and open-file listings; `ss -D FILE` writes and `ss -F FILE` reads,
    // which the option table says, and `ss --kill` is judged on its own.
    "ss",
    "netstat",
    "lsof",
];

/// Readers that print counts, sizes, names or digests of files, never their content.
const COUNTERS: &[&str] = &[
    "wc",
    "du",
    "ls",
    "stat",
    "file",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "b2sum",
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
    "mkdosfs",
    "mkntfs",
    "mkexfatfs",
    "ddrescue",
    "dcfldd",
    "dc3dd",
    "nvme",
    "mdadm",
    "hdparm",
    "sg_format",
    "tune2fs",
    "resize2fs",
    "e2fsck",
    "debugfs",
    "dmsetup",
    "kpartx",
    "lvcreate",
    "lvresize",
    "vgcreate",
    "pvcreate",
    "flashrom",
    "partclone",
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

pub(super) const NETWORK: &[&str] = &[
    "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "netcat", "socat",
    "ftp", "tftp", "ssh", "scp", "sftp", "rsync", "telnet", "lynx", "w3m", "mosh",
];

/// Judges one simple command.
pub(super) fn judge(input: &Input<'_>) -> Verdict {
    // `find DIR … | xargs wc -l`: the operands xargs adds are files below folders
    // `find` was allowed to read, and a program that only counts or lists them
    // shows none of their content.
    let counted;
    let input = if input.xargs
        && matches!(input.stdin, Stdin::Pipe(Provenance::Found))
        && COUNTERS.contains(&input.program)
    {
        counted = Input {
            xargs: false,
            ..*input
        };
        &counted
    } else {
        input
    };
    if let Some(v) = version_query(input) {
        return v;
    }
    let mut v = judge_program(input);
    build::build_settings(input, &mut v);
    // Command-bearing arguments (git's are found after its global options, by
    // `git` itself): each carried command is a script of its own.
    if input.program != "git" {
        take_carried(&mut v, input.program, input.args);
    }
    if v.risk < Risk::High
        && let Some(reason) = runs_or_sets_something(input)
    {
        v.raise(Risk::High, reason);
    }
    if let Some(reason) = prints_secrets(input.program, input.args) {
        v.secrets = true;
        v.raise(Risk::Medium, reason);
    }
    if input.xargs && v.risk < Risk::Medium {
        v.raise(
            Risk::Medium,
            S::new("engine-xargs").text("program", input.program),
        );
    }
    if v.reason.is_empty() {
        v.reason = crate::Sentence::new("engine-runs").text("program", input.program);
    }
    v
}

/// `TOOL --version`, `TOOL -V` or `TOOL --help` alone prints and exits, for any tool
/// but those that act on the machine before reading their options (privilege, power
/// and disk tools stay as they are). A program given as a path outside the system
/// folders is still High (the walker says so).
fn version_query(input: &Input<'_>) -> Option<Verdict> {
    let [only] = input.args else { return None };
    let p = input.program;
    let acts = PRIVILEGE.contains(&p)
        || POWER.contains(&p)
        || DISK_TOOLS.contains(&p)
        || p.starts_with("mkfs")
        || input.xargs;
    (!only.dynamic && matches!(only.text.as_str(), "--version" | "-V" | "--help") && !acts).then(
        || {
            Verdict::new(
                Risk::Low,
                S::new("engine-asks-version-or-help").text("program", p),
            )
        },
    )
}

/// Adds the commands that `args` carry (see `carried.rs`) to the verdict's scripts;
/// one only known at run time makes the verdict opaque.
fn take_carried(v: &mut Verdict, program: &str, args: &[Word]) {
    for c in carried::carried(program, args) {
        match c.script {
            Some(script) => {
                v.raise(
                    Risk::Low,
                    S::new("engine-whose-command-judged-own").text("at", c.at.as_str()),
                );
                v.scripts.push(script);
            }
            None => {
                v.opaque = true;
                v.raise(
                    Risk::High,
                    S::new("engine-command-known-at-run").text("at", c.at.as_str()),
                );
            }
        }
    }
}

/// Options and arguments that make an otherwise harmless program run another
/// program, or set a variable that decides which programs run: `rg --pre CMD`,
/// `sort --compress-program=CMD`, `less +!CMD`, `man -P CMD`, `git ... --upload-pack=CMD`,
/// `printf -v PATH`, `read PATH`, `hash -p`, `let 'a[$(cmd)]'`.
fn runs_or_sets_something(input: &Input<'_>) -> Option<S> {
    let p = input.program;
    let texts: Vec<&str> = input.args.iter().map(|a| a.text.as_str()).collect();
    let flag_is = |names: &[&str]| {
        texts.iter().any(|t| {
            names
                .iter()
                .any(|n| t == n || (t.starts_with(n) && t[n.len()..].starts_with('=')))
        })
    };
    let runs = match p {
        // `+NUMBER` only opens the file at that line; any other `+` runs a pager
        // command, which can start a shell.
        "less" | "more" | "zless" => texts.iter().any(|t| {
            t.strip_prefix('+')
                .is_some_and(|n| n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()))
                || t.starts_with("-+")
        }),
        "man" | "info" => texts.iter().any(|t| t.starts_with('-')),
        "git" => texts.iter().any(|t| {
            [
                "--upload-pack",
                "--receive-pack",
                "--exec",
                "--open-files-in-pager",
            ]
            .iter()
            .any(|n| t.starts_with(n))
                || (t.starts_with("-O") && !t.starts_with("--"))
        }),
        "date" => flag_is(&["-f", "--file"]),
        _ => false,
    };
    if runs {
        return Some(S::new("engine-option-another-program-or").text("program", p));
    }
    let dangerous = |name: &str| super::env::is_dangerous_variable(name);
    let sets = match p {
        "printf" => {
            texts.windows(2).any(|w| w[0] == "-v" && dangerous(w[1]))
                || texts
                    .iter()
                    .any(|t| t.strip_prefix("-v").is_some_and(dangerous))
        }
        "read" | "mapfile" | "readarray" => {
            texts.iter().any(|t| !t.starts_with('-') && dangerous(t))
        }
        "hash" => texts.iter().any(|t| t.starts_with("-p")),
        "let" => input
            .args
            .iter()
            .any(|a| a.text.contains("$(") || a.text.contains('`')),
        _ => false,
    };
    sets.then(|| S::new("engine-way-sets-later-commands").text("program", p))
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
    let mut v = known_program(input).unwrap_or_else(|| unknown_program(input));
    judged_by_options(input, &mut v);
    v
}

/// What the options of a program with an option table (`options.rs`) do: a file
/// written or read is judged like the file tools' (`openssl genrsa -out
/// ~/.ssh/id_rsa` is Critical like any other write there), a command run is a script
/// of its own (`ssh -o ProxyCommand=CMD`, `tar --to-command=CMD`), in every spelling
/// the program accepts.
fn judged_by_options(input: &Input<'_>, v: &mut Verdict) {
    let Some(table) = options::table(input.program) else {
        return;
    };
    let parsed = options::parse_with(table, input.args);
    let mut effects: Vec<(Does, Word, String)> = parsed
        .found
        .iter()
        .filter_map(|f| {
            let value = f.value.clone()?;
            let name = f
                .opt
                .long
                .first()
                .map(|l| format!("--{l}"))
                .or_else(|| f.opt.short.map(|s| format!("-{s}")))
                .unwrap_or_default();
            Some((f.opt.does, value, name))
        })
        .collect();
    for (name, value, does) in parsed.settings(table) {
        // A setting only known at run time may be one that runs a command.
        let does = if name.is_empty() {
            Does::RunsScript
        } else {
            does
        };
        effects.push((does, value, name));
    }
    for (does, value, name) in effects {
        let at = format!("{} {name}", input.program);
        match does {
            Does::Writes if value.text != "-" => v.word(FileOp::Write, &value, input),
            Does::Reads if value.text != "-" => v.word(FileOp::Read, &value, input),
            Does::RunsScript | Does::RunsProgram if value.dynamic => {
                v.opaque = true;
                v.raise(
                    Risk::High,
                    S::new("engine-command-known-at-run").text("at", at),
                );
            }
            Does::RunsScript | Does::RunsProgram => {
                v.raise(
                    Risk::Low,
                    S::new("engine-whose-command-judged-own").text("at", at),
                );
                v.scripts.push(if does == Does::RunsProgram {
                    format!("{} file", carried::quote(&value.text))
                } else {
                    value.text.clone()
                });
            }
            _ => {}
        }
    }
}

/// An unknown program is High; and since it may run any of its arguments (it may be
/// a wrapper Warden does not know), every suffix of its argv that starts with a
/// program Warden knows is analysed as a command of its own: a Critical suffix makes
/// the segment Critical, and deny rules see it.
fn unknown_program(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let mut v = Verdict::new(
        Risk::High,
        S::new("engine-program-warden-does-not").text("program", p),
    );
    // Bounded work for hostile input: the first words are where a command goes.
    // Past the bound Warden has not read where the command goes: not read, so
    // Critical, rather than High as if it had been read.
    if input.args.len() > MAX_SUFFIXES {
        v.opaque = true;
        v.raise(
            Risk::High,
            S::new("engine-unknown-many-arguments")
                .text("program", p)
                .number("count", MAX_SUFFIXES as u64),
        );
    }
    for (k, word) in input.args.iter().enumerate().take(MAX_SUFFIXES) {
        // A word only known at run time may be the program it runs: Warden cannot
        // see what that is.
        if word.dynamic && !word.text.starts_with('-') && !word.text.contains("{}") {
            v.opaque = true;
            v.raise(
                Risk::High,
                S::new("engine-unknown-dynamic-argument")
                    .text("program", p)
                    .text("word", word.text.as_str()),
            );
            continue;
        }
        if word.dynamic || word.text.starts_with('-') || word.text.contains(['=', ' ']) {
            continue;
        }
        let name = crate::shell::wrappers::basename(&word.text).to_ascii_lowercase();
        let knows = crate::shell::wrappers::is_wrapper(&name)
            || known_program(&Input {
                program: &name,
                args: &[],
                ..*input
            })
            .is_some();
        if knows {
            let suffix: Vec<String> = input.args[k..]
                .iter()
                .map(|w| carried::quote(&w.text))
                .collect();
            v.scripts.push(suffix.join(" "));
        }
    }
    v
}

/// Whether Warden has a judgement of its own for the program `name`: a function
/// named like it shadows it.
pub(super) fn knows(name: &str) -> bool {
    let ctx = Context::new("/");
    let resolver = Resolver::new(&ctx);
    super::wrappers::is_wrapper(name)
        || known_program(&Input {
            program: name,
            args: &[],
            ctx: &ctx,
            resolver: &resolver,
            xargs: false,
            stdin: &Stdin::Inherited,
            substituted_download: false,
        })
        .is_some()
}

/// How many of an unknown program's arguments are tried as the start of a command.
const MAX_SUFFIXES: usize = 32;

/// The verdict for a program Warden knows, or `None`.
fn known_program(input: &Input<'_>) -> Option<Verdict> {
    Some(known_or_unknown(input)).filter(|v| !v.unknown)
}

/// The verdict for a program; `unknown` is set when Warden does not know it.
fn known_or_unknown(input: &Input<'_>) -> Verdict {
    let p = input.program;
    if let Some(v) = machine_wide(input) {
        return v;
    }
    if SHELLS.contains(&p) {
        return shell(input);
    }
    if let Some(v) = check_only(input) {
        return v;
    }
    if INTERPRETERS.contains(&p) || p.starts_with("python3.") {
        return interpreter(input);
    }
    if let Some((_, judge)) = BY_NAME.iter().find(|(names, _)| names.contains(&p)) {
        return judge(input);
    }
    if let Some(v) = runs_text(input)
        .or_else(|| machine_settings(input))
        .or_else(|| prints_only(input))
    {
        return v;
    }
    if NETWORK.contains(&p) {
        return network(input);
    }
    if PATTERN_READERS.contains(&p) {
        return readers(input, true);
    }
    if READERS.contains(&p) {
        return readers(input, false);
    }
    if HARMLESS.contains(&p) {
        return Verdict::new(
            Risk::Low,
            S::new("engine-changes-nothing").text("program", p),
        );
    }
    if is_build_tool(p) {
        return Verdict::new(
            Risk::Medium,
            S::new("engine-build-or-test-tool").text("program", p),
        );
    }
    Verdict {
        unknown: true,
        ..Verdict::new(
            Risk::High,
            S::new("engine-program-warden-does-not").text("program", p),
        )
    }
}

/// Programs that act on the whole machine: they run commands as the administrator,
/// stop the machine, change its run level or rewrite disks. Critical.
fn machine_wide(input: &Input<'_>) -> Option<Verdict> {
    let p = input.program;
    let why = if PRIVILEGE.contains(&p) {
        "engine-executes-commands-administrator-rights"
    } else if POWER.contains(&p) {
        "engine-stops-machine"
    } else if (p == "init" || p == "telinit") && !input.args.is_empty() {
        "engine-changes-run-level"
    } else if p.starts_with("mkfs") || p.starts_with("fsck") || DISK_TOOLS.contains(&p) {
        "engine-rewrites-disks-or-file"
    } else {
        return None;
    };
    Some(Verdict::new(Risk::Critical, S::new(why).text("program", p)))
}

/// A judge of one family of programs.
type Judge = fn(&Input<'_>) -> Verdict;

/// The programs judged by their family's own function, whatever their arguments.
const BY_NAME: &[(&[&str], Judge)] = &[
    (&["rm", "unlink", "shred", "srm"], rm),
    (&["rmdir"], |input| operands_op(input, FileOp::Delete)),
    (&["find"], find),
    (&["cp", "install"], |input| copy(input, false)),
    (&["mv"], |input| copy(input, true)),
    (&["ln"], link),
    (
        &["touch", "mkdir", "tee", "mkfifo", "truncate", "sponge"],
        writer,
    ),
    (&["chmod", "chown", "chgrp", "chattr", "setfacl"], chmod),
    (&["dd"], dd),
    (&["git"], git),
    (&["tar", "bsdtar", "gtar"], tar),
    (&["patch"], patch),
    (&["ed", "red", "ex"], line_editor),
    (&["eval"], eval),
    (&["source", "."], source),
    (&["sed"], sed),
    (&["awk", "gawk", "mawk", "nawk"], awk),
    (&["kill", "pkill", "killall"], kill),
    (&["systemctl"], systemctl),
    (&["watch"], watch),
    (&["alias", "trap"], alias_or_trap),
    (&["docker", "podman", "nerdctl"], system::container),
    // ShellCheck parses the scripts it is given and runs none of them.
    (&["shellcheck"], |input| {
        let mut v = readers(input, false);
        v.raise(Risk::Low, S::new("engine-runs-shellcheck"));
        v
    }),
    // `zipinfo` lists an archive.
    (&["zipinfo"], |input| readers(input, false)),
    (
        &[
            "cargo", "npm", "pnpm", "yarn", "bun", "go", "pip", "pip3", "uv", "poetry", "pipenv",
            "gem", "bundle", "composer", "deno", "dotnet", "swift", "mix", "brew", "apt",
            "apt-get", "dnf", "yum", "pacman", "npx", "pnpx", "bunx", "rustup",
        ],
        package_tool,
    ),
];

/// Programs that run text they are given as commands, now or later, or rewrite files
/// in place, only with the arguments that make them do so.
fn runs_text(input: &Input<'_>) -> Option<Verdict> {
    let p = input.program;
    match p {
        // `script -c CMD` runs CMD (judged as a carried command); without it,
        // `script` starts an interactive shell.
        "script"
            if carried::carried("script", input.args)
                .iter()
                .any(|c| c.script.is_some()) =>
        {
            // Its last operand (default `typescript`) is the file it records to.
            let to_null = input.args.last().is_some_and(|a| a.text == "/dev/null");
            Some(if to_null {
                Verdict::new(Risk::Low, S::new("engine-script-whose-command-judged"))
            } else {
                Verdict::new(Risk::Medium, S::new("engine-script-records-session-file"))
            })
        }
        // `make --eval TEXT` / `-E TEXT` evaluates make text: `$(shell …)` runs
        // commands before any rule.
        "make" | "gmake"
            if input.args.iter().any(|a| {
                a.dynamic
                    || a.text == "-E"
                    || a.text.starts_with("--eval")
                    || (a.text.starts_with("-E") && !a.text.starts_with("--"))
            }) =>
        {
            Some(Verdict::new(
                Risk::High,
                S::new("engine-make-text-from-command").text("program", p),
            ))
        }
        "yq" if input.args.iter().any(|a| {
            a.text == "-i"
                || a.text.starts_with("--inplace")
                || (a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('i'))
        }) =>
        {
            let mut v = Verdict::new(Risk::Medium, S::new("engine-yq-i-rewrites-files"));
            for operand in input
                .args
                .iter()
                .filter(|a| !a.text.starts_with('-'))
                .skip(1)
            {
                v.word(FileOp::Write, operand, input);
            }
            Some(v)
        }
        // `at TIME` and `batch` read the commands they schedule from their input (or
        // `-f FILE`): that input is a script, judged as a shell's, and what runs later
        // outlives the command, so at least High.
        "at" | "batch"
            if !input
                .args
                .iter()
                .any(|a| matches!(a.text.as_str(), "-l" | "-r" | "-d" | "-c")) =>
        {
            let mut v = if input
                .args
                .iter()
                .any(|a| a.text == "-f" || (a.text.starts_with("-f") && a.text.len() > 2))
            {
                Verdict::new(
                    Risk::High,
                    S::new("engine-script-from-file-warden").text("program", p),
                )
            } else {
                stdin_script(input, "sh")
            };
            v.raise(
                Risk::High,
                S::new("engine-schedules-commands-run-later").text("program", p),
            );
            Some(v)
        }
        _ => None,
    }
}

/// Programs that change how the machine is set up (its clock, its name, its mounts,
/// other programs' connections), only with the arguments that make them do so.
fn machine_settings(input: &Input<'_>) -> Option<Verdict> {
    match input.program {
        "date"
            if input
                .args
                .iter()
                .any(|a| a.text == "-s" || a.text.starts_with("--set")) =>
        {
            Some(Verdict::new(Risk::High, S::new("engine-sets-system-clock")))
        }
        "hostname"
            if !input.args.is_empty()
                && input
                    .args
                    .iter()
                    .all(|a| a.text != "-f" && a.text != "-s" && a.text != "-i") =>
        {
            Some(Verdict::new(
                Risk::High,
                S::new("engine-changes-machines-host-name"),
            ))
        }
        "mount" if !input.args.is_empty() => Some(Verdict::new(
            Risk::High,
            S::new("engine-mounts-file-system"),
        )),
        // `ss --kill` closes the connections it lists, other programs' included.
        "ss" if options::parse(input.program, input.args).is_some_and(|o| o.given("kill")) => {
            Some(Verdict::new(
                Risk::Medium,
                "Runs ss --kill, which closes the connections it lists.",
            ))
        }
        _ => None,
    }
}

/// Programs that only read or print, with the arguments that make them so: a wrapper
/// that runs nothing, `xxd` of files, `unzip` listing or testing, `rustc` printing
/// what it knows.
fn prints_only(input: &Input<'_>) -> Option<Verdict> {
    let p = input.program;
    match p {
        // Reached only when the wrapper runs no program (see `wrappers::unwrap`).
        "exec" | "time" | "nice" if input.args.is_empty() => Some(Verdict::new(
            Risk::Low,
            S::new("engine-alone-starts-nothing").text("program", p),
        )),
        "xxd" if input.args.iter().any(|a| !a.text.starts_with('-')) => Some(readers(input, false)),
        // `unzip -l`/`-v`/`-t`/`-Z` list or test an archive.
        "unzip"
            if input.args.first().is_some_and(|a| {
                !a.dynamic
                    && a.text.starts_with('-')
                    && !a.text.starts_with("--")
                    && a.text[1..].chars().all(|c| {
                        matches!(
                            c,
                            'l' | 'v' | 't' | 'Z' | 'q' | '1' | '2' | 's' | 'm' | 'h' | 'M'
                        )
                    })
                    && a.text[1..].contains(['l', 'v', 't', 'Z'])
            }) && !input.args.iter().any(|a| a.text == "-d") =>
        {
            Some(readers(input, false))
        }
        // `rustc --print KIND`, `rustc -vV`: what the compiler knows, printed. A
        // `KIND=PATH` writes a file, so it is not here.
        "rustc" if !input.args.is_empty() && rustc_prints(input.args) => Some(Verdict::new(
            Risk::Low,
            S::new("engine-asks-rustc-knows-version"),
        )),
        _ => None,
    }
}

/// Formatters and linters in check mode, which only read the files they are given and
/// run none of the project's code: `cargo fmt --check`, `rustfmt --check`, `black
/// --check`, `ruff check` (without `--fix`), `ruff format --check`, `gofmt -l`/`-d`,
/// `isort --check`, `shfmt -l`/`-d`, `clang-format --dry-run`, `stylua --check`. Low,
/// with their operands judged as reads; their writing forms stay as they are. Tools
/// that load the project's code to check it (`cargo clippy` runs build scripts and
/// proc macros, `eslint` and `prettier` load plugins and JavaScript configuration)
/// are not here: they stay Medium, as `cargo check` is. Any option that loads
/// configuration or tools from elsewhere, or a word only known at run time, keeps the
/// ordinary judgement.
fn check_only(input: &Input<'_>) -> Option<Verdict> {
    let p = input.program;
    let args = input.args;
    if args.iter().any(|a| a.dynamic) || input.xargs {
        return None;
    }
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let has = |flags: &[&str]| texts.iter().any(|t| flags.contains(t));
    let writes = |flags: &[&str]| {
        texts.iter().any(|t| {
            flags
                .iter()
                .any(|f| t == f || t.starts_with(&format!("{f}=")))
        })
    };
    let (tool, operands): (&str, &[Word]) = match (p, texts.first().copied()) {
        ("cargo", Some("fmt")) if has(&["--check"]) => ("cargo fmt --check", &[]),
        ("rustfmt", _) if has(&["--check"]) && !writes(&["--emit"]) => ("rustfmt --check", args),
        ("black", _) if has(&["--check", "--diff"]) => ("black --check", args),
        ("ruff", Some("check"))
            if !writes(&[
                "--fix",
                "--unsafe-fixes",
                "--fix-only",
                "--add-noqa",
                "--watch",
            ]) =>
        {
            ("ruff check", &args[1..])
        }
        ("ruff", Some("format")) if has(&["--check", "--diff"]) => {
            ("ruff format --check", &args[1..])
        }
        ("gofmt", _) if has(&["-l", "-d"]) && !has(&["-w"]) => ("gofmt -l", args),
        ("isort", _) if has(&["--check", "--check-only", "-c", "--diff"]) => {
            ("isort --check", args)
        }
        ("shfmt", _) if has(&["-l", "-d"]) && !has(&["-w"]) => ("shfmt -l", args),
        ("clang-format", _) if has(&["--dry-run", "-n"]) && !has(&["-i"]) => {
            ("clang-format --dry-run", args)
        }
        ("stylua", _) if has(&["--check"]) => ("stylua --check", args),
        _ => return None,
    };
    let mut argv = vec![p.to_owned()];
    argv.extend(texts.iter().map(|t| (*t).to_owned()));
    if !super::reconfigure::reconfiguring_options(&argv).is_empty()
        || texts.iter().any(|t| {
            t.starts_with("--config")
                || t.starts_with("--settings")
                || t.starts_with("--settings-path")
        })
    {
        return None;
    }
    let mut v = Verdict::new(
        Risk::Low,
        S::new("engine-reports-would-change").text("tool", tool),
    );
    for operand in operands.iter().filter(|a| !a.text.starts_with('-')) {
        v.word(FileOp::Read, operand, input);
    }
    Some(v)
}

/// Whether `p` runs the project's own files (a build or test tool, a package tool):
/// run over files a download wrote, it runs code from the network.
pub(super) fn runs_project_files(p: &str) -> bool {
    is_build_tool(p)
        || matches!(
            p,
            "cargo"
                | "npm"
                | "pnpm"
                | "yarn"
                | "bun"
                | "go"
                | "pip"
                | "pip3"
                | "uv"
                | "poetry"
                | "pipenv"
                | "gem"
                | "bundle"
                | "composer"
                | "deno"
                | "dotnet"
                | "swift"
                | "mix"
                | "npx"
                | "pnpx"
                | "bunx"
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

/// `rustc --print KIND [--target T]`, `rustc -vV`, `rustc --version --verbose`.
fn rustc_prints(args: &[Word]) -> bool {
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a.dynamic {
            return false;
        }
        match a.text.as_str() {
            "-v" | "-V" | "-vV" | "-Vv" | "--version" | "--verbose" => {}
            "--print" | "--target" => {
                let Some(value) = args.get(i) else {
                    return false;
                };
                i += 1;
                if value.dynamic || value.text.contains(['=', '/']) {
                    return false;
                }
            }
            t => {
                let Some(kind) = t
                    .strip_prefix("--print=")
                    .or_else(|| t.strip_prefix("--target="))
                else {
                    return false;
                };
                if kind.contains(['=', '/']) {
                    return false;
                }
            }
        }
    }
    true
}
