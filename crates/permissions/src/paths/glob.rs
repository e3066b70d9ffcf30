//! Globs in paths (`cat .e*`, `rm -rf ~/*`): the shell expands them before the program
//! runs, so a pattern is as sensitive as the most sensitive name it can match.

use std::path::{Component, Path, PathBuf};

use super::Sensitive;
use crate::Context;

/// More entries than this in a folder and we stop listing it and fall back to
/// matching the pattern against typical secret names.
pub(super) const MAX_LISTED: usize = 2000;

/// Names of typical secrets, for patterns whose folder cannot be listed.
const TYPICAL_SECRETS: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    ".ssh",
    ".aws",
    ".azure",
    ".kube",
    ".gnupg",
    ".git",
    ".warden",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zshenv",
    "id_rsa",
    "id_ecdsa",
    "id_ed25519",
    "server.pem",
    "server.key",
    "cert.p12",
    "shadow",
    "gshadow",
    "sudoers",
    "passwd",
];

/// True when a path component holds glob characters the shell would expand.
pub(super) fn has_glob(name: &str) -> bool {
    name.contains(['*', '?', '['])
}

/// The sensitivity of the most sensitive path the first glob component of `path` can
/// expand to: the entries of its folder when `may_list` and it can be listed, else
/// typical secret names.
pub(super) fn classify_glob(path: &Path, ctx: &Context, may_list: bool) -> Option<Sensitive> {
    let components: Vec<Component<'_>> = path.components().collect();
    let at = components.iter().position(|c| match c {
        Component::Normal(n) => has_glob(&n.to_string_lossy()),
        _ => false,
    })?;
    let folder: PathBuf = components[..at].iter().collect();
    let pattern = components[at].as_os_str().to_string_lossy().to_lowercase();
    let rest: PathBuf = components[at + 1..].iter().collect();

    let listing = if may_list {
        std::fs::read_dir(&folder).ok()
    } else {
        None
    };
    let listed: Option<Vec<String>> = listing.and_then(|entries| {
        let names: Vec<String> = entries
            .take(MAX_LISTED + 1)
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_lowercase())
            .collect();
        (names.len() <= MAX_LISTED).then_some(names)
    });
    let typical = || TYPICAL_SECRETS.iter().map(|s| (*s).to_string()).collect();
    let candidates: Vec<String> = listed.unwrap_or_else(typical);
    let here = Sensitive::strictest(
        candidates
            .iter()
            .filter(|name| matches(&pattern, name))
            .map(|name| Sensitive::classify(&folder.join(name).join(&rest), ctx)),
    );
    // `*/*`, `**/*.pem`, `config/*/*`: a glob below a glob spans folders Warden does
    // not list, so its last name is matched against typical secret names in a folder
    // below this one.
    let deeper = rest
        .components()
        .any(|c| has_glob(&c.as_os_str().to_string_lossy()));
    let below = deeper
        .then(|| {
            let last = path.file_name()?.to_string_lossy().to_lowercase();
            Sensitive::strictest(
                TYPICAL_SECRETS
                    .iter()
                    .filter(|name| matches(&last, name))
                    .map(|name| Sensitive::classify(&folder.join("any").join(name), ctx)),
            )
        })
        .flatten();
    Sensitive::strictest([here, below])
}

/// Shell pattern matching of one name: `*`, `?`, `[...]` (with `!`/`^` negation and
/// ranges) and `\` escapes. As in bash without `dotglob`, a leading `.` must be
/// matched explicitly.
pub(super) fn matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matching with one backtrack point for the last `*`: linear in
    // practice and never recursive, so hostile patterns stay cheap.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => match class(&p, pi, n[ni]) {
                    Some((true, next)) => {
                        pi = next;
                        ni += 1;
                        continue;
                    }
                    Some((false, _)) => {}
                    // An unclosed `[` is an ordinary character.
                    None if n[ni] == '[' => {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                    None => {}
                },
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == n[ni] {
                        pi += 2;
                        ni += 1;
                        continue;
                    }
                }
                c => {
                    if c == n[ni] {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches `c` against the bracket expression starting at `p[start] == '['`.
/// Returns whether it matched and the index after the `]`, or `None` when the bracket
/// is not closed (then `[` is an ordinary character).
fn class(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn shell_patterns_match_like_bash() {
        assert!(matches(".e*", ".env"));
        assert!(matches("*.pem", "server.pem"));
        assert!(matches("id_*", "id_rsa"));
        assert!(!matches("?env", ".env"));
        assert!(matches(".en?", ".env"));
        assert!(!matches("[.]env", ".env"));
        assert!(matches("*", "file"));
        assert!(!matches("*", ".env"));
        assert!(matches("[a-c]x", "bx"));
        assert!(!matches("[!a-c]x", "bx"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(matches("[", "["));
    }
}
