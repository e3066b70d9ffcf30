//! The shell-command analyser behind the `terminal` tool's risk.
//!
//! A command line is parsed with tree-sitter-bash (see
//! `docs/decisions/0100-shell-parser.md`) and every simple command in it becomes a
//! [`Segment`] judged on its own: the parts of lists (`&&`, `||`, `;`, `&`, newlines),
//! pipelines, subshells, `{ }` groups, `$(...)`, backticks and process substitutions,
//! and the scripts given to `bash -c`, `sh -c`, `eval` and friends (recursively, to a
//! bounded depth). The strictest segment decides the command's risk.
//!
//! # Risk defaults
//!
//! - Known read-only programs (`ls`, `cat`, `grep`, `git status`, ...) are Low, unless a
//!   path argument is sensitive or outside the workspace ([`crate::paths::path_risk`]
//!   with [`FileOp::Read`](crate::paths::FileOp::Read)).
//! - Common build and test tools (`cargo build`/`test`/`check`/`clippy`, `make`,
//!   `npm test`/`run`, `go build`/`test`, `pytest`, ...) are Medium: they run the
//!   project's own code, which the user already chose to work on.
//! - Package installs (`npm install`, `pip install`, `cargo install`), network tools
//!   (`curl`, `wget`, `ssh`, ...), interpreters running code we cannot read
//!   (`python x.py`, `node -e ...`) and every unknown program are High.
//! - File-changing tools (`rm`, `mv`, `cp`, `touch`, `mkdir`, `chmod`, `tee`, ...) and
//!   redirections are judged like the file tools on their targets.
//! - Destructive commands are Critical: recursive deletes of `/`, `~`, a workspace
//!   root or anything outside the workspace, `dd` to a device, `mkfs`, fork bombs,
//!   recursive `chmod`/`chown` of such places, a download piped into a shell,
//!   `git push --force` in any spelling, `shutdown`/`reboot`, `sudo`/`su`/`doas`.
//! - Whatever the engine did not fully analyse is Critical, so no mode runs it unasked
//!   (modes that cannot ask deny it): a parse error, a variable or substitution in the
//!   program's place, a command over the parse limit, more than [`MAX_SEGMENTS`]
//!   parts, a syntax tree deeper than the walker's bound, scripts nested more than
//!   [`MAX_NESTING`] levels. A command over 10 kB is analysed but never below High:
//!   nobody reviews it.
//! - Data from the network reaches no shell or interpreter unasked by any route
//!   (pipes, `/dev/stdin`, substitutions, here-strings, variables, `/dev/tcp`, files
//!   downloaded earlier in the line): Critical (`provenance.rs`). Known `printf`/`echo`
//!   text piped into a shell is judged as its script; text made at run time is Critical.
//! - Relative paths follow where the shell really is (`walk/cwd.rs`); a folder Warden
//!   cannot know counts as `/`. A cycle of the line's functions that starts processes is
//!   a fork bomb (`walk/functions.rs`). A line sh reads differently is judged in sh's
//!   reading too (`dialect.rs`).
//! - A secret read and network egress in one line are never below High.
//! - `xargs PROG` is judged as `PROG` given one more operand known only at run time,
//!   and never below Medium: it runs its program on input we cannot see.
//! - `git`: reading subcommands (`status`, `log`, `diff`, `show`, listing `branch`,
//!   ...) are Low; `add`, `commit`, `checkout`, `pull`, ... Medium; `push`,
//!   `reset --hard`, `clean`, `branch -D`, `rm`, unknown subcommands and aliases
//!   High; force pushes Critical. `git -c KEY=VALUE` is judged by the key: a
//!   command-valued key's value is a script, a relocating key High, others nothing.
//! - Command-bearing arguments (`git rebase -x CMD`, `script -c CMD`, `find -exec`,
//!   `parallel`, ...: one table in `judge/carried.rs`) are analysed as scripts, and the
//!   segment takes their risk.
//! - `sed` and `awk` are Medium (their scripts can write files and run commands); an
//!   `awk` program that mentions `system`, `|`, `>` or `getline` is High.
//! - A program given as a path outside the standard system folders (`./x`, `/tmp/x`)
//!   is at least High.
//! - Variables set for a command are judged by an allow-list (`env.rs`): inert ones
//!   (locale, colour, `CI`, log levels, ...) change nothing; the value of a command
//!   variable (`GIT_PAGER`, `EDITOR`, `GIT_SSH_COMMAND`, ...) is analysed like a
//!   `bash -c` script; variables that relocate configuration or tools (`GIT_DIR`,
//!   `GIT_CONFIG_*`, `XDG_CONFIG_HOME`, `LD_PRELOAD`, `PATH`, ...) are High; any other
//!   is Medium and stops allow rules and grants from matching. Variables the line
//!   itself sets at top level are followed (`a=rm; $a -rf /` is `rm -rf /`).

mod dialect;
mod env;
mod judge;
mod normalize;
mod options;
mod provenance;
mod reconfigure;
mod walk;
mod words;
mod wrappers;

use crate::paths::ResolvedPath;
use crate::{Context, Risk};

pub use normalize::normalize_argv;
pub use reconfigure::reconfiguring_options;
pub use wrappers::is_wrapper;

/// Commands longer than this are never below High: nobody reviews them.
pub const MAX_COMMAND_BYTES: usize = 10 * 1024;
/// Commands longer than this are not parsed at all (bounded work for hostile input).
pub const MAX_PARSE_BYTES: usize = 64 * 1024;
/// How deeply `bash -c`, `eval` and similar strings are analysed.
pub const MAX_NESTING: usize = 4;
/// At most this many segments are kept; a command with more is Critical (not all of
/// it was analysed).
pub const MAX_SEGMENTS: usize = 512;

/// The analysis of one shell command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// The maximum over the segments; never below High when [`problem`](Self::problem)
    /// is set, and Critical when a segment is opaque or some of the command was not
    /// analysed (a parse error or a limit).
    pub risk: Risk,
    /// Every simple command, in source order (inner commands of substitutions come
    /// before the command that uses them; the parts of a `bash -c` string come after
    /// the `bash` segment).
    pub segments: Vec<Segment>,
    /// Why the command could not be fully read (a parse error, too long, nested too
    /// deeply, ...).
    pub problem: Option<String>,
}

impl CommandAnalysis {
    /// The segment that decided the risk: the first one with the highest risk.
    pub fn deciding_segment(&self) -> Option<&Segment> {
        self.segments
            .iter()
            .find(|s| s.risk == self.risk)
            .or_else(|| self.segments.first())
    }

    /// A sentence for people: the problem, or the deciding segment's reason.
    pub fn reason(&self) -> crate::Sentence {
        match (&self.problem, self.deciding_segment()) {
            (Some(problem), _) => {
                crate::Sentence::new("engine-cannot-read-command").text("problem", problem.as_str())
            }
            (None, Some(seg)) => seg.reason.clone(),
            (None, None) => crate::Sentence::new("engine-empty-command"),
        }
    }
}

/// One simple command of a command line.
///
/// # The argv normal form
///
/// Grants and rules match prefixes of `argv`, so every spelling of the same command
/// has one form:
///
/// 1. Quotes and escapes are removed (`r''m`, `"rm"` and `\rm` are `rm`).
/// 2. Wrappers are unwrapped: `env [-flags] [VAR=x ...]`, `timeout [flags] N`,
///    `nice [-n N]`, `nohup`, `time`, `command`, `builtin`, `exec`, `stdbuf`,
///    `setsid`, `ionice`, `xargs [flags]` and the wrappers described as data in
///    `wrappers.rs` (`taskset`, `chrt`, `flock`, `strace`, `unshare`, `systemd-run`,
///    `prlimit`, `setpriv`, ...) give way to the program they run.
/// 3. `argv[0]` is the program's basename when it is given as a path into a standard
///    system folder (`/bin/rm` is `rm`); any other path (`./rm`) stays as written.
/// 4. For programs whose options are known ([`normalize_argv`]: `rm`, `cp`, `mv`, `ln`,
///    `mkdir`, `rmdir`, `touch`, `chmod`, `chown`, `chgrp`, `ls`, and `git` with
///    its subcommands `push`, `clean`, `reset`, `commit`, `add`, `branch`,
///    `checkout`): combined short flags are split (`-rf` is `-r -f`), known long
///    flags become their short form (`--recursive` is `-r`, `--force` is `-f`),
///    aliases merge (`rm -R` is `-r`), a flag's value follows it as the next word
///    (`--target-directory=d` is `-t d`), and the flags come sorted and
///    deduplicated before the operands (after the subcommand for `git`; git's global
///    `-C dir` and `--no-pager` are dropped). So `rm -rf x`, `rm -fr x`,
///    `rm -r -f x`, `rm -Rf x` and `rm --recursive --force x` are all
///    `["rm", "-f", "-r", "x"]`, and `git push --force` is `["git", "push", "-f"]`.
///    An operand that starts with `-` follows a `--` word.
/// 5. Other programs keep their arguments in order, only unquoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The source text of this simple command.
    pub text: String,
    /// Program and arguments in the normal form above. A word only known at run
    /// time (`$X`, `$(...)`) appears as its source text.
    pub argv: Vec<String>,
    /// The basename of the program actually run (after unwrapping), or "" for a
    /// segment that stands for a redirection or assignment alone.
    pub program: String,
    /// This segment's risk where it stands in its line.
    pub risk: Risk,
    /// Set when what surrounds the command raised `risk` (a file an earlier part
    /// downloaded or wrote, a wrapper such as `sudo`, a variable set for it, a
    /// redirection): the risk the command carries on its own, always lower. The engine
    /// decides the segment at both.
    pub own_risk: Option<Risk>,
    /// A sentence: why this risk.
    pub reason: crate::Sentence,
    /// Files this segment changes: redirection targets and the operands it writes
    /// or deletes (`tee`, `touch`, `cp` and `mv` targets, `rm` operands, ...).
    pub writes: Vec<ResolvedPath>,
    /// Files this segment reads without changing them: read operands (`cat`,
    /// `grep`, `head`, `cp` sources, ...) and `<` redirections.
    pub reads: Vec<ResolvedPath>,
    /// The program is a variable or substitution, or something else could not be
    /// read: we cannot tell what runs.
    pub opaque: bool,
    /// Some argument is only known at run time (a variable or substitution).
    pub dynamic_args: bool,
    /// How many `bash -c`/`eval` levels deep this segment was found (0 = top level).
    pub depth: usize,
    /// Variables set for this command that Warden does not know to be inert and that
    /// are not commands it analysed (`FOO=1 cargo test`, `GIT_DIR=x git status`):
    /// allow rules and grants do not match a segment that sets one.
    pub env: Vec<String>,
}

/// Analyses a shell command line. Never panics; the work is bounded for any input.
pub fn analyse(command: &str, ctx: &Context) -> CommandAnalysis {
    let mut analysis = walk::analyse_at_depth(command, ctx, 0, 0);
    // Line joining depends on where quotes, comments and here-documents are, which
    // Warden reads before it parses; a line with backslash-newlines is also judged
    // with every one of them joined, and the stricter reading wins, so no spot where
    // Warden and bash disagree hides a command (`# it's \<newline>r\<newline>m -rf ~`).
    if command.contains("\\\n") {
        let joined = command.replace("\\\n", "");
        let other = walk::analyse_at_depth(&joined, ctx, 0, 0);
        merge_stricter(&mut analysis, other, "engine-as-lines-joined");
    }
    // Where sh would read the line differently, its reading is judged too and the
    // stricter wins (`dialect.rs`): its stricter parts join the segments, so rules
    // and the explanation see them.
    if let Some(sh_line) = dialect::sh_reading(command) {
        let sh = walk::analyse_in_dialect(&sh_line, ctx, dialect::Dialect::PosixSh);
        // A line sh cannot parse (`for ((i=0; i<3; i++))`) is one it refuses to run.
        if sh.risk > analysis.risk && sh.problem.is_none() {
            let before = analysis.risk;
            analysis.risk = sh.risk;
            analysis
                .segments
                .extend(
                    sh.segments
                        .into_iter()
                        .filter(|s| s.risk > before)
                        .map(|s| Segment {
                            reason: crate::Sentence::new("engine-as-sh-reads")
                                .sentence("reason", s.reason),
                            ..s
                        }),
                );
        }
    }
    analysis
}

/// Adds the parts of another reading of the same line that are stricter than the
/// analysis, when that reading parsed: the stricter wins, and rules see its parts.
/// `how` is the id of the message that names the reading (with the part's `$reason`).
fn merge_stricter(analysis: &mut CommandAnalysis, other: CommandAnalysis, how: &'static str) {
    if other.risk > analysis.risk && other.problem.is_none() {
        let before = analysis.risk;
        analysis.risk = other.risk;
        analysis.segments.extend(
            other
                .segments
                .into_iter()
                .filter(|s| s.risk > before)
                .map(|s| Segment {
                    reason: crate::Sentence::new(how).sentence("reason", s.reason),
                    ..s
                }),
        );
    }
}

/// Whether a command (its normal-form argv) reads every file below the folders it
/// is given: the recursive searchers (`rg`, `ag`, `ack`, `git grep`), and `grep`,
/// `cp`, `tar`, `zip`, `rsync` and `scp` with their recursive options. Path rules
/// that cover reads match a folder above theirs for these (see `Rule::covers_reads`).
pub fn reads_recursively(argv: &[String]) -> bool {
    let Some(program) = argv.first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let has = |flags: &[&str]| argv[1..].iter().any(|a| flags.contains(&a.as_str()));
    match name {
        "rg" | "ag" | "ack" | "ack-grep" | "find" | "fd" | "fdfind" | "du" | "tree" => true,
        "git" => argv.get(1).is_some_and(|s| s == "grep"),
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            has(&["-r", "-R", "--recursive", "--dereference-recursive", "-d"])
        }
        "cp" | "scp" => has(&["-r", "-R", "-a", "--recursive", "--archive"]),
        "tar" | "zip" | "rsync" | "7z" => true,
        _ => false,
    }
}
