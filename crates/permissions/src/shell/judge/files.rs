//! Programs that read, write and delete files: judged through the path rules on
//! their operands.

use super::{Input, Stdin, Verdict, judge, normalized, operands_of, split_flags};
use crate::Risk;
use crate::Sentence as S;
use crate::paths::{FileOp, is_precious, precious, precious_sentence};
use crate::shell::words::Word;

/// Read-only programs: Low, unless an operand (or an option's `=value`) is a path
/// that is sensitive or outside the workspace. A pattern reader's pattern (its first
/// operand, or the value of `-e`) is not a path; a pattern file (`-f FILE`) is.
/// `sort -o`, `uniq IN OUT`, `xxd IN OUT` and `tree -o` write.
/// Options of reading programs whose `--opt=VALUE` is a pattern, a name or a number,
/// never a file (any other option's value is judged as a path it reads, to be safe).
const NOT_PATH_OPTIONS: &[&str] = &[
    "--exclude-dir",
    "--exclude",
    "--include",
    "--include-dir",
    "--color",
    "--colour",
    "--type",
    "--type-not",
    "--type-add",
    "--glob",
    "--iglob",
    "--max-count",
    "--max-depth",
    "--max-filesize",
    "--context",
    "--after-context",
    "--before-context",
    "--sort",
    "--sortr",
    "--format",
    "--time-style",
    "--block-size",
    "--width",
    "--tabsize",
    "--indicator-style",
    "--quoting-style",
    "--hide",
    "--ignore",
    "--label",
    "--binary-files",
    "--devices",
    "--directories",
    "--field-separator",
    "--key",
    "--delimiter",
    "--fields",
    "--characters",
    "--bytes",
    "--lines",
    "--encoding",
    "--engine",
    "--max-columns",
    "--threads",
    "--separator",
    "--extension",
    "--exact-depth",
    "--min-depth",
    "--changed-within",
    "--changed-before",
    "--size",
    "--owner",
    "--max-results",
    "--regexp",
];

pub(super) fn readers(input: &Input<'_>, pattern_reader: bool) -> Verdict {
    // A pattern reader's first operand is its pattern, unless `-e`/`-f` gave it.
    let explicit_pattern = input.args.iter().any(|a| {
        matches!(a.text.as_str(), "-e" | "-f" | "--regexp" | "--file")
            || a.text.starts_with("--regexp=")
            || a.text.starts_with("--file=")
    });
    let skip = usize::from(pattern_reader && !explicit_pattern);
    let p = input.program;
    let mut v = Verdict::new(Risk::Low, S::new("engine-runs-reader").text("program", p));
    let args = operands_of(input);
    let recursive = reads_recursively(p, &args);
    let mut seen_operands = 0;
    let mut swept: Vec<Word> = Vec::new();
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
                "sort" | "iconv" => matches!(a.text.as_str(), "-o" | "--output"),
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
            if pattern_reader && matches!(a.text.as_str(), "-e" | "--regexp") {
                // A pattern, not a path.
                i += 1;
                continue;
            }
            if pattern_reader && a.text.starts_with("--regexp=") {
                continue;
            }
            if takes_value(p, &a.text) {
                // A glob, a type, a count or a context size: not a path.
                i += 1;
                continue;
            }
            if let Some((flag, _)) = a.text.split_once('=')
                && NOT_PATH_OPTIONS.contains(&flag)
            {
                // A pattern, a name or a number, not a file.
                continue;
            }
            if let Some((flag, value)) = a.text.split_once('=') {
                let op = if matches!(p, "sort" | "iconv") && flag == "--output" {
                    FileOp::Write
                } else {
                    FileOp::Read
                };
                if !value.is_empty() {
                    v.word(op, &Word::literal(value), input);
                }
            } else if matches!(p, "sort" | "iconv") && a.text.starts_with("-o") && a.text.len() > 2
            {
                v.word(FileOp::Write, &Word::literal(&a.text[2..]), input);
            }
            continue;
        }
        seen_operands += 1;
        if seen_operands <= skip {
            continue;
        }
        let op = if matches!(p, "uniq" | "xxd") && seen_operands == 2 {
            FileOp::Write
        } else {
            FileOp::Read
        };
        if a.text == "-" && !a.dynamic {
            continue;
        }
        // Devices that only give bytes or nothing (`head -c 16 /dev/urandom`), and the
        // kernel's public reports about the machine (`cat /proc/cpuinfo`).
        if op == FileOp::Read && !a.dynamic && PUBLIC_READS.contains(&a.text.as_str()) {
            continue;
        }
        if recursive {
            recursive_read(&mut v, a, input);
            swept.push(a.clone());
        }
        v.word(op, a, input);
    }
    if sweeps_secrets(p, &args) {
        let (excluded, included) = name_filters(&args);
        sweep(&mut v, p, &swept, &excluded, &included, input);
    }
    v
}

/// Files every user may read that hold no secret of anyone's: devices that give bytes
/// or nothing, and the kernel's reports about the machine (not a process's, which
/// can hold its environment and command line).
const PUBLIC_READS: &[&str] = &[
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
    "/dev/null",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/version",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/mdstat",
    "/proc/partitions",
    "/proc/filesystems",
    "/proc/swaps",
    "/etc/os-release",
];

/// A recursive read of `folders` (the shell's folder when none is given) that
/// includes hidden and ignored files reads the secret files among them: Medium when
/// one lies at the top of such a folder and no exclusion skips it, or when the folder
/// is only known at run time.
pub(super) fn sweep(
    v: &mut Verdict,
    p: &str,
    folders: &[Word],
    excluded: &[String],
    included: &[String],
    input: &Input<'_>,
) {
    let cwd = [Word::literal(".")];
    let folders = if folders.is_empty() {
        &cwd[..]
    } else {
        folders
    };
    for folder in folders {
        let found = if folder.dynamic {
            Some(folder.text.clone())
        } else {
            let path = input.resolve(&folder.text);
            input
                .resolver
                .secret_in_folder(&path.lexical, excluded, included, input.ctx)
                .map(|s| s.display().to_string())
        };
        if let Some(secret) = found {
            v.secrets = true;
            v.raise(
                Risk::Medium,
                S::new("engine-reads-secret-below")
                    .text("program", p)
                    .text("folder", folder.text.as_str())
                    .text("secret", secret),
            );
            return;
        }
    }
}

/// The name patterns a recursive reader is told to skip (`--exclude=.env`,
/// `--exclude-dir=.git`, `rg -g '!.env'`), and the ones it is told to read only
/// (`rg -g '*.rs'`, `grep --include='*.rs'`).
fn name_filters(args: &[Word]) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut only = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let (flag, value) = match a.text.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_owned())),
            None => (a.text.as_str(), args.get(i + 1).map(|w| w.text.clone())),
        };
        let Some(value) = value else { continue };
        match flag {
            "--exclude" | "--exclude-dir" => out.push(value),
            "--include" => only.push(value),
            // rg's globs exclude with a leading `!` and include otherwise.
            "-g" | "--glob" | "--iglob" => match value.strip_prefix('!') {
                Some(x) => out.push(x.to_owned()),
                None => only.push(value),
            },
            _ => {}
        }
    }
    (out, only)
}

/// Whether a recursive content reader also reads hidden files and the files git
/// ignores, where a workspace keeps its own secrets (`.env`, keys, certificates):
/// `grep -r` always does; `rg` and `ag` skip them unless told otherwise.
fn sweeps_secrets(p: &str, args: &[Word]) -> bool {
    let cluster_has = |letters: &[char]| {
        args.iter().any(|a| {
            !a.dynamic
                && a.text.starts_with('-')
                && !a.text.starts_with("--")
                && a.text.chars().skip(1).any(|c| letters.contains(&c))
        })
    };
    let long_has = |names: &[&str]| {
        args.iter().any(|a| {
            names
                .iter()
                .any(|n| a.text == *n || a.text.starts_with(&format!("{n}-")))
        })
    };
    match p {
        "grep" | "egrep" | "fgrep" | "zgrep" => reads_recursively(p, args),
        "rg" => {
            cluster_has(&['u', '.']) || long_has(&["--hidden", "--no-ignore", "--unrestricted"])
        }
        "ag" => {
            cluster_has(&['u', 'U'])
                || long_has(&["--hidden", "--unrestricted", "--skip-vcs-ignores"])
        }
        "ack" => true,
        _ => false,
    }
}

/// Options of the recursive searchers that take the next word as their value (a glob,
/// a file type, a count), which is not a path to read. (grep's `-r` is recursive,
/// rg's `-r` replaces: each program has its own.)
fn takes_value(p: &str, option: &str) -> bool {
    const COMMON: &[&str] = &[
        "--exclude",
        "--exclude-dir",
        "--include",
        "--color",
        "--colour",
        "--context",
        "--after-context",
        "--before-context",
        "--max-count",
        "-A",
        "-B",
        "-C",
        "-m",
    ];
    let own: &[&str] = match p {
        "rg" => &[
            "-g",
            "--glob",
            "--iglob",
            "-t",
            "--type",
            "-T",
            "--type-not",
            "--type-add",
            "-d",
            "--max-depth",
            "-M",
            "--max-columns",
            "-j",
            "--threads",
            "--sort",
            "--sortr",
            "-E",
            "--encoding",
            "-r",
            "--replace",
            "--max-filesize",
        ],
        "ag" => &[
            "-G",
            "--file-search-regex",
            "--ignore",
            "--depth",
            "-W",
            "--width",
        ],
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            &["-d", "--directories", "-D", "--devices", "--label"]
        }
        _ => return false,
    };
    COMMON.contains(&option) || own.contains(&option)
}

/// Whether a reader descends into folders.
fn reads_recursively(p: &str, args: &[Word]) -> bool {
    let cluster_has = |letters: &[char]| {
        args.iter().any(|a| {
            !a.dynamic
                && a.text.starts_with('-')
                && !a.text.starts_with("--")
                && a.text.chars().skip(1).any(|c| letters.contains(&c))
        })
    };
    let long_has = |names: &[&str]| args.iter().any(|a| names.contains(&a.text.as_str()));
    match p {
        // Only content readers: listing names (`ls -R`, `tree`, `find`) shows no
        // secret.
        "rg" | "ag" | "ack" => true,
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            cluster_has(&['r', 'R']) || long_has(&["--recursive", "--dereference-recursive"])
        }
        _ => false,
    }
}

/// A recursive read of the home folder or one of its ancestors reaches every secret
/// below it (`grep -r key ~` reads `~/.aws/credentials`): High.
fn recursive_read(v: &mut Verdict, word: &Word, input: &Input<'_>) {
    let Some(home) = &input.ctx.home else {
        return;
    };
    if word.dynamic {
        return;
    }
    let path = input.resolve(&word.text);
    if home.starts_with(&path.lexical) || home.starts_with(&path.real) {
        v.raise(
            Risk::High,
            S::new("engine-reads-home-below").text("path", path.display().to_string()),
        );
    }
}

/// `rm` and friends: every operand is deleted; recursive deletes of precious places
/// or of anything outside the workspace are Critical.
pub(super) fn rm(input: &Input<'_>) -> Verdict {
    let args = normalized(input.program, &operands_of(input));
    let (flags, operands) = split_flags(&args);
    let recursive = input.program == "rm" && flags.iter().any(|f| f == "-r");
    let mut v = Verdict::new(
        Risk::Low,
        S::new("engine-deletes-nothing").text("program", input.program),
    );
    if flags.iter().any(|f| f == "--no-preserve-root") {
        v.raise(Risk::Critical, S::new("engine-no-preserve-root"));
    }
    for operand in &operands {
        if operand.dynamic {
            if recursive {
                v.raise(
                    Risk::Critical,
                    S::new("engine-deletes-dynamic").text("path", operand.text.as_str()),
                );
            } else {
                v.word(FileOp::Delete, operand, input);
            }
            continue;
        }
        let path = input.resolve(&operand.text);
        let precious = precious(&path, input.ctx);
        if let Some(what) = precious.filter(|_| recursive) {
            v.raise(
                Risk::Critical,
                S::new("engine-deletes-precious")
                    .text("path", path.display().to_string())
                    .sentence("what", precious_sentence(what)),
            );
        } else if recursive && !path.inside_workspace {
            v.raise(
                Risk::Critical,
                S::new("engine-deletes-outside").text("path", path.display().to_string()),
            );
        }
        v.file(FileOp::Delete, path);
    }
    v
}

/// Programs whose every operand receives `op` (`rmdir`).
pub(super) fn operands_op(input: &Input<'_>, op: FileOp) -> Verdict {
    let args = normalized(input.program, &operands_of(input));
    let (_, operands) = split_flags(&args);
    let mut v = Verdict::new(
        Risk::Low,
        S::new("engine-no-operands").text("program", input.program),
    );
    for operand in &operands {
        v.word(op, operand, input);
    }
    v
}

/// `touch`, `mkdir`, `tee`, `truncate`, `mkfifo`: every operand is written. The
/// values of valued options (`mkdir -m 755`, `truncate -s 0`, `touch -d DATE`) are
/// not paths.
pub(super) fn writer(input: &Input<'_>) -> Verdict {
    let valued: &[&str] = match input.program {
        "mkdir" | "mkfifo" => &["-m", "--mode"],
        "touch" => &["-d", "-r", "-t", "--date", "--reference"],
        "truncate" => &["-s", "-r", "--size", "--reference"],
        _ => &[],
    };
    let args = normalized(input.program, &operands_of(input));
    let mut v = Verdict::new(
        Risk::Low,
        S::new("engine-no-operands").text("program", input.program),
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
pub(super) fn copy(input: &Input<'_>, is_move: bool) -> Verdict {
    let args = normalized(input.program, &operands_of(input));
    let mut target: Option<Word> = None;
    let mut into_folder = false;
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
                into_folder = true;
            }
            i += 1;
        } else if only_operands || a.dynamic || !a.text.starts_with('-') || a.text == "-" {
            rest.push(a.clone());
        }
        i += 1;
    }
    if target.is_none() && rest.len() >= 2 {
        target = rest.pop();
        into_folder = rest.len() >= 2;
    }
    let nothing = if is_move {
        "engine-moves-nothing"
    } else {
        "engine-copies-nothing"
    };
    let mut v = Verdict::new(Risk::Low, S::new(nothing));
    let source_op = if is_move {
        FileOp::Delete
    } else {
        FileOp::Read
    };
    for source in &rest {
        if is_move && !source.dynamic {
            let path = input.resolve(&source.text);
            if let Some(what) = precious(&path, input.ctx) {
                v.raise(
                    Risk::Critical,
                    S::new("engine-moves-precious")
                        .text("path", path.display().to_string())
                        .sentence("what", precious_sentence(what)),
                );
            }
        }
        v.word(source_op, source, input);
    }
    if let Some(target) = &target {
        v.word(FileOp::Write, target, input);
        for written in into_folder_targets(target, &rest, into_folder, input) {
            v.word(FileOp::Write, &written, input);
        }
    }
    v
}

/// The files a copy, move or link into a folder writes: `DIR/NAME` for each source,
/// where NAME is the source's last component (`cp .bashrc ~/` writes `~/.bashrc`). The
/// destination is a folder when the command says so (`-t DIR`, several sources), when
/// it ends in `/`, or when it is an existing folder on disk. A source only known at
/// run time writes an unknown name there (judged as a path only known at run time).
pub(super) fn into_folder_targets(
    target: &Word,
    sources: &[Word],
    into_folder: bool,
    input: &Input<'_>,
) -> Vec<Word> {
    if target.dynamic {
        return Vec::new();
    }
    let is_folder = into_folder
        || target.text.ends_with('/')
        || std::fs::metadata(&input.resolve(&target.text).real).is_ok_and(|m| m.is_dir());
    if !is_folder {
        return Vec::new();
    }
    let dir = target.text.trim_end_matches('/');
    sources
        .iter()
        .map(|source| {
            let name = source
                .text
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(&source.text);
            Word {
                text: format!("{dir}/{name}"),
                dynamic: source.dynamic,
            }
        })
        .collect()
}

/// `ln [-s] TARGET [LINK]`: the link is written; the target is judged as a read, so a
/// link to a secret counts like reading it.
pub(super) fn link(input: &Input<'_>) -> Verdict {
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
    let mut v = Verdict::new(Risk::Low, S::new("engine-links-nothing"));
    let several = operands.len() >= 3;
    let by_t = dir.is_some();
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
        // `ln -sf X DIR/` makes `DIR/X`: the link inside the folder is what is written.
        if by_t || several || operands.len() == 1 {
            for written in into_folder_targets(link, &operands, by_t || several, input) {
                v.word(FileOp::Write, &written, input);
            }
        }
    }
    v
}

/// `chmod MODE FILE...`, `chown OWNER FILE...`: the files are written; recursive
/// changes of precious places are Critical.
pub(super) fn chmod(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let args = normalized(p, &operands_of(input));
    let (flags, mut operands) = split_flags(&args);
    let recursive = flags.iter().any(|f| f == "-R");
    let has_reference = flags.iter().any(|f| f.starts_with("--reference"));
    if !has_reference && !operands.is_empty() && matches!(p, "chmod" | "chown" | "chgrp") {
        operands.remove(0);
    }
    let mut v = Verdict::new(Risk::Low, S::new("engine-no-files").text("program", p));
    for operand in &operands {
        if recursive {
            let precious = operand.dynamic || is_precious(&input.resolve(&operand.text), input.ctx);
            if precious {
                v.raise(
                    Risk::Critical,
                    S::new("engine-permissions-precious").text("path", operand.text.as_str()),
                );
            }
        }
        v.word(FileOp::Write, operand, input);
    }
    v
}

/// `dd if=... of=...`: writing a device is Critical (through the path rules).
pub(super) fn dd(input: &Input<'_>) -> Verdict {
    let mut v = Verdict::new(Risk::Medium, S::new("engine-runs-dd"));
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

/// `find ROOT ... -delete` (or `-exec rm`): deleting below a precious place without
/// a filtering test, or below anything outside the workspace, is Critical.
fn delete_below(v: &mut Verdict, root: &Word, input: &Input<'_>, filtered: bool) {
    if root.dynamic {
        v.raise(
            Risk::Critical,
            S::new("engine-deletes-below-dynamic").text("path", root.text.as_str()),
        );
        return;
    }
    let path = input.resolve(&root.text);
    // `find . -delete` empties the workspace; `find . -name '*.o' -delete` only
    // deletes what matches.
    if (is_precious(&path, input.ctx) && !filtered) || !path.inside_workspace {
        v.raise(
            Risk::Critical,
            S::new("engine-deletes-below").text("path", path.display().to_string()),
        );
    } else {
        v.file(FileOp::Delete, path);
    }
}

/// `find ROOTS... EXPRESSION`: read-only unless the expression deletes, runs
/// commands or writes files.
pub(super) fn find(input: &Input<'_>) -> Verdict {
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
    let mut v = Verdict::new(Risk::Low, S::new("engine-runs-find"));
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
                    delete_below(&mut v, root, input, filtered);
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
                find_exec(&mut v, &roots, &inner, input, filtered);
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

/// `find -exec COMMAND ;` (and `-execdir`, `-ok`, `-okdir`): the command runs on
/// every file found, judged as a command of its own.
fn find_exec(v: &mut Verdict, roots: &[Word], inner: &[Word], input: &Input<'_>, filtered: bool) {
    // The command is also a script of its own, so that wrappers in it
    // (`-exec env rm …`, `-exec sudo …`) are peeled as anywhere else and
    // rules see what runs; a file name stands as a value only known at
    // run time.
    let found = format!(
        "{}/found",
        roots.first().map_or(".", |r| r.text.trim_end_matches('/'))
    );
    let script: Vec<String> = inner
        .iter()
        .map(|w| super::carried::quote(&w.text.replace("{}", &found)))
        .collect();
    if !script.is_empty()
        && !roots.iter().any(|r| r.dynamic)
        && !inner.iter().any(|w| w.dynamic && !w.text.contains("{}"))
    {
        v.scripts.push(script.join(" "));
    }
    if let Some((program, rest)) = inner.split_first() {
        if program.dynamic {
            v.opaque = true;
            v.raise(Risk::High, "find runs a program only known at run time.");
            return;
        }
        let name = crate::shell::wrappers::basename(&program.text);
        let nested = judge(&Input {
            program: name,
            args: rest,
            ctx: input.ctx,
            resolver: input.resolver,
            xargs: false,
            stdin: &Stdin::Inherited,
            substituted_download: false,
        });
        if matches!(name, "rm" | "unlink" | "shred" | "srm" | "rmdir") {
            // Deleting every file found is `-delete` by another name.
            for root in roots {
                delete_below(v, root, input, filtered);
            }
        }
        // Programs that print nothing of a file's content (counts, sizes,
        // names, hashes) read only what `find` already lists: their own
        // risk. Any other program runs on files we cannot see: Medium.
        let quiet = matches!(
            name,
            "wc" | "ls"
                | "stat"
                | "file"
                | "du"
                | "md5sum"
                | "sha1sum"
                | "sha256sum"
                | "sha512sum"
                | "b2sum"
                | "cksum"
                | "basename"
                | "dirname"
                | "realpath"
                | "readlink"
        ) && rest.iter().all(|w| !w.dynamic || w.text.contains("{}"));
        let quiet_risk = if quiet {
            let named: Vec<Word> = rest
                .iter()
                .filter(|w| !w.text.contains("{}"))
                .cloned()
                .collect();
            Some(
                judge(&Input {
                    program: name,
                    args: &named,
                    ctx: input.ctx,
                    resolver: input.resolver,
                    xargs: false,
                    stdin: &Stdin::Inherited,
                    substituted_download: false,
                })
                .risk,
            )
        } else {
            None
        };
        let risk = quiet_risk.unwrap_or(nested.risk.max(Risk::Medium));
        v.raise(
            risk,
            S::new("engine-find-exec")
                .text("program", name)
                .sentence("reason", nested.reason.clone()),
        );
        v.writes.extend(nested.writes);
        v.reads.extend(nested.reads);
        v.scripts.extend(nested.scripts);
        v.opaque |= nested.opaque;
    }
}
