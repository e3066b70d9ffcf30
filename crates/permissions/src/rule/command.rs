//! `command = "git status"`: an argv prefix in the shell analyser's normal form.

use super::RuleError;
use crate::Context;
use crate::shell;

/// A stand-in for `*` while the rule's command goes through the shell analyser, so
/// that the shell does not read it as a filename glob.
const ANY_WORD: &str = "__warden_any_word__";

/// One word of a command pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Word {
    /// `*`: any one word.
    Any,
    /// This exact word.
    Lit(String),
}

impl Word {
    fn matches(&self, word: &str) -> bool {
        match self {
            Word::Any => true,
            Word::Lit(w) => w == word,
        }
    }
}

/// A rule's `command`, normalised like the commands it is compared with.
///
/// The words split into the program, the operands (compared as a prefix, `*` for any
/// one word) and the flags (each must be present; their order does not matter, since
/// the normal form sorts them).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommandPattern {
    pub program: Word,
    pub operands: Vec<Word>,
    pub flags: Vec<String>,
}

/// How strictly a pattern is compared: allow rules narrowly, deny and ask rules
/// broadly, so that doubt never turns into "allow".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// The program exactly as written and the operands as a prefix.
    Narrow,
    /// The program's basename, and the operands anywhere in order (a subsequence),
    /// so that `git -C dir push` still meets a deny on `git push`.
    Broad,
}

fn is_flag(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-')
}

fn split(words: &[String]) -> (Vec<&str>, Vec<&str>) {
    let mut flags = Vec::new();
    let mut operands = Vec::new();
    let mut after_dashdash = false;
    for w in words {
        if after_dashdash {
            operands.push(w.as_str());
        } else if w == "--" {
            after_dashdash = true;
        } else if is_flag(w) {
            flags.push(w.as_str());
        } else {
            operands.push(w.as_str());
        }
    }
    (flags, operands)
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

impl CommandPattern {
    /// Parses a rule's `command` through the shell analyser. It must be one simple
    /// command that can be read.
    pub fn parse(source: &str) -> Result<CommandPattern, RuleError> {
        let marked: Vec<String> = source
            .split_whitespace()
            .map(|w| {
                if w == "*" {
                    ANY_WORD.to_owned()
                } else {
                    w.to_owned()
                }
            })
            .collect();
        if marked.is_empty() {
            return Err(RuleError::EmptyCommand);
        }
        let analysis = shell::analyse(&marked.join(" "), &Context::new("/"));
        if let Some(problem) = &analysis.problem {
            return Err(RuleError::UnreadableCommand {
                pattern: source.to_owned(),
                problem: problem.to_string(),
            });
        }
        let [segment] = analysis.segments.as_slice() else {
            return Err(RuleError::CompoundCommand {
                pattern: source.to_owned(),
                parts: analysis.segments.len(),
            });
        };
        if segment.opaque || segment.argv.is_empty() {
            return Err(RuleError::NoProgram {
                pattern: source.to_owned(),
            });
        }
        let word = |w: &String| {
            if w == ANY_WORD {
                Word::Any
            } else {
                Word::Lit(w.clone())
            }
        };
        let (flags, operands) = split(&segment.argv[1..]);
        Ok(CommandPattern {
            program: word(&segment.argv[0]),
            operands: operands.into_iter().map(|w| word(&w.to_owned())).collect(),
            flags: flags.into_iter().map(str::to_owned).collect(),
        })
    }

    /// The program the pattern names, unless it is `*`.
    pub fn program(&self) -> Option<&str> {
        match &self.program {
            Word::Lit(p) => Some(p),
            Word::Any => None,
        }
    }

    /// Whether a segment's normal-form argv matches.
    pub fn matches(&self, argv: &[String], strictness: Strictness) -> bool {
        let Some((program, rest)) = argv.split_first() else {
            return false;
        };
        let program_ok = match (&self.program, strictness) {
            (Word::Any, _) => true,
            (Word::Lit(p), Strictness::Narrow) => p == program,
            (Word::Lit(p), Strictness::Broad) => basename(p) == basename(program),
        };
        if !program_ok {
            return false;
        }
        let (flags, operands) = split(rest);
        if !self.flags.iter().all(|f| flags.contains(&f.as_str())) {
            return false;
        }
        match strictness {
            Strictness::Narrow => {
                self.operands.len() <= operands.len()
                    && self
                        .operands
                        .iter()
                        .zip(&operands)
                        .all(|(p, w)| p.matches(w))
            }
            Strictness::Broad => {
                let mut rest = operands.iter();
                self.operands
                    .iter()
                    .all(|p| rest.by_ref().any(|w| p.matches(w)))
            }
        }
    }

    /// Whether every argv this pattern matches is also matched by `other` (used by
    /// lint to find shadowed rules). Conservative: false when unsure.
    pub fn is_covered_by(&self, other: &CommandPattern) -> bool {
        let program_ok = other.program == Word::Any || other.program == self.program;
        program_ok
            && other.flags.iter().all(|f| self.flags.contains(f))
            && other.operands.len() <= self.operands.len()
            && other
                .operands
                .iter()
                .zip(&self.operands)
                .all(|(o, s)| *o == Word::Any || o == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn check(pattern: &str, command: &str, strictness: Strictness, expect: bool) {
        let p = CommandPattern::parse(pattern).expect("pattern");
        assert_eq!(
            p.matches(&argv(command), strictness),
            expect,
            "{pattern:?} vs {command:?} ({strictness:?})"
        );
    }

    #[test]
    fn narrow_matching_is_an_exact_program_and_an_operand_prefix() {
        use Strictness::Narrow;
        check("git status", "git status", Narrow, true);
        check("git status", "git status --short", Narrow, true);
        check("git status", "git stash", Narrow, false);
        check("git status", "/usr/local/bin/git status", Narrow, false);
        check("git status", "git -C . status", Narrow, false);
        check("npm *", "npm test", Narrow, true);
        check("npm *", "npm", Narrow, false);
        check("* --version", "cargo --version", Narrow, true);
        check("rm -f", "rm -f -r x", Narrow, true);
        check("rm -f -r", "rm -f x", Narrow, false);
    }

    #[test]
    fn broad_matching_compares_basenames_and_finds_operands_in_order() {
        use Strictness::Broad;
        check("git push", "git -C . push origin", Broad, true);
        check("git push", "/usr/bin/git push", Broad, true);
        check("git push", "git pull", Broad, false);
        check("git push origin", "git push -f origin", Broad, true);
        check("git push origin", "git origin push", Broad, false);
    }

    #[test]
    fn a_rule_command_must_be_one_readable_simple_command() {
        for bad in ["", "ls && rm", "$X", "a; b"] {
            assert!(CommandPattern::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn coverage_is_conservative() {
        let p = |s: &str| CommandPattern::parse(s).expect("pattern");
        assert!(p("git push").is_covered_by(&p("git")));
        assert!(p("git push -f").is_covered_by(&p("git push")));
        assert!(!p("git push").is_covered_by(&p("git push -f")));
        assert!(!p("git").is_covered_by(&p("git push")));
        assert!(p("npm test").is_covered_by(&p("npm *")));
    }
}
