//! Path resolution shared by every tool.

use std::path::{Path, PathBuf};

/// Resolves a path argument against the session's working directory and home folder:
/// `~` and `~/x` expand with `home` (`~user` beside it), relative paths join `cwd`, and
/// `.`/`..` components are removed lexically.
///
/// This is the permission engine's own lexical resolver (`warden_paths`), so the path a
/// tool touches is the path the engine judged; and it does not depend on the filesystem
/// (the path may not exist yet).
pub fn resolve(cwd: &Path, home: Option<&Path>, path: &Path) -> PathBuf {
    warden_paths::lexical(cwd, home, path)
}

/// How a path is shown to people: relative to `cwd` when it is inside it, absolute otherwise.
pub(crate) fn display(cwd: &Path, home: Option<&Path>, path: &Path) -> String {
    let abs = resolve(cwd, home, path);
    match abs.strip_prefix(resolve(cwd, home, Path::new(""))) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => abs.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: &str = "/home/u";

    fn check(cwd: &str, path: &str, expect: &str) {
        assert_eq!(
            resolve(Path::new(cwd), Some(Path::new(HOME)), Path::new(path)),
            PathBuf::from(expect)
        );
    }

    /// The full table is the shared resolver's (`warden_paths`); these are the forms the
    /// tools' arguments take.
    #[test]
    fn resolves_relative_absolute_dot_dot_and_home() {
        check("/w", "src/main.rs", "/w/src/main.rs");
        check("/w", "/etc/passwd", "/etc/passwd");
        check("/w", "./a/./b", "/w/a/b");
        check("/w/p", "../x", "/w/x");
        check("/w", "../../../../x", "/x");
        check("/w", "", "/w");
        check("/w", "a/b/../../..", "/");
        check("/w", "~", "/home/u");
        check("/w", "~/x", "/home/u/x");
        check("/w", "~user/x", "/home/user/x");
        check("/w", "a/~", "/w/a/~");
    }

    #[test]
    fn displays_inside_relative_and_outside_absolute() {
        let display =
            |cwd: &str, path: &str| display(Path::new(cwd), Some(Path::new(HOME)), Path::new(path));
        assert_eq!(display("/w", "src/a.rs"), "src/a.rs");
        assert_eq!(display("/w", "/w/src/a.rs"), "src/a.rs");
        assert_eq!(display("/w", "/w"), ".");
        assert_eq!(display("/w", "/etc/hosts"), "/etc/hosts");
        assert_eq!(display("/w", "../x"), "/x");
        assert_eq!(display("/w", "~/.bashrc"), "/home/u/.bashrc");
    }
}
