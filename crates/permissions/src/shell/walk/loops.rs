//! Loops, and redirections the grammar hangs on a whole list.
//!
//! A `for` loop over words whose values are known (`for f in a b src/*.rs`) is
//! judged once per value, with the loop variable pinned to it, so its body is as
//! modelled as the same commands written out. Any other loop has every variable its
//! body assigns forgotten first (a second pass sees what the first one set), and a
//! loop that keeps starting processes in the background (`while true; do sh -c : &
//! done`) is a process flood: Critical.

use tree_sitter::Node;

use super::Walker;
use super::vars::Assigns;
use crate::Risk;
use crate::shell::words::Word;

/// Loops over more values than this are judged once, with the variable unknown.
const MAX_LOOP_VALUES: usize = 8;

/// Whether `node` runs a command in the background (`cmd &`).
fn backgrounds(node: Node<'_>) -> bool {
    let mut stack = vec![node];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 100_000 || (!n.is_named() && n.kind() == "&") {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    false
}

impl Walker<'_> {
    /// `for NAME in WORDS; do BODY; done` (and `select`).
    pub(super) fn for_loop(&mut self, node: Node<'_>, level: usize) {
        let select = node.child(0).is_some_and(|k| self.text(k) == "select");
        let var = node
            .child_by_field_name("variable")
            .map(|v| self.text(v).to_string());
        let mut cursor = node.walk();
        let value_nodes: Vec<Node<'_>> =
            node.children_by_field_name("value", &mut cursor).collect();
        // Substitutions among the values are commands of their own.
        for v in &value_nodes {
            self.walk(*v, level + 1);
        }
        let values: Vec<Word> = value_nodes
            .iter()
            .flat_map(|v| self.split_words(*v))
            .collect();
        self.forget_assigned_within(node);
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        let pinned = !select
            && !values.is_empty()
            && values.len() <= MAX_LOOP_VALUES
            && values.iter().all(|w| !w.dynamic);
        match var {
            Some(var) if pinned => {
                for value in values {
                    self.vars.retain(|(n, _)| *n != var);
                    self.vars.push((var.clone(), Some(value.text)));
                    self.walk(body, level + 1);
                    // What one pass set is stale for the next.
                    self.forget_assigned_within(body);
                }
                self.forget(Assigns::Names(vec![var]));
            }
            _ => self.walk(body, level + 1),
        }
    }

    /// `while`/`until` and `for ((…))` loops: their body runs any number of times.
    pub(super) fn loop_statement(&mut self, node: Node<'_>, level: usize) {
        self.forget_assigned_within(node);
        self.walk_children(node, level);
        let body = node.child_by_field_name("body");
        if body.is_some_and(backgrounds) {
            let segment = self.segment(
                self.text(node).to_string(),
                Risk::Critical,
                crate::Sentence::new("engine-process-flood"),
            );
            self.push(segment);
        }
    }

    /// A list with redirections (`true && sh <<'EOF' … EOF`): bash gives them to the
    /// list's last command, so that command is judged with them (a here-document is
    /// its standard input).
    pub(super) fn list_redirected(&mut self, list: Node<'_>, redirects: &[Node<'_>], level: usize) {
        let mut cursor = list.walk();
        let parts: Vec<Node<'_>> = list.named_children(&mut cursor).collect();
        let Some((last, first)) = parts.split_last() else {
            return;
        };
        for part in first {
            self.walk(*part, level + 1);
        }
        match last.kind() {
            "command" => self.command(*last, redirects, level + 1),
            "list" => self.list_redirected(*last, redirects, level + 1),
            _ => {
                self.walk(*last, level + 1);
                self.redirect_only(*last, redirects, level);
            }
        }
    }
}
