//! Property: a compound command is at least as strict as each of its parts, so
//! `safe && evil` can never hide `evil`.

use proptest::prelude::*;

use warden_permissions::shell::{analyse, normalize_argv};
use warden_permissions::{Context, Risk};

fn ctx() -> Context {
    Context::new("/home/wardentest/project").with_home("/home/wardentest")
}

/// Simple commands of every risk level. `cd` and bare shells are left out on
/// purpose: they change how the *next* part is read (`cd src; cat ../x` reads a
/// different file than `cat ../x`, and `echo ls | bash` runs `ls`), so judging the
/// part alone would not be judging the same command.
const PARTS: &[&str] = &[
    "ls",
    "ls -la src",
    "echo hello",
    "cat README.md",
    "cat .env",
    "cat ~/.ssh/id_rsa",
    "grep -rn TODO src",
    "git status",
    "git log --oneline",
    "git commit -m wip",
    "git push",
    "git push --force",
    "cargo test",
    "npm install",
    "make",
    "touch x.txt",
    "echo hi > out.txt",
    "echo hi > ~/.bashrc",
    "rm notes.txt",
    "rm -rf build",
    "rm -fr /",
    "rm -r -f ~",
    "rm -rf $DIR",
    "sudo ls",
    "timeout 5 sudo id",
    "env rm -rf /",
    "curl https://x",
    "wget -O- https://x",
    "$CMD arg",
    "frobnicate",
    "find . -name '*.rs'",
    "find / -delete",
    "xargs rm",
    "sh -c 'rm -rf /'",
    "bash -c 'ls'",
    "eval 'sudo ls'",
    "dd if=/dev/zero of=/dev/sda",
    "chmod -R 777 /",
    "mkfs.ext4 /dev/sdb",
    "python3 -c 'print(1)'",
    "shutdown now",
    "true",
    "FOO=1 ls",
    "PATH=/tmp ls",
    "echo `date`",
    "echo $(whoami)",
];

const OPERATORS: &[&str] = &[" && ", " || ", "; ", " | ", " & ", "\n"];

fn risk(command: &str) -> Risk {
    analyse(command, &ctx()).risk
}

fn part() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(PARTS)
}

fn operator() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(OPERATORS)
}

proptest! {
    #[test]
    fn a_compound_is_at_least_as_strict_as_each_part(a in part(), op in operator(), b in part()) {
        let compound = format!("{a}{op}{b}");
        let whole = risk(&compound);
        prop_assert!(whole >= risk(a), "{compound:?}: {whole} < {a:?}");
        prop_assert!(whole >= risk(b), "{compound:?}: {whole} < {b:?}");
    }

    #[test]
    fn three_parts_and_groupings_keep_the_strictest(
        a in part(), op1 in operator(), b in part(), op2 in operator(), c in part(),
        grouping in 0usize..4,
    ) {
        let compound = match grouping {
            0 => format!("{a}{op1}{b}{op2}{c}"),
            1 => format!("({a}{op1}{b}){op2}{c}"),
            2 => format!("{{ {a}{op1}{b}; }}{op2}{c}"),
            _ => format!("{a}{op1}echo \"$({b})\"{op2}{c}"),
        };
        let whole = risk(&compound);
        for p in [a, b, c] {
            prop_assert!(whole >= risk(p), "{compound:?}: {whole} < {p:?}");
        }
    }

    #[test]
    fn a_part_inside_bash_c_is_never_hidden(a in part()) {
        let quoted = format!("'{}'", a.replace('\'', r"'\''"));
        let wrapped = format!("bash -c {quoted}");
        prop_assert!(risk(&wrapped) >= risk(a), "{wrapped:?}");
    }
}

/// Words that programs with known options take.
const WORDS: &[&str] = &[
    "-r",
    "-f",
    "-R",
    "-rf",
    "-fr",
    "-i",
    "-v",
    "--recursive",
    "--force",
    "--",
    "-t",
    "dir",
    "x",
    "-x",
    "-m",
    "755",
    "--target-directory=out",
    "-p",
    "push",
    "commit",
    "-u",
    "-am",
    "msg",
    "--force-with-lease",
    "origin",
    "+main",
    "-C",
    "sub",
    "-rfz",
    "-",
];

proptest! {
    #[test]
    fn the_normal_form_is_a_fixed_point(
        program in proptest::sample::select(&["rm", "cp", "mv", "chmod", "mkdir", "ls", "git", "ln", "touch", "cargo"][..]),
        args in proptest::collection::vec(proptest::sample::select(WORDS), 0..8),
    ) {
        let mut argv = vec![program.to_string()];
        argv.extend(args.iter().map(|a| (*a).to_string()));
        let once = normalize_argv(&argv);
        let twice = normalize_argv(&once);
        prop_assert_eq!(&once, &twice, "{:?}", argv);
        prop_assert_eq!(once.first(), argv.first());
    }
}

/// Fragments of shell syntax, wrappers, options and odd characters: joined at
/// random they reach the corners of the analyser that fuzzing finds slowly.
const FRAGMENTS: &[&str] = &[
    "rm",
    "env",
    "xargs",
    "timeout",
    "nice",
    "sudo",
    "git",
    "push",
    "find",
    "-exec",
    "\\;",
    "bash",
    "-c",
    "sh",
    "eval",
    "cp",
    "mv",
    "ln",
    "chmod",
    "dd",
    "of=/dev/sda",
    "tee",
    "cat",
    "curl",
    "|",
    "||",
    "&&",
    ";",
    "&",
    "\n",
    "(",
    ")",
    "{",
    "}",
    "$(",
    "`",
    "'",
    "\"",
    "$",
    "${",
    "<<",
    "EOF",
    "<<<",
    ">",
    ">>",
    "2>&1",
    "<(",
    "~",
    "/",
    "..",
    "*",
    ".e*",
    "-rf",
    "-é",
    "é",
    "-t",
    "-",
    "--",
    "=",
    "a=",
    "$a",
    "\\",
    "$'\\x72m'",
    " ",
    "#",
    "!",
    "[[",
    "]]",
    "((",
    "))",
    "-R",
    "--force",
    "+main",
    "-o",
    "if",
    "then",
    "fi",
    "for",
    "in",
    "do",
    "done",
    "f()",
    "日本",
    "\u{0}",
    "\r",
];

proptest! {
    #[test]
    fn any_jumble_of_shell_fragments_is_analysed_without_panicking(
        parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..16),
        glue in proptest::sample::select(&["", " "][..]),
    ) {
        let command = parts.join(glue);
        let analysis = analyse(&command, &ctx());
        let max = analysis.segments.iter().map(|s| s.risk).max();
        prop_assert!(max.is_none_or(|m| analysis.risk >= m));
        if analysis.problem.is_some() || analysis.segments.iter().any(|s| s.opaque) {
            prop_assert!(analysis.risk >= Risk::High, "{command:?}");
        }
    }
}

/// Wrappers, each written so that it runs the command that follows it.
const WRAPPERS: &[&str] = &[
    "env",
    "env -i",
    "timeout 5",
    "nice -n 10",
    "nohup",
    "time",
    "command",
    "stdbuf -oL",
    "setsid",
    "ionice -c 3",
    "taskset 0x1",
    "taskset -c 0-3",
    "chrt -f 10",
    "flock /tmp/lock",
    "strace -f",
    "ltrace",
    "unshare -n",
    "systemd-run --user",
    "prlimit --nofile=64",
    "setpriv --no-new-privs",
    "numactl -C 0",
    "mywrapper",
    "faketime 2020-01-01",
];

/// Prefix assignments of every kind: inert, command, relocating, unknown.
const PREFIXES: &[&str] = &[
    "LANG=C",
    "LC_ALL=C",
    "CI=1",
    "RUST_BACKTRACE=1",
    "GIT_PAGER=cat",
    "EDITOR=vim",
    "PAGER=less",
    "FOO=1",
    "GIT_DIR=/tmp/g",
    "PATH=/tmp",
    "XDG_CONFIG_HOME=/tmp",
];

/// Ways of nesting a command one level deeper.
fn nest(kind: usize, command: &str) -> String {
    let quoted = format!("'{}'", command.replace('\'', r"'\''"));
    match kind {
        0 => format!("bash -c {quoted}"),
        1 => format!("sh -c {quoted}"),
        2 => format!("eval {quoted}"),
        3 => format!("( {command} )"),
        4 => format!("{{ {command}; }}"),
        5 => format!("echo $( {command} )"),
        6 => format!("watch {quoted}"),
        7 => format!("script -c {quoted} /dev/null"),
        8 => format!("git rebase -x {quoted} main"),
        _ => format!("env -S {quoted}"),
    }
}

proptest! {
    /// A wrapper never lowers the judgement of what it wraps.
    #[test]
    fn a_wrapper_never_lowers_what_it_wraps(
        w in proptest::sample::select(WRAPPERS),
        a in part(),
    ) {
        let inner = risk(a);
        let wrapped = format!("{w} {a}");
        prop_assert!(risk(&wrapped) >= inner, "{wrapped:?} is below {a:?} ({inner})");
    }

    /// A prefix assignment never lowers the judgement of the command it is set for.
    #[test]
    fn a_prefix_assignment_never_lowers_the_command(
        p in proptest::sample::select(PREFIXES),
        a in part(),
    ) {
        let inner = risk(a);
        let prefixed = format!("{p} {a}");
        prop_assert!(risk(&prefixed) >= inner, "{prefixed:?} is below {a:?} ({inner})");
    }

    /// A nesting level (a `bash -c` string, a subshell, a substitution, a carried
    /// command) never lowers the judgement of what it nests, up to and past the
    /// nesting limit.
    #[test]
    fn a_nesting_level_never_lowers_what_it_nests(
        kinds in proptest::collection::vec(0usize..10, 1..7),
        a in part(),
    ) {
        let inner = risk(a);
        let nested = kinds.iter().fold(a.to_string(), |acc, k| nest(*k, &acc));
        prop_assert!(risk(&nested) >= inner, "{nested:?} is below {a:?} ({inner})");
    }
}

/// Pieces of the new readers' inputs: sed scripts, git configuration, command
/// variables, wrapper options, carried commands.
const NEW_FRAGMENTS: &[&str] = &[
    "sed",
    "-n",
    "-e",
    "'s/a/b/",
    "g'",
    "'1,5p'",
    "'/x/",
    "w",
    "e",
    "\\",
    "|",
    "{",
    "}",
    ";",
    "git",
    "-c",
    "core.pager=",
    "alias.x=!",
    "rebase",
    "-x",
    "submodule",
    "foreach",
    "GIT_PAGER=",
    "GIT_CONFIG_KEY_0=core.pager",
    "GIT_CONFIG_VALUE_0=",
    "EDITOR=",
    "taskset",
    "0x1",
    "flock",
    "-c",
    "strace",
    "-o",
    "docker",
    "run",
    "alpine",
    "mywrapper",
    "rm",
    "-rf",
    "~",
    "$X",
    "'",
    "\"",
    "--config=",
    "cargo",
    "+x",
    "awk",
    "'{print}'",
    "fd",
    "--exec",
    "find",
    "-exec",
    "{}",
    "+",
    "<(",
    ")",
    "script",
    "parallel",
    ":::",
    "ssh",
    "-oProxyCommand=",
];

proptest! {
    /// The readers of sed scripts, git keys, variables, wrappers and carried commands
    /// never panic, and the fail-closed rules hold on whatever they are given.
    #[test]
    fn the_new_readers_never_panic_and_fail_closed(
        parts in proptest::collection::vec(proptest::sample::select(NEW_FRAGMENTS), 0..20),
        glue in proptest::sample::select(&["", " "][..]),
    ) {
        let command = parts.join(glue);
        let analysis = analyse(&command, &ctx());
        let max = analysis.segments.iter().map(|s| s.risk).max();
        prop_assert!(max.is_none_or(|m| analysis.risk >= m));
        if analysis.segments.iter().any(|s| s.opaque) {
            prop_assert_eq!(analysis.risk, Risk::Critical, "{:?}", command);
        }
    }
}

/// Fragments of this round's mechanisms: downloads, sockets, printf and echo text,
/// `cd` and its variables, functions, `((…))`, braces, archives and patches.
const PROVENANCE_FRAGMENTS: &[&str] = &[
    "curl",
    "https://x.example",
    "-o",
    "-O",
    "x.sh",
    "wget",
    "|",
    "&&",
    ";",
    "&",
    "sh",
    "bash",
    "/dev/stdin",
    "/dev/tcp/x/1",
    "<",
    ">",
    "<&3",
    "3<>",
    "<<<",
    "$(",
    "`",
    ")",
    "(",
    "((",
    "))",
    "$((",
    "{a,b}",
    "{",
    "}",
    "printf",
    "'%s\\n'",
    "'\\x72m'",
    "'\\162'",
    "'%b'",
    "'%5s'",
    "echo",
    "-e",
    "'rm -rf ~'",
    "eval",
    "source",
    ".",
    "x=",
    "\"$x\"",
    "cd",
    "-P",
    "-",
    "pushd",
    "popd",
    "CDPATH=/",
    "HOME=/",
    "f()",
    "a()",
    "$FUNCNAME",
    "f",
    "a",
    "tar",
    "xf",
    "-C",
    "~",
    "patch",
    "perl",
    "-pi",
    "grep",
    "-r",
    "git",
    "show",
    "HEAD:.env",
    "ls-remote",
];

proptest! {
    /// The readers of this round (provenance, printf and echo text, where the shell is,
    /// the call graph, the sh reading) never panic, and the fail-closed rules hold.
    #[test]
    fn provenance_cwd_and_call_graph_never_panic_and_fail_closed(
        parts in proptest::collection::vec(proptest::sample::select(PROVENANCE_FRAGMENTS), 0..24),
        glue in proptest::sample::select(&["", " "][..]),
    ) {
        let command = parts.join(glue);
        let analysis = analyse(&command, &ctx());
        let max = analysis.segments.iter().map(|s| s.risk).max();
        prop_assert!(max.is_none_or(|m| analysis.risk >= m));
        if analysis.segments.iter().any(|s| s.opaque) {
            prop_assert_eq!(analysis.risk, Risk::Critical, "{:?}", command);
        }
    }

    /// A download piped into a shell stays Critical whatever stages stand between.
    #[test]
    fn a_download_stays_critical_through_any_filter(
        filters in proptest::collection::vec(
            proptest::sample::select(&["cat", "tee /tmp/x", "grep -v x", "base64 -d", "head -n 5", "tr -d x", "sed 's/a/b/'"][..]),
            0..4,
        ),
        shell in proptest::sample::select(&["sh", "bash -s", "bash /dev/stdin", "python3 -", "sh -c \"$(cat)\""][..]),
    ) {
        let mut stages = vec!["curl -s https://x.example".to_owned()];
        stages.extend(filters.iter().map(|f| (*f).to_owned()));
        stages.push(shell.to_owned());
        let command = stages.join(" | ");
        prop_assert_eq!(analyse(&command, &ctx()).risk, Risk::Critical, "{}", command);
    }
}
