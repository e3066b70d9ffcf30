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
    /// Why we cannot tell what the wrapper runs, when we cannot.
    pub problem: Option<WrapperError>,
    /// `env -C DIR`: the folder the program runs in.
    pub chdir: Option<Word>,
    /// The names of the wrappers peeled off, outermost first.
    pub wrappers: Vec<String>,
    /// The least risk a peeled wrapper adds on its own, with why
    /// (`systemd-run` starts a service that outlives the command).
    pub floor: Option<(crate::Risk, crate::Sentence)>,
}

/// Why a wrapper's program cannot be found, so that the segment is not fully analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum WrapperError {
    /// An option Warden does not know may take a value, so the program's place is unclear.
    #[error(
        "`{wrapper}` has an option Warden does not know ({option}), so what it runs is unclear"
    )]
    UnknownOption { wrapper: String, option: String },
    /// An argument only known at run time may be an option or the program.
    #[error(
        "`{wrapper}` has an argument only known at run time ({argument}), so what it runs is unclear"
    )]
    Dynamic { wrapper: String, argument: String },
}

/// A wrapper described as data: `name [options] [operands] PROGRAM ARGS...`.
struct Spec {
    name: &'static str,
    /// Options that take the next word as their value (or `--opt=value`,
    /// `-oVALUE` attached).
    valued: &'static [&'static str],
    /// Options without a value.
    flags: &'static [&'static str],
    /// Options after which the wrapper runs no program (`taskset -p MASK PID`).
    no_program: &'static [&'static str],
    /// Words between the options and the program (`taskset MASK`, `chrt PRIO`,
    /// `flock FILE`, `chroot DIR`).
    operands: usize,
    /// What running it adds by itself.
    /// The least risk the wrapper adds, and the id of its reason in `engine.ftl`.
    floor: Option<(crate::Risk, &'static str)>,
}

/// Wrappers that only change how their program runs (scheduling, limits,
/// namespaces, tracing). A wrapper option not listed here is a problem: what runs
/// is unclear.
const SPECS: &[Spec] = &[
    Spec {
        name: "taskset",
        valued: &[],
        flags: &["-a", "--all-tasks", "-c", "--cpu-list"],
        no_program: &["-p", "--pid"],
        operands: 1,
        floor: None,
    },
    Spec {
        name: "chrt",
        valued: &[
            "-T",
            "--sched-runtime",
            "-P",
            "--sched-period",
            "-D",
            "--sched-deadline",
        ],
        flags: &[
            "-a",
            "--all-tasks",
            "-b",
            "--batch",
            "-d",
            "--deadline",
            "-f",
            "--fifo",
            "-i",
            "--idle",
            "-o",
            "--other",
            "-r",
            "--rr",
            "-R",
            "--reset-on-fork",
            "-v",
            "--verbose",
        ],
        no_program: &["-p", "--pid", "-m", "--max"],
        operands: 1,
        floor: None,
    },
    Spec {
        name: "flock",
        valued: &["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"],
        flags: &[
            "-s",
            "--shared",
            "-x",
            "-e",
            "--exclusive",
            "-n",
            "--nb",
            "--nonblock",
            "-u",
            "--unlock",
            "-o",
            "--close",
            "-F",
            "--no-fork",
            "--verbose",
        ],
        // `flock -c CMD FILE` is a carried command (see `judge/carried.rs`).
        no_program: &["-c", "--command"],
        operands: 1,
        floor: None,
    },
    Spec {
        name: "strace",
        valued: &[
            "-e", "-o", "-p", "-s", "-a", "-u", "-E", "-P", "-b", "-I", "-O", "-S", "-X", "-U",
        ],
        flags: &[
            "-f", "-ff", "-c", "-C", "-d", "-D", "-F", "-i", "-k", "-n", "-q", "-qq", "-r", "-t",
            "-tt", "-ttt", "-T", "-v", "-V", "-w", "-x", "-xx", "-y", "-yy", "-z", "-Z",
        ],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "ltrace",
        valued: &[
            "-e", "-o", "-p", "-s", "-a", "-u", "-l", "-n", "-w", "-A", "-D", "-F", "-L", "-x",
        ],
        flags: &[
            "-b", "-c", "-C", "-f", "-h", "-i", "-r", "-S", "-t", "-tt", "-ttt", "-T", "-V",
        ],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "unshare",
        valued: &[
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
            "--propagation",
            "--setgroups",
            "-S",
            "--setuid",
            "-G",
            "--setgid",
            "-R",
            "--root",
            "-w",
            "--wd",
            "--monotonic",
            "--boottime",
        ],
        flags: &[
            "-m",
            "--mount",
            "-u",
            "--uts",
            "-i",
            "--ipc",
            "-n",
            "--net",
            "-p",
            "--pid",
            "-U",
            "--user",
            "-C",
            "--cgroup",
            "-T",
            "--time",
            "-f",
            "--fork",
            "-r",
            "--map-root-user",
            "-c",
            "--map-current-user",
            "--kill-child",
            "--mount-proc",
            "--keep-caps",
        ],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "systemd-run",
        valued: &[
            "-u",
            "--unit",
            "-p",
            "--property",
            "-E",
            "--setenv",
            "-d",
            "--description",
            "--slice",
            "-H",
            "--host",
            "-M",
            "--machine",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--on-calendar",
            "--timer-property",
            "--path-property",
            "--socket-property",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--service-type",
        ],
        flags: &[
            "--user",
            "--system",
            "--scope",
            "-r",
            "--remain-after-exit",
            "--send-sighup",
            "-t",
            "--pty",
            "-P",
            "--pipe",
            "-q",
            "--quiet",
            "--wait",
            "-G",
            "--collect",
            "-S",
            "--shell",
            "--no-block",
            "--no-ask-password",
            "--same-dir",
        ],
        no_program: &[],
        operands: 0,
        floor: Some((crate::Risk::High, "engine-wrapper-systemd-run")),
    },
    Spec {
        name: "prlimit",
        valued: &["-p", "--pid", "-o", "--output"],
        flags: &["--noheadings", "--raw", "--verbose"],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "setpriv",
        valued: &[
            "--reuid",
            "--regid",
            "--ruid",
            "--rgid",
            "--euid",
            "--egid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--pdeathsig",
            "--selinux-label",
            "--apparmor-profile",
            "--landlock-access",
            "--landlock-rule",
        ],
        flags: &[
            "--no-new-privs",
            "--clear-groups",
            "--init-groups",
            "--keep-groups",
            "--reset-env",
            "-d",
            "--dump",
        ],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "nsenter",
        valued: &[
            "-t", "--target", "-S", "--setuid", "-G", "--setgid", "-r", "--root", "-w", "--wd",
        ],
        flags: &[
            "-a",
            "--all",
            "-m",
            "--mount",
            "-u",
            "--uts",
            "-i",
            "--ipc",
            "-n",
            "--net",
            "-p",
            "--pid",
            "-C",
            "--cgroup",
            "-U",
            "--user",
            "-T",
            "--time",
            "-F",
            "--no-fork",
            "--preserve-credentials",
        ],
        no_program: &[],
        operands: 0,
        floor: Some((crate::Risk::High, "engine-wrapper-nsenter")),
    },
    // Privilege wrappers: Critical by themselves, and peeled so that the command
    // they run is judged and rules see it (`sudo rm -rf build` is `rm -rf build`
    // to a deny rule).
    Spec {
        name: "sudo",
        valued: &[
            "-u",
            "--user",
            "-g",
            "--group",
            "-p",
            "--prompt",
            "-C",
            "--close-from",
            "-D",
            "--chdir",
            "-r",
            "--role",
            "-t",
            "--type",
            "-T",
            "--command-timeout",
            "-U",
            "--other-user",
            "-R",
            "--chroot",
            "-h",
            "--host",
        ],
        flags: &[
            "-E",
            "--preserve-env",
            "-H",
            "--set-home",
            "-n",
            "--non-interactive",
            "-S",
            "--stdin",
            "-b",
            "--background",
            "-k",
            "--reset-timestamp",
            "-P",
            "--preserve-groups",
            "-A",
            "--askpass",
            "-B",
            "--bell",
            "-i",
            "--login",
            "-s",
            "--shell",
        ],
        no_program: &[
            "-l",
            "--list",
            "-v",
            "--validate",
            "-V",
            "--version",
            "--help",
            "-K",
            "--remove-timestamp",
            "-e",
            "--edit",
        ],
        operands: 0,
        floor: Some((crate::Risk::Critical, "engine-wrapper-administrator")),
    },
    Spec {
        name: "doas",
        valued: &["-u", "-C"],
        flags: &["-n", "-s", "-L"],
        no_program: &[],
        operands: 0,
        floor: Some((crate::Risk::Critical, "engine-wrapper-administrator")),
    },
    Spec {
        name: "chroot",
        valued: &["--userspec", "--groups"],
        flags: &["--skip-chdir"],
        no_program: &[],
        operands: 1,
        floor: Some((crate::Risk::High, "engine-wrapper-chroot")),
    },
    Spec {
        name: "numactl",
        valued: &[
            "-C",
            "--cpunodebind",
            "-m",
            "--membind",
            "-N",
            "-p",
            "--preferred",
            "-i",
            "--interleave",
            "-P",
            "--physcpubind",
        ],
        flags: &[
            "-a",
            "--all",
            "-l",
            "--localalloc",
            "-s",
            "--show",
            "-H",
            "--hardware",
        ],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "cpulimit",
        valued: &["-l", "--limit", "-p", "--pid", "-e", "--exe"],
        flags: &[
            "-z",
            "--lazy",
            "-i",
            "--include-children",
            "-v",
            "--verbose",
            "-k",
            "--kill",
        ],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "caffeinate",
        valued: &["-t", "-w"],
        flags: &["-d", "-i", "-m", "-s", "-u"],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "catchsegv",
        valued: &[],
        flags: &[],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "valgrind",
        valued: &[],
        flags: &["-q", "-v", "--quiet", "--verbose"],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "proxychains",
        valued: &["-f"],
        flags: &["-q"],
        no_program: &[],
        operands: 0,
        floor: None,
    },
    Spec {
        name: "torsocks",
        valued: &["-u", "-p", "-a", "-P"],
        flags: &["-q", "-i", "-d", "--shell"],
        no_program: &[],
        operands: 0,
        floor: None,
    },
];

/// Whether `name` is a program that only runs another one (a wrapper Warden peels
/// off before judging).
pub fn is_wrapper(name: &str) -> bool {
    matches!(
        name,
        "env"
            | "timeout"
            | "nice"
            | "nohup"
            | "builtin"
            | "coproc"
            | "busybox"
            | "time"
            | "command"
            | "exec"
            | "stdbuf"
            | "setsid"
            | "ionice"
            | "xargs"
    ) || SPECS.iter().any(|s| s.name == name)
}

/// Peels a wrapper described by a [`Spec`].
fn data_wrapper(spec: &Spec, words: &[Word], mut i: usize, out: &mut Unwrapped) -> Step {
    while let Some(w) = words.get(i) {
        let a = w.text.as_str();
        if w.dynamic {
            return Err(WrapperError::Dynamic {
                wrapper: spec.name.to_owned(),
                argument: a.to_owned(),
            });
        }
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        let name = a.split_once('=').map_or(a, |(n, _)| n);
        if spec.no_program.contains(&name) {
            return Ok(None);
        }
        if spec.valued.contains(&a) {
            i += 2;
        } else if spec.flags.contains(&a)
            || (a.starts_with("--") && spec.valued.contains(&name))
            // A short option with its value attached (`-p1234`, `-T100`).
            || (!a.starts_with("--")
                && spec.valued.iter().any(|v| v.len() == 2 && a.starts_with(v) && a.len() > 2))
            // prlimit's `--nofile=N` and the like.
            || (spec.name == "prlimit" && a.starts_with("--"))
            || (spec.name == "valgrind" && a.starts_with("--") && a.contains('='))
        {
            i += 1;
        } else {
            return Err(unknown(spec.name, a));
        }
    }
    // `flock FILE -c CMD`: an option after the operands can still mean no program.
    if words
        .get(i + spec.operands)
        .is_some_and(|w| spec.no_program.contains(&w.text.as_str()))
    {
        return Ok(None);
    }
    // The strictest floor of the wrappers peeled wins: `sudo chroot /` stays
    // Critical for `sudo`, though `chroot` alone is High.
    if let Some((risk, why)) = spec.floor
        && out.floor.as_ref().is_none_or(|(r, _)| risk > *r)
    {
        out.floor = Some((risk, crate::Sentence::new(why)));
    }
    Ok(Some(i + spec.operands))
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
            _ => match SPECS.iter().find(|s| s.name == name) {
                Some(spec) => data_wrapper(spec, words, pos + 1, &mut out),
                None => break,
            },
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

type Step = Result<Option<usize>, WrapperError>;

fn arg(words: &[Word], i: usize) -> Option<&str> {
    words.get(i).map(|w| w.text.as_str())
}

fn unknown(wrapper: &str, option: &str) -> WrapperError {
    WrapperError::UnknownOption {
        wrapper: wrapper.to_owned(),
        option: option.to_owned(),
    }
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
                out.split_string = words
                    .get(i + 1)
                    .map(|w| split_with_rest(w, &words[i + 2..]));
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
                out.split_string = Some(split_with_rest(
                    &Word {
                        text: value.to_string(),
                        dynamic: words[i].dynamic,
                    },
                    &words[i + 1..],
                ));
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

/// `env -S STRING ARGS…` runs the words of STRING followed by ARGS: one script.
fn split_with_rest(string: &Word, rest: &[Word]) -> Word {
    let mut text = string.text.clone();
    for w in rest {
        text.push(' ');
        if w.dynamic {
            text.push_str(&w.text);
        } else {
            text.push('\'');
            text.push_str(&w.text.replace('\'', "'\\''"));
            text.push('\'');
        }
    }
    Word {
        text,
        dynamic: string.dynamic || rest.iter().any(|w| w.dynamic),
    }
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
            ("taskset 0x1 rm x", "rm"),
            ("taskset -c 0-3 rm x", "rm"),
            ("chrt -f 10 rm x", "rm"),
            ("flock /tmp/l rm x", "rm"),
            ("flock -w 5 /tmp/l rm x", "rm"),
            ("strace -f -o /tmp/t rm x", "rm"),
            ("unshare -r -n rm x", "rm"),
            ("systemd-run --user --scope rm x", "rm"),
            ("systemd-run -p MemoryMax=1G rm x", "rm"),
            ("prlimit --nofile=10 rm x", "rm"),
            ("setpriv --no-new-privs rm x", "rm"),
            ("chroot /srv rm x", "rm"),
            ("nsenter -t 1 -m rm x", "rm"),
            ("taskset 1 timeout 5 strace rm x", "rm"),
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
