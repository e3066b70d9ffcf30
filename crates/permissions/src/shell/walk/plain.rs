//! Commands made only of plain words, read without the parser.
//!
//! Most commands a model proposes are one program with a few plain arguments
//! (`cargo test`, `ls -la src`, `touch notes.txt`). For those, tree-sitter's syntax
//! tree holds nothing but one `command` node with a `word` per argument, and building
//! it touches the grammar's large tables, a cost paid on every call. Such a command
//! is split here instead and judged by the same code ([`super::Walker::simple`]).
//!
//! The test is deliberately narrow: a byte outside the set below (which leaves out `=`,
//! so no assignment gets here) or a reserved word anywhere sends the command to the
//! parser. The unit tests check that both ways give the same analysis on every command
//! the fast way accepts.

use super::super::words::Word;

/// Bytes that are literal in every position of an unquoted bash word, start no
/// expansion, redirection, operator, comment or pattern, and that tree-sitter-bash
/// reads as part of a word wherever they stand (it does not for `+`, `:`, `%` or `@`).
fn is_plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-' | b',')
}

/// Words the shell or tree-sitter-bash gives a meaning of their own, in any position:
/// reserved words, and the builtins the grammar parses as declarations.
const SPECIAL_WORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "declare", "typeset", "export", "readonly",
    "local", "unset", "unsetenv",
];

/// The words of `command` when it is one simple command of plain words; `None` when
/// it needs the parser.
pub(super) fn plain_words(command: &str) -> Option<Vec<Word>> {
    let mut words = Vec::new();
    for word in command.split([' ', '\t']).filter(|w| !w.is_empty()) {
        if !word.bytes().all(is_plain_byte) || SPECIAL_WORDS.contains(&word) {
            return None;
        }
        words.push(Word::literal(word));
    }
    // An empty command has no program; the parser says so.
    if words.is_empty() {
        return None;
    }
    Some(words)
}

/// The command's text as the parser's `command` node spans it: without the blanks
/// around it.
pub(super) fn span(command: &str) -> &str {
    command.trim_matches([' ', '\t'])
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::plain_words;
    use crate::Context;
    use crate::shell::dialect::Dialect;
    use crate::shell::walk::Outer;
    use crate::shell::walk::analyse_with;

    fn ctx() -> Context {
        Context::new("/home/wardentest/project").with_home("/home/wardentest")
    }

    /// The parser's analysis and the fast one, for a command the fast way reads.
    fn both(
        command: &str,
    ) -> Option<(crate::shell::CommandAnalysis, crate::shell::CommandAnalysis)> {
        at_level(command, 0)
    }

    /// [`both`], for a command found `level` levels deep in syntax trees (a `bash -c`
    /// script inside groups).
    fn at_level(
        command: &str,
        level: usize,
    ) -> Option<(crate::shell::CommandAnalysis, crate::shell::CommandAnalysis)> {
        plain_words(command)?;
        let parsed = analyse_with(
            command,
            &ctx(),
            0,
            level,
            |_| None,
            Dialect::Bash,
            Outer::default(),
        )
        .0;
        let fast = analyse_with(
            command,
            &ctx(),
            0,
            level,
            plain_words,
            Dialect::Bash,
            Outer::default(),
        )
        .0;
        Some((parsed, fast))
    }

    /// Near the bound on tree depth the two ways still agree: past it, both report the
    /// command as nested too deeply (Critical: not analysed).
    #[test]
    fn the_depth_bound_holds_on_the_fast_way() {
        use crate::shell::walk::MAX_TREE_DEPTH;
        for level in (0..3).chain(MAX_TREE_DEPTH - 10..MAX_TREE_DEPTH + 3) {
            for command in ["ls", "rm -rf /", "sh -c ls", "bash -c rm"] {
                let (parsed, fast) = at_level(command, level).expect("a plain command");
                assert_eq!(parsed, fast, "{command:?} at level {level}");
            }
        }
        let (deep, _) = at_level("ls", MAX_TREE_DEPTH).expect("a plain command");
        assert_eq!(deep.risk, crate::Risk::Critical, "{deep:?}");
    }

    fn check(command: &str, plain: bool) {
        assert_eq!(plain_words(command).is_some(), plain, "{command:?}");
        if let Some((parsed, fast)) = both(command) {
            assert_eq!(parsed, fast, "{command:?}");
        }
    }

    #[test]
    fn common_commands_skip_the_parser_and_judge_alike() {
        for command in [
            "ls",
            "ls -la src",
            "  cargo test  ",
            "echo test",
            "cargo\ttest --release",
            "touch notes.txt",
            "rm -rf /",
            "/bin/rm -rf build",
            "./configure",
            "git push -f origin main",
            "sudo ls",
            "bash -c ls",
            "sh -c rm",
            "xargs rm",
            "env ls",
            "timeout 10 rm -rf /tmp/x",
            "dd bs",
            "mkfs.ext4 /dev/sda",
            "curl example.com",
            "chmod -R 777 /",
            "npm install left-pad",
            "git log --oneline -5",
            "python3 x.py",
            "cat /etc/shadow",
        ] {
            check(command, true);
        }
    }

    #[test]
    fn anything_else_goes_to_the_parser() {
        for command in [
            "",
            "   ",
            "FOO=bar ls",
            "ls --color=auto",
            "ls ~",
            "echo $HOME",
            "echo 'a b'",
            "echo \"a\"",
            "echo a\\ b",
            "ls *.rs",
            "ls file?",
            "ls [ab]",
            "echo {a,b}",
            "ls; rm x",
            "ls && rm x",
            "ls | sh",
            "ls > out",
            "ls < in",
            "ls &",
            "(ls)",
            "ls # comment",
            "echo `ls`",
            "ls\nrm x",
            "! ls",
            "if true",
            "echo done",
            "time ls",
            "export PATH",
            "declare x",
            "local x",
            "unset x",
            "coproc ls",
            "echo héllo",
            "echo u@h",
            "rm -fr ~/x",
            "fg %1",
        ] {
            check(command, false);
        }
    }

    const VOCABULARY: &[&str] = &[
        "ls",
        "cat",
        "rm",
        "touch",
        "git",
        "push",
        "cargo",
        "test",
        "npm",
        "install",
        "bash",
        "sh",
        "-c",
        "env",
        "sudo",
        "xargs",
        "timeout",
        "10",
        "nice",
        "-n",
        "chmod",
        "-R",
        "777",
        "dd",
        "mkfs",
        "curl",
        "wget",
        "python",
        "node",
        "-e",
        "/bin/rm",
        "./x",
        "/tmp/x",
        "-rf",
        "-fr",
        "-r",
        "-f",
        "--force",
        "--recursive",
        "--",
        "-",
        "/",
        ".",
        "..",
        "src",
        "/etc/passwd",
        "/dev/sda",
        "eval",
        "exec",
        "command",
        "nohup",
        "cd",
        "echo",
        "printf",
        "tee",
        "mv",
        "cp",
        "ln",
        "-s",
        "find",
        "-delete",
        "-exec",
        "sed",
        "-i",
        "awk",
        "shutdown",
        "reboot",
        "kill",
        "-9",
        "1",
        "%1",
        "fg",
        "a:b",
        "x,y",
        "u@h",
        "+x",
        "_",
        "if",
        "then",
        "do",
        "done",
        "in",
        "time",
        "export",
        "declare",
    ];

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(VOCABULARY).prop_map(str::to_owned),
            "[A-Za-z0-9./_,-]{1,8}",
        ]
    }

    fn command() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            (word(), prop_oneof![Just(" "), Just("  "), Just("\t")]),
            1..7,
        )
        .prop_map(|parts| {
            parts
                .into_iter()
                .map(|(w, sep)| format!("{w}{sep}"))
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Wherever the fast way reads a command, it judges it exactly as the parser.
        #[test]
        fn the_fast_way_agrees_with_the_parser(command in command()) {
            if let Some((parsed, fast)) = both(&command) {
                prop_assert_eq!(parsed, fast, "{:?}", command);
            }
        }
    }
}
