//! What the analyser fully models, in one place.
//!
//! A command is Low only when every construct on its line is one the analyser
//! evaluates: plain words, quotes and escapes, the expansions whose value it knows,
//! lists, pipelines, groups, conditionals, `for` loops, redirections, substitutions,
//! functions, and known programs. Two questions are asked here, and nowhere else:
//!
//! - [`unmodelled_node`]: is this piece of syntax one the walk evaluates? Every named
//!   node the walk visits is asked (`Walker::walk`), so a construct the grammar knows
//!   and the walk does not (arithmetic, array subscripts, parameter operators, `[[ ]]`
//!   arithmetic and `-v`, `declare`, ...) cannot pass as inert text.
//! - [`unmodelled_command`]: is this a bash feature behind a builtin's name that the
//!   analyser does not follow (`let`, `shopt -s`, `set -k`, the directory stack,
//!   `alias`, `trap`, `read` into an array element, `printf -v` into one, `test -v`,
//!   `hash`, `coproc`, `~+`/`~-`, ...)? Every simple command is asked
//!   (`Walker::simple`), whether the parser or the fast plain reader found it.
//!
//! Either answer raises the line to at least Medium (a segment of its own that says
//! which construct it was), so `ask` asks; what could not be read at all stays
//! Critical elsewhere (a parse error, a limit, a program only known at run time).
//! `docs/policy.md` lists the modelled constructs for people.

use tree_sitter::Node;

use super::Walker;
use crate::Risk;
use crate::shell::words::{self, Word};

/// Node kinds the walk evaluates entirely: the structure of the line and the words
/// whose value it knows or marks as only known at run time.
const MODELLED_NODES: &[&str] = &[
    "program",
    "comment",
    "list",
    "pipeline",
    "negated_command",
    "subshell",
    "compound_statement",
    "redirected_statement",
    "command",
    "command_name",
    "word",
    "number",
    "raw_string",
    "string",
    "string_content",
    "translated_string",
    "ansi_c_string",
    "concatenation",
    "simple_expansion",
    "expansion",
    "variable_name",
    "special_variable_name",
    "variable_assignment",
    "variable_assignments",
    "file_redirect",
    "file_descriptor",
    "heredoc_redirect",
    "heredoc_body",
    "heredoc_content",
    "heredoc_start",
    "heredoc_end",
    "herestring_redirect",
    "command_substitution",
    "process_substitution",
    "if_statement",
    "elif_clause",
    "else_clause",
    "case_statement",
    "case_item",
    "for_statement",
    "while_statement",
    "do_group",
    "function_definition",
    "declaration_command",
    "unset_command",
    "test_command",
    "test_operator",
    "regex",
    "extglob_pattern",
    "brace_expression",
];

/// File and string tests of `[[ ]]`, which evaluate nothing.
const PLAIN_TESTS: &[&str] = &[
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x",
    "-G", "-L", "-N", "-O", "-S", "-z", "-n", "-o", "=", "==", "!=", "=~", "<", ">", "-nt", "-ot",
    "-ef", "&&", "||", "!",
];

/// Why a node is not one the analyser fully models, or `None` when it is.
/// `known` tells whether an arithmetic text evaluates only numbers the analyser knows.
pub(super) fn unmodelled_node(
    node: Node<'_>,
    src: &str,
    known: &dyn Fn(&str) -> bool,
) -> Option<&'static str> {
    let kind = node.kind();
    let text = words::text(node, src);
    match kind {
        "arithmetic_expansion"
            if !known(
                text.strip_prefix("$((")
                    .and_then(|t| t.strip_suffix("))"))
                    .or_else(|| text.strip_prefix("$[").and_then(|t| t.strip_suffix(']')))
                    .unwrap_or("["),
            ) =>
        {
            Some("engine-construct-arithmetic-expansion")
        }
        "c_style_for_statement" if !known_loop(node, src, known) => {
            Some("engine-construct-arithmetic-for")
        }
        "subscript" => Some("engine-construct-array-subscript"),
        "array" => Some("engine-construct-array-assignment"),
        "compound_statement"
            if text.starts_with("((")
                && !known(
                    text.strip_prefix("((")
                        .and_then(|t| t.strip_suffix("))"))
                        .unwrap_or("["),
                ) =>
        {
            Some("engine-construct-arithmetic-command")
        }
        "expansion" if !plain_expansion(text) => Some("engine-construct-parameter-operator"),
        "test_command" if !plain_test(node, src, known) => Some("engine-construct-test-arithmetic"),
        "declaration_command" if !plain_declaration(node, src) => {
            Some("engine-construct-declaration-options")
        }
        // Arithmetic of values the analyser knows evaluates nothing else.
        "arithmetic_expansion" | "c_style_for_statement" => None,
        // The parts of a test or of arithmetic: the node above them decides.
        "binary_expression"
        | "unary_expression"
        | "ternary_expression"
        | "postfix_expression"
        | "parenthesized_expression" => None,
        // A parse error is judged as one (Critical) by the walk.
        "ERROR" => None,
        _ if MODELLED_NODES.contains(&kind) => None,
        _ => Some("engine-construct-unknown"),
    }
}

/// `${NAME}`, `${#NAME}`, and the operators that only pick or trim a value:
/// defaults (`${x:-word}`, `${x+word}`, `${x:?msg}`), pattern removal and
/// replacement (`${x#p}`, `${x%%p}`, `${x/a/b}`) and case (`${x^^}`). Not modelled:
/// `${!x}` (indirection, which evaluates a subscript in the value), `${x[…]}`,
/// `${x:=word}` (assigns), `${x:1:2}` (arithmetic offsets) and `${x@P}` (prompt
/// expansion runs substitutions).
fn plain_expansion(text: &str) -> bool {
    let Some(inner) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) else {
        return false;
    };
    let (length, inner) = match inner.strip_prefix('#') {
        Some(rest) if !rest.is_empty() => (true, rest),
        _ => (false, inner),
    };
    let name_len = match inner.chars().next() {
        Some('@' | '*' | '?' | '$' | '!' | '-' | '#') => 1,
        Some(c) if c.is_ascii_digit() => 1,
        _ => inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len()),
    };
    if name_len == 0 {
        return false;
    }
    let rest = &inner[name_len..];
    if rest.is_empty() {
        return true;
    }
    if length {
        return false;
    }
    // `${!x}` reads as the name `!` followed by `x`: indirection.
    if inner.starts_with('!') {
        return false;
    }
    [":-", ":+", ":?", "-", "+", "?", "#", "%", "/", "^", ","]
        .iter()
        .any(|op| rest.starts_with(op))
}

/// A `[[ ]]` test of files and strings only: no `-v`, no arithmetic comparison
/// unless both sides are literal numbers.
fn plain_test(node: Node<'_>, src: &str, known: &dyn Fn(&str) -> bool) -> bool {
    let mut stack = vec![node];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 10_000 {
            return false;
        }
        if n.kind() == "test_operator" || (!n.is_named() && n.kind().starts_with('-')) {
            let op = words::text(n, src);
            if !PLAIN_TESTS.contains(&op) && !known_comparison(n, src, known) {
                return false;
            }
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    true
}

/// `1 -eq 2`, `$n -lt 3` with `n` known: an arithmetic comparison of values the
/// analyser knows evaluates nothing else.
fn known_comparison(op: Node<'_>, src: &str, known: &dyn Fn(&str) -> bool) -> bool {
    let Some(parent) = op.parent() else {
        return false;
    };
    if parent.kind() != "binary_expression" || !ARITHMETIC_TESTS.contains(&words::text(op, src)) {
        return false;
    }
    let side =
        |n: Option<Node<'_>>| n.is_some_and(|n| known(words::text(n, src).trim_matches('"')));
    side(parent.child_by_field_name("left")) && side(parent.child_by_field_name("right"))
}

/// The arithmetic comparisons of `[[ ]]`.
const ARITHMETIC_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// `for ((i=0; i<n; i++))`: its three parts use only numbers, the names its
/// initializer sets to numbers, and variables the analyser knows.
fn known_loop(node: Node<'_>, src: &str, known: &dyn Fn(&str) -> bool) -> bool {
    let part = |field: &str| node.child_by_field_name(field).map(|n| words::text(n, src));
    let init = part("initializer").unwrap_or("");
    let own: Vec<String> = init
        .split(',')
        .filter_map(|a| a.split_once('='))
        .filter(|(_, v)| v.trim().parse::<i64>().is_ok())
        .map(|(n, _)| n.trim().to_string())
        .collect();
    // The body must not give those names other values.
    let body = part("body").unwrap_or("");
    if own
        .iter()
        .any(|n| body.contains(&format!("{n}=")) || body.contains("read") || body.contains("eval"))
    {
        return false;
    }
    let with_own = |t: &str| {
        let mut t = t.to_string();
        for n in &own {
            t = replace_name(&t, n, "0");
        }
        known(&t)
    };
    [
        init,
        part("condition").unwrap_or(""),
        part("update").unwrap_or(""),
    ]
    .iter()
    .all(|t| with_own(t))
}

/// `text` with every whole-word occurrence of the identifier `name` replaced.
fn replace_name(text: &str, name: &str, by: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let boundary_before =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if boundary_before && text[i..].starts_with(name) {
            let end = i + name.len();
            let boundary_after =
                end >= text.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
            if boundary_after {
                out.push_str(by);
                i = end;
                continue;
            }
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Whether an arithmetic text evaluates only numbers: no substitution, subscript or
/// braced expansion, and every name in it (with or without `$`) either assigned
/// there (`x=1+2`) or a variable whose value the line set to an integer.
pub(super) fn arithmetic_of_known(text: &str, value_of: &dyn Fn(&str) -> Option<String>) -> bool {
    if text.contains(['[', '`', '{', '\'', '"']) || text.contains("$(") {
        return false;
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // `$1`, `$@`, `$#`…: positional and special parameters are not known.
        if b == b'$'
            && !bytes
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return false;
        }
        if b.is_ascii_digit() {
            // A number, in any base (`0x1f`, `2#101`, `36#zz`).
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'#' | b'_' | b'@'))
            {
                i += 1;
            }
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let name = &text[start..i];
            let rest = text[i..].trim_start();
            let assigned = rest.starts_with('=') && !rest.starts_with("==");
            if !assigned {
                let integer = value_of(name).is_some_and(|v| v.trim().parse::<i64>().is_ok());
                if !integer {
                    return false;
                }
            }
            continue;
        }
        i += 1;
    }
    true
}

/// Declarations whose options the analyser models: printing (`-p`, `-f`, `-F`),
/// exporting (`-x`), read-only (`-r`), global (`-g`), and arrays or case changes
/// declared without a value. Not modelled: `-i` (values become arithmetic), `-n`
/// (names become references to other variables), `-t` (functions inherit traps),
/// and an array or case option with an assignment.
fn plain_declaration(node: Node<'_>, src: &str) -> bool {
    let keyword = node.child(0).map_or("", |k| words::text(k, src));
    if !matches!(
        keyword,
        "export" | "local" | "readonly" | "declare" | "typeset"
    ) {
        return false;
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let assigns = children.iter().any(|c| c.kind() == "variable_assignment");
    children.iter().all(|c| {
        let t = words::text(*c, src);
        if c.kind() != "word" || !t.starts_with(['-', '+']) {
            return true;
        }
        t[1..].chars().all(|f| match f {
            'p' | 'f' | 'F' | 'x' | 'r' | 'g' => true,
            'a' | 'A' | 'l' | 'u' => !assigns,
            _ => false,
        })
    })
}

/// `set` options the analyser knows change nothing it judges: exit on error, unset
/// variables, tracing (the trace prompt `PS4` is judged where it is set), no
/// clobbering, no globbing, `pipefail`.
const PLAIN_SET_LETTERS: &str = "euxvECfnbhBHmP";
const PLAIN_SET_OPTIONS: &[&str] = &[
    "errexit",
    "nounset",
    "xtrace",
    "verbose",
    "pipefail",
    "noclobber",
    "noglob",
    "errtrace",
    "physical",
    "hashall",
    "braceexpand",
    "monitor",
    "notify",
    "noexec",
];

/// Why a simple command uses a bash feature the analyser does not follow, or `None`.
/// `program` is the lower-case name of what runs, `args` its arguments.
/// `known_arithmetic` tells whether `let`'s arguments evaluate only known numbers.
pub(super) fn unmodelled_command(
    program: &str,
    args: &[Word],
    known_arithmetic: bool,
) -> Option<&'static str> {
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    if let Some(why) = unmodelled_words(args) {
        return Some(why);
    }
    match program {
        "let" if !known_arithmetic => Some("engine-construct-let"),
        "coproc" => Some("engine-construct-coproc-builtin"),
        // `pushd DIR` and `popd` alone are followed (`cwd.rs`); `-n`, `+N`, `-N`
        // rotate or edit the stack without moving, which is not.
        "pushd" | "popd" | "dirs"
            if args.len() > 1
                || args
                    .iter()
                    .any(|a| a.dynamic || a.text.starts_with(['-', '+'])) =>
        {
            Some("engine-construct-directory-stack")
        }
        "shopt" if texts.iter().any(|t| matches!(*t, "-s" | "-u" | "-o")) => {
            Some("engine-construct-shopt")
        }
        "set" if !plain_set(&texts) => Some("engine-construct-set-options"),
        "hash" if texts.iter().any(|t| *t != "-r" && *t != "-l") => Some("engine-construct-hash"),
        "read" | "mapfile" | "readarray" | "getopts"
            if args.iter().any(|a| a.dynamic || a.text.contains('[')) =>
        {
            Some("engine-construct-read-into")
        }
        "printf" if printf_target(args).is_some_and(|w| w.dynamic || w.text.contains('[')) => {
            Some("engine-construct-printf-v")
        }
        "test" | "[" if texts.iter().any(|t| matches!(*t, "-v" | "-R")) => {
            Some("engine-construct-test-v")
        }
        "history" if !texts.is_empty() => Some("engine-construct-history"),
        "umask" if !texts.is_empty() => Some("engine-construct-umask"),
        "enable" | "caller" | "compgen" | "complete" | "bind" | "fc" => {
            Some("engine-construct-builtin")
        }
        _ => None,
    }
}

/// The variable `printf -v NAME` (or `-vNAME`) assigns, when its first option is `-v`.
fn printf_target(args: &[Word]) -> Option<Word> {
    let first = args.first()?;
    if first.dynamic {
        // `printf "$x" ...`: the format may be `-v` at run time.
        return Some(first.clone());
    }
    match first.text.strip_prefix("-v")? {
        "" => args.get(1).cloned(),
        rest => Some(Word {
            text: rest.to_string(),
            dynamic: false,
        }),
    }
}

/// Arguments whose meaning comes from bash state the analyser does not follow:
/// `~+`, `~-` and `~N` name entries of the directory stack.
fn unmodelled_words(args: &[Word]) -> Option<&'static str> {
    args.iter()
        .any(|a| {
            !a.dynamic && {
                let t = a.text.as_str();
                t.starts_with("~+")
                    || t.starts_with("~-")
                    || t.strip_prefix('~')
                        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            }
        })
        .then_some("~+, ~- or ~N, which name the directory stack")
}

/// `set -e`, `set -euo pipefail`, `set +x`, `set --`: options in the known set.
fn plain_set(texts: &[&str]) -> bool {
    let mut i = 0;
    while i < texts.len() {
        let t = texts[i];
        i += 1;
        if t == "--" || t == "-" {
            return true;
        }
        let Some(letters) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) else {
            // The positional parameters, which the analyser does not follow anyway.
            return true;
        };
        for c in letters.chars() {
            if c == 'o' {
                let name = texts.get(i).copied().unwrap_or("");
                i += 1;
                if !PLAIN_SET_OPTIONS.contains(&name) {
                    return false;
                }
            } else if !PLAIN_SET_LETTERS.contains(c) {
                return false;
            }
        }
    }
    true
}

/// Where the grammar read a node differently from bash, so the walk would judge
/// another command than bash runs: tree-sitter-bash joins a line that starts with a
/// backslash to the line before it (`echo a` + newline + `\\rm -rf ~` became one
/// `echo` with three arguments), and takes such a line after a here-document's
/// operator as part of the command instead of the body (`cat <<EOF | sh` +
/// newline + `\\rm -rf ~`). The line was then not read: `None` when it was.
pub(super) fn misread(node: Node<'_>, src: &str) -> Option<&'static str> {
    if !matches!(node.kind(), "command" | "heredoc_redirect" | "word") {
        return None;
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    match node.kind() {
        // Bash ends a simple command at a newline that no backslash escapes, and no
        // unquoted word holds one (the grammar puts it at the start of the next word).
        "command" => children.windows(2).any(|w| {
            let gap = src.get(w[0].end_byte()..w[1].start_byte()).unwrap_or("");
            unescaped_newline(gap)
        }),
        "word" => unescaped_newline(words::text(node, src)),
        // A here-document's body starts on the line after its operator: nothing but
        // the body and the delimiter may reach past that line's end.
        "heredoc_redirect" => {
            let line_end = children
                .iter()
                .find(|c| c.kind() == "heredoc_start")
                .and_then(|c| {
                    src.get(c.end_byte()..)?
                        .find('\n')
                        .map(|i| c.end_byte() + i)
                });
            line_end.is_some_and(|end| {
                children.iter().any(|c| {
                    !matches!(c.kind(), "heredoc_body" | "heredoc_end" | "heredoc_content")
                        && c.end_byte() > end
                })
            })
        }
        _ => false,
    }
    .then_some("a line that starts with a backslash, joining it to another line")
}

/// A newline in `gap` (text between two words) that is not a backslash-newline.
fn unescaped_newline(gap: &str) -> bool {
    let bytes = gap.as_bytes();
    bytes
        .iter()
        .enumerate()
        .any(|(i, b)| *b == b'\n' && (i == 0 || bytes[i - 1] != b'\\'))
}

impl Walker<'_> {
    /// Raises the line to at least Medium because of `construct` (once per construct):
    /// a segment of its own, so the explanation says what was not modelled and no
    /// allow rule or grant matches it.
    pub(super) fn not_modelled(&mut self, construct: &'static str, text: &str) {
        let reason = crate::Sentence::new("engine-not-modelled")
            .sentence("construct", crate::Sentence::new(construct));
        if self.unmodelled.iter().any(|s| s.reason == reason) {
            return;
        }
        // Kept aside and added after the walk: the segments of a pipeline stage stay
        // its own, and a judgement of the same risk explains the line first.
        let segment = self.segment(text.to_string(), Risk::Medium, reason);
        self.unmodelled.push(segment);
    }

    /// Asks [`unmodelled_node`] of a node the walk visits.
    pub(super) fn check_modelled(&mut self, node: Node<'_>) {
        let vars = &self.vars;
        let value_of = |name: &str| -> Option<String> {
            vars.iter()
                .rev()
                .find(|(n, _)| n == name)
                .and_then(|(_, v)| v.clone())
        };
        let known = |text: &str| arithmetic_of_known(text, &value_of);
        if let Some(construct) = unmodelled_node(node, self.src, &known) {
            let text = self.text(node).to_string();
            self.not_modelled(construct, &text);
            // Arithmetic, subscripts and declarations can assign any variable.
            self.forget(super::vars::Assigns::All);
        }
    }
}

/// Expansions whose value is a number or a pipe's name whatever happens: they can
/// be neither an option nor a path that matters.
const SHAPED: &[&str] = &[
    "$?",
    "${?}",
    "$#",
    "${#}",
    "$$",
    "${$}",
    "$!",
    "${!}",
    "$RANDOM",
    "${RANDOM}",
    "$SECONDS",
    "${SECONDS}",
    "$LINENO",
    "${LINENO}",
    "$EUID",
    "${EUID}",
    "$UID",
    "${UID}",
    "$PPID",
    "${PPID}",
    "$BASHPID",
    "${BASHPID}",
];

/// Whether a word only known at run time still has a value whose shape is known.
fn shaped(word: &Word) -> bool {
    let t = word.text.as_str();
    if (t.starts_with("<(") || t.starts_with(">(")) && t.ends_with(')') {
        return true;
    }
    let mut rest = t.to_string();
    for s in SHAPED {
        rest = rest.replace(s, "");
    }
    !rest.contains(['$', '`'])
}

/// The first argument whose value the analyser cannot pin and whose value matters,
/// or `None`. Arguments that are only printed (`echo`, `printf`'s values after a
/// literal format), a `test` operand that cannot become `-v` code, `cd`'s target
/// (the folder then counts as unknown, `cwd.rs`) and `exit`/`return` codes do not
/// matter; for every other program a value only known at run time may be an option
/// or a path Warden did not judge.
pub(super) fn unpinned_value<'a>(program: &str, args: &'a [Word]) -> Option<&'a Word> {
    let first_unpinned = |args: &'a [Word]| args.iter().find(|a| a.dynamic && !shaped(a));
    match program {
        "echo" | "cd" | "exit" | "return" | ":" | "true" | "false" => None,
        "printf" => match args.first() {
            Some(format) if !format.dynamic && !format.text.starts_with('-') => None,
            _ => first_unpinned(args),
        },
        "test" | "["
            if args
                .iter()
                .all(|a| a.dynamic || !a.text.contains(['[', '$'])) =>
        {
            None
        }
        _ => first_unpinned(args),
    }
}

impl Walker<'_> {
    /// Whether `let`'s arguments evaluate only numbers the analyser knows.
    pub(super) fn let_is_known(&self, args: &[Word]) -> bool {
        let value_of = |name: &str| -> Option<String> {
            self.vars
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .and_then(|(_, v)| v.clone())
        };
        args.iter()
            .all(|a| !a.dynamic && arithmetic_of_known(&a.text, &value_of))
    }
}
