//! One table of options per program, and one reader of an argv against it.
//!
//! Each row says how an option is spelled (a short letter, long names), how many
//! values it takes (none, one, or one only when attached: `-ibak`, `--in-place=bak`)
//! and what its value is to the program: a file it writes or reads, a shell script or
//! a program it runs, its own program text (sed's `-e`), a file holding that text, a
//! setting (`ssh -o Name=value`). The reader knows the spellings every program of a
//! style accepts, so the judges never compare option strings themselves:
//!
//! - getopt style: short options cluster (`curl -fsSLo x`, `wget -qO-`, `sed -ne p`),
//!   a value is the rest of the cluster or the next word, long options take
//!   `--opt=value` or `--opt value`, and (GNU `getopt_long`, git, curl, GNU tar) any
//!   unambiguous prefix of a long name (`--to-comm` is `--to-command`);
//! - single style: every word is one option (`gcc -o out`, `-oout`, `openssl -out f`),
//!   no clusters;
//! - settings (`ssh -o`): the name is case-insensitive and separated from its value by
//!   `=` or blanks (`-o 'ProxyCommand cmd'`, `-oproxycommand=cmd`).
//!
//! An option the table does not know takes no value; a word only known at run time
//! is an operand (the walk raises a line with such a word on its own, `modelled.rs`).

use crate::shell::words::Word;

/// How many values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arity {
    /// None.
    Flag,
    /// One: attached or the next word.
    Value,
    /// One only when attached (`sed -ibak`, `--in-place=bak`); otherwise none.
    Attached,
}

/// What an option's value is to the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Does {
    /// Nothing Warden judges: a count, a name, a mode.
    Nothing,
    /// A file or folder the program writes (into).
    Writes,
    /// A file the program reads.
    Reads,
    /// A shell script the program runs.
    RunsScript,
    /// A program run with arguments Warden cannot see (a file of its choosing).
    RunsProgram,
    /// The program's own text (sed's `-e SCRIPT`).
    Text,
    /// A file holding the program's own text (sed's `-f FILE`), unseen by Warden.
    TextFile,
    /// Writes the operands in place (sed's `-i`).
    InPlace,
    /// A setting `Name=value` or `Name value` (ssh's `-o`), judged by its name in
    /// [`Options::settings`].
    Setting,
}

/// One option.
#[derive(Debug)]
pub(super) struct Opt {
    /// Its short letter (getopt style) or its one-dash name (single style), if any.
    pub short: Option<&'static str>,
    /// Its long names, without the dashes.
    pub long: &'static [&'static str],
    pub arity: Arity,
    pub does: Does,
}

/// How a program reads its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// Clusters of short letters and `--long` names.
    Getopt,
    /// One option per word, each written out (`-o`, `-out`, `-keyout`).
    Single,
}

/// One program's options.
#[derive(Debug)]
pub(super) struct Options {
    pub programs: &'static [&'static str],
    pub style: Style,
    /// Long names may be shortened to any unambiguous prefix.
    pub prefixes: bool,
    /// Options stop at the first operand (git's global options, before the
    /// subcommand); otherwise options and operands mix, as GNU's do.
    pub stop_at_operand: bool,
    pub opts: &'static [Opt],
    /// For [`Does::Setting`]: setting names (lower case) and what their values are.
    pub settings: &'static [(&'static str, Does)],
}

const fn opt(
    short: Option<&'static str>,
    long: &'static [&'static str],
    arity: Arity,
    does: Does,
) -> Opt {
    Opt {
        short,
        long,
        arity,
        does,
    }
}

use Arity::{Attached, Flag, Value};

/// The table. Each "runs code" or "writes" row was checked with a harmless payload (a
/// marker file in a scratch folder).
pub(super) const TABLE: &[Options] = &[
    Options {
        programs: &["curl"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("o"), &["output"], Value, Does::Writes),
            opt(None, &["output-dir"], Value, Does::Writes),
            opt(Some("D"), &["dump-header"], Value, Does::Writes),
            opt(Some("c"), &["cookie-jar"], Value, Does::Writes),
            opt(
                None,
                &[
                    "trace",
                    "trace-ascii",
                    "libcurl",
                    "etag-save",
                    "hsts",
                    "alt-svc",
                    "stderr",
                ],
                Value,
                Does::Writes,
            ),
            opt(Some("K"), &["config"], Value, Does::Reads),
            opt(Some("T"), &["upload-file"], Value, Does::Reads),
            opt(Some("b"), &["cookie"], Value, Does::Nothing),
            opt(
                Some("d"),
                &[
                    "data",
                    "data-binary",
                    "data-raw",
                    "data-ascii",
                    "data-urlencode",
                    "json",
                ],
                Value,
                Does::Nothing,
            ),
            opt(Some("F"), &["form"], Value, Does::Nothing),
            opt(Some("H"), &["header", "proxy-header"], Value, Does::Nothing),
            opt(Some("u"), &["user"], Value, Does::Nothing),
            opt(Some("A"), &["user-agent"], Value, Does::Nothing),
            opt(Some("e"), &["referer"], Value, Does::Nothing),
            opt(Some("X"), &["request"], Value, Does::Nothing),
            opt(Some("x"), &["proxy"], Value, Does::Nothing),
            opt(Some("m"), &["max-time"], Value, Does::Nothing),
            opt(Some("w"), &["write-out"], Value, Does::Nothing),
            opt(Some("r"), &["range"], Value, Does::Nothing),
            opt(Some("E"), &["cert"], Value, Does::Reads),
            opt(None, &["key", "cacert", "netrc-file"], Value, Does::Reads),
            opt(
                None,
                &[
                    "connect-timeout",
                    "retry",
                    "retry-delay",
                    "retry-max-time",
                    "max-filesize",
                    "max-redirs",
                    "resolve",
                    "connect-to",
                    "proto",
                    "proto-redir",
                    "limit-rate",
                    "url",
                ],
                Value,
                Does::Nothing,
            ),
            opt(Some("f"), &["fail"], Flag, Does::Nothing),
            opt(Some("s"), &["silent"], Flag, Does::Nothing),
            opt(Some("S"), &["show-error"], Flag, Does::Nothing),
            opt(Some("L"), &["location"], Flag, Does::Nothing),
            opt(Some("O"), &["remote-name"], Flag, Does::Nothing),
            opt(Some("J"), &["remote-header-name"], Flag, Does::Nothing),
            opt(Some("I"), &["head"], Flag, Does::Nothing),
            opt(Some("i"), &["include"], Flag, Does::Nothing),
            opt(Some("k"), &["insecure"], Flag, Does::Nothing),
            opt(Some("v"), &["verbose"], Flag, Does::Nothing),
            opt(Some("#"), &["progress-bar"], Flag, Does::Nothing),
            opt(Some("G"), &["get"], Flag, Does::Nothing),
            opt(Some("n"), &["netrc"], Flag, Does::Nothing),
            opt(Some("g"), &["globoff"], Flag, Does::Nothing),
            opt(Some("N"), &["no-buffer"], Flag, Does::Nothing),
            opt(Some("4"), &["ipv4"], Flag, Does::Nothing),
            opt(Some("6"), &["ipv6"], Flag, Does::Nothing),
            opt(
                None,
                &[
                    "compressed",
                    "create-dirs",
                    "http1.1",
                    "http2",
                    "fail-with-body",
                    "remote-name-all",
                ],
                Flag,
                Does::Nothing,
            ),
        ],
        settings: &[],
    },
    Options {
        programs: &["wget"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("O"), &["output-document"], Value, Does::Writes),
            opt(Some("o"), &["output-file"], Value, Does::Writes),
            opt(Some("a"), &["append-output"], Value, Does::Writes),
            opt(Some("P"), &["directory-prefix"], Value, Does::Writes),
            opt(
                None,
                &[
                    "save-cookies",
                    "save-headers-file",
                    "warc-file",
                    "hsts-file",
                ],
                Value,
                Does::Writes,
            ),
            opt(Some("i"), &["input-file"], Value, Does::Reads),
            opt(
                None,
                &[
                    "load-cookies",
                    "config",
                    "certificate",
                    "private-key",
                    "ca-certificate",
                ],
                Value,
                Does::Reads,
            ),
            opt(Some("e"), &["execute"], Value, Does::Setting),
            opt(Some("t"), &["tries"], Value, Does::Nothing),
            opt(Some("T"), &["timeout"], Value, Does::Nothing),
            opt(Some("U"), &["user-agent"], Value, Does::Nothing),
            opt(Some("l"), &["level"], Value, Does::Nothing),
            opt(Some("w"), &["wait"], Value, Does::Nothing),
            opt(Some("Q"), &["quota"], Value, Does::Nothing),
            opt(Some("A"), &["accept"], Value, Does::Nothing),
            opt(Some("R"), &["reject"], Value, Does::Nothing),
            opt(Some("D"), &["domains"], Value, Does::Nothing),
            opt(Some("B"), &["base"], Value, Does::Nothing),
            opt(
                None,
                &[
                    "header",
                    "user",
                    "password",
                    "post-data",
                    "method",
                    "body-data",
                ],
                Value,
                Does::Nothing,
            ),
            opt(None, &["post-file", "body-file"], Value, Does::Reads),
            opt(Some("q"), &["quiet"], Flag, Does::Nothing),
            opt(Some("v"), &["verbose"], Flag, Does::Nothing),
            opt(Some("c"), &["continue"], Flag, Does::Nothing),
            opt(Some("N"), &["timestamping"], Flag, Does::Nothing),
            opt(Some("r"), &["recursive"], Flag, Does::Nothing),
            opt(Some("m"), &["mirror"], Flag, Does::Nothing),
            opt(Some("k"), &["convert-links"], Flag, Does::Nothing),
            opt(Some("p"), &["page-requisites"], Flag, Does::Nothing),
            opt(Some("x"), &["force-directories"], Flag, Does::Nothing),
            opt(Some("np"), &["no-parent"], Flag, Does::Nothing),
            opt(Some("nv"), &["no-verbose"], Flag, Does::Nothing),
            opt(Some("nc"), &["no-clobber"], Flag, Does::Nothing),
            opt(Some("S"), &["server-response"], Flag, Does::Nothing),
            opt(
                None,
                &[
                    "spider",
                    "no-check-certificate",
                    "show-progress",
                    "content-disposition",
                ],
                Flag,
                Does::Nothing,
            ),
        ],
        // `wget -e COMMAND` runs a `.wgetrc` command: these write or read files.
        settings: &[
            ("output_document", Does::Writes),
            ("logfile", Does::Writes),
            ("dir_prefix", Does::Writes),
            ("save_cookies", Does::Writes),
            ("load_cookies", Does::Reads),
            ("input", Does::Reads),
            ("use_askpass", Does::RunsProgram),
        ],
    },
    Options {
        // OpenBSD's and the traditional netcat, and nmap's ncat: `-e PROG` and `-c CMD`
        // connect a program to the network.
        programs: &["nc", "ncat", "netcat"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("e"), &["exec"], Value, Does::RunsProgram),
            opt(Some("c"), &["sh-exec"], Value, Does::RunsScript),
            opt(None, &["lua-exec"], Value, Does::RunsProgram),
            opt(Some("o"), &["output"], Value, Does::Writes),
            opt(None, &["hex-dump"], Value, Does::Writes),
            opt(None, &["allowfile", "denyfile"], Value, Does::Reads),
            opt(Some("p"), &["source-port"], Value, Does::Nothing),
            opt(Some("s"), &["source"], Value, Does::Nothing),
            opt(Some("w"), &["wait"], Value, Does::Nothing),
            opt(Some("i"), &["idle-timeout"], Value, Does::Nothing),
            opt(Some("q"), &[], Value, Does::Nothing),
            opt(Some("x"), &[], Value, Does::Nothing),
            opt(Some("X"), &[], Value, Does::Nothing),
            opt(Some("m"), &["max-conns"], Value, Does::Nothing),
            opt(Some("I"), &[], Value, Does::Nothing),
            opt(Some("O"), &[], Value, Does::Nothing),
            opt(Some("P"), &[], Value, Does::Nothing),
            opt(Some("T"), &[], Value, Does::Nothing),
            opt(Some("V"), &[], Value, Does::Nothing),
            opt(Some("W"), &[], Value, Does::Nothing),
            opt(Some("M"), &[], Value, Does::Nothing),
            opt(
                None,
                &["proxy", "proxy-type", "proxy-auth", "allow", "deny"],
                Value,
                Does::Nothing,
            ),
        ],
        settings: &[],
    },
    Options {
        programs: &["ss"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("D"), &["diag"], Value, Does::Writes),
            opt(Some("F"), &["filter"], Value, Does::Reads),
            opt(Some("f"), &["family"], Value, Does::Nothing),
            opt(Some("A"), &["query", "socket"], Value, Does::Nothing),
            opt(Some("N"), &["net"], Value, Does::Nothing),
            opt(Some("K"), &["kill"], Flag, Does::Nothing),
        ],
        settings: &[],
    },
    Options {
        programs: &["sed", "gsed"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("e"), &["expression"], Value, Does::Text),
            opt(Some("f"), &["file"], Value, Does::TextFile),
            opt(Some("i"), &["in-place"], Attached, Does::InPlace),
            opt(Some("l"), &["line-length"], Value, Does::Nothing),
            opt(Some("n"), &["quiet", "silent"], Flag, Does::Nothing),
            opt(Some("E"), &["regexp-extended"], Flag, Does::Nothing),
            opt(Some("r"), &[], Flag, Does::Nothing),
            opt(Some("s"), &["separate"], Flag, Does::Nothing),
            opt(Some("u"), &["unbuffered"], Flag, Does::Nothing),
            opt(Some("z"), &["null-data"], Flag, Does::Nothing),
            opt(
                None,
                &[
                    "posix",
                    "debug",
                    "sandbox",
                    "follow-symlinks",
                    "help",
                    "version",
                ],
                Flag,
                Does::Nothing,
            ),
        ],
        settings: &[],
    },
    Options {
        programs: &["ssh"],
        style: Style::Getopt,
        prefixes: false,
        stop_at_operand: false,
        opts: &[
            opt(Some("o"), &[], Value, Does::Setting),
            opt(Some("F"), &[], Value, Does::Reads),
            opt(Some("i"), &[], Value, Does::Reads),
            opt(Some("E"), &[], Value, Does::Writes),
            opt(Some("S"), &[], Value, Does::Writes),
            opt(Some("B"), &[], Value, Does::Nothing),
            opt(Some("b"), &[], Value, Does::Nothing),
            opt(Some("c"), &[], Value, Does::Nothing),
            opt(Some("D"), &[], Value, Does::Nothing),
            opt(Some("e"), &[], Value, Does::Nothing),
            opt(Some("I"), &[], Value, Does::Nothing),
            opt(Some("J"), &[], Value, Does::Nothing),
            opt(Some("L"), &[], Value, Does::Nothing),
            opt(Some("l"), &[], Value, Does::Nothing),
            opt(Some("m"), &[], Value, Does::Nothing),
            opt(Some("O"), &[], Value, Does::Nothing),
            opt(Some("P"), &[], Value, Does::Nothing),
            opt(Some("p"), &[], Value, Does::Nothing),
            opt(Some("Q"), &[], Value, Does::Nothing),
            opt(Some("R"), &[], Value, Does::Nothing),
            opt(Some("W"), &[], Value, Does::Nothing),
            opt(Some("w"), &[], Value, Does::Nothing),
        ],
        settings: SSH_SETTINGS,
    },
    Options {
        programs: &["scp", "sftp"],
        style: Style::Getopt,
        prefixes: false,
        stop_at_operand: false,
        opts: &[
            opt(Some("o"), &[], Value, Does::Setting),
            opt(Some("S"), &[], Value, Does::RunsProgram),
            opt(Some("F"), &[], Value, Does::Reads),
            opt(Some("i"), &[], Value, Does::Reads),
            opt(Some("b"), &[], Value, Does::Reads),
            opt(Some("c"), &[], Value, Does::Nothing),
            opt(Some("D"), &[], Value, Does::Nothing),
            opt(Some("J"), &[], Value, Does::Nothing),
            opt(Some("l"), &[], Value, Does::Nothing),
            opt(Some("P"), &[], Value, Does::Nothing),
            opt(Some("X"), &[], Value, Does::Nothing),
        ],
        settings: SSH_SETTINGS,
    },
    Options {
        programs: &["rsync"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("e"), &["rsh"], Value, Does::RunsScript),
            opt(None, &["rsync-path"], Value, Does::RunsScript),
            opt(
                None,
                &[
                    "log-file",
                    "write-batch",
                    "only-write-batch",
                    "backup-dir",
                    "temp-dir",
                    "partial-dir",
                ],
                Value,
                Does::Writes,
            ),
            opt(
                None,
                &[
                    "files-from",
                    "exclude-from",
                    "include-from",
                    "password-file",
                    "read-batch",
                ],
                Value,
                Does::Reads,
            ),
            opt(
                None,
                &[
                    "exclude",
                    "include",
                    "filter",
                    "chmod",
                    "chown",
                    "usermap",
                    "groupmap",
                    "bwlimit",
                    "timeout",
                    "port",
                    "compare-dest",
                    "copy-dest",
                    "link-dest",
                    "suffix",
                    "max-size",
                    "min-size",
                ],
                Value,
                Does::Nothing,
            ),
        ],
        settings: &[],
    },
    Options {
        programs: &["tar", "gtar"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(None, &["to-command"], Value, Does::RunsScript),
            opt(
                Some("I"),
                &["use-compress-program"],
                Value,
                Does::RunsScript,
            ),
            opt(
                Some("F"),
                &["info-script", "new-volume-script"],
                Value,
                Does::RunsScript,
            ),
            opt(None, &["checkpoint-action"], Value, Does::Setting),
            opt(Some("C"), &["directory"], Value, Does::Writes),
            opt(Some("f"), &["file"], Value, Does::Nothing),
            opt(Some("T"), &["files-from"], Value, Does::Reads),
            opt(Some("X"), &["exclude-from"], Value, Does::Reads),
            opt(Some("g"), &["listed-incremental"], Value, Does::Writes),
            opt(Some("V"), &["label"], Value, Does::Nothing),
            opt(Some("b"), &["blocking-factor"], Value, Does::Nothing),
            opt(Some("H"), &["format"], Value, Does::Nothing),
            opt(Some("K"), &["starting-file"], Value, Does::Nothing),
            opt(Some("L"), &["tape-length"], Value, Does::Nothing),
            opt(Some("N"), &["newer", "after-date"], Value, Does::Nothing),
            opt(
                None,
                &[
                    "exclude",
                    "transform",
                    "xform",
                    "strip-components",
                    "owner",
                    "group",
                    "mode",
                    "mtime",
                    "checkpoint",
                    "index-file",
                    "volno-file",
                    "rsh-command",
                    "backup",
                    "suffix",
                ],
                Value,
                Does::Nothing,
            ),
            opt(Some("x"), &["extract", "get"], Flag, Does::Nothing),
            opt(Some("c"), &["create"], Flag, Does::Nothing),
            opt(Some("t"), &["list"], Flag, Does::Nothing),
            opt(Some("r"), &["append"], Flag, Does::Nothing),
            opt(Some("u"), &["update"], Flag, Does::Nothing),
            opt(Some("A"), &["catenate", "concatenate"], Flag, Does::Nothing),
            opt(None, &["delete"], Flag, Does::Nothing),
            opt(Some("z"), &["gzip", "gunzip"], Flag, Does::Nothing),
            opt(Some("j"), &["bzip2"], Flag, Does::Nothing),
            opt(Some("J"), &["xz"], Flag, Does::Nothing),
            opt(Some("v"), &["verbose"], Flag, Does::Nothing),
            opt(Some("O"), &["to-stdout"], Flag, Does::Nothing),
            opt(Some("k"), &["keep-old-files"], Flag, Does::Nothing),
            opt(Some("P"), &["absolute-names"], Flag, Does::Nothing),
            opt(
                Some("p"),
                &["preserve-permissions", "same-permissions"],
                Flag,
                Does::Nothing,
            ),
            opt(
                None,
                &[
                    "totals",
                    "overwrite",
                    "zstd",
                    "lzma",
                    "no-same-owner",
                    "wildcards",
                    "recursion",
                    "no-recursion",
                    "auto-compress",
                ],
                Flag,
                Does::Nothing,
            ),
        ],
        // `--checkpoint-action=exec=CMD` runs CMD at each checkpoint.
        settings: &[("exec", Does::RunsScript)],
    },
    Options {
        programs: &["openssl"],
        style: Style::Single,
        prefixes: false,
        stop_at_operand: false,
        opts: &[
            opt(Some("out"), &[], Value, Does::Writes),
            opt(Some("keyout"), &[], Value, Does::Writes),
        ],
        settings: &[],
    },
    Options {
        programs: &["gcc", "cc", "clang", "rustc", "go", "g++", "c++", "clang++"],
        style: Style::Single,
        prefixes: false,
        stop_at_operand: false,
        opts: &[opt(Some("o"), &[], Value, Does::Writes)],
        settings: &[],
    },
    Options {
        programs: &["sort"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("o"), &["output"], Value, Does::Writes),
            opt(None, &["compress-program"], Value, Does::RunsProgram),
            opt(None, &["files0-from"], Value, Does::Reads),
            opt(Some("T"), &["temporary-directory"], Value, Does::Nothing),
            opt(Some("k"), &["key"], Value, Does::Nothing),
            opt(Some("t"), &["field-separator"], Value, Does::Nothing),
            opt(Some("S"), &["buffer-size"], Value, Does::Nothing),
        ],
        settings: &[],
    },
    Options {
        programs: &["unzip"],
        style: Style::Single,
        prefixes: false,
        stop_at_operand: false,
        opts: &[opt(Some("d"), &[], Value, Does::Writes)],
        settings: &[],
    },
    Options {
        programs: &["7z"],
        style: Style::Single,
        prefixes: false,
        stop_at_operand: false,
        opts: &[opt(Some("o"), &[], Value, Does::Writes)],
        settings: &[],
    },
    Options {
        programs: &["ssh-keygen"],
        style: Style::Single,
        prefixes: false,
        stop_at_operand: false,
        opts: &[opt(Some("f"), &[], Value, Does::Writes)],
        settings: &[],
    },
    Options {
        programs: &["patch"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[
            opt(Some("o"), &["output"], Value, Does::Writes),
            opt(Some("d"), &["directory"], Value, Does::Writes),
            opt(Some("i"), &["input"], Value, Does::Reads),
            opt(Some("p"), &["strip"], Value, Does::Nothing),
            opt(Some("B"), &["prefix"], Value, Does::Writes),
            opt(Some("r"), &["reject-file"], Value, Does::Writes),
        ],
        settings: &[],
    },
    Options {
        programs: &["base64", "gpg", "pandoc"],
        style: Style::Getopt,
        prefixes: true,
        stop_at_operand: false,
        opts: &[opt(Some("o"), &["output"], Value, Does::Writes)],
        settings: &[],
    },
    Options {
        programs: &["jq"],
        style: Style::Getopt,
        prefixes: false,
        stop_at_operand: false,
        opts: &[opt(None, &["output"], Value, Does::Writes)],
        settings: &[],
    },
];

/// git's global options, before the subcommand (git reads them one by one, with no
/// prefixes; the first word that is not one is the subcommand).
pub(super) const GIT_GLOBALS: Options = Options {
    programs: &["git"],
    style: Style::Getopt,
    prefixes: false,
    stop_at_operand: true,
    opts: &[
        opt(Some("c"), &[], Value, Does::Setting),
        opt(None, &["config-env"], Value, Does::Setting),
        opt(Some("C"), &[], Value, Does::Reads),
        opt(None, &["git-dir", "work-tree"], Value, Does::Reads),
        opt(None, &["exec-path"], Attached, Does::RunsProgram),
        opt(
            None,
            &["namespace", "super-prefix", "attr-source", "list-cmds"],
            Value,
            Does::Nothing,
        ),
        opt(Some("p"), &["paginate"], Flag, Does::Nothing),
        opt(Some("P"), &["no-pager"], Flag, Does::Nothing),
        opt(Some("v"), &["version"], Flag, Does::Nothing),
        opt(Some("h"), &["help"], Flag, Does::Nothing),
        opt(
            None,
            &[
                "no-optional-locks",
                "literal-pathspecs",
                "glob-pathspecs",
                "noglob-pathspecs",
                "icase-pathspecs",
                "no-replace-objects",
                "no-advice",
                "no-lazy-fetch",
                "bare",
                "html-path",
                "man-path",
                "info-path",
            ],
            Flag,
            Does::Nothing,
        ),
    ],
    settings: &[],
};

/// `git config`'s options: the file it reads or writes, and the values of options
/// that are not operands.
pub(super) const GIT_CONFIG: Options = Options {
    programs: &["git config"],
    style: Style::Getopt,
    prefixes: true,
    stop_at_operand: false,
    opts: &[
        opt(Some("f"), &["file"], Value, Does::Writes),
        opt(None, &["blob"], Value, Does::Nothing),
        opt(Some("t"), &["type"], Value, Does::Nothing),
        opt(
            None,
            &["default", "comment", "value", "url"],
            Value,
            Does::Nothing,
        ),
        opt(Some("e"), &["edit"], Flag, Does::RunsProgram),
        opt(Some("l"), &["list"], Flag, Does::Nothing),
        opt(Some("z"), &["null"], Flag, Does::Nothing),
        opt(
            None,
            &[
                "get",
                "get-all",
                "get-regexp",
                "get-urlmatch",
                "get-color",
                "get-colorbool",
                "add",
                "replace-all",
                "unset",
                "unset-all",
                "rename-section",
                "remove-section",
                "global",
                "system",
                "local",
                "worktree",
                "includes",
                "no-includes",
                "show-origin",
                "show-scope",
                "name-only",
                "fixed-value",
                "all",
                "bool",
                "int",
                "path",
                "expiry-date",
                "bool-or-int",
            ],
            Flag,
            Does::Nothing,
        ),
    ],
    settings: &[],
};

/// ssh's settings (`-o Name=value`, names case-insensitive) whose value runs a
/// command or names a file.
const SSH_SETTINGS: &[(&str, Does)] = &[
    ("proxycommand", Does::RunsScript),
    ("localcommand", Does::RunsScript),
    ("knownhostscommand", Does::RunsScript),
    ("remotecommand", Does::Nothing),
    ("include", Does::Reads),
    ("identityfile", Does::Reads),
    ("userknownhostsfile", Does::Writes),
    ("controlpath", Does::Writes),
];

/// One option found in an argv.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub opt: &'static Opt,
    /// The long name it was given by (a prefix stands for the name it shortens), or
    /// for a short letter the option's first long name (or the letter).
    pub name: &'static str,
    /// Its value, for options that took one.
    pub value: Option<Word>,
}

/// An argv read against a program's table.
#[derive(Debug, Clone, Default)]
pub(super) struct Parsed {
    pub found: Vec<Found>,
    pub operands: Vec<Word>,
    /// Options the table does not know, as written.
    pub unknown: Vec<String>,
    /// Where the operands start when options stop at the first one.
    pub stopped_at: Option<usize>,
}

impl Parsed {
    /// The values of the options that do `does`.
    pub fn values(&self, does: Does) -> impl Iterator<Item = &Word> {
        self.found
            .iter()
            .filter(move |f| f.opt.does == does)
            .filter_map(|f| f.value.as_ref())
    }

    /// Whether an option that does `does` was given (with or without a value).
    pub fn has(&self, does: Does) -> bool {
        self.found.iter().any(|f| f.opt.does == does)
    }

    /// Whether the option with the long name `long` (or the short letter `long`)
    /// was given. A row may list several long names: each is asked for by its own.
    pub fn given(&self, long: &str) -> bool {
        self.found
            .iter()
            .any(|f| f.name == long || f.opt.short == Some(long))
    }

    /// The value of the last option with the long name `long` (or short `short`).
    pub fn value_of(&self, long: &str) -> Option<&Word> {
        self.found
            .iter()
            .rev()
            .filter(|f| f.name == long || f.opt.short == Some(long))
            .find_map(|f| f.value.as_ref())
    }

    /// The settings given (`ssh -o Name=value`), as (lower-case name, value, what it
    /// does); a setting only known at run time has the name `""`.
    pub fn settings(&self, table: &Options) -> Vec<(String, Word, Does)> {
        self.values(Does::Setting)
            .map(|w| {
                let (name, value) = split_setting(&w.text);
                // wget reads `output_document`, `outputdocument` and
                // `output-document` alike.
                let plain = |n: &str| n.replace(['_', '-'], "");
                let does = table
                    .settings
                    .iter()
                    .find(|(n, _)| plain(n) == plain(&name))
                    .map_or(Does::Nothing, |(_, d)| *d);
                let name = if w.dynamic && !table.settings.is_empty() {
                    String::new()
                } else {
                    name
                };
                (
                    name,
                    Word {
                        text: value,
                        dynamic: w.dynamic,
                    },
                    does,
                )
            })
            .collect()
    }
}

/// `Name=value`, `Name value` or `Name  =  value`: the lower-case name and the value.
fn split_setting(text: &str) -> (String, String) {
    let text = text.trim_start();
    let end = text
        .find(|c: char| c == '=' || c.is_whitespace())
        .unwrap_or(text.len());
    let name = text[..end].to_ascii_lowercase();
    let value = text[end..]
        .trim_start_matches([' ', '\t'])
        .strip_prefix('=')
        .unwrap_or_else(|| text[end..].trim_start_matches([' ', '\t']))
        .trim_start_matches([' ', '\t']);
    (name, value.to_string())
}

/// The table of `program`, if it has one.
pub(super) fn table(program: &str) -> Option<&'static Options> {
    TABLE.iter().find(|t| t.programs.contains(&program))
}

/// Reads `args` (after the program's name) against `program`'s table; `None` when
/// the program has none.
pub(super) fn parse(program: &str, args: &[Word]) -> Option<Parsed> {
    table(program).map(|t| parse_with(t, args))
}

/// Whether the option word `word` takes the next word as its value, by `table`'s
/// spelling rules (a long name without `=value`, or a cluster ending in a letter that
/// takes one), for a reader that keeps each word as written.
pub(super) fn takes_next_word(table: &'static Options, word: &str) -> bool {
    let probe = [Word::literal(word), Word::literal("operand")];
    parse_with(table, &probe).operands.is_empty()
}

/// Reads `args` against `table`.
pub(super) fn parse_with(table: &'static Options, args: &[Word]) -> Parsed {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a.dynamic || !a.text.starts_with('-') || a.text == "-" {
            if table.stop_at_operand {
                out.stopped_at = Some(i - 1);
                out.operands.extend(args[i - 1..].iter().cloned());
                return out;
            }
            out.operands.push(a.clone());
            continue;
        }
        if a.text == "--" {
            out.operands.extend(args[i..].iter().cloned());
            return out;
        }
        match table.style {
            Style::Single => single(table, a, args, &mut i, &mut out),
            Style::Getopt => match a.text.strip_prefix("--") {
                Some(long) => long_option(table, long, args, &mut i, &mut out),
                None => cluster(table, &a.text[1..], args, &mut i, &mut out),
            },
        }
    }
    out
}

/// The name an option given by its short letter goes by.
fn short_name(o: &'static Opt) -> &'static str {
    o.long.first().copied().or(o.short).unwrap_or("")
}

/// The next word as a value, moving past it.
fn next(args: &[Word], i: &mut usize) -> Option<Word> {
    let v = args.get(*i).cloned();
    if v.is_some() {
        *i += 1;
    }
    v
}

/// One option of a single-style program: `-o FILE`, `-oFILE`, `-o=FILE`, `-out FILE`.
fn single(table: &'static Options, a: &Word, args: &[Word], i: &mut usize, out: &mut Parsed) {
    let body = a.text.trim_start_matches('-');
    for o in table.opts {
        let Some(name) = o.short else { continue };
        if body == name {
            let value = if o.arity == Value {
                next(args, i)
            } else {
                None
            };
            out.found.push(Found {
                opt: o,
                name: short_name(o),
                value,
            });
            return;
        }
        if o.arity != Flag
            && let Some(value) = body.strip_prefix(name).and_then(|r| r.strip_prefix('='))
        {
            out.found.push(Found {
                opt: o,
                name: short_name(o),
                value: Some(Word::literal(value)),
            });
            return;
        }
        // Attached values only for one-letter names (`-oout`): `-output` of a
        // program with `-o` and `-out` is read by the longer name first.
        if name.len() == 1
            && o.arity != Flag
            && let Some(rest) = body.strip_prefix(name)
            && !table
                .opts
                .iter()
                .any(|p| p.short.is_some_and(|s| s.len() > 1 && body.starts_with(s)))
        {
            let rest = rest.strip_prefix('=').unwrap_or(rest);
            out.found.push(Found {
                opt: o,
                name: short_name(o),
                value: Some(Word::literal(rest)),
            });
            return;
        }
    }
    out.unknown.push(a.text.clone());
}

/// `--name`, `--name=value`, or an unambiguous prefix of a name.
fn long_option(
    table: &'static Options,
    long: &str,
    args: &[Word],
    i: &mut usize,
    out: &mut Parsed,
) {
    let (name, attached) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    let exact = table
        .opts
        .iter()
        .find_map(|o| o.long.iter().find(|l| **l == name).map(|l| (o, *l)));
    let found = exact.or_else(|| {
        if !table.prefixes || name.is_empty() {
            return None;
        }
        let mut matches = table
            .opts
            .iter()
            .filter_map(|o| o.long.iter().find(|l| l.starts_with(name)).map(|l| (o, *l)));
        let first = matches.next()?;
        // Two different options share the prefix: the program refuses it.
        matches
            .all(|(o, _)| std::ptr::eq(o, first.0))
            .then_some(first)
    });
    let Some((o, long_name)) = found else {
        out.unknown.push(format!("--{long}"));
        return;
    };
    let value = match (o.arity, attached) {
        (Flag, _) => None,
        (_, Some(v)) => Some(Word::literal(v)),
        (Value, None) => next(args, i),
        (Attached, None) => None,
    };
    out.found.push(Found {
        opt: o,
        name: long_name,
        value,
    });
}

/// A cluster of short letters: flags, then at most one option that takes the rest
/// of the cluster or the next word as its value. A letter the table does not know is
/// kept and the rest still read, so an unknown letter cannot hide a known one after
/// it.
fn cluster(table: &'static Options, letters: &str, args: &[Word], i: &mut usize, out: &mut Parsed) {
    // Multi-letter one-dash names (`wget -nv`, `-np`) are whole words.
    if letters.len() > 1
        && let Some(o) = table.opts.iter().find(|o| o.short == Some(letters))
    {
        out.found.push(Found {
            opt: o,
            name: short_name(o),
            value: None,
        });
        return;
    }
    let mut rest = letters;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        let mut buf = [0u8; 4];
        let letter: &str = c.encode_utf8(&mut buf);
        let Some(o) = table.opts.iter().find(|o| o.short == Some(letter)) else {
            out.unknown.push(format!("-{c}"));
            continue;
        };
        match o.arity {
            Flag => out.found.push(Found {
                opt: o,
                name: short_name(o),
                value: None,
            }),
            Value => {
                let value = if rest.is_empty() {
                    next(args, i)
                } else {
                    Some(Word::literal(rest))
                };
                out.found.push(Found {
                    opt: o,
                    name: short_name(o),
                    value,
                });
                return;
            }
            Attached => {
                let value = (!rest.is_empty()).then(|| Word::literal(rest));
                out.found.push(Found {
                    opt: o,
                    name: short_name(o),
                    value,
                });
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split_whitespace().map(Word::literal).collect()
    }

    fn written(program: &str, argv: &str) -> Vec<String> {
        parse(program, &words(argv))
            .map(|p| p.values(Does::Writes).map(|w| w.text.clone()).collect())
            .unwrap_or_default()
    }

    /// Every spelling of an option that takes a value finds the same value.
    #[test]
    fn spellings_of_an_option_find_its_value() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("curl", "-o x https://e.x", &["x"]),
            ("curl", "-fsSLo x https://e.x", &["x"]),
            ("curl", "-fsSLox https://e.x", &["x"]),
            ("curl", "--output=x https://e.x", &["x"]),
            ("curl", "--output x https://e.x", &["x"]),
            // curl takes unambiguous prefixes (`--outp` could be `--output-dir`).
            ("curl", "--dump-h x https://e.x", &["x"]),
            ("curl", "https://e.x --outp x", &[]),
            ("wget", "-qO- https://e.x", &["-"]),
            ("wget", "-qO x https://e.x", &["x"]),
            ("wget", "--output-doc=x https://e.x", &["x"]),
            ("tar", "-xf a.tar -C~", &["~"]),
            ("tar", "-xf a.tar --dir ~", &["~"]),
            ("gcc", "-O2 -fno-omit-frame-pointer -o out a.c", &["out"]),
            ("gcc", "-oout a.c", &["out"]),
            ("openssl", "genrsa -out k.pem", &["k.pem"]),
            (
                "openssl",
                "req -keyout k.pem -out c.pem",
                &["k.pem", "c.pem"],
            ),
            ("sort", "-uo out in", &["out"]),
        ];
        for (program, argv, expected) in cases {
            assert_eq!(written(program, argv), *expected, "{program} {argv}");
        }
    }

    #[test]
    fn sed_clusters_and_prefixes_find_the_script() {
        let p = parse("sed", &words("-ne p --expr=w f")).unwrap();
        let texts: Vec<&str> = p.values(Does::Text).map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["p", "w"]);
        assert_eq!(p.operands, words("f"));
        // `-ie` is in place with the suffix `e`, not a script.
        let p = parse("sed", &words("-ie s/a/b/ f")).unwrap();
        assert!(p.has(Does::InPlace));
        assert!(!p.has(Does::Text));
    }

    #[test]
    fn ssh_settings_in_every_spelling() {
        let table = table("ssh").unwrap();
        for argv in [
            vec!["-o", "ProxyCommand=x", "h"],
            vec!["-o", "ProxyCommand x", "h"],
            vec!["-oproxycommand=x", "h"],
            vec!["-vo", "PROXYCOMMAND = x", "h"],
            vec!["h", "-o", "proxyCommand\tx"],
        ] {
            let args: Vec<Word> = argv.iter().map(|a| Word::literal(*a)).collect();
            let settings = parse_with(table, &args).settings(table);
            assert_eq!(
                settings
                    .iter()
                    .map(|(n, v, d)| (n.as_str(), v.text.as_str(), *d))
                    .collect::<Vec<_>>(),
                [("proxycommand", "x", Does::RunsScript)],
                "{argv:?}"
            );
        }
    }

    /// The shortest prefix of `long` that no other option of `table` shares.
    fn shortest_prefix(table: &Options, o: &Opt, long: &str) -> Option<String> {
        (1..long.len()).map(|n| &long[..n]).find_map(|p| {
            let others = table
                .opts
                .iter()
                .filter(|x| !std::ptr::eq(*x, o))
                .any(|x| x.long.iter().any(|l| l.starts_with(p)));
            (!others).then(|| p.to_string())
        })
    }

    /// Every spelling the reader accepts, for every option of the table whose value
    /// matters, finds the same value with the same meaning: no spelling hides one.
    #[test]
    fn no_spelling_of_a_tabled_option_hides_its_value() {
        let mut checked = 0;
        for table in TABLE.iter().filter(|t| t.style == Style::Getopt) {
            let flag = table
                .opts
                .iter()
                .find(|o| o.arity == Flag && o.short.is_some_and(|s| s.len() == 1))
                .and_then(|o| o.short);
            for o in table
                .opts
                .iter()
                .filter(|o| o.arity == Value && o.does != Does::Nothing)
            {
                let mut spellings: Vec<Vec<String>> = Vec::new();
                if let Some(s) = o.short {
                    spellings.push(vec![format!("-{s}"), "VAL".into()]);
                    spellings.push(vec![format!("-{s}VAL")]);
                    if let Some(f) = flag {
                        spellings.push(vec![format!("-{f}{s}"), "VAL".into()]);
                        spellings.push(vec![format!("-{f}{s}VAL")]);
                    }
                }
                for long in o.long {
                    spellings.push(vec![format!("--{long}"), "VAL".into()]);
                    spellings.push(vec![format!("--{long}=VAL")]);
                    if table.prefixes
                        && let Some(p) = shortest_prefix(table, o, long)
                    {
                        spellings.push(vec![format!("--{p}"), "VAL".into()]);
                        spellings.push(vec![format!("--{p}=VAL")]);
                    }
                }
                for spelling in spellings {
                    let mut args: Vec<Word> = vec![Word::literal("operand")];
                    args.extend(spelling.iter().map(Word::literal));
                    let parsed = parse_with(table, &args);
                    let values: Vec<&str> =
                        parsed.values(o.does).map(|w| w.text.as_str()).collect();
                    assert_eq!(
                        values,
                        ["VAL"],
                        "{:?} {spelling:?}: {parsed:?}",
                        table.programs
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "only {checked} spellings checked");
    }

    #[test]
    fn an_ambiguous_prefix_is_no_option() {
        // tar's `--to` could be `--to-command` or `--to-stdout`: tar refuses it.
        let p = parse("tar", &words("--to=x -xf a")).unwrap();
        assert!(!p.has(Does::RunsScript));
        assert_eq!(p.unknown, ["--to=x"]);
    }
}
