//! Walking the tree-sitter syntax tree: every simple command becomes a segment.

use std::cell::RefCell;
use std::ops::Range;
use std::path::PathBuf;

use tree_sitter::{Node, Parser, Tree};

use super::judge::{self, DOWNLOADERS, Input, Stdin};
use super::normalize::normalize_argv;
use super::words::{self, Scope, Word};
use super::wrappers::{self, basename};
use super::{
    CommandAnalysis, MAX_COMMAND_BYTES, MAX_NESTING, MAX_PARSE_BYTES, MAX_SEGMENTS, Segment,
};
use crate::paths::{FileOp, Resolver, path_risk};
use crate::{Context, Risk};

/// Deeper syntax trees than this are not walked (a hostile `((((((...` would
/// otherwise exhaust the stack).
const MAX_TREE_DEPTH: usize = 200;

/// Folders whose programs are the system's own: `/bin/rm` is `rm`.
const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/usr/local/bin",
    "/sbin",
    "/usr/sbin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "/run/current-system/sw/bin",
];

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

thread_local! {
    /// One parser per thread: creating a parser and loading the grammar costs far
    /// more than parsing a typical command.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    Some(parser)
}

fn parse(src: &str) -> Option<Tree> {
    PARSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = new_parser();
            }
            slot.as_mut()?.parse(src, None)
        }
        // Only reachable if a parse re-entered itself; a fresh parser is correct.
        Err(_) => new_parser()?.parse(src, None),
    })
}

/// Analyses `command` found `depth` levels of `bash -c`/`eval` deep.
///
/// `level` is how deep in syntax trees the caller already is: the bound on tree depth
/// covers the outer command and its inner scripts together, so nesting scripts cannot
/// multiply the stack a hostile command needs.
pub(super) fn analyse_at_depth(
    command: &str,
    ctx: &Context,
    depth: usize,
    level: usize,
) -> CommandAnalysis {
    let mut problems: Vec<String> = Vec::new();
    if command.len() > MAX_PARSE_BYTES {
        return CommandAnalysis {
            risk: Risk::High,
            segments: Vec::new(),
            problem: Some(format!(
                "the command is {} bytes long, too long to analyse (the limit is {MAX_PARSE_BYTES})",
                command.len()
            )),
        };
    }
    if command.len() > MAX_COMMAND_BYTES {
        problems.push(format!(
            "the command is {} bytes long, over the {MAX_COMMAND_BYTES}-byte limit for review",
            command.len()
        ));
    }
    let joined = join_continued_lines(command);
    let command: &str = &joined;
    let Some(tree) = parse(command) else {
        return CommandAnalysis {
            risk: Risk::High,
            segments: Vec::new(),
            problem: Some("the shell parser failed".to_string()),
        };
    };
    let root = tree.root_node();
    let mut walker = Walker {
        src: command,
        ctx: ctx.clone(),
        resolver: Resolver::new(ctx),
        vars: Vec::new(),
        depth,
        segments: Vec::new(),
        problems: Vec::new(),
        stdin: Stdin::Inherited,
    };
    walker.walk(root, level);
    if root.has_error() {
        problems.insert(0, parse_error_message(root, command));
    }
    problems.extend(walker.problems);
    problems.dedup();
    let mut risk = walker
        .segments
        .iter()
        .map(|s| s.risk)
        .max()
        .unwrap_or(Risk::Low);
    let problem = if problems.is_empty() {
        None
    } else {
        Some(problems.join("; "))
    };
    if problem.is_some() || walker.segments.iter().any(|s| s.opaque) {
        risk = risk.max(Risk::High);
    }
    CommandAnalysis {
        risk,
        segments: walker.segments,
        problem,
    }
}

/// Removes backslash-newline pairs outside single quotes, as bash does before it
/// splits words: `r\<newline>m` is `rm`. tree-sitter-bash instead ends the word
/// there, which would hide the program's name.
fn join_continued_lines(command: &str) -> std::borrow::Cow<'_, str> {
    if !command.contains("\\\n") {
        return std::borrow::Cow::Borrowed(command);
    }
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars();
    let mut single = false;
    let mut double = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => {
                single = !single;
                out.push(c);
            }
            '"' if !single => {
                double = !double;
                out.push(c);
            }
            '\\' if !single => match chars.next() {
                Some('\n') => {}
                Some(next) => {
                    out.push(c);
                    out.push(next);
                }
                None => out.push(c),
            },
            _ => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Where the first ERROR or MISSING node is, for the message.
fn parse_error_message(root: Node<'_>, src: &str) -> String {
    let mut stack = vec![root];
    let mut steps = 0;
    while let Some(node) = stack.pop() {
        steps += 1;
        if steps > 100_000 {
            break;
        }
        if node.is_error() || node.is_missing() {
            let at = node.start_byte();
            let snippet: String = src.get(at..).unwrap_or("").chars().take(20).collect();
            return if node.is_missing() {
                format!(
                    "the shell syntax is incomplete (missing `{}` at byte {at})",
                    node.kind()
                )
            } else {
                format!("the shell syntax is invalid near `{snippet}` (byte {at})")
            };
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    "the shell syntax is invalid".to_string()
}

/// What a redirection does.
enum Effect {
    Write(Word),
    Read(Word),
    /// Here-document or here-string text; `None` when only known at run time.
    Stdin(Option<String>),
}

struct Walker<'s> {
    src: &'s str,
    /// The context, with `cwd` following `cd` commands.
    ctx: Context,
    /// The workspace roots, canonicalised once per analysis.
    resolver: Resolver,
    /// Variables this command line sets (see [`Scope::vars`]).
    vars: Vec<(String, Option<String>)>,
    depth: usize,
    segments: Vec<Segment>,
    problems: Vec<String>,
    /// Standard input of the command being walked (set by pipelines).
    stdin: Stdin,
}

impl Walker<'_> {
    fn text(&self, node: Node<'_>) -> &str {
        words::text(node, self.src)
    }

    fn scope(&self) -> Scope<'_> {
        Scope {
            ctx: &self.ctx,
            vars: &self.vars,
        }
    }

    /// Evaluates a word; an unquoted expansion of a known value splits on blanks as
    /// the shell does (`cmd="rm -rf /"; $cmd` runs `rm` with two arguments).
    fn split_words(&self, node: Node<'_>) -> Vec<Word> {
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
    fn record_assignment(&mut self, node: Node<'_>) {
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

    fn full(&mut self) -> bool {
        if self.segments.len() >= MAX_SEGMENTS {
            let msg = format!("the command has more than {MAX_SEGMENTS} parts");
            if !self.problems.contains(&msg) {
                self.problems.push(msg);
            }
            return true;
        }
        false
    }

    fn walk(&mut self, node: Node<'_>, level: usize) {
        if level > MAX_TREE_DEPTH {
            let msg = "the command is nested too deeply".to_string();
            if !self.problems.contains(&msg) {
                self.problems.push(msg);
            }
            return;
        }
        if self.full() {
            return;
        }
        match node.kind() {
            "command" => self.command(node, &[], level),
            "redirected_statement" => {
                let mut cursor = node.walk();
                let redirects: Vec<Node<'_>> = node
                    .children_by_field_name("redirect", &mut cursor)
                    .collect();
                match node.child_by_field_name("body") {
                    Some(body) if body.kind() == "command" => {
                        self.command(body, &redirects, level + 1);
                    }
                    body => {
                        if let Some(body) = body {
                            self.walk(body, level + 1);
                        }
                        self.redirect_only(node, &redirects, level);
                    }
                }
            }
            "subshell" | "command_substitution" | "process_substitution" => {
                // These run in a child shell: a `cd` inside does not leak out, and
                // the input of an outer pipeline does not reach them.
                let saved_cwd = self.ctx.cwd.clone();
                let saved_stdin = std::mem::take(&mut self.stdin);
                if node.kind() == "subshell" {
                    self.stdin = saved_stdin.clone();
                }
                self.walk_children(node, level);
                self.ctx.cwd = saved_cwd;
                self.stdin = saved_stdin;
            }
            "pipeline" => self.pipeline(node, level),
            "function_definition" => self.function(node, level),
            "variable_assignment" => {
                self.assignment_segment(node, level);
            }
            "declaration_command" => {
                let mut cursor = node.walk();
                let assignments: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "variable_assignment")
                    .collect();
                for a in assignments {
                    self.assignment_segment(a, level);
                }
                let mut cursor = node.walk();
                let others: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "variable_assignment")
                    .collect();
                for c in others {
                    self.walk(c, level + 1);
                }
            }
            "comment" => {}
            _ => self.walk_children(node, level),
        }
    }

    fn walk_children(&mut self, node: Node<'_>, level: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children {
            self.walk(child, level + 1);
        }
    }

    /// A pipeline: each stage sees whether an earlier one downloads (for `curl | sh`)
    /// or echoes a static text (for `echo 'rm -rf /' | sh`).
    fn pipeline(&mut self, node: Node<'_>, level: usize) {
        let mut cursor = node.walk();
        let stages: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let outer_stdin = std::mem::take(&mut self.stdin);
        let saved_cwd = self.ctx.cwd.clone();
        let mut download = matches!(outer_stdin, Stdin::Pipe { download: true, .. });
        let mut echo: Option<String> = None;
        for (i, stage) in stages.into_iter().enumerate() {
            self.stdin = if i == 0 {
                outer_stdin.clone()
            } else {
                Stdin::Pipe {
                    download,
                    echo: echo.take(),
                }
            };
            let start = self.segments.len();
            self.walk(stage, level + 1);
            let range = start..self.segments.len();
            download |= self.segments[range.clone()]
                .iter()
                .any(|s| DOWNLOADERS.contains(&s.program.as_str()));
            echo = self.echo_text(range);
            // Every stage of a pipeline runs in its own subshell.
            self.ctx.cwd = saved_cwd.clone();
        }
        self.stdin = outer_stdin;
    }

    /// The static text a stage writes, when it is a lone `echo`/`printf '%s'`.
    fn echo_text(&self, range: Range<usize>) -> Option<String> {
        let [seg] = self.segments.get(range)? else {
            return None;
        };
        if seg.program != "echo" || seg.dynamic_args || seg.opaque {
            return None;
        }
        let args: Vec<&str> = seg
            .argv
            .iter()
            .skip(1)
            .map(String::as_str)
            .skip_while(|a| matches!(*a, "-n" | "-e" | "-E"))
            .collect();
        Some(args.join(" "))
    }

    /// `f() { ...; }`: a function that calls itself is a fork bomb in the making.
    fn function(&mut self, node: Node<'_>, level: usize) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_default();
        let start = self.segments.len();
        if let Some(body) = node.child_by_field_name("body") {
            self.walk(body, level + 1);
        }
        let recursive = self.segments[start..]
            .iter()
            .any(|s| !name.is_empty() && s.program == name);
        if recursive {
            self.push(Segment {
                text: self.text(node).to_string(),
                argv: Vec::new(),
                program: String::new(),
                risk: Risk::Critical,
                reason: format!(
                    "Defines the function {name}, which calls itself: a fork bomb that can bring the machine down."
                ),
                writes: Vec::new(),
                opaque: false,
                dynamic_args: false,
                depth: self.depth,
            });
        }
    }

    fn push(&mut self, segment: Segment) {
        if !self.full() {
            self.segments.push(segment);
        }
    }

    /// A standalone `NAME=value`: a segment only when it changes what programs run.
    fn assignment_segment(&mut self, node: Node<'_>, level: usize) {
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

    /// Redirections of a compound command (`{ ...; } > f`): one segment for them.
    fn redirect_only(&mut self, node: Node<'_>, redirects: &[Node<'_>], level: usize) {
        let mut effects = Vec::new();
        for r in redirects {
            self.walk(*r, level + 1);
            self.effects(*r, &mut effects);
        }
        let mut seg = Segment {
            text: self.text(node).to_string(),
            argv: Vec::new(),
            program: String::new(),
            risk: Risk::Low,
            reason: "Redirects output.".to_string(),
            writes: Vec::new(),
            opaque: false,
            dynamic_args: false,
            depth: self.depth,
        };
        let has_files = effects
            .iter()
            .any(|e| matches!(e, Effect::Write(_) | Effect::Read(_)));
        if has_files {
            self.apply_effects(&effects, &mut seg);
            self.push(seg);
        }
    }

    /// Collects what a redirection node does.
    fn effects(&self, node: Node<'_>, out: &mut Vec<Effect>) {
        match node.kind() {
            "file_redirect" => {
                let mut op = String::new();
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if !child.is_named() {
                        op.push_str(child.kind());
                    }
                }
                let mut cursor = node.walk();
                let dests: Vec<Node<'_>> = node
                    .children_by_field_name("destination", &mut cursor)
                    .collect();
                for dest in dests {
                    let word = words::eval(dest, self.src, self.scope());
                    let dup = matches!(op.as_str(), ">&" | "<&" | ">&-" | "<&-")
                        && (word.text == "-"
                            || (!word.text.is_empty()
                                && word.text.chars().all(|c| c.is_ascii_digit() || c == '-')));
                    if dup {
                        continue;
                    }
                    if op.starts_with('<') && op != "<>" {
                        out.push(Effect::Read(word));
                    } else {
                        out.push(Effect::Write(word));
                    }
                }
            }
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                let mut body_text: Option<String> = Some(String::new());
                for child in children {
                    match child.kind() {
                        "heredoc_body" => {
                            body_text = Some(self.text(child).to_string());
                        }
                        "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                            self.effects(child, out);
                        }
                        _ => {}
                    }
                }
                out.push(Effect::Stdin(body_text));
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                let value = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "file_descriptor")
                    .last();
                let text = value
                    .map(|v| words::eval(v, self.src, self.scope()))
                    .and_then(|w| (!w.dynamic).then_some(w.text));
                out.push(Effect::Stdin(text));
            }
            _ => {}
        }
    }

    /// Judges redirection targets as file reads and writes.
    fn apply_effects(&self, effects: &[Effect], seg: &mut Segment) {
        for effect in effects {
            let (op, word) = match effect {
                Effect::Write(w) => (FileOp::Write, w),
                Effect::Read(w) => (FileOp::Read, w),
                Effect::Stdin(_) => continue,
            };
            if word.dynamic {
                let risk = if op == FileOp::Write {
                    Risk::High
                } else {
                    Risk::Medium
                };
                raise(
                    seg,
                    risk,
                    format!("Redirects to {}, a file only known at run time.", word.text),
                );
                continue;
            }
            let path = self.resolver.resolve(&word.text, &self.ctx);
            if is_harmless_device(&path.lexical) {
                continue;
            }
            let (risk, reason) = path_risk(op, &path);
            raise(seg, risk, reason);
            if op == FileOp::Write {
                seg.writes.push(path);
            }
        }
    }

    /// One simple command.
    fn command(&mut self, node: Node<'_>, redirects: &[Node<'_>], level: usize) {
        let start = self.segments.len();
        // Inner commands first: substitutions in the name, arguments, assignments
        // and redirections are segments of their own.
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let own_stdin = std::mem::take(&mut self.stdin);
        for child in children.iter().chain(redirects.iter()) {
            if child.kind() == "variable_assignment" {
                // A prefix assignment is judged with this command, below; only its
                // value can hold commands of its own.
                self.walk_children(*child, level + 1);
            } else {
                self.walk(*child, level + 1);
            }
        }
        self.stdin = own_stdin;
        let inner: Range<usize> = start..self.segments.len();
        let substituted_download = self.segments[inner]
            .iter()
            .any(|s| DOWNLOADERS.contains(&s.program.as_str()));

        let mut effects = Vec::new();
        let mut cursor = node.walk();
        let own_redirects: Vec<Node<'_>> = node
            .children_by_field_name("redirect", &mut cursor)
            .collect();
        for r in own_redirects.iter().chain(redirects.iter()) {
            self.effects(*r, &mut effects);
        }

        let mut assignments: Vec<String> = Vec::new();
        for child in &children {
            if child.kind() == "variable_assignment"
                && let Some(name) = child.child_by_field_name("name")
            {
                assignments.push(self.text(name).to_string());
            }
        }
        let mut words_: Vec<Word> = Vec::new();
        if let Some(name) = node.child_by_field_name("name") {
            let value = name.named_child(0).unwrap_or(name);
            words_.extend(self.split_words(value));
        }
        let mut cursor = node.walk();
        let args: Vec<Node<'_>> = node
            .children_by_field_name("argument", &mut cursor)
            .collect();
        for arg in args {
            words_.extend(self.split_words(arg));
        }

        let text = match redirects.last() {
            Some(last) => self
                .src
                .get(node.start_byte()..last.end_byte().max(node.end_byte()))
                .unwrap_or("")
                .to_string(),
            None => self.text(node).to_string(),
        };
        self.simple(
            text,
            assignments,
            words_,
            effects,
            substituted_download,
            level,
        );
    }

    /// Builds and judges the segment of one simple command from its words.
    fn simple(
        &mut self,
        text: String,
        mut assignments: Vec<String>,
        words_: Vec<Word>,
        effects: Vec<Effect>,
        substituted_download: bool,
        level: usize,
    ) {
        let mut seg = Segment {
            text,
            argv: Vec::new(),
            program: String::new(),
            risk: Risk::Low,
            reason: String::new(),
            writes: Vec::new(),
            opaque: false,
            dynamic_args: false,
            depth: self.depth,
        };
        let unwrapped = wrappers::unwrap(&words_);
        assignments.extend(
            unwrapped
                .assignments
                .iter()
                .filter_map(|a| a.split_once('=').map(|(n, _)| n.to_string())),
        );
        let inner: Vec<Word> = if unwrapped.xargs && unwrapped.start >= words_.len() {
            vec![Word::literal("echo")]
        } else {
            words_.get(unwrapped.start..).unwrap_or(&[]).to_vec()
        };
        seg.dynamic_args = inner.iter().skip(1).any(|w| w.dynamic);
        let mut scripts: Vec<String> = Vec::new();

        if let Some(problem) = &unwrapped.problem {
            seg.opaque = true;
            raise(&mut seg, Risk::High, format!("{}.", capitalise(problem)));
        }
        if let Some(split) = &unwrapped.split_string {
            if split.dynamic {
                seg.opaque = true;
                raise(
                    &mut seg,
                    Risk::High,
                    "Runs env -S with a command only known at run time.",
                );
            } else {
                scripts.push(split.text.clone());
                raise(
                    &mut seg,
                    Risk::Low,
                    "Runs env -S, whose command is judged on its own.",
                );
            }
        }

        if let Some((program_word, args)) = inner.split_first() {
            if program_word.dynamic {
                seg.opaque = true;
                seg.program = program_word.text.clone();
                seg.argv = inner.iter().map(|w| w.text.clone()).collect();
                let download = substituted_download;
                raise(
                    &mut seg,
                    if download { Risk::Critical } else { Risk::High },
                    format!(
                        "The program to run, {}, is only known at run time.",
                        program_word.text
                    ),
                );
                // `$SHELL -c '...'`: the program is unknown, but a `-c` script is
                // still worth judging, since it is likely a shell's.
                if let Some(pos) = args.iter().position(|a| a.text == "-c")
                    && let Some(script) = args.get(pos + 1).filter(|w| !w.dynamic)
                {
                    scripts.push(script.text.clone());
                }
            } else {
                let written = program_word.text.as_str();
                // Judged in lower case: on a case-insensitive file system (macOS by
                // default) `RM` runs `rm`.
                let name = basename(written).to_ascii_lowercase();
                let system_path = is_system_program(written);
                let argv0 = if system_path {
                    name.clone()
                } else {
                    written.to_string()
                };
                let stdin = match effects.iter().rev().find_map(|e| match e {
                    Effect::Stdin(t) => Some(t.clone()),
                    _ => None,
                }) {
                    Some(text) => Stdin::Text(text),
                    None => self.stdin.clone(),
                };
                // `env -C DIR prog`: prog's relative paths land in DIR.
                let moved_ctx = unwrapped.chdir.as_ref().map(|dir| {
                    let mut ctx = self.ctx.clone();
                    ctx.cwd = if dir.dynamic {
                        PathBuf::from("/")
                    } else {
                        self.resolver.resolve(&dir.text, &self.ctx).lexical
                    };
                    ctx
                });
                let verdict = judge::judge(&Input {
                    program: &name,
                    args,
                    ctx: moved_ctx.as_ref().unwrap_or(&self.ctx),
                    resolver: &self.resolver,
                    xargs: unwrapped.xargs,
                    stdin: &stdin,
                    substituted_download,
                });
                raise(&mut seg, verdict.risk, verdict.reason);
                seg.writes.extend(verdict.writes);
                seg.opaque |= verdict.opaque;
                scripts.extend(verdict.scripts);
                if !system_path {
                    raise(
                        &mut seg,
                        Risk::High,
                        format!("Runs {written}, a program outside the standard system folders."),
                    );
                }
                let mut argv = vec![argv0];
                argv.extend(args.iter().map(|w| w.text.clone()));
                seg.argv = normalize_argv(&argv);
                seg.program = name.clone();
                self.track_cd(&name, args);
            }
        } else if seg.reason.is_empty() {
            seg.reason = "Sets variables only.".to_string();
        }

        for name in &assignments {
            if let Some((risk, reason)) = dangerous_assignment(name) {
                raise(&mut seg, risk, reason);
            }
        }
        self.apply_effects(&effects, &mut seg);
        if seg.reason.is_empty() {
            seg.reason = format!("Runs {}.", seg.program);
        }
        if inner.is_empty()
            && effects.iter().all(|e| matches!(e, Effect::Stdin(_)))
            && seg.risk == Risk::Low
            && scripts.is_empty()
        {
            // Only harmless assignments: nothing runs.
            return;
        }

        let index = self.segments.len();
        self.push(seg);
        for script in scripts {
            self.nested(index, &script, level);
        }
    }

    /// Analyses a script run by segment `index` (`bash -c`, `eval`, ...) and adds its
    /// segments; the running segment takes the script's risk.
    fn nested(&mut self, index: usize, script: &str, level: usize) {
        if self.depth + 1 > MAX_NESTING {
            let msg = format!("scripts are nested more than {MAX_NESTING} levels deep");
            if !self.problems.contains(&msg) {
                self.problems.push(msg);
            }
            if let Some(seg) = self.segments.get_mut(index) {
                seg.opaque = true;
                raise(
                    seg,
                    Risk::High,
                    "Runs a script nested too deeply to analyse.",
                );
            }
            return;
        }
        let analysis = analyse_at_depth(script, &self.ctx, self.depth + 1, level + 1);
        if let Some(problem) = &analysis.problem {
            let msg = format!("in an inner script: {problem}");
            if !self.problems.contains(&msg) {
                self.problems.push(msg);
            }
        }
        if let Some(seg) = self.segments.get_mut(index) {
            let inner_reason = analysis
                .deciding_segment()
                .map(|s| s.reason.clone())
                .unwrap_or_default();
            if analysis.risk > seg.risk {
                seg.risk = analysis.risk;
                seg.reason = format!("Runs a script that {}", lower_first(&inner_reason));
            }
        }
        for s in analysis.segments.into_iter() {
            self.push(s);
        }
    }

    /// Follows `cd`: later relative paths resolve against the new folder. A folder we
    /// cannot know makes the cwd `/`, so relative paths count as outside the
    /// workspace.
    fn track_cd(&mut self, program: &str, args: &[Word]) {
        if !matches!(program, "cd" | "pushd" | "popd") {
            return;
        }
        let target = args.iter().find(|a| a.dynamic || !a.text.starts_with('-'));
        let new_cwd: PathBuf = match (program, target) {
            ("cd" | "pushd", Some(t)) if !t.dynamic && t.text != "-" => {
                self.resolver.resolve(&t.text, &self.ctx).lexical
            }
            ("cd", None) => self.ctx.home.clone().unwrap_or_else(|| PathBuf::from("/")),
            _ => PathBuf::from("/"),
        };
        self.ctx.cwd = new_cwd;
    }
}

fn raise(seg: &mut Segment, risk: Risk, reason: impl Into<String>) {
    if risk > seg.risk || seg.reason.is_empty() {
        seg.risk = risk;
        seg.reason = reason.into();
    }
}

/// Whether setting this variable changes which programs run or how they start.
pub(super) fn is_dangerous_variable(name: &str) -> bool {
    DANGEROUS_VARIABLES.contains(&name) || name.starts_with("BASH_FUNC_")
}

fn dangerous_assignment(name: &str) -> Option<(Risk, String)> {
    let dangerous = is_dangerous_variable(name);
    dangerous.then(|| {
        (
            Risk::High,
            format!("Sets {name}, which changes which programs run or how they start."),
        )
    })
}

fn is_system_program(written: &str) -> bool {
    match written.rsplit_once('/') {
        None => true,
        Some((dir, _)) => SYSTEM_BIN_DIRS.contains(&dir),
    }
}

fn is_harmless_device(path: &std::path::Path) -> bool {
    const HARMLESS: &[&str] = &[
        "/dev/null",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/stdin",
        "/dev/tty",
        "/dev/zero",
    ];
    HARMLESS.iter().any(|h| path == std::path::Path::new(h)) || path.starts_with("/dev/fd")
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
