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
