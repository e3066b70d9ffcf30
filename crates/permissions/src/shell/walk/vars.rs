//! Variables: the ones the command line sets itself (followed when their value is
//! certain), and standalone assignments that change what later programs run (how
//! each variable is judged is `shell/env.rs`).

use tree_sitter::Node;

use super::Walker;
use crate::shell::Segment;
use crate::shell::dialect::Dialect;
use crate::shell::env::{self, Var};
use crate::shell::words::{self, Word};

impl Walker<'_> {
    /// Evaluates a word; an unquoted expansion of a known value splits on blanks as
    /// the shell does (`cmd="rm -rf /"; $cmd` runs `rm` with two arguments), and a
    /// plain word with braces expands as bash expands it (`~/{.ssh,x}` is `~/.ssh`
    /// and `~/x`), so every path it names is judged.
    pub(super) fn split_words(&self, node: Node<'_>) -> Vec<Word> {
        if self.dialect == Dialect::Bash
            && let Some(expanded) = words::expand_braces(self.text(node))
        {
            return expanded.into_iter().map(Word::literal).collect();
        }
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
        self.note_cd_variable(&name);
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

    /// A standalone `NAME=value` (or `export NAME=value`): a segment only when it
    /// changes what programs run. A variable may already be exported, so a command
    /// variable's value is analysed and a relocating one is High; an unknown one
    /// matters only when `export`ed (then Medium, as for a prefix).
    pub(super) fn assignment_segment(&mut self, node: Node<'_>, level: usize) {
        let start = self.segments.len();
        self.walk_children(node, level);
        self.record_assignment(node);
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_default();
        // `x=$(curl URL)`: the variable holds data from the network from now on.
        if self.network[start..].contains(&true) && !self.tainted.variables.contains(&name) {
            self.tainted.variables.push(name.clone());
        }
        let exported = node.parent().is_some_and(|p| {
            p.kind() == "declaration_command"
                && p.child(0)
                    .is_some_and(|c| matches!(self.text(c), "export" | "declare" | "typeset"))
        });
        let mut segment = Segment {
            argv: vec![self.text(node).to_string()],
            ..self.segment(self.text(node).to_string(), crate::Risk::Low, String::new())
        };
        if env::classify(&name) == Var::Command {
            let value = match node.child_by_field_name("value") {
                Some(v) => words::eval(v, self.src, self.scope()),
                None => Word::literal(""),
            };
            if value.dynamic {
                segment.opaque = true;
                segment.risk = crate::Risk::High;
                segment.reason =
                    crate::Sentence::new("engine-sets-dynamic-command").text("name", name.as_str());
                self.push(segment);
            } else if !value.text.trim().is_empty() {
                segment.reason =
                    crate::Sentence::new("engine-sets-command").text("name", name.as_str());
                let index = self.segments.len();
                self.push(segment);
                self.nested(index, &env::command_script(&name, &value.text), level);
            }
            return;
        }
        if let Some((risk, reason)) = env::setting_risk(&name, exported) {
            segment.risk = risk;
            segment.reason = reason;
            segment.env.push(name);
            self.push(segment);
        }
    }
}

/// Which variables a command assigns in ways the analyser does not follow value by
/// value: after it, their tracked values are stale.
pub(super) enum Assigns {
    /// These names.
    Names(Vec<String>),
    /// Any variable (`eval`, `source`, traps, `let`, `declare`, ...).
    All,
}

/// What `program ARGS` assigns, or `None` when it assigns nothing.
pub(super) fn assigned_by(program: &str, args: &[Word]) -> Option<Assigns> {
    let names = |skip: usize| {
        Assigns::Names(
            args.iter()
                .skip(skip)
                .filter(|a| !a.text.starts_with('-'))
                .map(|a| a.text.split(['[', '=']).next().unwrap_or("").to_string())
                .collect(),
        )
    };
    match program {
        "read" | "mapfile" | "readarray" | "unset" => Some(names(0)),
        "getopts" => {
            let mut n = vec!["OPTARG".to_string(), "OPTIND".to_string()];
            if let Some(name) = args.get(1) {
                n.push(name.text.clone());
            }
            Some(Assigns::Names(n))
        }
        "printf" => {
            let first = args.first()?;
            if first.dynamic {
                return Some(Assigns::All);
            }
            let target = match first.text.strip_prefix("-v")? {
                "" => args.get(1)?.text.clone(),
                rest => rest.to_string(),
            };
            Some(Assigns::Names(vec![
                target.split('[').next().unwrap_or("").to_string(),
            ]))
        }
        "eval" | "source" | "." | "trap" | "let" | "declare" | "typeset" | "export" | "local"
        | "readonly" | "set" | "shopt" | "alias" | "coproc" => Some(Assigns::All),
        _ => None,
    }
}

impl Walker<'_> {
    /// Forgets what the line knew of these variables: they are only known at run time
    /// from now on.
    pub(super) fn forget(&mut self, assigns: Assigns) {
        let names: Vec<String> = match assigns {
            Assigns::Names(names) => names,
            Assigns::All => {
                let mut all: Vec<String> = self.vars.iter().map(|(n, _)| n.clone()).collect();
                all.extend(["HOME".to_string(), "PWD".to_string()]);
                all
            }
        };
        for name in names.into_iter().filter(|n| !n.is_empty()) {
            self.note_cd_variable(&name);
            self.vars.retain(|(n, _)| *n != name);
            self.vars.push((name, None));
        }
    }

    /// Forgets every variable a loop's body may assign, before the body is judged:
    /// the second pass of a loop sees what the first one set.
    pub(super) fn forget_assigned_within(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        let mut names: Vec<String> = Vec::new();
        let mut all = false;
        let mut steps = 0;
        while let Some(n) = stack.pop() {
            steps += 1;
            if steps > 100_000 {
                all = true;
                break;
            }
            match n.kind() {
                "variable_assignment" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        let name = self.text(name);
                        names.push(name.split('[').next().unwrap_or("").to_string());
                    }
                }
                "command" => {
                    let program = n
                        .child_by_field_name("name")
                        .map(|c| self.text(c).to_string())
                        .unwrap_or_default();
                    let program = crate::shell::wrappers::basename(&program).to_string();
                    let mut cursor = n.walk();
                    let args: Vec<Word> = n
                        .children_by_field_name("argument", &mut cursor)
                        .map(|a| {
                            let t = self.text(a);
                            Word {
                                text: t.to_string(),
                                dynamic: t.contains(['$', '`']),
                            }
                        })
                        .collect();
                    match assigned_by(&program, &args) {
                        Some(Assigns::All) => all = true,
                        Some(Assigns::Names(more)) => names.extend(more),
                        None => {}
                    }
                }
                "for_statement" => {
                    if let Some(v) = n.child_by_field_name("variable") {
                        names.push(self.text(v).to_string());
                    }
                }
                "expansion" if self.text(n).contains('=') => all = true,
                "declaration_command"
                | "unset_command"
                | "arithmetic_expansion"
                | "c_style_for_statement"
                | "compound_statement"
                    if n.kind() != "compound_statement" || self.text(n).starts_with("((") =>
                {
                    all = true;
                }
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        if all {
            self.forget(Assigns::All);
        } else {
            self.forget(Assigns::Names(names));
        }
    }
}
