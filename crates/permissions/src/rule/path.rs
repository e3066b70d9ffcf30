//! `path = "src/**"`: a glob over file paths, relative to the session cwd, relative to
//! the home folder (`~/...`), anywhere (`**/...`), or absolute.

use std::path::Path;

use globset::{Glob, GlobBuilder};

use super::LazyGlob;
use crate::Context;

/// Where a path glob is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Anchor {
    /// An absolute glob (`/etc/**`), or one that starts with `**/` and so matches
    /// anywhere.
    Absolute,
    /// Relative to the session's cwd (`src/**`).
    Cwd,
    /// Relative to the home folder (`~/.ssh/**`).
    Home,
}

/// A compiled path glob.
#[derive(Debug, Clone)]
pub struct PathPattern {
    pub source: String,
    pub anchor: Anchor,
    /// The glob, without the anchor (`~/` taken off), compiled at its first match.
    pub glob: LazyGlob,
}

/// Builds a glob the way every path glob in Warden is built: `*` stays within one
/// path component, `**` crosses them.
pub fn build_glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

impl PathPattern {
    pub fn parse(source: &str) -> Result<PathPattern, super::RuleError> {
        let (anchor, rest) = if let Some(rest) = source.strip_prefix("~/") {
            (Anchor::Home, rest)
        } else if source.starts_with('/') || source.starts_with("**/") {
            (Anchor::Absolute, source)
        } else if source.is_empty() || source.starts_with('~') {
            return Err(super::RuleError::NotAPathGlob {
                pattern: source.to_owned(),
            });
        } else {
            (Anchor::Cwd, source.strip_prefix("./").unwrap_or(source))
        };
        // `**/x` must also match `/x` itself and absolute paths; globset's `**/`
        // prefix matches any leading folders, including none.
        let glob = build_glob(rest).map_err(|e| super::RuleError::glob("path", source, &e))?;
        Ok(PathPattern {
            source: source.to_owned(),
            anchor,
            glob: LazyGlob::new(glob),
        })
    }

    /// The part of `path` this pattern is compared with, if any.
    pub fn subject<'p>(anchor: Anchor, path: &'p Path, ctx: &Context) -> Option<&'p Path> {
        match anchor {
            Anchor::Absolute => Some(path),
            Anchor::Cwd => path.strip_prefix(&ctx.cwd).ok(),
            Anchor::Home => ctx.home.as_deref().and_then(|h| path.strip_prefix(h).ok()),
        }
    }

    /// The glob's first path component when it is a plain name (`src` for
    /// `src/**`, `etc` for `/etc/*`), which the index files the rule under; `None`
    /// when it has glob syntax (`**/.env`, `*.rs`).
    pub fn first_literal(&self) -> Option<&str> {
        let glob = self.glob.glob().glob();
        let rest = glob.strip_prefix('/').unwrap_or(glob);
        let first = rest.split('/').next()?;
        (!first.is_empty() && !first.contains(['*', '?', '[', ']', '{', '}', '\\']))
            .then_some(first)
    }

    /// The first component of a path as the index compares it (see
    /// [`PathPattern::first_literal`]).
    pub fn first_component(subject: &Path) -> Option<&str> {
        subject
            .components()
            .find_map(|c| match c {
                std::path::Component::Normal(name) => Some(name),
                _ => None,
            })
            .and_then(|n| n.to_str())
    }

    /// The absolute folder the glob's fixed leading components name (`/w/.secrets`
    /// for `.secrets/**` in `/w`, `~/.aws` for `~/.aws/*`), or `None` when the glob
    /// matches anywhere (`**/.env`) or its anchor is unknown (no home folder). Every
    /// path the glob matches lies below it.
    pub fn literal_base(&self, ctx: &Context) -> Option<std::path::PathBuf> {
        let glob = self.glob.glob().glob();
        if self.anchor == Anchor::Absolute && !glob.starts_with('/') {
            return None;
        }
        let mut base = match self.anchor {
            Anchor::Absolute => std::path::PathBuf::from("/"),
            Anchor::Cwd => ctx.cwd.clone(),
            Anchor::Home => ctx.home.clone()?,
        };
        for part in glob.split('/').filter(|p| !p.is_empty()) {
            if part.contains(['*', '?', '[', ']', '{', '}', '\\']) {
                break;
            }
            base.push(part);
        }
        Some(base)
    }

    pub fn matches(&self, path: &Path, ctx: &Context) -> bool {
        PathPattern::subject(self.anchor, path, ctx).is_some_and(|p| self.glob.is_match(p))
    }

    /// Matches a path written in the policy file (an embedded example): relative
    /// examples are compared as they are, `~/x` below the home anchor.
    pub fn matches_example(&self, example: &str) -> bool {
        let subject = match self.anchor {
            Anchor::Home => example.strip_prefix("~/"),
            Anchor::Cwd => Some(example.strip_prefix("./").unwrap_or(example)),
            Anchor::Absolute => Some(example),
        };
        subject.is_some_and(|s| self.glob.is_match(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_are_anchored_at_the_cwd_the_home_folder_or_nowhere() {
        let ctx = Context::new("/w/project").with_home("/home/u");
        let cases = [
            ("src/**", "/w/project/src/a/b.rs", true),
            ("src/**", "/w/other/src/a.rs", false),
            ("src/*.rs", "/w/project/src/a/b.rs", false),
            ("./README.md", "/w/project/README.md", true),
            ("~/.ssh/**", "/home/u/.ssh/id_rsa", true),
            ("~/.ssh/**", "/w/project/.ssh/x", false),
            ("**/.env*", "/anywhere/at/all/.env.local", true),
            ("**/.env*", "/w/project/.envrc", true),
            ("/etc/**", "/etc/passwd", true),
            ("/etc/**", "/w/project/etc/x", false),
        ];
        for (pattern, path, expect) in cases {
            let p = PathPattern::parse(pattern).expect("pattern");
            assert_eq!(
                p.matches(Path::new(path), &ctx),
                expect,
                "{pattern} vs {path}"
            );
        }
    }

    #[test]
    fn the_first_literal_component_files_the_rule() {
        let first = |s: &str| {
            PathPattern::parse(s)
                .expect("pattern")
                .first_literal()
                .map(str::to_owned)
        };
        assert_eq!(first("src/**").as_deref(), Some("src"));
        assert_eq!(first("/etc/*").as_deref(), Some("etc"));
        assert_eq!(first("~/.ssh/**").as_deref(), Some(".ssh"));
        assert_eq!(first("**/.env"), None);
        assert_eq!(first("*.rs"), None);
        assert_eq!(first("{a,b}/x"), None);
    }
}
