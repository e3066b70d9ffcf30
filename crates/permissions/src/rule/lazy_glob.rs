//! A glob that is compiled into its matcher when it is first matched.

use std::path::Path;
use std::sync::OnceLock;

use globset::{Glob, GlobMatcher};

/// A checked glob whose matcher is built at its first match.
///
/// Building a matcher compiles a regular expression (with a DFA), which made up half of
/// the instructions Warden ran from its start to its first `session/new` answer when
/// every rule's globs were compiled as the policy loaded. The glob's syntax is still
/// checked when the policy loads (a [`Glob`] exists only for a valid pattern); only the
/// compilation waits, and a glob no call reaches is never compiled.
#[derive(Debug, Clone)]
pub struct LazyGlob {
    glob: Glob,
    matcher: OnceLock<GlobMatcher>,
}

impl LazyGlob {
    pub fn new(glob: Glob) -> LazyGlob {
        LazyGlob {
            glob,
            matcher: OnceLock::new(),
        }
    }

    /// The glob as written and checked.
    pub fn glob(&self) -> &Glob {
        &self.glob
    }

    pub fn is_match(&self, subject: impl AsRef<Path>) -> bool {
        self.matcher
            .get_or_init(|| self.glob.compile_matcher())
            .is_match(subject)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lazy_glob_matches_as_its_compiled_matcher_does() {
        let glob = Glob::new("src/**/*.rs").expect("a glob");
        let eager = glob.compile_matcher();
        let lazy = LazyGlob::new(glob);
        for subject in [
            "src/main.rs",
            "src/a/b.rs",
            "lib/main.rs",
            "src/main.toml",
            "",
        ] {
            assert_eq!(lazy.is_match(subject), eager.is_match(subject), "{subject}");
        }
    }

    #[test]
    fn a_lazy_glob_is_compiled_only_when_first_matched() {
        let lazy = LazyGlob::new(Glob::new("*.env").expect("a glob"));
        assert!(lazy.matcher.get().is_none());
        let copy = lazy.clone();
        assert!(lazy.is_match(".env"));
        assert!(lazy.matcher.get().is_some());
        assert!(
            copy.matcher.get().is_none(),
            "a copy made before compiles on its own"
        );
        assert!(!copy.is_match("env"));
    }
}
