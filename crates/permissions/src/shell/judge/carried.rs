//! Command-bearing arguments: options and positions whose value is a command that the
//! program runs (`git rebase -x CMD`, `git submodule foreach CMD`, `script -c CMD`,
//! ...), in one table. Programs with an option table (`options.rs`: ssh, scp, rsync,
//! tar, sort, ...) have their command-running options there, with every spelling
//! they accept; this table keeps positions and subcommands.
//!
//! The value goes to the nested analyser as a script of its own, and the segment takes
//! the script's risk, so `git rebase -x 'rm -rf ~'` is as Critical as `rm -rf ~`. A
//! value only known at run time makes the segment opaque. Git's configuration keys
//! (`git -c KEY=VALUE`, `git config KEY VALUE`, `GIT_CONFIG_KEY_n`) are in the same
//! place: [`git_config_key`] says which keys run a program, which move where git
//! finds configuration or programs, and which run nothing.

use crate::shell::words::Word;

/// How an argument carries a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carries {
    /// The value is a shell script (run through `sh -c`).
    Script,
    /// The value is a program, run with arguments Warden cannot see.
    Program,
    /// Every word after the option or position is the argv of a command.
    Rest,
    /// Every word after the option or position (up to `:::`, for GNU parallel) is
    /// joined with blanks into a shell script.
    RestJoined,
    /// After the options, one operand (an image, a container, a pod), then the argv
    /// of a command: `docker run IMAGE CMD...`.
    AfterOperand,
    /// Like [`Carries::Rest`], and the program also gets each file found
    /// (`fd -x CMD`): the file stands in as one more operand.
    RestPlusFile,
}

/// One command-bearing argument: `program [sub] option VALUE`. An empty `option`
/// means the position right after the program (or its subcommand).
struct CommandArg {
    program: &'static str,
    sub: Option<&'static str>,
    options: &'static [&'static str],
    carries: Carries,
}

const fn arg(
    program: &'static str,
    sub: Option<&'static str>,
    options: &'static [&'static str],
    carries: Carries,
) -> CommandArg {
    CommandArg {
        program,
        sub,
        options,
        carries,
    }
}

use Carries::{AfterOperand, Program, Rest, RestJoined, RestPlusFile, Script};

/// The table. Each "this runs code" row was checked with a harmless payload.
const TABLE: &[CommandArg] = &[
    arg("git", Some("rebase"), &["-x", "--exec"], Script),
    arg("git", Some("submodule"), &["foreach"], RestJoined),
    arg("git", Some("bisect"), &["run"], Rest),
    arg("git", Some("difftool"), &["-x", "--extcmd"], Script),
    arg("git", Some("mergetool"), &["--tool-cmd"], Script),
    arg(
        "git",
        Some("filter-branch"),
        &[
            "--env-filter",
            "--tree-filter",
            "--index-filter",
            "--parent-filter",
            "--msg-filter",
            "--commit-filter",
            "--tag-name-filter",
        ],
        Script,
    ),
    arg("git", Some("ls-remote"), &["--upload-pack"], Script),
    arg("git", Some("fetch"), &["--upload-pack"], Script),
    arg("git", Some("pull"), &["--upload-pack"], Script),
    arg("git", Some("clone"), &["-u", "--upload-pack"], Script),
    arg("git", Some("push"), &["--receive-pack", "--exec"], Script),
    arg("git", Some("archive"), &["--exec"], Script),
    arg("script", None, &["-c", "--command"], Script),
    arg(
        "su",
        None,
        &["-c", "--command", "--session-command"],
        Script,
    ),
    arg("runuser", None, &["-c", "--command"], Script),
    arg("flock", None, &["-c", "--command"], Script),
    arg("sg", None, &["-c"], Script),
    arg("mosh", None, &["--server", "--ssh"], Script),
    arg("zip", None, &["-TT", "--unzip-command"], Script),
    arg("rg", None, &["--pre"], Program),
    arg(
        "fd",
        None,
        &["-x", "--exec", "-X", "--exec-batch"],
        RestPlusFile,
    ),
    arg(
        "fdfind",
        None,
        &["-x", "--exec", "-X", "--exec-batch"],
        RestPlusFile,
    ),
    arg("bat", None, &["--pager"], Script),
    arg("batcat", None, &["--pager"], Script),
    arg("man", None, &["-P", "--pager"], Script),
    arg("tmux", Some("new-session"), &[""], Script),
    arg("tmux", Some("new"), &[""], Script),
    arg("tmux", Some("new-window"), &[""], Script),
    arg("tmux", Some("run-shell"), &[""], Script),
    arg("tmux", Some("split-window"), &[""], Script),
    arg("screen", None, &[""], Rest),
    arg("entr", None, &[""], Rest),
    arg("parallel", None, &[""], RestJoined),
    arg("npm", Some("exec"), &["-c", "--call"], Script),
    arg("npx", None, &["-c", "--call"], Script),
    arg("docker", Some("run"), &[""], AfterOperand),
    arg("docker", Some("exec"), &[""], AfterOperand),
    arg("docker", Some("create"), &[""], AfterOperand),
    arg("podman", Some("run"), &[""], AfterOperand),
    arg("podman", Some("exec"), &[""], AfterOperand),
    arg("kubectl", Some("exec"), &["--"], Rest),
];

/// Options of the programs above that take a value, so that a positional command is
/// found after them (`parallel -j 4 CMD ::: ...`, `screen -S name CMD`).
const VALUED: &[(&[&str], &[&str])] = &[
    (
        &["parallel"],
        &["-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file"],
    ),
    (
        &["screen"],
        &["-S", "-c", "-e", "-h", "-p", "-t", "-T", "-X"],
    ),
    (&["tmux"], &["-s", "-n", "-c", "-t", "-x", "-y", "-F", "-e"]),
    (
        &["nsenter"],
        &["-t", "--target", "-S", "-G", "--setuid", "--setgid"],
    ),
    (
        &["docker", "podman"],
        &[
            "-e",
            "--env",
            "-v",
            "--volume",
            "-p",
            "--publish",
            "--name",
            "-w",
            "--workdir",
            "-u",
            "--user",
            "--network",
            "--net",
            "--entrypoint",
            "--env-file",
            "--mount",
            "-l",
            "--label",
            "--platform",
            "--pull",
            "--restart",
            "-m",
            "--memory",
            "--cpus",
            "-h",
            "--hostname",
            "--add-host",
            "--device",
            "--cap-add",
            "--cap-drop",
            "--security-opt",
            "--tmpfs",
            "--ulimit",
            "--log-driver",
            "--log-opt",
            "--gpus",
            "--shm-size",
            "--stop-signal",
            "--runtime",
            "--ipc",
            "--pid",
            "--uts",
            "--dns",
            "--link",
            "--expose",
            "-a",
            "--attach",
            "--cidfile",
            "--group-add",
            "--health-cmd",
            "--detach-keys",
        ],
    ),
];

/// Whether `option` of `program` takes a value in the next word.
fn takes_value(program: &str, option: &str) -> bool {
    VALUED
        .iter()
        .any(|(programs, options)| programs.contains(&program) && options.contains(&option))
}

/// What a command-bearing argument holds: the script's text, or `None` when some of
/// it is only known at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Carried {
    pub script: Option<String>,
    /// The option or position, for reasons: "rebase -x".
    pub at: String,
}

/// Quotes a word for a shell script built from argv words.
pub(super) fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%^".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `word` spelled as `option` when it is another spelling of it: a long option
/// abbreviated to a prefix (GNU `getopt_long` and git take any unambiguous one;
/// taking every prefix of four letters or more is stricter), or an `ssh -o` option
/// in another case or with a blank for `=`.
fn canonical_spelling(word: &str, option: &str) -> String {
    if option.starts_with("--") && word.starts_with("--") && !option.contains('=') {
        let (name, value) = match word.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (word, None),
        };
        if name.len() >= 6 && name.len() < option.len() && option.starts_with(name) {
            return match value {
                Some(v) => format!("{option}={v}"),
                None => option.to_string(),
            };
        }
    }
    if option.starts_with("-o") && option.len() > 2 && word.len() > option.len() {
        let lower = word.to_ascii_lowercase();
        if lower.starts_with(&option.to_ascii_lowercase()) {
            let rest = word[option.len()..]
                .trim_start_matches([' ', '\t'])
                .trim_start_matches('=');
            return format!("{option}={rest}");
        }
    }
    word.to_string()
}

fn joined(words: &[Word], quoted: bool) -> Option<String> {
    if words.iter().any(|w| w.dynamic && !w.text.contains("{}")) {
        return None;
    }
    let parts: Vec<String> = words
        .iter()
        .map(|w| {
            if quoted {
                quote(&w.text)
            } else {
                w.text.clone()
            }
        })
        .collect();
    Some(parts.join(" "))
}

/// The words before GNU parallel's `:::` (all of them when there is none).
fn until_colons(words: &[Word]) -> &[Word] {
    let end = words
        .iter()
        .position(|w| w.text.starts_with(":::"))
        .unwrap_or(words.len());
    &words[..end]
}

/// The commands carried by `args` of `program`.
pub(super) fn carried(program: &str, args: &[Word]) -> Vec<Carried> {
    let mut out = Vec::new();
    let rows = TABLE.iter().filter(|r| r.program == program);
    for row in rows {
        // Where the options start: after the subcommand, when the row names one.
        let start = match row.sub {
            None => 0,
            Some(sub) => {
                let Some(pos) = args.iter().position(|a| !a.text.starts_with('-')) else {
                    continue;
                };
                if args[pos].text != sub {
                    continue;
                }
                pos + 1
            }
        };
        let rest = &args[start.min(args.len())..];
        for option in row.options {
            if option.is_empty() {
                out.extend(after_options(program, row, rest));
                continue;
            }
            for i in 0..rest.len() {
                let value = option_value(row, option, rest, i);
                let Some(value) = value else { continue };
                if value.is_empty() {
                    continue;
                }
                let script = match row.carries {
                    Script | RestJoined => joined(&value, false),
                    Rest | AfterOperand => joined(&value, true),
                    RestPlusFile => joined(&value, true).map(|s| {
                        if s.contains("{}") {
                            s
                        } else {
                            format!("{s} file")
                        }
                    }),
                    // The program is given a file of the program's choosing.
                    Program => joined(&value, true).map(|s| format!("{s} file")),
                };
                out.push(Carried {
                    script: script.map(|s| s.replace("{}", "file")),
                    at: format!("{program} {option}"),
                });
            }
        }
    }
    out
}

/// The command carried by the words after the program's (or subcommand's) options,
/// for a row whose option is empty.
fn after_options(program: &str, row: &CommandArg, rest: &[Word]) -> Option<Carried> {
    // The position after the program or subcommand, past its options.
    let mut i = 0;
    while let Some(a) = rest.get(i) {
        if a.dynamic || !a.text.starts_with('-') {
            break;
        }
        if a.text == "--" {
            i += 1;
            break;
        }
        i += if takes_value(program, &a.text) { 2 } else { 1 };
    }
    if row.carries == AfterOperand {
        i += 1;
    }
    let words = rest.get(i..).unwrap_or(&[]);
    if words.is_empty() {
        return None;
    }
    let script = match row.carries {
        Script => joined(&words[..1], false),
        Rest | Program | AfterOperand | RestPlusFile => joined(words, true),
        RestJoined => joined(until_colons(words), false),
    };
    Some(Carried {
        script,
        at: format!("{program} {}", row.sub.unwrap_or(""))
            .trim()
            .to_string(),
    })
}

/// The value `option` gives at `rest[i]`: the words after it, its `=VALUE` or glued
/// value, or an `ssh -o NAME=VALUE`; `None` when the word is not that option.
fn option_value(row: &CommandArg, option: &str, rest: &[Word], i: usize) -> Option<Vec<Word>> {
    let a = &rest[i];
    // Spellings of the same option: `--to-comm` for `--to-command`,
    // `-oproxycommand` for `-oProxyCommand`.
    let spelled = canonical_spelling(&a.text, option);
    let a = &Word {
        text: spelled,
        dynamic: a.dynamic,
    };
    // A short option at the end of a cluster takes the next word:
    // `script -qc CMD`.
    let clustered = option.len() == 2
        && a.text.len() > 2
        && !a.text.starts_with("--")
        && a.text.starts_with('-')
        && a.text.ends_with(&option[1..])
        && a.text[1..].bytes().all(|b| b.is_ascii_alphabetic());
    if a.text == *option || clustered {
        match row.carries {
            Rest | RestPlusFile => Some(rest[i + 1..].to_vec()),
            RestJoined => Some(until_colons(&rest[i + 1..]).to_vec()),
            _ => rest.get(i + 1).map(|w| vec![w.clone()]),
        }
    } else if let Some(v) = a
        .text
        .strip_prefix(option)
        .and_then(|v| {
            v.strip_prefix('=')
                .or((!option.starts_with("--")).then_some(v))
        })
        .filter(|v| !v.is_empty())
    {
        Some(vec![Word {
            text: v.to_string(),
            dynamic: a.dynamic,
        }])
    } else if option.starts_with("-o")
        && a.text == "-o"
        && rest.get(i + 1).is_some_and(|n| {
            let lower = n.text.to_ascii_lowercase();
            let name = option[2..].to_ascii_lowercase();
            lower.starts_with(&format!("{name}="))
                || lower.starts_with(&format!("{name} "))
                || lower.starts_with(&format!("{name}\t"))
        })
    {
        // `ssh -o ProxyCommand=CMD`, `ssh -o 'ProxyCommand CMD'`.
        rest.get(i + 1).map(|n| {
            let value = n.text[option.len() - 2..]
                .trim_start_matches([' ', '\t'])
                .trim_start_matches('=');
            vec![Word {
                text: value.to_string(),
                dynamic: n.dynamic,
            }]
        })
    } else {
        None
    }
}

/// What a git configuration key does with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::shell) enum GitKey {
    /// The value is a command git runs (`core.pager`, `alias.x=!cmd`, ...).
    Runs,
    /// The value moves where git reads configuration, hooks, templates or
    /// repositories from, or how it fetches (`include.path`, `core.hooksPath`,
    /// `url.*.insteadOf`, `protocol.*.allow`): High.
    Moves,
    /// Runs nothing and moves nothing (`color.ui`, `user.name`, `core.quotepath`).
    Inert,
}

/// The kind of a git configuration key (case-insensitive, as git reads them).
pub(in crate::shell) fn git_config_key(key: &str) -> GitKey {
    let key = key.to_ascii_lowercase();
    let last = key.rsplit('.').next().unwrap_or("");
    const RUNS_LAST: &[&str] = &[
        "pager",
        "editor",
        "sshcommand",
        "askpass",
        "gitproxy",
        "fsmonitor",
        "program",
        "helper",
        "textconv",
        "command",
        "cmd",
        "driver",
        "clean",
        "smudge",
        "process",
        "external",
        "uploadpack",
        "receivepack",
        "packobjectshook",
        "alternaterefscommand",
        "difffilter",
        "browser",
        "viewer",
        "smtpserver",
        "update",
        "proxy",
    ];
    const MOVES_LAST: &[&str] = &[
        "hookspath",
        "templatedir",
        "worktree",
        "path",
        "insteadof",
        "pushinsteadof",
        "allow",
        "directory",
        "sharedrepository",
        "excludesfile",
        "attributesfile",
    ];
    if key.starts_with("alias.") || key.starts_with("pager.") || key.starts_with("hook.") {
        return GitKey::Runs;
    }
    if key.starts_with("include") || key.starts_with("url.") || key.starts_with("protocol.") {
        return GitKey::Moves;
    }
    // `core.fsmonitor=true` uses git's own daemon; `core.pager=` turns paging off.
    if RUNS_LAST.contains(&last) {
        return GitKey::Runs;
    }
    if MOVES_LAST.contains(&last) {
        return GitKey::Moves;
    }
    GitKey::Inert
}

/// The script a git key's value runs: `!cmd` for aliases and helpers is a shell
/// command; a plain alias is more git arguments; a boolean runs nothing.
pub(in crate::shell) fn git_value_script(key: &str, value: &str) -> Option<String> {
    let key = key.to_ascii_lowercase();
    let value = value.trim();
    if matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "0" | "1"
    ) {
        return None;
    }
    if let Some(cmd) = value.strip_prefix('!') {
        return Some(cmd.to_string());
    }
    if key.starts_with("alias.") {
        return Some(format!("git {value}"));
    }
    if key.ends_with(".helper") && !value.contains(['/', ' ']) {
        return Some(format!("git credential-{value}"));
    }
    Some(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn the_table_finds_carried_commands() {
        for (program, args, expected) in [
            ("git", "rebase -x make HEAD~3", vec!["make"]),
            ("git", "rebase --exec=make HEAD~3", vec!["make"]),
            ("git", "submodule foreach rm -rf x", vec!["rm -rf x"]),
            ("git", "bisect run ./test.sh", vec!["./test.sh"]),
            ("git", "difftool --extcmd=vimdiff", vec!["vimdiff"]),
            ("git", "filter-branch --tree-filter ls HEAD", vec!["ls"]),
            ("script", "-q -c ls /dev/null", vec!["ls"]),
            ("parallel", "-j 4 gzip ::: a b", vec!["gzip"]),
            ("rg", "--pre cat x", vec!["cat file"]),
            ("script", "-qc ls", vec!["ls"]),
            (
                "git",
                "submodule foreach 'git status'",
                vec!["'git status'"],
            ),
            ("git", "status", vec![]),
            ("git", "log --exec x", vec![]),
            ("parallel", "", vec![]),
            (
                "docker",
                "run --rm -v /:/h -it alpine rm -rf /h",
                vec!["rm -rf /h"],
            ),
            ("docker", "exec -u root box sh", vec!["sh"]),
            ("docker", "run alpine", vec![]),
            ("kubectl", "exec pod -- rm -rf /", vec!["rm -rf /"]),
        ] {
            let got: Vec<String> = carried(program, &words(args))
                .into_iter()
                .filter_map(|c| c.script)
                .collect();
            assert_eq!(got, expected, "{program} {args}");
        }
    }

    #[test]
    fn git_keys_are_classified() {
        for (key, kind) in [
            ("core.pager", GitKey::Runs),
            ("core.fsmonitor", GitKey::Runs),
            ("core.sshCommand", GitKey::Runs),
            ("alias.st", GitKey::Runs),
            ("pager.log", GitKey::Runs),
            ("credential.helper", GitKey::Runs),
            ("diff.x.textconv", GitKey::Runs),
            ("filter.lfs.smudge", GitKey::Runs),
            ("core.hooksPath", GitKey::Moves),
            ("include.path", GitKey::Moves),
            ("url.x.insteadOf", GitKey::Moves),
            ("protocol.ext.allow", GitKey::Moves),
            ("color.ui", GitKey::Inert),
            ("user.name", GitKey::Inert),
            ("core.quotepath", GitKey::Inert),
            ("advice.detachedHead", GitKey::Inert),
        ] {
            assert_eq!(git_config_key(key), kind, "{key}");
        }
    }
}
