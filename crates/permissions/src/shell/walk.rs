//! Walking the tree-sitter syntax tree: every simple command becomes a segment.

mod cwd;
mod functions;
mod loops;
mod modelled;
mod parse;
mod plain;
mod redirect;
mod simple;
mod vars;

use crate::Sentence as S;
use std::ops::Range;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use parse::{join_continued_lines, parse, parse_error_message};

use super::dialect::Dialect;
use super::judge::{self, DOWNLOADERS, INTERPRETERS, PATTERN_READERS, READERS, SHELLS, Stdin};
use super::options;
use super::provenance::{self, Provenance, Tainted, UNPACKERS};
use super::words::{self, Scope, Word};
use super::wrappers::basename;
use super::{
    CommandAnalysis, MAX_COMMAND_BYTES, MAX_NESTING, MAX_PARSE_BYTES, MAX_SEGMENTS, Segment,
};
use crate::paths::Resolver;
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
    analyse_with(
        command,
        ctx,
        depth,
        level,
        plain::plain_words,
        Dialect::Bash,
        Outer::default(),
    )
    .0
}

/// Analyses a whole command line as `dialect` reads it.
pub(super) fn analyse_in_dialect(
    command: &str,
    ctx: &Context,
    dialect: Dialect,
) -> CommandAnalysis {
    analyse_with(
        command,
        ctx,
        0,
        0,
        plain::plain_words,
        dialect,
        Outer::default(),
    )
    .0
}

/// What a script gets from the command line that runs it.
#[derive(Debug)]
pub(super) struct Outer {
    /// Its standard input.
    pub stdin: Stdin,
    /// The files and folders (and, for `eval` and `source`, variables) that hold data
    /// from the network: files are shared by every shell.
    pub tainted: Tainted,
    /// The functions the line defined so far: `eval` and `source` define them in the
    /// same shell, so a cycle split across several is still one cycle.
    pub functions: functions::Functions,
    /// Whether calls of those functions are judged as their bodies.
    pub expand_calls: bool,
}

impl Default for Outer {
    fn default() -> Outer {
        Outer {
            stdin: Stdin::default(),
            tainted: Tainted::default(),
            functions: functions::Functions::default(),
            expand_calls: true,
        }
    }
}

/// [`analyse_at_depth`], with the reader of plain commands given (the tests pass one
/// that reads none, to compare with the parser), and the folder the shell is in at
/// the end and what then holds data from the network.
fn analyse_with(
    command: &str,
    ctx: &Context,
    depth: usize,
    level: usize,
    plain_words: fn(&str) -> Option<Vec<Word>>,
    dialect: Dialect,
    outer: Outer,
) -> (CommandAnalysis, PathBuf, Tainted, functions::Functions) {
    // Where the shell is when Warden cannot know (see `cwd.rs`).
    let unknown = PathBuf::from("/");
    let mut problems: Vec<String> = Vec::new();
    if command.len() > MAX_PARSE_BYTES {
        let analysis = CommandAnalysis {
            risk: Risk::Critical,
            segments: Vec::new(),
            problem: Some(format!(
                "the command is {} bytes long, too long to analyse (the limit is {MAX_PARSE_BYTES})",
                command.len()
            )),
        };
        return (analysis, unknown, outer.tainted, outer.functions);
    }
    if command.len() > MAX_COMMAND_BYTES {
        problems.push(format!(
            "the command is {} bytes long, over the {MAX_COMMAND_BYTES}-byte limit for review",
            command.len()
        ));
    }
    let joined = join_continued_lines(command);
    let command: &str = &joined;
    let mut walker = Walker::new(command, ctx, depth, dialect, outer);
    // The fast way is only for a command well within the bound on tree depth: the
    // parser's tree puts a simple command's words three levels below the program node
    // (program, command, command_name, word), and past the bound the walk reports the
    // command as nested too deeply.
    let plain = if level + 3 <= MAX_TREE_DEPTH {
        plain_words(command)
    } else {
        None
    };
    if let Some(words) = plain {
        // The level is the one the parser's tree gives a simple command: one below
        // the program node.
        let text = plain::span(command).to_string();
        walker.simple(text, Vec::new(), words, Vec::new(), false, level + 1);
    } else {
        let Some(tree) = parse(command) else {
            let analysis = CommandAnalysis {
                risk: Risk::Critical,
                segments: Vec::new(),
                problem: Some("the shell parser failed".to_string()),
            };
            return (analysis, unknown, walker.tainted, walker.functions);
        };
        let root = tree.root_node();
        walker.walk(root, level);
        if root.has_error() {
            problems.insert(0, parse_error_message(root, command));
            walker.unread = true;
        }
    }
    walker.secrets_leaving();
    for segment in std::mem::take(&mut walker.unmodelled) {
        walker.push(segment);
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
    if problem.is_some() {
        risk = risk.max(Risk::High);
    }
    // Past the analysis horizon (a parse error, a limit on size, parts, tree depth or
    // nesting, a program only known at run time) the engine has not read what runs:
    // Critical, so that no mode runs it unasked and modes that cannot ask deny it.
    if walker.unread || walker.segments.iter().any(|s| s.opaque) {
        risk = Risk::Critical;
    }
    // What was not read may have moved the shell anywhere.
    let cwd = if walker.unread {
        unknown
    } else {
        walker.ctx.cwd
    };
    let analysis = CommandAnalysis {
        risk,
        segments: walker.segments,
        problem,
    };
    (analysis, cwd, walker.tainted, walker.functions)
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
    /// Some of the command was not analysed: a parse error or a limit on parts, tree
    /// depth or nesting was reached. What was not read is Critical (fail closed).
    unread: bool,
    /// Standard input of the command being walked (set by pipelines).
    stdin: Stdin,
    /// Standard input of the scripts a command runs (`curl URL | bash -c 'sh'`: the
    /// inner `sh` reads the download), set before they are analysed.
    script_stdin: Stdin,
    /// The files, folders and variables of this command line that hold data from the
    /// network (see `provenance.rs`).
    tainted: Tainted,
    /// For each segment: whether what it writes comes from the network.
    network: Vec<bool>,
    /// What moves the shell's folder besides `cd` itself (`cwd.rs`).
    place: cwd::Place,
    /// How words are read (`dialect.rs`): bash expands braces, sh does not.
    dialect: Dialect,
    /// The functions this command line defines, as a call graph (`functions.rs`).
    functions: functions::Functions,
    /// For each segment: whether it reads or prints what may be secrets.
    secrets: Vec<bool>,
    /// Constructs the analyser does not model, one segment each (`modelled.rs`),
    /// added after the walk.
    unmodelled: Vec<Segment>,
    /// How many function bodies the walk is inside: calls there are not expanded
    /// (the call graph is judged by `functions.rs`).
    in_function: usize,
    /// Calls of the line's functions are judged as their bodies (off inside such a
    /// body, so that mutual recursion does not multiply the work).
    expand_calls: bool,
    /// A call's body is being analysed (see `expand_calls`).
    calling: bool,
    /// The command being judged has `PATH` set for it with a relative or empty entry.
    path_relative: bool,
    /// Files this line wrote with a text Warden knows (`echo 'ls' > s.sh`): a shell
    /// that runs one later runs that text, which is judged as its script.
    written_texts: Vec<(PathBuf, String)>,
    /// Build entry files (`Makefile`, `build.rs`, ...) the line wrote.
    entry_files: Vec<PathBuf>,
}

impl<'a> Walker<'a> {
    /// A walker of `src` at this depth of nesting, in the shell state the outer
    /// command leaves it.
    fn new(
        src: &'a str,
        ctx: &Context,
        depth: usize,
        dialect: Dialect,
        outer: Outer,
    ) -> Walker<'a> {
        Walker {
            src,
            ctx: ctx.clone(),
            resolver: Resolver::new(ctx),
            vars: Vec::new(),
            depth,
            segments: Vec::new(),
            problems: Vec::new(),
            unread: false,
            stdin: outer.stdin,
            script_stdin: Stdin::Inherited,
            tainted: outer.tainted,
            network: Vec::new(),
            place: cwd::Place::default(),
            dialect,
            functions: outer.functions,
            secrets: Vec::new(),
            unmodelled: Vec::new(),
            in_function: 0,
            expand_calls: outer.expand_calls,
            calling: false,
            path_relative: false,
            written_texts: Vec::new(),
            entry_files: Vec::new(),
        }
    }
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

    fn full(&mut self) -> bool {
        if self.segments.len() >= MAX_SEGMENTS {
            let msg = format!("the command has more than {MAX_SEGMENTS} parts");
            self.unread = true;
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
            self.unread = true;
            if !self.problems.contains(&msg) {
                self.problems.push(msg);
            }
            return;
        }
        if self.full() {
            return;
        }
        // The one place that asks whether the walk models this piece of syntax.
        if node.is_named() {
            if let Some(why) = modelled::misread(node, self.src) {
                let msg = format!("the parser misreads {why}");
                self.unread = true;
                if !self.problems.contains(&msg) {
                    self.problems.push(msg);
                }
            }
            self.check_modelled(node);
        }
        match node.kind() {
            "command" => self.command(node, &[], level),
            "for_statement" => self.for_loop(node, level),
            "while_statement" | "c_style_for_statement" => self.loop_statement(node, level),
            "unset_command" => {
                let mut cursor = node.walk();
                let names: Vec<String> = node
                    .named_children(&mut cursor)
                    .map(|c| self.text(c).to_string())
                    .collect();
                self.walk_children(node, level);
                self.forget(vars::Assigns::Names(names));
            }
            "redirected_statement" => {
                let mut cursor = node.walk();
                let redirects: Vec<Node<'_>> = node
                    .children_by_field_name("redirect", &mut cursor)
                    .collect();
                match node.child_by_field_name("body") {
                    Some(body) if body.kind() == "command" => {
                        self.command(body, &redirects, level + 1);
                    }
                    // `a && sh <<EOF`: the grammar hangs the redirections on the
                    // whole list, bash gives them to its last command.
                    Some(body) if body.kind() == "list" => {
                        self.list_redirected(body, &redirects, level + 1);
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
                // These run in a child shell: a `cd` inside does not leak out. They
                // read the command's own input (`curl URL | eval "$(cat)"` evaluates
                // the download), so the input stays as it is.
                let saved_cwd = self.ctx.cwd.clone();
                let saved_stdin = self.stdin.clone();
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
                for c in others.iter() {
                    self.walk(*c, level + 1);
                }
                self.declaration(node, &others);
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

    /// A pipeline: each stage reads what the stage before it writes, with its
    /// provenance (a download, a known text, something made at run time).
    fn pipeline(&mut self, node: Node<'_>, level: usize) {
        let mut cursor = node.walk();
        let stages: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        let outer_stdin = std::mem::take(&mut self.stdin);
        let saved_cwd = self.ctx.cwd.clone();
        let mut output = Provenance::Plain;
        for (i, stage) in stages.into_iter().enumerate() {
            let stdin = if i == 0 {
                outer_stdin.clone()
            } else {
                Stdin::Pipe(std::mem::take(&mut output))
            };
            self.stdin = stdin.clone();
            let start = self.segments.len();
            self.walk(stage, level + 1);
            output = self.stage_output(start..self.segments.len(), &stdin);
            // Every stage of a pipeline runs in its own subshell.
            self.ctx.cwd = saved_cwd.clone();
        }
        self.stdin = outer_stdin;
    }

    /// What a pipeline stage made of the segments in `range` writes: data from the
    /// network when any of them writes such data; the text of a lone `echo`/`printf`
    /// of literals; what it was given for `cat` and `tee` without files; `Plain` for
    /// a reader of files; and otherwise something made at run time.
    fn stage_output(&self, range: Range<usize>, stdin: &Stdin) -> Provenance {
        if self
            .network
            .get(range.clone())
            .is_some_and(|n| n.contains(&true))
        {
            return Provenance::Network;
        }
        let [seg] = self.segments.get(range).unwrap_or(&[]) else {
            return Provenance::Unseen;
        };
        if seg.opaque {
            return Provenance::Unseen;
        }
        let args: Vec<&str> = seg.argv.iter().skip(1).map(String::as_str).collect();
        match seg.program.as_str() {
            "echo" | "printf" if seg.dynamic_args => Provenance::Unseen,
            "echo" => provenance::echo_texts(&args).map_or(Provenance::Unseen, Provenance::Known),
            "printf" => match args.split_first() {
                Some((format, rest)) if !format.starts_with('-') => {
                    provenance::printf_text(format, rest)
                        .map_or(Provenance::Unseen, |t| Provenance::Known(vec![t]))
                }
                _ => Provenance::Unseen,
            },
            "cat" | "tee" if seg.reads.is_empty() && !seg.dynamic_args => match stdin {
                Stdin::Pipe(p) => p.clone(),
                Stdin::Text(Some(t)) => Provenance::Known(vec![t.clone()]),
                Stdin::Text(None) => Provenance::Unseen,
                Stdin::Inherited => Provenance::Plain,
            },
            "find"
                if seg.risk == Risk::Low
                    && !seg.dynamic_args
                    && !seg.argv.iter().any(|a| {
                        a.starts_with("-exec")
                            || a.starts_with("-ok")
                            || a.starts_with("-fprint")
                            || a.starts_with("-fls")
                            || a == "-delete"
                    }) =>
            {
                Provenance::Found
            }
            p if (READERS.contains(&p) || PATTERN_READERS.contains(&p))
                && !seg.reads.is_empty()
                && !seg.dynamic_args =>
            {
                Provenance::Plain
            }
            _ => Provenance::Unseen,
        }
    }

    /// `export`, `declare -p`, `readonly`, ... without assignments print variables;
    /// the words other than assignments are `others`.
    fn declaration(&mut self, node: Node<'_>, others: &[Node<'_>]) {
        let Some(keyword) = node.child(0).map(|k| self.text(k).to_string()) else {
            return;
        };
        let args: Vec<Word> = others
            .iter()
            .flat_map(|c| match c.kind() {
                // A name to declare or print, not an expansion.
                "variable_name" => vec![Word::literal(self.text(*c))],
                _ => self.split_words(*c),
            })
            .collect();
        let mut cursor = node.walk();
        let has_assignment = node
            .named_children(&mut cursor)
            .any(|c| c.kind() == "variable_assignment");
        if has_assignment && args.iter().all(|a| !a.text.starts_with('-')) {
            return;
        }
        if let Some(reason) = judge::prints_secrets(&keyword, &args) {
            let mut argv = vec![keyword.clone()];
            argv.extend(args.iter().map(|w| w.text.clone()));
            let segment = Segment {
                argv,
                program: keyword,
                dynamic_args: args.iter().any(|a| a.dynamic),
                ..self.segment(self.text(node).to_string(), Risk::Medium, reason)
            };
            self.push_with(segment, false, true);
        }
    }

    /// A segment at the walker's depth with the given text, risk and reason, and
    /// nothing else known yet: no argv, program, writes or variables.
    fn segment(&self, text: String, risk: Risk, reason: impl Into<crate::Sentence>) -> Segment {
        Segment {
            text,
            argv: Vec::new(),
            program: String::new(),
            risk,
            own_risk: None,
            reason: reason.into(),
            writes: Vec::new(),
            reads: Vec::new(),
            opaque: false,
            dynamic_args: false,
            depth: self.depth,
            env: Vec::new(),
        }
    }

    fn push(&mut self, segment: Segment) {
        self.push_with(segment, false, false);
    }

    /// Pushes a segment, with whether what it writes comes from the network and
    /// whether it reads what may be secrets.
    fn push_with(&mut self, mut segment: Segment, network: bool, secrets: bool) {
        // An opaque segment runs something the engine cannot see: it is past the
        // analysis horizon, so Critical whatever else it does.
        if segment.opaque && segment.risk < Risk::Critical {
            segment.risk = Risk::Critical;
            segment.own_risk = None;
            segment.reason =
                crate::Sentence::new("engine-opaque").sentence("reason", segment.reason);
        }
        if !self.full() {
            self.segments.push(segment);
            self.network.push(network);
            self.secrets.push(secrets);
        }
    }

    /// One simple command.
    fn command(&mut self, node: Node<'_>, redirects: &[Node<'_>], level: usize) {
        let start = self.segments.len();
        // Inner commands first: substitutions in the name, arguments, assignments
        // and redirections are segments of their own.
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        // Substitutions in the words read the command's own input.
        let own_stdin = self.stdin.clone();
        // `curl URL > >(sh)`: what a downloader writes into an output process
        // substitution is that command's input.
        let downloads = node
            .child_by_field_name("name")
            .map(|n| basename(self.text(n)).to_ascii_lowercase())
            .is_some_and(|name| DOWNLOADERS.contains(&name.as_str()));
        for child in children.iter().chain(redirects.iter()) {
            if downloads && self.text(*child).contains(">(") {
                self.stdin = Stdin::Pipe(Provenance::Network);
            }
            if child.kind() == "variable_assignment" {
                // A prefix assignment is judged with this command, below; only its
                // value can hold commands of its own.
                self.walk_children(*child, level + 1);
            } else {
                self.walk(*child, level + 1);
            }
            self.stdin = own_stdin.clone();
        }
        self.stdin = own_stdin;
        let inner: Range<usize> = start..self.segments.len();
        let mut substituted_download = self.network[inner].contains(&true);

        let mut effects = Vec::new();
        let mut cursor = node.walk();
        let own_redirects: Vec<Node<'_>> = node
            .children_by_field_name("redirect", &mut cursor)
            .collect();
        for r in own_redirects.iter().chain(redirects.iter()) {
            self.effects(*r, &mut effects);
        }

        let mut assignments: Vec<(String, Word)> = Vec::new();
        for child in &children {
            if child.kind() == "variable_assignment"
                && let Some(name) = child.child_by_field_name("name")
            {
                let value = match child.child_by_field_name("value") {
                    Some(v) => words::eval(v, self.src, self.scope()),
                    None => Word::literal(""),
                };
                assignments.push((self.text(name).to_string(), value));
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
        substituted_download |= words_
            .iter()
            .chain(assignments.iter().map(|(_, w)| w))
            .any(|w| w.dynamic && self.tainted.mentions_variable(&w.text));

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

    /// A command that reads a secret and also talks to the network can send the secret
    /// out (`git fetch origin "$(printenv GITHUB_TOKEN)"`): every part that contacts
    /// the network is then at least High, whatever it would be on its own.
    fn secrets_leaving(&mut self) {
        if !self.secrets.contains(&true) {
            return;
        }
        let leaving = self
            .segments
            .iter()
            .zip(&self.network)
            .find(|(seg, network)| {
                let program = seg.program.as_str();
                let sub = seg.argv.get(1).map_or("", String::as_str);
                let egress = **network
                    || judge::NETWORK.contains(&program)
                    || (program == "git"
                        && matches!(
                            sub,
                            "fetch"
                                | "pull"
                                | "push"
                                | "clone"
                                | "ls-remote"
                                | "archive"
                                | "submodule"
                        ))
                    || matches!(
                        program,
                        "npm" | "pnpm" | "yarn" | "bun" | "pip" | "pip3" | "uv" | "cargo" | "gem"
                    );
                egress && seg.risk < Risk::High
            })
            .map(|(seg, _)| (seg.text.clone(), seg.program.clone()));
        // A part of its own rather than a raised egress part: the egress part stays
        // what it is for the rules that match it, and the command as a whole is at
        // least High.
        if let Some((text, program)) = leaving {
            let segment = self.segment(
                text,
                Risk::High,
                S::new("engine-walk-program-contacts-network-command").text("program", program),
            );
            self.push(segment);
        }
    }

    /// Whether the file `raw` names (relative to the shell's folder) holds data this
    /// command line downloaded.
    fn holds_network_data(&self, raw: &str) -> bool {
        // Lexically, without the disk: the files were written by this very line, so
        // they need not exist yet, and this is asked of every argument after a
        // download.
        if self.tainted.is_empty() {
            return false;
        }
        let ctx = &self.ctx;
        // `/proc/self/cwd/x` (and any process's `cwd`) is the shell's folder.
        let raw = match raw.strip_prefix("/proc/") {
            Some(rest) => match rest.split_once("/cwd") {
                Some((_, after)) if after.is_empty() || after.starts_with('/') => {
                    format!("./{}", after.trim_start_matches('/'))
                }
                _ => raw.to_string(),
            },
            None => raw.to_string(),
        };
        let raw = raw.as_str();
        let absolute = warden_paths::absolute(&ctx.cwd, ctx.home.as_deref(), Path::new(raw));
        self.tainted
            .holds(&crate::paths::normalize_lexically(&absolute))
    }

    /// Follows data from the network through a simple command `name` (written as
    /// `written`): running a downloaded file is Critical, a program that reads network
    /// data writes network data (its output, and the files it writes), and a download
    /// whose file names Warden cannot tell marks the folder it writes into.
    fn follow_network_data(
        &mut self,
        seg: &mut Segment,
        name: &str,
        written: &str,
        args: &[Word],
        socket: bool,
        network: &mut bool,
    ) {
        let interpreter = SHELLS.contains(&name)
            || INTERPRETERS.contains(&name)
            || name.starts_with("python3.")
            || matches!(name, "source" | ".");
        if socket && interpreter {
            raise(
                seg,
                Risk::Critical,
                S::new("engine-walk-connects-name-network-socket").text("name", name),
            );
        }
        if !self.tainted.is_empty() {
            // `PATH=.:$PATH x`: a bare name may be a file of the shell's folder.
            let path_has_cwd = self.vars.iter().any(|(n, v)| {
                n == "PATH"
                    && v.as_ref()
                        .is_none_or(|v| v.split(':').any(|d| d.is_empty() || !d.starts_with('/')))
            }) || self.path_relative;
            if (!is_system_program(written) || (path_has_cwd && !written.contains('/')))
                && self.holds_network_data(written)
            {
                raise_around(
                    seg,
                    Risk::Critical,
                    S::new("engine-walk-written-this-command-downloaded").text("written", written),
                );
            }
            let consumed = args
                .iter()
                .filter(|a| !a.dynamic && !a.text.starts_with('-'))
                .map(|a| a.text.strip_prefix("if=").unwrap_or(&a.text).to_string())
                .find(|a| self.holds_network_data(a));
            // A program that writes files its arguments name in ways Warden does not
            // list (`sed 'w FILE'`, awk's `print > FILE`, a script) copies the data
            // anywhere in the shell's folder.
            if consumed.is_some()
                && (matches!(
                    name,
                    "sed" | "awk" | "gawk" | "mawk" | "nawk" | "perl" | "ruby"
                ) || INTERPRETERS.contains(&name))
            {
                let cwd = self.ctx.cwd.clone();
                self.tainted.add_folder(&cwd);
            }
            if let Some(file) = consumed {
                *network = true;
                if interpreter {
                    raise_around(
                        seg,
                        Risk::Critical,
                        S::new("engine-walk-name-file-this-command")
                            .text("name", name)
                            .text("file", file),
                    );
                }
                if UNPACKERS.contains(&name) {
                    let cwd = self.ctx.cwd.clone();
                    self.tainted.add_folder(&cwd);
                    for w in &seg.writes {
                        self.tainted.add_folder(&w.lexical);
                    }
                }
            }
        }
        // A build or package tool runs the project's files (`Makefile`, `build.rs`,
        // `package.json` scripts, `conftest.py`, ...): over files a download wrote
        // in its folder, it runs code from the network.
        // A build entry file (`Makefile`, `build.rs`, `setup.py`, ...) this line wrote
        // is the line's own code, which Warden does not read as code.
        if judge::runs_project_files(name)
            && let Some(file) = self.entry_files.first()
        {
            raise_around(
                seg,
                Risk::High,
                S::new("engine-walk-build-files-written")
                    .text("name", name)
                    .text("file", file.display().to_string()),
            );
        }
        if judge::runs_project_files(name) && self.tainted.any_within(&self.ctx.cwd) {
            raise_around(
                seg,
                Risk::Critical,
                S::new("engine-walk-name-projects-files-after").text("name", name),
            );
        }
        // `git clone URL [DIR]` writes a folder of files from the network.
        if name == "git"
            && let Some(folder) = clone_folder(args)
        {
            let folder = self.resolver.resolve(&folder, &self.ctx).lexical;
            self.tainted.add_folder(&folder);
        }
        if let Some(folder) = download_folder(name, args) {
            let folder = match folder {
                Some(dir) => self.resolver.resolve(&dir, &self.ctx).lexical,
                None => self.ctx.cwd.clone(),
            };
            self.tainted.add_folder(&folder);
        }
    }

    /// Analyses a script run by segment `index` (`bash -c`, `eval`, ...) and adds its
    /// segments; the running segment takes the script's risk.
    fn nested(&mut self, index: usize, script: &str, level: usize) {
        if self.depth + 1 > MAX_NESTING {
            let msg = format!("scripts are nested more than {MAX_NESTING} levels deep");
            self.unread = true;
            if !self.problems.contains(&msg) {
                self.problems.push(msg);
            }
            if let Some(seg) = self.segments.get_mut(index) {
                seg.opaque = true;
                raise(
                    seg,
                    Risk::Critical,
                    crate::Sentence::new("engine-nested-too-deeply"),
                );
            }
            return;
        }
        let outer = Outer {
            stdin: self.script_stdin.clone(),
            tainted: self.tainted.clone(),
            functions: self.functions.clone(),
            // A call's body may expand calls of its own, one level more: the work
            // stays bounded however the functions call each other.
            expand_calls: self.expand_calls && !(self.calling && self.depth >= 1),
        };
        let (analysis, cwd, tainted, functions) = analyse_with(
            script,
            &self.ctx,
            self.depth + 1,
            level + 1,
            plain::plain_words,
            self.dialect,
            outer,
        );
        // `eval` and `source` run the script in this shell: a `cd` in it moves the
        // shell for what follows, and its variables stay set. Files a script wrote
        // stay written whichever shell wrote them.
        let same_shell = self
            .segments
            .get(index)
            .is_some_and(|s| matches!(s.program.as_str(), "eval" | "source" | "."));
        if same_shell {
            self.ctx.cwd = cwd;
            self.tainted = tainted;
            self.functions = functions;
        } else {
            let variables = std::mem::take(&mut self.tainted.variables);
            self.tainted = tainted;
            self.tainted.variables = variables;
        }
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
                .unwrap_or_else(|| crate::Sentence::verbatim(""));
            if analysis.risk > seg.risk {
                raise(
                    seg,
                    analysis.risk,
                    crate::Sentence::new("engine-runs-script").lower_first("reason", inner_reason),
                );
            }
        }
        // A script that downloads writes data from the network (`bash -c 'curl URL'
        // | sh`).
        if analysis
            .segments
            .iter()
            .any(|s| DOWNLOADERS.contains(&s.program.as_str()))
            && let Some(n) = self.network.get_mut(index)
        {
            *n = true;
        }
        for s in analysis.segments.into_iter() {
            self.push(s);
        }
    }
}

/// The folder `git clone URL [DIR]` writes: DIR, or the URL's last part without
/// `.git`; a folder only known at run time counts as the shell's folder.
fn clone_folder(args: &[Word]) -> Option<String> {
    let at = args.iter().position(|a| a.text == "clone")?;
    const VALUED: &[&str] = &[
        "--depth",
        "-b",
        "--branch",
        "-o",
        "--origin",
        "-c",
        "--config",
        "--reference",
        "--template",
        "--separate-git-dir",
        "-j",
        "--jobs",
        "--filter",
        "--shallow-since",
        "--shallow-exclude",
        "-u",
        "--upload-pack",
    ];
    let rest = &args[at + 1..];
    let operands: Vec<&Word> = rest
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            let value_of_option = *i > 0 && VALUED.contains(&rest[i - 1].text.as_str());
            !a.text.starts_with('-') && !value_of_option
        })
        .map(|(_, a)| a)
        .collect();
    let url = operands.first()?;
    match operands.get(1) {
        Some(dir) if !dir.dynamic => Some(dir.text.clone()),
        Some(_) => Some(".".to_owned()),
        None if url.dynamic => Some(".".to_owned()),
        None => {
            let last = url.text.trim_end_matches('/').rsplit(['/', ':']).next()?;
            Some(last.trim_end_matches(".git").to_owned()).filter(|l| !l.is_empty())
        }
    }
}

/// Where a download writes files whose names Warden does not work out (`wget URL`,
/// `curl -O URL`): `Some(None)` for the shell's folder, `Some(Some(dir))` for a folder
/// given by an option, `None` when it names its files (or writes none).
fn download_folder(name: &str, args: &[Word]) -> Option<Option<String>> {
    let value = |names: &[&str]| {
        args.iter().enumerate().find_map(|(i, a)| {
            names.iter().find_map(|n| {
                if a.text == *n {
                    args.get(i + 1).map(|v| v.text.clone())
                } else {
                    a.text.strip_prefix(&format!("{n}=")).map(str::to_owned)
                }
            })
        })
    };
    // curl's and wget's options in every spelling (`options.rs`).
    let parsed = options::parse(name, args);
    let option = |long: &str| {
        parsed
            .as_ref()
            .and_then(|p| p.value_of(long))
            .map(|w| w.text.clone())
    };
    let given = |long: &str| parsed.as_ref().is_some_and(|p| p.given(long));
    match name {
        "wget" => (!given("output-document")).then(|| option("directory-prefix")),
        // `scp host:x .`, `rsync host:x dir`: files from another machine.
        "scp" | "rsync" | "sftp" => {
            let operands: Vec<&Word> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
            let (dest, sources) = operands.split_last()?;
            let remote = sources
                .iter()
                .any(|s| s.dynamic || (s.text.contains(':') && !s.text.starts_with('/')));
            remote.then(|| {
                Some(if dest.dynamic {
                    ".".to_string()
                } else {
                    dest.text.clone()
                })
            })
        }
        // `curl -o '#1.sh' URL/{a,b}`: names made from the URL.
        "curl"
            if parsed.as_ref().is_some_and(|p| {
                p.found.iter().any(|f| {
                    f.opt.long.contains(&"output")
                        && f.value
                            .as_ref()
                            .is_some_and(|v| v.dynamic || v.text.contains('#'))
                })
            }) =>
        {
            Some(option("output-dir"))
        }
        "curl" => (given("remote-name") || given("remote-name-all") || given("remote-header-name"))
            .then(|| option("output-dir")),
        "aria2c" | "lynx" | "w3m" | "ftp" | "tftp" => Some(value(&["-d", "--dir"])),
        _ => None,
    }
}

/// Raises a segment for what its own words do: its own risk rises with it.
fn raise(seg: &mut Segment, risk: Risk, reason: impl Into<crate::Sentence>) {
    if risk > seg.risk || seg.reason.is_empty() {
        seg.risk = risk;
        seg.reason = reason.into();
    }
    seg.own_risk = seg
        .own_risk
        .map(|own| own.max(risk))
        .filter(|own| *own < seg.risk);
}

/// Raises a segment for what surrounds the command it runs: what the rest of its line
/// did before it (a file it downloaded or wrote), a wrapper that runs it (`sudo`,
/// `chroot`), a variable set for it, or a redirection of its input or output. The
/// segment keeps the risk the command carries on its own, so that the engine can hold
/// it to the stricter of the two: a rule that allows the raised risk must not let
/// through a command it would ask about alone.
fn raise_around(seg: &mut Segment, risk: Risk, reason: impl Into<crate::Sentence>) {
    if risk > seg.risk {
        seg.own_risk.get_or_insert(seg.risk);
        seg.risk = risk;
        seg.reason = reason.into();
    }
}

fn is_system_program(written: &str) -> bool {
    match written.rsplit_once('/') {
        None => true,
        Some((dir, _)) => SYSTEM_BIN_DIRS.contains(&dir),
    }
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
