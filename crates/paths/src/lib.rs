//! warden-paths: the one lexical path resolver.
//!
//! The permission engine judges a path and a tool then touches it; both turn the path
//! as written into an absolute one here, so that the file a tool touches is the file the
//! engine judged. The resolution is lexical (it reads nothing from the disk, because the
//! path may not exist yet); resolving symlinks is the engine's, on top of this.
//!
//! The crate has no dependencies, so that both the engine and the tools can use it
//! without either gaining the other's (or the protocol's) types.

use std::path::{Component, Path, PathBuf};

/// Where `~` points when no home folder is known: outside every workspace and, being a
/// top-level folder, precious. (Bash still expands `~` then, from the password database,
/// so it must not become a harmless relative name.)
pub const UNKNOWN_HOME: &str = "/nonexistent-home";

/// Makes `raw` absolute without normalising it: a leading `~` expands with `home` (`~/x`
/// under it, `~user` beside it, the usual layout, `~root` as `/root`, and without a home
/// [`UNKNOWN_HOME`]); a relative path joins `cwd`; an absolute one is kept.
///
/// Keeping `..` matters to a caller that resolves symlinks next: `link/..` is the parent
/// of the link's target, not the folder that holds the link.
pub fn absolute(cwd: &Path, home: Option<&Path>, raw: &Path) -> PathBuf {
    let bytes = raw.as_os_str().as_encoded_bytes();
    if let Some(rest) = bytes.strip_prefix(b"~") {
        let (user, tail) = match rest.iter().position(|&b| b == b'/') {
            Some(i) => (&rest[..i], trim_slashes(&rest[i + 1..])),
            None => (rest, &[][..]),
        };
        let base = if user.is_empty() {
            home.map(Path::to_path_buf)
        } else if user == b"root" {
            Some(PathBuf::from("/root"))
        } else {
            let parent = home
                .and_then(Path::parent)
                .map_or_else(|| PathBuf::from("/home"), Path::to_path_buf);
            Some(parent.join(os_str(user)))
        };
        let base = base.unwrap_or_else(|| PathBuf::from(UNKNOWN_HOME));
        return if tail.is_empty() {
            base
        } else {
            base.join(os_str(tail))
        };
    }
    if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        cwd.join(raw)
    }
}

/// The lexical form of `raw`: [`absolute`], then [`normalize_lexically`].
pub fn lexical(cwd: &Path, home: Option<&Path>, raw: &Path) -> PathBuf {
    normalize_lexically(&absolute(cwd, home, raw))
}

/// Removes `.` and `..` without touching the disk. `..` at the root stays at the root,
/// as the kernel does; an empty path becomes the root.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                // `pop` refuses to remove the root, which is exactly `/..` == `/`.
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(Component::RootDir.as_os_str());
    }
    out
}

fn trim_slashes(mut bytes: &[u8]) -> &[u8] {
    while let [b'/', rest @ ..] = bytes {
        bytes = rest;
    }
    bytes
}

/// A slice of a path's bytes cut at an ASCII `/` or after an ASCII `~`, which is
/// still a path.
#[cfg(unix)]
fn os_str(bytes: &[u8]) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(bytes)
}

/// Elsewhere a path that reaches Warden is UTF-8 (it comes from JSON or a shell word).
#[cfg(not(unix))]
fn os_str(bytes: &[u8]) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(std::str::from_utf8(bytes).unwrap_or(""))
}

/// Whether `path` is `base` or lies below it: `path.starts_with(base)`, component by
/// component (so `/work2` is not within `/work`). When both are plain (their bytes are
/// their names joined by single slashes), the answer is read from the bytes, about ten
/// times cheaper than comparing components; the engine and the sandbox ask it for every
/// path of every command against each protected and writable place. Any other pair is
/// compared by components. To ask it of one path against many bases, see [`PathBytes`].
pub fn is_within(base: &Path, path: &Path) -> bool {
    PathBytes::new(path).is_within(base)
}

/// A path read once for many [`is_within`] questions: the sandbox's write check asks
/// one path against every writable, protected and hidden place, and reading the path's
/// bytes again for each was most of that check's work.
#[derive(Debug, Clone, Copy)]
pub struct PathBytes<'a> {
    path: &'a Path,
    plain: bool,
}

impl<'a> PathBytes<'a> {
    pub fn new(path: &'a Path) -> PathBytes<'a> {
        PathBytes {
            path,
            plain: plain(path.as_os_str().as_encoded_bytes()),
        }
    }

    /// Whether this path is `base` or lies below it, as [`is_within`] answers.
    pub fn is_within(&self, base: &Path) -> bool {
        let b = base.as_os_str().as_encoded_bytes();
        if !(self.plain && plain(b)) {
            return self.path.starts_with(base);
        }
        let p = self.path.as_os_str().as_encoded_bytes();
        p.starts_with(b) && (p.len() == b.len() || b == b"/" || p[b.len()] == b'/')
    }
}

/// A path whose bytes are exactly its components joined by single slashes: not empty,
/// no empty or `.` name after the first (`//`, `/./`, a final `/` or `/.`), which the
/// components would not show. The root alone (`/`) is plain.
fn plain(bytes: &[u8]) -> bool {
    if bytes == b"/" {
        return true;
    }
    if bytes.is_empty() || bytes.ends_with(b"/") || bytes.ends_with(b"/.") {
        return false;
    }
    // One pass: a slash after a slash, or after a `.` that follows one.
    let (mut before, mut last) = (0u8, 0u8);
    for &byte in bytes {
        if byte == b'/' && (last == b'/' || (last == b'.' && before == b'/')) {
            return false;
        }
        (before, last) = (last, byte);
    }
    true
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::{UNKNOWN_HOME, lexical};

    fn check(home: Option<&str>, raw: &str, expect: &str) {
        assert_eq!(
            lexical(Path::new("/w/p"), home.map(Path::new), Path::new(raw)),
            PathBuf::from(expect),
            "{raw:?} with home {home:?}"
        );
    }

    #[test]
    fn every_form_of_path_resolves_lexically() {
        let home = Some("/home/u");
        check(home, "~", "/home/u");
        check(home, "~/", "/home/u");
        check(home, "~/x", "/home/u/x");
        check(home, "~//x/./y", "/home/u/x/y");
        check(home, "~/../v/x", "/home/v/x");
        check(home, "~user", "/home/user");
        check(home, "~user/x", "/home/user/x");
        check(home, "~root/.ssh", "/root/.ssh");
        check(None, "~user/x", "/home/user/x");
        check(None, "~", UNKNOWN_HOME);
        check(None, "~/x", &format!("{UNKNOWN_HOME}/x"));
        // A `~` that does not start the path is a plain name.
        check(home, "a/~/x", "/w/p/a/~/x");
        check(home, "./~", "/w/p/~");
        check(home, "src/main.rs", "/w/p/src/main.rs");
        check(home, "", "/w/p");
        check(home, ".", "/w/p");
        check(home, "./a/./b", "/w/p/a/b");
        check(home, "../x", "/w/x");
        check(home, "../../../../x", "/x");
        check(home, "a/b/../../..", "/w");
        check(home, "/etc/passwd", "/etc/passwd");
        check(home, "/etc/../root/./x", "/root/x");
        check(home, "/..", "/");
    }

    /// The byte answer is the component answer, for every pair of short paths over
    /// names, `.`, `..`, empty names and a leading `/`.
    #[test]
    fn is_within_answers_as_comparing_components_does() {
        use super::is_within;
        let parts = ["", "a", "b", "ab", ".", "..", "a.", ".a"];
        let mut paths = vec![String::new(), "/".to_owned()];
        for first in parts {
            for second in parts {
                for third in ["", "a", "."] {
                    for root in ["", "/"] {
                        let mut path = format!("{root}{first}/{second}");
                        if !third.is_empty() {
                            path = format!("{path}/{third}");
                        }
                        paths.push(path.clone());
                        paths.push(format!("{path}/"));
                    }
                }
            }
        }
        paths.extend(["a", "/a", "//a", "/a//", "./a", "a/.", "/a/./b"].map(str::to_owned));
        for base in &paths {
            for path in &paths {
                let (base, path) = (Path::new(base), Path::new(path));
                assert_eq!(
                    is_within(base, path),
                    path.starts_with(base),
                    "{} within {}",
                    path.display(),
                    base.display()
                );
            }
        }
    }
}
