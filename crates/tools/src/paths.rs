//! Path resolution shared by every tool.

use std::path::{Component, Path, PathBuf};

/// Resolves a path argument against the session's working directory: absolute paths are kept,
/// relative ones are joined to `cwd`, and `.`/`..` components are removed lexically.
///
/// The resolution is lexical on purpose: it must agree with what the policy engine evaluated,
/// and it must not depend on the filesystem (the path may not exist yet).
pub fn resolve(cwd: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            // `..` at the root stays at the root, as the kernel does.
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// How a path is shown to people: relative to `cwd` when it is inside it, absolute otherwise.
pub(crate) fn display(cwd: &Path, path: &Path) -> String {
    let abs = resolve(cwd, path);
    match abs.strip_prefix(resolve(cwd, Path::new(""))) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => abs.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cwd: &str, path: &str, expect: &str) {
        assert_eq!(
            resolve(Path::new(cwd), Path::new(path)),
            PathBuf::from(expect)
        );
    }

    #[test]
    fn resolves_relative_absolute_and_dot_dot() {
        check("/w", "src/main.rs", "/w/src/main.rs");
        check("/w", "/etc/passwd", "/etc/passwd");
        check("/w", "./a/./b", "/w/a/b");
        check("/w/p", "../x", "/w/x");
        check("/w", "../../../../x", "/x");
        check("/w", "", "/w");
        check("/w", "a/b/../../..", "/");
    }

    #[test]
    fn displays_inside_relative_and_outside_absolute() {
        assert_eq!(display(Path::new("/w"), Path::new("src/a.rs")), "src/a.rs");
        assert_eq!(
            display(Path::new("/w"), Path::new("/w/src/a.rs")),
            "src/a.rs"
        );
        assert_eq!(display(Path::new("/w"), Path::new("/w")), ".");
        assert_eq!(
            display(Path::new("/w"), Path::new("/etc/hosts")),
            "/etc/hosts"
        );
        assert_eq!(display(Path::new("/w"), Path::new("../x")), "/x");
    }
}
