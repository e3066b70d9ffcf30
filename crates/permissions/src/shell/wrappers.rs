//! Programs that only run another program (`env`, `timeout`, `xargs`, ...): we judge
//! the program they run.

use super::words::Word;

/// The result of peeling wrappers off an argv.
#[derive(Debug, Default)]
pub(super) struct Unwrapped {
    /// Index of the program that actually runs (0 when there is no wrapper, or when a
    /// wrapper runs nothing, like `env` alone).
    pub start: usize,
    /// The program runs under `xargs`, with operands we cannot see.
    pub xargs: bool,
    /// `VAR=value` assignments made through `env`.
    pub assignments: Vec<Word>,
    /// `env -S STRING`: a command line split by `env` itself.
    pub split_string: Option<Word>,
    /// A wrapper option we do not know, after which we cannot tell what runs.
    pub problem: Option<String>,
    /// `env -C DIR`: the folder the program runs in.
    pub chdir: Option<Word>,
    /// The names of the wrappers peeled off, outermost first.
    pub wrappers: Vec<String>,
}

/// Peels wrappers off `words` (the full argv, program first).
pub(super) fn unwrap(words: &[Word]) -> Unwrapped {
    let mut out = Unwrapped::default();
    let mut pos = 0;
    // Each round consumes at least one word, so this terminates; the bound is for
    // clarity.
    for _ in 0..words.len() {
        let Some(word) = words.get(pos) else { break };
        if word.dynamic {
            break;
        }
        // Program names compare case-insensitively: on a case-insensitive file
        // system (macOS by default) `ENV` runs `env`.
        let lowered = basename(&word.text).to_ascii_lowercase();
        let name = lowered.as_str();
        let next = match name {
            "env" => env(words, pos + 1, &mut out),
            "timeout" => timeout(words, pos + 1, &mut out),
            "nice" => nice(words, pos + 1, &mut out),
            "nohup" | "builtin" => Ok(skip_dashdash(words, pos + 1)),
            // tree-sitter-bash reads `time { cmd; }` and `! { cmd; }` as a command
            // named `{`: the group's first command follows it.
            "{" => Ok(Some(pos + 1)),
            // `coproc cmd ...` and `coproc NAME { cmd; }`.
            "coproc" => Ok(Some(if arg(words, pos + 2) == Some("{") {
                pos + 2
            } else {
                pos + 1
            })),
            // `busybox APPLET ...` runs the applet; `busybox --list` runs nothing.
            "busybox" => Ok(arg(words, pos + 1)
                .filter(|a| !a.starts_with('-'))
                .map(|_| pos + 1)),
            "time" => time(words, pos + 1),
            "command" => command(words, pos + 1),
            "exec" => exec(words, pos + 1),
            "stdbuf" => stdbuf(words, pos + 1),
            "setsid" => simple_flags(
                words,
                pos + 1,
                &["-f", "-w", "-c", "--fork", "--wait", "--ctty"],
            ),
            "ionice" => ionice(words, pos + 1),
            "xargs" => {
                out.xargs = true;
                xargs(words, pos + 1)
            }
            _ => break,
        };
        match next {
            Ok(Some(next)) if next < words.len() => {
                out.wrappers.push(name.to_string());
                pos = next;
            }
            // The wrapper runs nothing (`env` alone prints the environment, `nice`
            // alone its niceness): judge the wrapper itself.
            Ok(_) => {
                if name == "xargs" {
                    // xargs without a program runs `echo`.
                    out.wrappers.push(name.to_string());
                    out.start = words.len();
                    return out;
                }
                break;
            }
            Err(problem) => {
                out.problem = Some(problem);
                break;
            }
        }
    }
    out.start = pos;
    out
}

/// The basename of a program path.
pub(super) fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

type Step = Result<Option<usize>, String>;

fn arg(words: &[Word], i: usize) -> Option<&str> {
    words.get(i).map(|w| w.text.as_str())
}

fn unknown(wrapper: &str, option: &str) -> String {
    format!("`{wrapper}` has an option Warden does not know ({option}), so what it runs is unclear")
}

fn skip_dashdash(words: &[Word], i: usize) -> Option<usize> {
    Some(if arg(words, i) == Some("--") {
        i + 1
    } else {
        i
    })
}

fn env(words: &[Word], mut i: usize, out: &mut Unwrapped) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "-i" | "-0" | "-v" | "--ignore-environment" | "--null" | "--debug" | "-" => i += 1,
            "-u" | "--unset" => i += 2,
            "-C" | "--chdir" => {
                out.chdir = Some(words.get(i + 1).cloned().unwrap_or(Word::unknown("")));
                i += 2;
            }
            "-S" | "--split-string" => {
                out.split_string = words.get(i + 1).cloned();
                return Ok(None);
            }
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with("--unset=") || a.starts_with("-u") => i += 1,
            _ if a.starts_with("--chdir=") || a.starts_with("-C") => {
                let dir = a
                    .strip_prefix("--chdir=")
                    .or_else(|| a.strip_prefix("-C"))
                    .unwrap_or("");
                out.chdir = Some(Word {
                    text: dir.to_string(),
                    dynamic: words[i].dynamic,
                });
                i += 1;
            }
            _ if a.starts_with("-S") || a.starts_with("--split-string=") => {
                let value = a
                    .strip_prefix("--split-string=")
                    .or_else(|| a.strip_prefix("-S"))
                    .unwrap_or("");
                out.split_string = Some(Word::literal(value));
                return Ok(None);
            }
            _ if a.starts_with('-') => return Err(unknown("env", a)),
            _ => break,
        }
    }
    while let Some(w) = words.get(i) {
        if is_assignment(&w.text) {
            out.assignments.push(w.clone());
            i += 1;
        } else {
            break;
        }
    }
    Ok(Some(i))
}

/// `NAME=value` with a valid shell name.
pub(super) fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

fn timeout(words: &[Word], mut i: usize, _out: &mut Unwrapped) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "--preserve-status" | "--foreground" | "-v" | "--verbose" => i += 1,
            "-s" | "-k" | "--signal" | "--kill-after" => i += 2,
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with("--signal=") || a.starts_with("--kill-after=") => i += 1,
            _ if a.starts_with("-s") || a.starts_with("-k") => i += 1,
            _ if a.starts_with('-') => return Err(unknown("timeout", a)),
            _ => break,
        }
    }
    // The duration.
    if arg(words, i).is_none() {
        return Ok(None);
    }
    Ok(Some(i + 1))
}

fn nice(words: &[Word], mut i: usize, _out: &mut Unwrapped) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "-n" | "--adjustment" => i += 2,
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with("--adjustment=") => i += 1,
            _ if a.starts_with("-n") => i += 1,
            _ if a.len() > 1
                && a.starts_with('-')
                && a[1..]
                    .trim_start_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit()) =>
            {
                i += 1;
            }
            _ if a.starts_with('-') => return Err(unknown("nice", a)),
            _ => break,
        }
    }
    Ok(Some(i))
}

fn time(words: &[Word], mut i: usize) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "-p" | "-v" | "--verbose" | "--portability" | "-q" | "--quiet" => i += 1,
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with('-') => return Err(unknown("time", a)),
            _ => break,
        }
    }
    Ok(Some(i))
}

fn command(words: &[Word], mut i: usize) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "-p" => i += 1,
            // `command -v x` only looks a name up: judge `command` itself.
            "-v" | "-V" => return Ok(None),
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with('-') => return Err(unknown("command", a)),
            _ => break,
        }
    }
    Ok(Some(i))
}

fn exec(words: &[Word], mut i: usize) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "-c" | "-l" | "-cl" | "-lc" => i += 1,
            "-a" => i += 2,
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with('-') => return Err(unknown("exec", a)),
            _ => break,
        }
    }
    Ok(Some(i))
}

fn stdbuf(words: &[Word], mut i: usize) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "-i" | "-o" | "-e" => i += 2,
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with("--input=")
                || a.starts_with("--output=")
                || a.starts_with("--error=")
                || a.starts_with("-i")
                || a.starts_with("-o")
                || a.starts_with("-e") =>
            {
                i += 1;
            }
            _ if a.starts_with('-') => return Err(unknown("stdbuf", a)),
            _ => break,
        }
    }
    Ok(Some(i))
}

fn ionice(words: &[Word], mut i: usize) -> Step {
    while let Some(a) = arg(words, i) {
        match a {
            "-c" | "-n" | "--class" | "--classdata" => i += 2,
            "-t" | "--ignore" => i += 1,
            "--" => {
                i += 1;
                break;
            }
            _ if a.starts_with("-c") || a.starts_with("-n") => i += 1,
            _ if a.starts_with('-') => return Err(unknown("ionice", a)),
            _ => break,
        }
    }
    Ok(Some(i))
}

fn simple_flags(words: &[Word], mut i: usize, known: &[&str]) -> Step {
    while let Some(a) = arg(words, i) {
        if a == "--" {
            i += 1;
            break;
        }
        if known.contains(&a) {
            i += 1;
        } else if a.starts_with('-') {
            return Err(unknown(basename(&words[0].text), a));
        } else {
            break;
        }
    }
    Ok(Some(i))
}

fn xargs(words: &[Word], mut i: usize) -> Step {
    const VALUED: &[&str] = &["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"];
    const VALUED_LONG: &[&str] = &[
        "--arg-file",
        "--delimiter",
        "--max-lines",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ];
    const FLAGS: &[&str] = &[
        "-0",
        "-o",
        "-p",
        "-r",
        "-t",
        "-x",
        "--null",
        "--no-run-if-empty",
        "--verbose",
        "--interactive",
        "--open-tty",
        "--exit",
        "--show-limits",
    ];
    while let Some(a) = arg(words, i) {
        if a == "--" {
            i += 1;
            break;
        }
        if FLAGS.contains(&a) || VALUED_LONG.iter().any(|l| a.starts_with(&format!("{l}="))) {
            i += 1;
        } else if VALUED.contains(&a) || VALUED_LONG.contains(&a) {
            i += 2;
        } else if a.starts_with("--replace") || a.starts_with("--eof") {
            i += 1;
        } else if a.len() > 2
            && a.starts_with('-')
            && !a.starts_with("--")
            && a.chars().nth(1).is_some_and(|c| "adEILnPsiel".contains(c))
        {
            // An option with its value attached (`-n1`, `-I{}`), or GNU's optional
            // forms `-i`, `-e`, `-l` with theirs.
            i += 1;
        } else if matches!(a, "-i" | "-e" | "-l") {
            i += 1;
        } else if a.starts_with('-') {
            return Err(unknown("xargs", a));
        } else {
            break;
        }
    }
    Ok(Some(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn wrappers_peel_to_the_program() {
        for (line, program) in [
            ("env A=1 B=2 rm x", "rm"),
            ("env -i -u X rm x", "rm"),
            ("timeout 5 rm x", "rm"),
            ("timeout -s KILL 5 rm x", "rm"),
            ("nice -n 10 rm x", "rm"),
            ("nice -5 rm x", "rm"),
            ("nohup rm x", "rm"),
            ("time -p rm x", "rm"),
            ("command rm x", "rm"),
            ("xargs -0 -n 1 rm", "rm"),
            ("xargs -I{} rm {}", "rm"),
            ("timeout 5 nice env A=1 rm", "rm"),
        ] {
            let w = words(line);
            let u = unwrap(&w);
            assert_eq!(
                w.get(u.start).map(|w| w.text.as_str()),
                Some(program),
                "{line}"
            );
        }
    }

    #[test]
    fn a_wrapper_alone_is_judged_itself() {
        let w = words("env");
        assert_eq!(unwrap(&w).start, 0);
        let w = words("command -v ls");
        assert_eq!(unwrap(&w).start, 0);
    }

    #[test]
    fn a_multibyte_option_letter_does_not_panic() {
        // Regression: `&a[1..2]` split a multibyte character.
        let w = words("xargs -éx rm");
        assert!(unwrap(&w).problem.is_some());
    }

    #[test]
    fn unknown_wrapper_options_are_a_problem() {
        let w = words("timeout --bogus 5 rm x");
        assert!(unwrap(&w).problem.is_some());
    }
}
