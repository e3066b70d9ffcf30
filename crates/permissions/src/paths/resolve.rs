//! Turning a path as written into its lexical and real forms.

use std::cell::Cell;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::{ResolvedPath, Sensitive, glob};
use crate::Context;
use crate::context::ResolvedRoot;

/// How many missing trailing components we walk back over to find an existing
/// ancestor. Real paths are far shorter; the bound only keeps hostile input cheap.
const MAX_WALK_BACK: usize = 256;

pub use warden_paths::UNKNOWN_HOME;

/// Resolves `raw` against the context: `~` and `~/x` expand with `ctx.home`
/// (`~user` becomes a sibling of the home folder, `~root` is `/root`, and without a
/// home folder `~` is [`UNKNOWN_HOME`]), relative paths
/// join `ctx.cwd`, and the result is judged lexically and with symlinks resolved.
pub fn resolve(raw: &str, ctx: &Context) -> ResolvedPath {
    Resolver::new(ctx).resolve(raw, ctx)
}

/// Resolves many paths against one set of workspace roots, canonicalising the roots
/// once (each canonicalisation is a handful of system calls).
#[derive(Debug, Clone)]
pub struct Resolver {
    /// Each workspace root, lexically normalised and canonical.
    roots: Arc<[ResolvedRoot]>,
    /// How many more folders a glob may list (see [`MAX_GLOB_LISTINGS`]).
    listings_left: Cell<usize>,
}

/// Globs list their folder to see what they match; a hostile command full of globs
/// gets this many listings per resolver, then only the typical secret names.
pub const MAX_GLOB_LISTINGS: usize = 32;

impl Resolver {
    /// Prepares the workspace roots of `ctx`.
    pub fn new(ctx: &Context) -> Resolver {
        Resolver {
            roots: ctx.roots(),
            listings_left: Cell::new(MAX_GLOB_LISTINGS),
        }
    }

    /// Uses up one folder listing, if any is left.
    fn take_listing(&self) -> bool {
        let left = self.listings_left.get();
        self.listings_left.set(left.saturating_sub(1));
        left > 0
    }

    /// The first secret file (by its name, see [`Sensitive::read_is_sensitive`]) at the
    /// top of `folder` whose name matches none of `excluded` and, when `included` is
    /// not empty, one of `included` (shell patterns): what a recursive read of the
    /// folder sweeps up. A folder that cannot be listed holds
    /// none; once the listings are used up every folder may hold one (fail closed).
    pub fn secret_in_folder(
        &self,
        folder: &Path,
        excluded: &[String],
        included: &[String],
        ctx: &Context,
    ) -> Option<PathBuf> {
        if !self.take_listing() {
            return Some(folder.to_path_buf());
        }
        let entries = std::fs::read_dir(folder).ok()?;
        entries
            .take(glob::MAX_LISTED)
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !excluded.iter().any(|x| glob::matches(x, name)))
            .filter(|name| included.is_empty() || included.iter().any(|x| glob::matches(x, name)))
            .map(|name| folder.join(name))
            .find(|path| Sensitive::classify(path, ctx).is_some_and(Sensitive::read_is_sensitive))
    }

    /// Like [`resolve`], with the roots prepared by [`Resolver::new`] (the context's
    /// `cwd`, `home` and `protected` are read from `ctx`).
    pub fn resolve(&self, raw: &str, ctx: &Context) -> ResolvedPath {
        let absolute = absolute(raw, ctx);
        let lexical = normalize_lexically(&absolute);
        let real = real_path(&absolute).unwrap_or_else(|| lexical.clone());
        let inside_workspace = self.roots.iter().any(|root| {
            is_within(&root.lexical, &lexical)
                && (is_within(&root.real, &real) || is_within(&root.lexical, &real))
        });
        // Without a link on the way the real path is the lexical one, classified once.
        let named = Sensitive::strictest([
            Sensitive::classify(&lexical, ctx),
            (real != lexical)
                .then(|| Sensitive::classify(&real, ctx))
                .flatten(),
        ]);
        let sensitive = match named {
            Some(s) if s.read_is_sensitive() => Some(s),
            _ if glob::has_glob(raw) => {
                let may_list = self.take_listing();
                Sensitive::strictest([
                    named,
                    glob::classify_glob(&lexical, ctx, may_list),
                    glob::classify_glob(&real, ctx, may_list),
                ])
            }
            _ => named,
        };
        ResolvedPath {
            raw: raw.to_string(),
            lexical,
            real,
            inside_workspace,
            sensitive,
        }
    }
}

/// True when `path` is `base` or lies below it (component-wise, not by string prefix,
/// so `/work2` is not inside `/work`).
pub use warden_paths::is_within;

/// Makes `raw` absolute: the one lexical resolver, which the tools use too.
fn absolute(raw: &str, ctx: &Context) -> PathBuf {
    warden_paths::absolute(&ctx.cwd, ctx.home.as_deref(), Path::new(raw))
}

pub use warden_paths::normalize_lexically;

/// The symlink-resolved form of an absolute path: the canonical form of its longest
/// existing prefix, followed by the remaining components normalised lexically.
/// Working on the un-normalised path matters: `link/..` is the parent of the link's
/// target, not the folder holding the link.
///
/// On Linux, a path whose last component is a name starts from its parent: when that
/// name is not a symlink (a new file, most often), the answer is the parent's canonical
/// form and the name, which glibc's `realpath` would find too, after asking about every
/// folder twice. Elsewhere `realpath` may also change the name's spelling (macOS gives
/// the case stored on disk), so the whole path is always resolved.
fn real_path(absolute: &Path) -> Option<PathBuf> {
    let components: Vec<Component<'_>> = absolute.components().collect();
    let mut keep = components.len();
    if cfg!(target_os = "linux")
        && let [parent @ .., Component::Normal(name)] = components.as_slice()
        && !parent.is_empty()
    {
        let parent: PathBuf = parent.iter().collect();
        match std::fs::canonicalize(&parent) {
            Ok(mut real) => {
                real.push(name);
                let symlink = std::fs::symlink_metadata(&real)
                    .is_ok_and(|meta| meta.file_type().is_symlink());
                if !symlink {
                    return Some(real);
                }
            }
            // Neither the path nor its parent resolves: go on from the grandparent.
            Err(_) => keep -= 2,
        }
    }
    walk_back(&components, keep)
}

/// The canonical form of the longest prefix of `components[..keep]` that resolves, with
/// the rest of the components after it.
fn walk_back(components: &[Component<'_>], mut keep: usize) -> Option<PathBuf> {
    let lowest = components.len().saturating_sub(MAX_WALK_BACK);
    while keep > lowest {
        let prefix: PathBuf = components[..keep].iter().collect();
        if let Ok(canonical) = std::fs::canonicalize(&prefix) {
            let mut real = canonical;
            for component in &components[keep..] {
                match component {
                    Component::ParentDir => {
                        real.pop();
                    }
                    Component::Normal(name) => real.push(name),
                    _ => {}
                }
            }
            return Some(real);
        }
        keep -= 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::{Component, Path};

    use super::{real_path, walk_back};

    /// Every path resolves as the plain walk back from the whole path resolves it.
    #[test]
    fn starting_from_the_parent_changes_no_answer() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).expect("folders");
        std::fs::write(root.join("a/b/file"), "x").expect("a file");
        let link = |target: &Path, at: &str| {
            std::os::unix::fs::symlink(target, root.join(at)).expect("a symlink");
        };
        link(&root.join("a/b"), "to_b");
        link(Path::new("b/file"), "a/rel_file");
        link(&root.join("to_b"), "chain");
        link(&root.join("missing"), "dangling");
        link(&root.join("loop2"), "loop1");
        link(&root.join("loop1"), "loop2");
        link(Path::new("/"), "to_root");
        link(&root.join("a/b/file"), "a/b/file_link");
        let mut checked = 0;
        for rel in [
            "a",
            "a/b",
            "a/b/file",
            "a/b/new",
            "a/b/../b/./file",
            "a/b/file/x",
            "a/missing",
            "a/missing/deeper/still",
            "to_b",
            "to_b/file",
            "to_b/new",
            "to_b/..",
            "to_b/../b/file",
            "a/rel_file",
            "a/b/file_link",
            "chain/file",
            "chain/new",
            "dangling",
            "dangling/x",
            "loop1",
            "loop1/x",
            "to_root",
            "to_root/etc",
            "to_root/..",
        ] {
            let path = root.join(rel);
            let components: Vec<Component<'_>> = path.components().collect();
            assert_eq!(
                real_path(&path),
                walk_back(&components, components.len()),
                "{rel}"
            );
            checked += 1;
        }
        for path in ["/", "/proc/self", "/dev/null", "/nonexistent/x"] {
            let path = Path::new(path);
            let components: Vec<Component<'_>> = path.components().collect();
            assert_eq!(real_path(path), walk_back(&components, components.len()));
            checked += 1;
        }
        assert_eq!(checked, 28);
    }
}
