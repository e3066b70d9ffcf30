//! Programs that run other code: shells, interpreters, `eval`, `source`, `watch`,
//! `sed` and `awk`.

use super::{Input, SHELLS, Stdin, Verdict, operands_of, package_tool};
use crate::Risk;
use crate::Sentence as S;
use crate::paths::FileOp;
use crate::shell::options::Does;
use crate::shell::provenance::{Provenance, is_stdin_path};
use crate::shell::words::Word;

/// Shells: `-c STRING` is analysed as a script; a script file cannot be read (High);
/// reading the script from standard input is Critical after a download.
pub(super) fn shell(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let args = input.args;
    let mut i = 0;
    if p == "busybox" {
        // `busybox sh ...`: the applet is the first argument.
        match args.first() {
            Some(a) if !a.dynamic && SHELLS.contains(&a.text.as_str()) => i = 1,
            Some(_) => return Verdict::new(Risk::High, S::new("engine-exec-busybox-applet")),
            None => return Verdict::new(Risk::Low, S::new("engine-exec-busybox-lists-applets")),
        }
    }
    let (i, has_c, reads_stdin) = shell_options(args, i);
    if has_c {
        return c_script(input, args.get(i));
    }
    // `bash /dev/stdin` reads its script from its input, as `bash -s` does.
    let script_from_stdin = args
        .get(i)
        .is_some_and(|a| !a.dynamic && is_stdin_path(&a.text));
    if i < args.len() && !reads_stdin && !script_from_stdin {
        let mut v = Verdict::new(
            Risk::High,
            S::new("engine-exec-script-file")
                .text("program", p)
                .text("script", args[i].text.as_str()),
        );
        if input.substituted_download {
            v.raise(
                Risk::Critical,
                S::new("engine-exec-program-script-downloaded-from").text("program", p),
            );
        }
        return v;
    }
    stdin_script(input, p)
}

/// A shell's options, read from `start`: where its operands begin, whether `-c`
/// makes the first a script, and whether it reads its script from its input (`-s`,
/// `-`).
fn shell_options(args: &[Word], start: usize) -> (usize, bool, bool) {
    let mut i = start;
    let mut has_c = false;
    let mut reads_stdin = false;
    while i < args.len() {
        let a = &args[i];
        if a.dynamic {
            break;
        }
        let t = a.text.as_str();
        if t == "--" || t == "-" {
            reads_stdin |= t == "-";
            i += 1;
            break;
        }
        if t == "-o" || t == "+o" || t == "-O" || t == "+O" || t == "--rcfile" || t == "--init-file"
        {
            i += 2;
            continue;
        }
        if t.starts_with("--") {
            i += 1;
            continue;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            has_c |= t.contains('c') && t.starts_with('-');
            reads_stdin |= t.contains('s') && t.starts_with('-');
            i += 1;
            continue;
        }
        break;
    }
    (i, has_c, reads_stdin)
}

/// A shell's `-c SCRIPT`: a script analysed as it is, or one only known at run time.
fn c_script(input: &Input<'_>, script: Option<&Word>) -> Verdict {
    let p = input.program;
    match script {
        Some(script) if !script.dynamic => {
            let mut v = Verdict::new(
                Risk::Low,
                S::new("engine-exec-program-c-script-whose").text("program", p),
            );
            if input.substituted_download {
                v.raise(
                    Risk::Critical,
                    S::new("engine-exec-program-script-downloaded-from").text("program", p),
                );
            }
            v.scripts.push(script.text.clone());
            v
        }
        Some(script) => {
            let mut v = Verdict::new(
                Risk::High,
                S::new("engine-exec-dynamic-script")
                    .text("program", p)
                    .text("script", script.text.as_str()),
            );
            if input.substituted_download {
                v.raise(
                    Risk::Critical,
                    S::new("engine-exec-program-script-downloaded-from").text("program", p),
                );
            }
            v.opaque = true;
            v
        }
        // `xargs sh -c` with network data as its arguments.
        None if input.substituted_download => Verdict::new(
            Risk::Critical,
            S::new("engine-exec-program-c-script-downloaded").text("program", p),
        ),
        None => Verdict::new(
            Risk::High,
            S::new("engine-exec-program-c-without-script").text("program", p),
        ),
    }
}

/// A shell or interpreter that reads its program from standard input: Critical when
/// the input comes from the network or is made at run time where Warden cannot see
/// it; a known text given to a shell is judged as the script it is.
pub(super) fn stdin_script(input: &Input<'_>, p: &str) -> Verdict {
    let shell_like = SHELLS.contains(&p) || matches!(p, "source" | ".");
    if input.substituted_download {
        return Verdict::new(
            Risk::Critical,
            S::new("engine-exec-program-script-holds-data").text("program", p),
        );
    }
    let known = match input.stdin {
        Stdin::Pipe(Provenance::Known(texts)) => Some(texts.clone()),
        Stdin::Text(Some(text)) => Some(vec![text.clone()]),
        _ => None,
    };
    match (input.stdin, known) {
        (Stdin::Pipe(Provenance::Network), _) => Verdict::new(
            Risk::Critical,
            S::new("engine-exec-pipes-download-into-program").text("program", p),
        ),
        (_, Some(texts)) if shell_like => {
            let mut v = Verdict::new(
                Risk::Low,
                S::new("engine-exec-program-script-whose-parts").text("program", p),
            );
            v.scripts.extend(texts);
            v
        }
        (Stdin::Pipe(Provenance::Unseen | Provenance::Found) | Stdin::Text(None), _) => Verdict {
            opaque: true,
            ..Verdict::new(
                Risk::High,
                S::new("engine-exec-program-script-made-at").text("program", p),
            )
        },
        (Stdin::Pipe(_), _) => Verdict::new(
            Risk::High,
            S::new("engine-exec-program-script-read-from").text("program", p),
        ),
        (Stdin::Text(_), _) => Verdict::new(
            Risk::High,
            S::new("engine-exec-program-heredocument").text("program", p),
        ),
        (Stdin::Inherited, _) => Verdict::new(
            Risk::High,
            S::new("engine-exec-starts-program-whatever-given").text("program", p),
        ),
    }
}

/// Interpreters run code we do not analyse: High, except version queries and the test
/// runners behind `python -m`.
pub(super) fn interpreter(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let args = input.args;
    if input.substituted_download {
        return Verdict::new(
            Risk::Critical,
            S::new("engine-exec-program-code-downloaded-from").text("program", p),
        );
    }
    if args.len() == 1 && matches!(args[0].text.as_str(), "--version" | "-V" | "-v" | "version") {
        return Verdict::new(
            Risk::Low,
            S::new("engine-exec-asks-program-version").text("program", p),
        );
    }
    if p.starts_with("python")
        && let Some(pos) = args.iter().position(|a| a.text == "-m")
    {
        let module = args.get(pos + 1).map(|a| a.text.as_str()).unwrap_or("");
        let rest = args.get(pos + 2..).unwrap_or(&[]);
        return match module {
            "pytest" | "unittest" | "mypy" | "black" | "ruff" | "pylint" | "flake8" | "isort"
            | "tox" | "nox" | "build" | "compileall" | "doctest" => Verdict::new(
                Risk::Medium,
                S::new("engine-exec-program-m-module-build")
                    .text("program", p)
                    .text("module", module),
            ),
            "pip" => package_tool(&Input {
                program: "pip",
                args: rest,
                ..*input
            }),
            "json.tool" => Verdict::new(Risk::Low, S::new("engine-exec-formats-json")),
            _ => Verdict::new(
                Risk::High,
                S::new("engine-exec-python-module-module").text("module", module),
            ),
        };
    }
    // `python3 /dev/stdin`, `python3 -`: the program is the input.
    if args
        .iter()
        .find(|a| a.dynamic || !a.text.starts_with('-') || a.text == "-")
        .is_some_and(|a| !a.dynamic && (a.text == "-" || is_stdin_path(&a.text)))
    {
        return stdin_script(input, p);
    }
    let code_flag = args.iter().any(|a| {
        matches!(
            a.text.as_str(),
            "-c" | "-e" | "-E" | "--eval" | "-p" | "--print" | "-r"
        )
    });
    if let Some(targets) = super::unpack::in_place_targets(input) {
        let mut v = Verdict::new(
            Risk::High,
            S::new("engine-exec-program-i-rewrites-files").text("program", p),
        );
        for target in &targets {
            v.word(FileOp::Write, target, input);
        }
        return v;
    }
    if code_flag {
        return Verdict::new(
            Risk::High,
            S::new("engine-exec-program-inline-code-warden").text("program", p),
        );
    }
    let has_script = args.iter().any(|a| !a.text.starts_with('-'));
    if has_script {
        return Verdict::new(
            Risk::High,
            S::new("engine-exec-program-program-whose-code").text("program", p),
        );
    }
    stdin_script(input, p)
}

/// `eval ARGS`: the joined arguments are a script.
pub(super) fn eval(input: &Input<'_>) -> Verdict {
    if input.substituted_download {
        return Verdict::new(
            Risk::Critical,
            S::new("engine-exec-evaluates-code-downloaded-from"),
        );
    }
    if input.args.iter().any(|a| a.dynamic) || input.xargs {
        let mut v = Verdict::new(Risk::High, S::new("engine-exec-evaluates-script-known-at"));
        v.opaque = true;
        return v;
    }
    let script: Vec<&str> = input.args.iter().map(|a| a.text.as_str()).collect();
    let mut v = Verdict::new(
        Risk::Low,
        S::new("engine-exec-evaluates-script-whose-parts"),
    );
    v.scripts.push(script.join(" "));
    v
}

/// `source FILE` / `. FILE`: runs a script in this shell.
pub(super) fn source(input: &Input<'_>) -> Verdict {
    if input.substituted_download {
        return Verdict::new(
            Risk::Critical,
            S::new("engine-exec-sources-code-downloaded-from"),
        );
    }
    if input
        .args
        .first()
        .is_some_and(|a| !a.dynamic && is_stdin_path(&a.text))
    {
        return stdin_script(input, input.program);
    }
    Verdict::new(
        Risk::High,
        S::new("engine-exec-sourced-file").text(
            "script",
            input.args.first().map_or("(none)", |a| a.text.as_str()),
        ),
    )
}

/// `watch [-n N] CMD...` runs its arguments through `sh -c`.
pub(super) fn watch(input: &Input<'_>) -> Verdict {
    let mut i = 0;
    let args = input.args;
    while i < args.len() && args[i].text.starts_with('-') {
        let t = args[i].text.as_str();
        i += if matches!(t, "-n" | "--interval" | "-d" | "-q") && t != "-d" {
            2
        } else {
            1
        };
    }
    if args[i.min(args.len())..].iter().any(|a| a.dynamic) {
        let mut v = Verdict::new(Risk::High, "watch runs a command only known at run time.");
        v.opaque = true;
        return v;
    }
    let script: Vec<&str> = args[i.min(args.len())..]
        .iter()
        .map(|a| a.text.as_str())
        .collect();
    let mut v = Verdict::new(
        Risk::Low,
        "watch runs a command whose parts are judged on their own.",
    );
    v.scripts.push(script.join(" "));
    v
}

/// `sed`: Low when every script only prints, substitutes or deletes lines on
/// standard output (`sed -n 1,5p f`, `sed 's/a/b/g' f`); High when a script runs a
/// command or writes a file (`e`, `w`, `s///e`, `s///w`); Medium for any other
/// script (one from a file, one Warden cannot read). `-i` writes its files.
pub(super) fn sed(input: &Input<'_>) -> Verdict {
    let args = operands_of(input);
    // Options in every spelling sed accepts (`-ne SCRIPT`, `--expr=SCRIPT`, `-i.bak`),
    // from the option table (`options.rs`).
    let Some(parsed) = crate::shell::options::parse(input.program, &args) else {
        return Verdict::new(Risk::Medium, S::new("engine-exec-sed-whose-scripts-write"));
    };
    let explicit: Vec<&Word> = parsed.values(Does::Text).collect();
    let from_file = parsed.has(Does::TextFile);
    // Without `-e` or `-f`, the first operand is the script.
    let (scripts, files): (Vec<&Word>, &[Word]) = if explicit.is_empty() && !from_file {
        match parsed.operands.split_first() {
            Some((script, files)) => (vec![script], files),
            None => (Vec::new(), &[]),
        }
    } else {
        (explicit, &parsed.operands)
    };
    let kind = if from_file || scripts.iter().any(|s| s.dynamic) {
        SedScript::Unknown
    } else {
        scripts
            .iter()
            .map(|s| sed_script(&s.text))
            .max()
            .unwrap_or(SedScript::PrintOnly)
    };
    let in_place = parsed.has(Does::InPlace);
    let mut v = match kind {
        SedScript::PrintOnly => Verdict::new(
            Risk::Low,
            S::new("engine-exec-sed-script-prints-substitutes"),
        ),
        SedScript::Unknown => {
            Verdict::new(Risk::Medium, S::new("engine-exec-sed-whose-scripts-write"))
        }
        SedScript::RunsOrWrites => {
            Verdict::new(Risk::High, S::new("engine-exec-sed-script-commands-writes"))
        }
    };
    for file in files {
        v.word(
            if in_place {
                FileOp::Write
            } else {
                FileOp::Read
            },
            file,
            input,
        );
    }
    v
}

/// What a sed script can do, ordered by risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum SedScript {
    /// Prints, substitutes, deletes, branches: output goes to standard output.
    PrintOnly,
    /// A command Warden does not read (`r`, `R`, an unknown letter).
    Unknown,
    /// Runs a command or writes a file: `e`, `w`, `W`, `s///e`, `s///w`.
    RunsOrWrites,
}

/// Reads a sed script command by command: addresses, then one command letter.
fn sed_script(script: &str) -> SedScript {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let mut worst = SedScript::PrintOnly;
    // Skips a delimited part (`/re/`, the parts of `s|a|b|`), honouring escapes;
    // false when it does not end.
    let delimited = |i: &mut usize, delim: char| -> bool {
        while *i < chars.len() {
            match chars[*i] {
                '\\' => *i += 2,
                c if c == delim => {
                    *i += 1;
                    return true;
                }
                _ => *i += 1,
            }
        }
        false
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == ';' || c == '{' || c == '}' {
            i += 1;
            continue;
        }
        // Addresses: numbers, `$`, `first~step`, `/re/`, `\cREc`, ranges, `!`.
        if c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '!' | '+') {
            i += 1;
            continue;
        }
        if c == '/' {
            i += 1;
            if !delimited(&mut i, '/') {
                return SedScript::Unknown;
            }
            // The `I` and `M` address flags.
            while i < chars.len() && matches!(chars[i], 'I' | 'M') {
                i += 1;
            }
            continue;
        }
        if c == '\\' {
            let Some(&d) = chars.get(i + 1) else {
                return SedScript::Unknown;
            };
            i += 2;
            if !delimited(&mut i, d) {
                return SedScript::Unknown;
            }
            continue;
        }
        i += 1;
        match c {
            'p' | 'P' | 'd' | 'D' | 'q' | 'Q' | '=' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x'
            | 'l' | 'z' | 'F' => {
                // `q5`, `l 40`: an optional number.
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == ' ') {
                    i += 1;
                }
            }
            '#' | ':' | 'b' | 't' | 'T' | 'a' | 'i' | 'c' => {
                // A comment, a label, or text to print: up to the end of the line
                // (labels and branches also end at `;`).
                let stop_at_semicolon = matches!(c, ':' | 'b' | 't' | 'T');
                while i < chars.len() && chars[i] != '\n' && !(stop_at_semicolon && chars[i] == ';')
                {
                    i += 1;
                }
            }
            's' | 'y' => {
                let Some(&d) = chars.get(i) else {
                    return SedScript::Unknown;
                };
                if d == '\n' || d == '\\' {
                    return SedScript::Unknown;
                }
                i += 1;
                if !delimited(&mut i, d) || !delimited(&mut i, d) {
                    return SedScript::Unknown;
                }
                if c == 's' {
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                        match chars[i] {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | ' ' => {}
                            d if d.is_ascii_digit() => {}
                            'e' | 'w' | 'W' => return SedScript::RunsOrWrites,
                            _ => return SedScript::Unknown,
                        }
                        i += 1;
                    }
                }
            }
            'e' | 'w' | 'W' => return SedScript::RunsOrWrites,
            _ => worst = worst.max(SedScript::Unknown),
        }
    }
    worst
}

/// `awk`: Low when the program only prints (no `system`, pipes, redirections,
/// `getline`, `close`, `ENVIRON`, `@include`/`@load`); High when it can run commands
/// or write files; a program from a file is High.
pub(super) fn awk(input: &Input<'_>) -> Verdict {
    let args = operands_of(input);
    let mut v = Verdict::new(Risk::Low, S::new("engine-exec-awk-program-prints"));
    let mut program_seen = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        // gawk's `-i LIB`/`--include` (`-i inplace` rewrites the files it reads),
        // `-l LIB`/`--load` (a shared library's code) and `-E FILE`.
        if !a.dynamic
            && (matches!(a.text.as_str(), "-i" | "-l" | "-E" | "--exec")
                || a.text.starts_with("--include")
                || a.text.starts_with("--load"))
        {
            let loads = a.text == "-l" || a.text.starts_with("--load");
            v.raise(
                if loads || a.text == "-E" || a.text == "--exec" {
                    Risk::High
                } else {
                    Risk::Medium
                },
                S::new("engine-awk-library"),
            );
            program_seen |= a.text == "-E" || a.text == "--exec";
            i += usize::from(!a.text.contains('='));
            continue;
        }
        if !a.dynamic && matches!(a.text.as_str(), "-F" | "-v" | "-f") {
            if a.text == "-f" {
                v.raise(Risk::High, S::new("engine-exec-awk-program-from-file"));
                program_seen = true;
            }
            i += 1;
            continue;
        }
        if !a.dynamic && a.text.starts_with('-') {
            continue;
        }
        if !program_seen {
            program_seen = true;
            if a.dynamic || awk_runs_or_writes(&a.text) {
                v.raise(Risk::High, S::new("engine-exec-awk-program-run-commands"));
            } else if ["close", "fflush", "ENVIRON", "PROCINFO", "@"]
                .iter()
                .any(|s| a.text.contains(s))
            {
                v.raise(Risk::Medium, S::new("engine-exec-awk-programming-language"));
            }
            continue;
        }
        v.word(FileOp::Read, a, input);
    }
    v
}

/// `alias NAME='BODY'` and `trap 'BODY' SIGNAL`: the body runs later, so it is judged
/// now as a script of its own.
pub(super) fn alias_or_trap(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let bodies: Vec<&crate::shell::words::Word> = match p {
        "alias" => input.args.iter().filter(|a| a.text.contains('=')).collect(),
        _ => input
            .args
            .iter()
            .filter(|a| !a.text.starts_with('-'))
            .take(1)
            .collect(),
    };
    let mut v = Verdict::new(
        Risk::Low,
        S::new("engine-exec-program-lists-defines").text("program", p),
    );
    for body in bodies {
        if body.dynamic {
            v.opaque = true;
            v.raise(
                Risk::High,
                S::new("engine-exec-defines-program-command-known").text("program", p),
            );
            continue;
        }
        let script = match p {
            "alias" => body.text.split_once('=').map_or("", |(_, b)| b),
            _ => body.text.as_str(),
        };
        v.scripts.push(script.to_string());
    }
    v
}

/// The code of an awk program with its strings, regular expressions and comments
/// blanked out, so that a `|` or `>` inside them is not taken for a pipe or a
/// redirection.
fn awk_code(program: &str) -> String {
    let mut out = String::with_capacity(program.len());
    let mut chars = program.chars().peekable();
    // The last character of code that was not a blank: a `/` after an operand
    // divides, anywhere else it opens a regular expression.
    let mut last = ' ';
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str(" \"\" ");
                last = '"';
            }
            '/' if !(last.is_ascii_alphanumeric()
                || matches!(last, '_' | ')' | ']' | '$' | '"')) =>
            {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '/' | '\n' => break,
                        _ => {}
                    }
                }
                out.push_str(" /re/ ");
                last = '/';
            }
            '#' => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                out.push('\n');
                last = ' ';
            }
            _ => {
                out.push(c);
                if !c.is_whitespace() {
                    last = c;
                }
            }
        }
    }
    out
}

/// Whether an awk program can run commands or write files: `system`, `getline`, a
/// pipe (`|`, not `||`), or a `>`/`>>` redirection of `print`/`printf` (outside
/// parentheses: elsewhere `>` compares).
pub(super) fn awk_runs_or_writes(program: &str) -> bool {
    let code = awk_code(program);
    if code.contains("system") || code.contains("getline") {
        return true;
    }
    let bytes = code.as_bytes();
    let mut in_print = false;
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if word_start && code[i..].starts_with("print") {
            in_print = true;
            depth = 0;
        }
        match b {
            b'|' if bytes.get(i + 1) == Some(&b'|') => i += 1,
            b'|' => return true,
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b';' | b'{' | b'}' | b'\n' => in_print = false,
            b'>' if in_print && depth == 0 => return true,
            _ => {}
        }
        i += 1;
    }
    false
}
