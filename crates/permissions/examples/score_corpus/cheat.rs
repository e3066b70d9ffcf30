//! cheat's cheatsheets: everyday command examples, each under a comment line that says
//! what it does, one file per program.
//!
//! Which examples only read is decided by a fixed rule, not by the analyser, so that
//! the count can be reproduced by hand: a line is read-only when
//!
//! 1. it has no redirection and no placeholder (`<`, `>`), no expansion (`$`, a
//!    backquote), no background `&` and no `sudo`, and at least one stage;
//! 2. split on `|`, `&&`, `||` and `;` outside quotes, each stage runs a program of
//!    [`READ_ONLY`] (after `xargs` and its options), `git` only with a subcommand of
//!    [`GIT_READ_ONLY`], `tar` only to list (`t` and none of `c`, `x`, `r`, `u`, `A` in
//!    its first option word), `unzip` only with `-l`;
//! 3. no word of a stage is one of its program's writing or running options
//!    ([`WRITING_OPTIONS`]), and no awk program runs a command (`system`, `getline`
//!    from one, `| "cmd"`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use warden_permissions::shell::analyse;
use warden_permissions::{Context, Decision, Mode};

/// Programs that print what they read and change nothing, whatever their options
/// (except those of [`WRITING_OPTIONS`]).
const READ_ONLY: &[&str] = &[
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "wc",
    "ls",
    "du",
    "df",
    "pwd",
    "uname",
    "diff",
    "cmp",
    "cut",
    "tr",
    "od",
    "hexdump",
    "ps",
    "pgrep",
    "lsblk",
    "lsof",
    "ss",
    "netstat",
    "whoami",
    "id",
    "which",
    "file",
    "stat",
    "find",
    "sort",
    "tree",
    "jq",
    "awk",
    "paste",
    "nl",
    "column",
    "free",
    "uptime",
    "w",
    "echo",
    "printf",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "date",
    "cal",
    "env",
    "printenv",
    "type",
    "man",
    "numfmt",
    "git",
    "tar",
    "unzip",
];

/// git's subcommands that only read the repository.
const GIT_READ_ONLY: &[&str] = &[
    "log",
    "status",
    "diff",
    "show",
    "blame",
    "shortlog",
    "ls-files",
    "grep",
    "reflog",
    "describe",
    "rev-parse",
    "cherry",
];

/// Options with which a read-only program writes a file or runs a command.
const WRITING_OPTIONS: &[(&str, &[&str])] = &[
    (
        "find",
        &[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    ),
    ("sort", &["-o", "--output"]),
    ("tree", &["-o"]),
    ("date", &["-s", "--set"]),
    ("git", &["--output"]),
    ("awk", &["-i"]),
];

/// The options of `xargs` that take a value in the next word.
const XARGS_VALUED: &[&str] = &["-I", "-n", "-P", "-L", "-d", "-s", "-E", "-a"];

#[derive(Default)]
struct Tally {
    examples: usize,
    read_only: usize,
    asked: Vec<(String, String)>,
}

/// Scores every example line of the cheatsheets in `dir`; `list` prints every
/// read-only example that asks, with its reason.
pub fn score(dir: &Path, ctx: &Context, list: bool) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("run corpus/fetch.sh first")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    let mut tally = Tally::default();
    for path in &entries {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for line in examples(&text) {
            tally.examples += 1;
            if !read_only(&line) {
                continue;
            }
            tally.read_only += 1;
            let analysis = analyse(&line, ctx);
            if Mode::Ask.decide(analysis.risk, false) != Decision::Allow {
                tally.asked.push((line, analysis.reason().to_string()));
            }
        }
    }
    report(&entries, &tally, list);
}

fn report(entries: &[PathBuf], tally: &Tally, list: bool) {
    let asked = tally.asked.len();
    println!(
        "cheat: {} sheets, {} examples, {} read-only, {asked} of them asked in ask ({:.1} %)",
        entries.len(),
        tally.examples,
        tally.read_only,
        percent(asked, tally.read_only)
    );
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, reason) in &tally.asked {
        *reasons.entry(reason.as_str()).or_default() += 1;
    }
    let mut reasons: Vec<(&str, usize)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (reason, count) in reasons.iter().take(10) {
        println!("  {count:>3} × {reason}");
    }
    if list {
        for (line, reason) in &tally.asked {
            println!("asked: {line}    # {reason}");
        }
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    // Counts of a few thousand are exact in an f64.
    #[allow(clippy::cast_precision_loss)]
    let share = part as f64 * 100.0 / whole as f64;
    share
}

/// The example lines of a cheatsheet: every line that is neither blank nor a comment,
/// without a trailing ` # comment`.
fn examples(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split(" #").next().unwrap_or(l).trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The rule of this file's header.
fn read_only(line: &str) -> bool {
    let forbidden = ["<", ">", "$", "`", "sudo "];
    if forbidden.iter().any(|f| line.contains(f)) || line.trim_end().ends_with('&') {
        return false;
    }
    let stages = stages(line);
    !stages.is_empty() && stages.iter().all(|stage| stage_reads_only(stage))
}

/// The stages of a line, split on `|`, `&&`, `||` and `;` outside quotes.
fn stages(line: &str) -> Vec<String> {
    let mut stages = vec![String::new()];
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            (None, '|' | '&' | ';') => {
                stages.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(stage) = stages.last_mut() {
            stage.push(c);
        }
    }
    stages.retain(|s| !s.trim().is_empty());
    stages
}

fn stage_reads_only(stage: &str) -> bool {
    let words: Vec<&str> = stage.split_whitespace().collect();
    let mut i = 0;
    if words.first() == Some(&"xargs") {
        i = 1;
        while let Some(w) = words.get(i).filter(|w| w.starts_with('-')) {
            i += if XARGS_VALUED.contains(w) { 2 } else { 1 };
        }
    }
    let Some(program) = words.get(i) else {
        return false;
    };
    let args = &words[i + 1..];
    if !READ_ONLY.contains(program) {
        return false;
    }
    let writes = WRITING_OPTIONS
        .iter()
        .filter(|(p, _)| p == program)
        .flat_map(|(_, options)| options.iter())
        .any(|o| {
            args.iter()
                .any(|a| a == o || a.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
        });
    // awk's program text runs commands through `system`, `getline` from a command
    // and `print | "cmd"`; its writes use `>`, which rule 1 refuses.
    let awk_runs = *program == "awk"
        && (stage.contains("system")
            || stage.contains("getline")
            || stage.replace(' ', "").contains("|\""));
    if writes || awk_runs {
        return false;
    }
    match *program {
        "git" => args.first().is_some_and(|s| GIT_READ_ONLY.contains(s)),
        "tar" => args.first().is_some_and(|o| {
            o.contains('t') && !o.contains(['c', 'x', 'r', 'u', 'A']) && !o.starts_with("--")
        }),
        "unzip" => args.first() == Some(&"-l"),
        "env" => args.is_empty(),
        _ => true,
    }
}
