//! The argv normal form (documented on [`Segment`](super::Segment)): one spelling for
//! every way of writing the same options, so that rules and grants matching argv
//! prefixes cannot be dodged with `rm -fr` instead of `rm -rf`.

use super::options;

/// What we know about one program's options.
struct Spec {
    /// Short options that take no value.
    flags: &'static str,
    /// Short options that take a value (attached `-m755` or as the next word).
    valued: &'static str,
    /// Short aliases: `(from, to)`, e.g. rm's `-R` is `-r`.
    aliases: &'static [(char, char)],
    /// Long options with a short form: `(long name, short letter)`.
    long: &'static [(&'static str, char)],
}

const RM: Spec = Spec {
    flags: "fiIrRdv",
    valued: "",
    aliases: &[('R', 'r')],
    long: &[
        ("force", 'f'),
        ("recursive", 'r'),
        ("dir", 'd'),
        ("verbose", 'v'),
    ],
};

const CP: Spec = Spec {
    flags: "abdfHilLnPprRsTuvx",
    valued: "tS",
    aliases: &[('R', 'r')],
    long: &[
        ("archive", 'a'),
        ("force", 'f'),
        ("interactive", 'i'),
        ("link", 'l'),
        ("dereference", 'L'),
        ("no-clobber", 'n'),
        ("no-dereference", 'P'),
        ("recursive", 'r'),
        ("symbolic-link", 's'),
        ("no-target-directory", 'T'),
        ("target-directory", 't'),
        ("suffix", 'S'),
        ("update", 'u'),
        ("verbose", 'v'),
        ("one-file-system", 'x'),
    ],
};

const MV: Spec = Spec {
    flags: "bfinTuvZ",
    valued: "tS",
    aliases: &[],
    long: &[
        ("force", 'f'),
        ("interactive", 'i'),
        ("no-clobber", 'n'),
        ("no-target-directory", 'T'),
        ("target-directory", 't'),
        ("suffix", 'S'),
        ("update", 'u'),
        ("verbose", 'v'),
    ],
};

const LN: Spec = Spec {
    flags: "bdFfiLnPrsTv",
    valued: "tS",
    aliases: &[],
    long: &[
        ("force", 'f'),
        ("interactive", 'i'),
        ("logical", 'L'),
        ("no-dereference", 'n'),
        ("physical", 'P'),
        ("relative", 'r'),
        ("symbolic", 's'),
        ("target-directory", 't'),
        ("no-target-directory", 'T'),
        ("verbose", 'v'),
    ],
};

const MKDIR: Spec = Spec {
    flags: "pvZ",
    valued: "m",
    aliases: &[],
    long: &[("parents", 'p'), ("verbose", 'v'), ("mode", 'm')],
};

const RMDIR: Spec = Spec {
    flags: "pv",
    valued: "",
    aliases: &[],
    long: &[("parents", 'p'), ("verbose", 'v')],
};

const TOUCH: Spec = Spec {
    flags: "acfhm",
    valued: "drt",
    aliases: &[],
    long: &[
        ("no-create", 'c'),
        ("date", 'd'),
        ("reference", 'r'),
        ("no-dereference", 'h'),
    ],
};

const CHMOD: Spec = Spec {
    flags: "cfvR",
    valued: "",
    aliases: &[],
    long: &[
        ("changes", 'c'),
        ("silent", 'f'),
        ("quiet", 'f'),
        ("verbose", 'v'),
        ("recursive", 'R'),
    ],
};

const CHOWN: Spec = Spec {
    flags: "cfvRhHLP",
    valued: "",
    aliases: &[],
    long: &[
        ("changes", 'c'),
        ("silent", 'f'),
        ("quiet", 'f'),
        ("verbose", 'v'),
        ("recursive", 'R'),
        ("no-dereference", 'h'),
    ],
};

const LS: Spec = Spec {
    flags: "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    valued: "ITw",
    aliases: &[],
    long: &[
        ("all", 'a'),
        ("almost-all", 'A'),
        ("directory", 'd'),
        ("classify", 'F'),
        ("human-readable", 'h'),
        ("inode", 'i'),
        ("dereference", 'L'),
        ("numeric-uid-gid", 'n'),
        ("reverse", 'r'),
        ("recursive", 'R'),
        ("size", 's'),
        ("ignore", 'I'),
        ("width", 'w'),
        ("tabsize", 'T'),
    ],
};

const GIT_PUSH: Spec = Spec {
    flags: "dfnquv46",
    valued: "o",
    aliases: &[],
    long: &[
        ("delete", 'd'),
        ("force", 'f'),
        ("dry-run", 'n'),
        ("quiet", 'q'),
        ("set-upstream", 'u'),
        ("verbose", 'v'),
        ("push-option", 'o'),
    ],
};

const GIT_CLEAN: Spec = Spec {
    flags: "dfinqxX",
    valued: "e",
    aliases: &[],
    long: &[
        ("force", 'f'),
        ("interactive", 'i'),
        ("dry-run", 'n'),
        ("quiet", 'q'),
        ("exclude", 'e'),
    ],
};

const GIT_RESET: Spec = Spec {
    flags: "qpN",
    valued: "",
    aliases: &[],
    long: &[("quiet", 'q'), ("patch", 'p')],
};

const GIT_COMMIT: Spec = Spec {
    flags: "aenpqsvz",
    valued: "mFCct",
    aliases: &[],
    long: &[
        ("all", 'a'),
        ("edit", 'e'),
        ("no-verify", 'n'),
        ("patch", 'p'),
        ("quiet", 'q'),
        ("signoff", 's'),
        ("verbose", 'v'),
        ("message", 'm'),
        ("file", 'F'),
        ("reuse-message", 'C'),
        ("reedit-message", 'c'),
        ("template", 't'),
    ],
};

const GIT_ADD: Spec = Spec {
    flags: "AfinNpuv",
    valued: "",
    aliases: &[],
    long: &[
        ("all", 'A'),
        ("force", 'f'),
        ("interactive", 'i'),
        ("dry-run", 'n'),
        ("intent-to-add", 'N'),
        ("patch", 'p'),
        ("update", 'u'),
        ("verbose", 'v'),
    ],
};

const GIT_BRANCH: Spec = Spec {
    flags: "acCdDfilmMqrv",
    valued: "ut",
    aliases: &[],
    long: &[
        ("all", 'a'),
        ("copy", 'c'),
        ("delete", 'd'),
        ("force", 'f'),
        ("ignore-case", 'i'),
        ("list", 'l'),
        ("move", 'm'),
        ("quiet", 'q'),
        ("remotes", 'r'),
        ("verbose", 'v'),
        ("set-upstream-to", 'u'),
        ("track", 't'),
    ],
};

const GIT_CHECKOUT: Spec = Spec {
    flags: "fmpq",
    valued: "bB",
    aliases: &[],
    long: &[
        ("force", 'f'),
        ("merge", 'm'),
        ("patch", 'p'),
        ("quiet", 'q'),
    ],
};

fn spec_for(program: &str) -> Option<&'static Spec> {
    Some(match program {
        "rm" => &RM,
        "cp" => &CP,
        "mv" => &MV,
        "ln" => &LN,
        "mkdir" => &MKDIR,
        "rmdir" => &RMDIR,
        "touch" => &TOUCH,
        "chmod" => &CHMOD,
        "chown" | "chgrp" => &CHOWN,
        "ls" => &LS,
        _ => return None,
    })
}

fn git_spec_for(subcommand: &str) -> Option<&'static Spec> {
    Some(match subcommand {
        "push" => &GIT_PUSH,
        "clean" => &GIT_CLEAN,
        "reset" => &GIT_RESET,
        "commit" => &GIT_COMMIT,
        "add" => &GIT_ADD,
        "branch" => &GIT_BRANCH,
        "checkout" => &GIT_CHECKOUT,
        _ => return None,
    })
}

/// Puts an argv (whose first word is the program's name) into the normal form.
/// Programs without a known option spec come back unchanged. Rules and grants should
/// pass their own argv patterns through this too, so both sides compare alike.
pub fn normalize_argv(argv: &[String]) -> Vec<String> {
    let Some(program) = argv.first() else {
        return Vec::new();
    };
    if program == "git" {
        return normalize_git(argv);
    }
    match spec_for(program) {
        Some(spec) => {
            let mut out = vec![program.clone()];
            out.extend(normalize_options(spec, program, &argv[1..]));
            out
        }
        None => argv.to_vec(),
    }
}

/// `git [global options] SUBCOMMAND [args]`: drops the harmless global options that
/// only move git (`-C DIR`, `--no-pager`, `-P`), keeps the rest, and normalises the
/// arguments of known subcommands.
fn normalize_git(argv: &[String]) -> Vec<String> {
    let mut out = vec![argv[0].clone()];
    let mut i = 1;
    while i < argv.len() {
        let arg = &argv[i];
        match arg.as_str() {
            "-C" => i += 2,
            "--no-pager" | "-P" => i += 1,
            // Which global options take the next word is the option table's, so that
            // the subcommand found here is the one git runs (`git --config-env K=V
            // push` is `push`).
            _ if arg.starts_with('-') => {
                out.push(arg.clone());
                let takes = options::takes_next_word(&options::GIT_GLOBALS, arg);
                if takes && let Some(value) = argv.get(i + 1) {
                    out.push(value.clone());
                }
                i += if takes { 2 } else { 1 };
            }
            _ => break,
        }
    }
    let Some(sub) = argv.get(i) else {
        return out;
    };
    out.push(sub.clone());
    let rest = argv.get(i + 1..).unwrap_or(&[]);
    match git_spec_for(sub) {
        Some(spec) => out.extend(normalize_options(spec, sub, rest)),
        None => out.extend(rest.iter().cloned()),
    }
    out
}

/// One option in the normal form: the flag and, for valued options, its value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Unit {
    flag: String,
    value: Option<String>,
}

fn normalize_options(spec: &Spec, program: &str, args: &[String]) -> Vec<String> {
    let mut units: Vec<Unit> = Vec::new();
    let mut operands: Vec<String> = Vec::new();
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if only_operands || arg == "-" || !arg.starts_with('-') || is_chmod_mode(program, arg) {
            operands.push(arg.clone());
            continue;
        }
        if arg == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let found = long_option(spec, name);
            match found {
                Some((_, short)) if spec.valued.contains(*short) => {
                    let value = attached.or_else(|| {
                        let v = args.get(i).cloned();
                        i += 1;
                        v
                    });
                    if !is_clear_value(value.as_deref()) {
                        return args.to_vec();
                    }
                    units.push(Unit {
                        flag: format!("-{short}"),
                        value,
                    });
                }
                Some((_, short)) if attached.is_none() => units.push(Unit {
                    flag: format!("-{}", alias(spec, *short)),
                    value: None,
                }),
                _ => units.push(Unit {
                    flag: arg.clone(),
                    value: None,
                }),
            }
            continue;
        }
        // A cluster of short options: split it only when every letter is known, so
        // an unknown option never turns into a different known one.
        let letters: Vec<char> = arg.chars().skip(1).collect();
        let mut split: Vec<Unit> = Vec::new();
        let mut ok = true;
        let mut k = 0;
        while k < letters.len() {
            let c = letters[k];
            if spec.valued.contains(c) {
                let attached: String = letters[k + 1..].iter().collect();
                let value = if attached.is_empty() {
                    let v = args.get(i).cloned();
                    i += 1;
                    v
                } else {
                    Some(attached)
                };
                if !is_clear_value(value.as_deref()) {
                    return args.to_vec();
                }
                split.push(Unit {
                    flag: format!("-{c}"),
                    value,
                });
                break;
            }
            if spec.flags.contains(c) {
                split.push(Unit {
                    flag: format!("-{}", alias(spec, c)),
                    value: None,
                });
            } else {
                ok = false;
                break;
            }
            k += 1;
        }
        if ok {
            units.extend(split);
        } else {
            units.push(Unit {
                flag: arg.clone(),
                value: None,
            });
        }
    }
    normal_form(units, operands)
}

/// A long option by its name, or by any unambiguous prefix of it, as GNU
/// `getopt_long` and git take them: `--rec` is `--recursive`, `--forc` is `--force`.
fn long_option<'s>(spec: &'s Spec, name: &str) -> Option<&'s (&'static str, char)> {
    spec.long.iter().find(|(l, _)| *l == name).or_else(|| {
        let mut matches = spec
            .long
            .iter()
            .filter(|(l, _)| !name.is_empty() && l.starts_with(name));
        let first = matches.next()?;
        matches.all(|(_, s)| *s == first.1).then_some(first)
    })
}

/// The options sorted and each once, then the operands (after `--` when one of them
/// looks like an option).
fn normal_form(mut units: Vec<Unit>, operands: Vec<String>) -> Vec<String> {
    units.sort();
    units.dedup();
    let mut out = Vec::with_capacity(units.len() * 2 + operands.len() + 1);
    for unit in units {
        out.push(unit.flag);
        if let Some(value) = unit.value {
            out.push(value);
        }
    }
    if operands.iter().any(|o| o.starts_with('-') && o != "-") {
        out.push("--".to_string());
    }
    out.extend(operands);
    out
}

/// A value is clear when it is present and cannot itself be read as an option. A
/// missing value or one that starts with `-` (`ln -t -r`) makes the argv ambiguous;
/// it is then left as written rather than given a form that reads differently.
fn is_clear_value(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.starts_with('-'))
}

fn alias(spec: &Spec, c: char) -> char {
    spec.aliases
        .iter()
        .find(|(from, _)| *from == c)
        .map_or(c, |(_, to)| *to)
}

/// `chmod -w file` removes write permission: `-w` is a mode, not an option.
fn is_chmod_mode(program: &str, arg: &str) -> bool {
    program == "chmod"
        && arg
            .strip_prefix('-')
            .is_some_and(|mode| !mode.is_empty() && mode.chars().all(|c| "rwxXst".contains(c)))
}
