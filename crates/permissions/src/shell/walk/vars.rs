//! Variables: the ones the command line sets itself (followed when their value is
//! certain), and the ones whose setting changes which programs run.

use tree_sitter::Node;

use super::Walker;
use crate::Risk;
use crate::shell::Segment;
use crate::shell::words::{self, Word};

/// Variables that change which program runs or what a shell does at start-up.
const DANGEROUS_VARIABLES: &[&str] = &[
    "PATH",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_PAGER",
    "PAGER",
    "EDITOR",
    "VISUAL",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "NODE_OPTIONS",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "LESSOPEN",
    "HOME",
];

impl Walker<'_> {
    /// Evaluates a word; an unquoted expansion of a known value splits on blanks as
    /// the shell does (`cmd="rm -rf /"; $cmd` runs `rm` with two arguments).
    pub(super) fn split_words(&self, node: Node<'_>) -> Vec<Word> {
        let word = words::eval(node, self.src, self.scope());
        let unquoted_expansion = matches!(node.kind(), "simple_expansion" | "expansion");
        if unquoted_expansion && !word.dynamic && word.text.contains([' ', '\t', '\n']) {
            return word.text.split_whitespace().map(Word::literal).collect();
        }
        vec![word]
    }

    /// Records a standalone `NAME=value`. Only a top-level statement of the command
    /// line certainly runs before what follows it; an assignment anywhere else (a
    /// branch, a loop, a subshell), a second assignment with another value, or a
    /// value only known at run time makes the variable unknown.
    pub(super) fn record_assignment(&mut self, node: Node<'_>) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name).to_string();
        let top_level = node.parent().is_some_and(|p| {
            p.kind() == "program"
                || (p.kind() == "declaration_command"
                    && p.parent().is_some_and(|g| g.kind() == "program"))
        });
        let value = match node.child_by_field_name("value") {
            Some(v) => {
                let w = words::eval(v, self.src, self.scope());
                (!w.dynamic).then_some(w.text)
            }
            None => Some(String::new()),
        };
        let known = self
            .vars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone());
        let value = match known {
            Some(previous) if previous != value => None,
            _ if !top_level => None,
            _ => value,
        };
        self.vars.retain(|(n, _)| *n != name);
        self.vars.push((name, value));
    }

    /// A standalone `NAME=value`: a segment only when it changes what programs run.
    pub(super) fn assignment_segment(&mut self, node: Node<'_>, level: usize) {
        self.walk_children(node, level);
        self.record_assignment(node);
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_default();
        if let Some((risk, reason)) = dangerous_assignment(&name) {
            self.push(Segment {
                text: self.text(node).to_string(),
                argv: vec![self.text(node).to_string()],
                program: String::new(),
                risk,
                reason,
                writes: Vec::new(),
                opaque: false,
                dynamic_args: false,
                depth: self.depth,
            });
        }
    }
}

/// Whether setting this variable changes which programs run or how they start.
pub(in crate::shell) fn is_dangerous_variable(name: &str) -> bool {
    DANGEROUS_VARIABLES.contains(&name) || name.starts_with("BASH_FUNC_")
}

pub(super) fn dangerous_assignment(name: &str) -> Option<(Risk, String)> {
    let dangerous = is_dangerous_variable(name);
    dangerous.then(|| {
        (
            Risk::High,
            format!("Sets {name}, which changes which programs run or how they start."),
        )
    })
}
