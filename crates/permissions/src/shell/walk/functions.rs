//! The functions a command line defines, as a call graph: a function that reaches
//! itself through the functions it calls (`a(){ b|b& }; b(){ a|a& }; a`), by name or
//! through `$FUNCNAME`, and starts processes on the way (a pipeline or `&`) is a fork
//! bomb: Critical. A function that calls itself directly is one in the making, spawning
//! or not (as before).

use crate::Sentence as S;
use tree_sitter::Node;

use super::Walker;
use crate::Risk;

/// One defined function: the programs its body runs, and whether it starts processes
/// of its own (a pipeline or a command in the background).
#[derive(Debug, Clone)]
struct Function {
    /// In lower case: programs are compared in lower case (`walk.rs`), so a cycle
    /// cannot hide behind a name's case.
    name: String,
    /// The name as written, which is what a call must spell.
    written: String,
    calls: Vec<String>,
    spawns: bool,
    /// The body's source text, judged again at each call with the call's arguments.
    body: String,
}

/// The functions defined so far in the line, at most [`MAX_FUNCTIONS`] of them (more
/// are not followed; the graph's search is bounded by its size).
#[derive(Debug, Default, Clone)]
pub(in crate::shell) struct Functions {
    defined: Vec<Function>,
}

const MAX_FUNCTIONS: usize = 64;

/// `$FUNCNAME` and `${FUNCNAME[0]}` name the function they are in.
fn is_funcname(program: &str) -> bool {
    matches!(program, "$FUNCNAME" | "${FUNCNAME}" | "${FUNCNAME[0]}")
        || program.trim_matches('"') == "$FUNCNAME"
}

/// Whether `node` holds a pipeline or a command run in the background.
fn spawns(node: Node<'_>, depth: usize) -> bool {
    if depth > 64 {
        return true;
    }
    if node.kind() == "pipeline" || (!node.is_named() && node.kind() == "&") {
        return true;
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    children.into_iter().any(|c| spawns(c, depth + 1))
}

impl Functions {
    /// The body of the function a call of `written` runs, when the line defined it.
    pub(super) fn body_of(&self, written: &str) -> Option<String> {
        self.defined
            .iter()
            .rev()
            .find(|f| f.written == written)
            .map(|f| f.body.clone())
    }

    /// The functions on a cycle through `start` that starts processes, in call order,
    /// when there is one.
    fn spawning_cycle(&self, start: &str) -> Option<Vec<String>> {
        // Depth-first search over names, with the path kept for the explanation.
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.to_owned(), vec![])];
        let mut seen: Vec<String> = Vec::new();
        while let Some((name, path)) = stack.pop() {
            let Some(f) = self.defined.iter().rev().find(|f| f.name == name) else {
                continue;
            };
            let mut path = path;
            path.push(name.clone());
            for callee in &f.calls {
                if callee == start {
                    let cycle_spawns = path.iter().any(|n| {
                        self.defined
                            .iter()
                            .rev()
                            .find(|f| f.name == *n)
                            .is_some_and(|f| f.spawns)
                    });
                    if cycle_spawns {
                        return Some(path.clone());
                    }
                } else if !seen.contains(callee) {
                    seen.push(callee.clone());
                    stack.push((callee.clone(), path.clone()));
                }
            }
        }
        None
    }
}

impl Walker<'_> {
    /// `f() { ...; }`: its body is judged where it is defined, and it joins the call
    /// graph; a function that calls itself, directly or through others while starting
    /// processes, is a fork bomb.
    pub(super) fn function(&mut self, node: Node<'_>, level: usize) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_default();
        let start = self.segments.len();
        let body = node.child_by_field_name("body");
        if let Some(body) = body {
            self.in_function += 1;
            self.walk(body, level + 1);
            self.in_function -= 1;
        }
        let lower = name.to_ascii_lowercase();
        let calls: Vec<String> = self.segments[start..]
            .iter()
            .map(|s| {
                if is_funcname(&s.program) {
                    lower.clone()
                } else {
                    s.program.to_ascii_lowercase()
                }
            })
            .filter(|p| !p.is_empty())
            .collect();
        if name.is_empty() {
            return;
        }
        // A function named like a program runs instead of it everywhere after.
        if crate::shell::judge::knows(&lower) {
            let text = self.text(node).to_string();
            self.not_modelled("engine-construct-function-like-program", &text);
        }
        let direct = calls.contains(&lower);
        if self.functions.defined.len() < MAX_FUNCTIONS {
            self.functions.defined.push(Function {
                name: lower.clone(),
                written: name.clone(),
                calls,
                spawns: body.is_some_and(|b| spawns(b, 0)),
                body: body.map(|b| self.text(b).to_string()).unwrap_or_default(),
            });
        } else {
            // Past the bound the call graph is not followed: not read, so Critical.
            let msg = format!("the command defines more than {MAX_FUNCTIONS} functions");
            self.unread = true;
            if !self.problems.contains(&msg) {
                self.problems.push(msg);
            }
        }
        let name = lower;
        let reason = if direct {
            Some(S::new("engine-walk-functions-defines-function-name-calls").text("name", name))
        } else {
            self.functions
                .spawning_cycle(&name)
                .map(|cycle| S::new("engine-walk-functions-cycle").text("names", cycle.join(", ")))
        };
        if let Some(reason) = reason {
            let segment = self.segment(self.text(node).to_string(), Risk::Critical, reason);
            self.push(segment);
        }
    }
}

/// The body of a function as called with `args`: `"$@"`, `$*`, `$1`… replaced by the
/// call's words (quoted; a word only known at run time stays an expansion).
pub(super) fn called_body(body: &str, args: &[crate::shell::words::Word]) -> String {
    let quote = |w: &crate::shell::words::Word| {
        if w.dynamic {
            format!("\"{}\"", w.text.replace('"', ""))
        } else {
            format!("'{}'", w.text.replace('\'', "'\\''"))
        }
    };
    let all: Vec<String> = args.iter().map(quote).collect();
    let all = all.join(" ");
    let mut out = body.to_string();
    for pattern in [
        "\"$@\"", "\"${@}\"", "\"$*\"", "\"${*}\"", "$@", "${@}", "$*", "${*}",
    ] {
        out = out.replace(pattern, &all);
    }
    for n in (1..=9).rev() {
        let value = args
            .get(n - 1)
            .map(quote)
            .unwrap_or_else(|| "''".to_string());
        for pattern in [
            format!("\"${n}\""),
            format!("\"${{{n}}}\""),
            format!("${{{n}}}"),
            format!("${n}"),
        ] {
            out = out.replace(&pattern, &value);
        }
    }
    out
}
