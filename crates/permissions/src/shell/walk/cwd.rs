//! Where the shell really is: `cd`, `pushd` and `popd` move it, and later relative
//! paths resolve against the folder they moved to. Where the engine cannot know the
//! folder (a target only known at run time, `CDPATH` or `cdable_vars` set in the line,
//! `cd` to a `HOME` or `OLDPWD` the line changed, `popd` past what the line pushed),
//! the folder becomes `/`: relative paths then count as outside the workspace, so
//! they are never Low. `cd -P` and `set -P` follow symbolic links to the real folder.
//! Scripts run in the same shell (`eval`, `source`, `.`) move it too (`walk.rs`);
//! `bash -c` and subshells move only their own.

use std::path::PathBuf;

use super::Walker;
use crate::shell::words::Word;

/// What the line did that changes where `cd` goes.
#[derive(Debug, Default, Clone)]
pub(super) struct Place {
    /// The folder before the last `cd` (`cd -`), when known.
    oldpwd: Option<PathBuf>,
    /// `pushd`'s stack, as far as this line pushed it.
    dirs: Vec<PathBuf>,
    /// `CDPATH` or `shopt -s cdable_vars` was set: `cd name` may go anywhere.
    searched: bool,
    /// `HOME` was set: a bare `cd` goes where the line said, only known at run time.
    home_moved: bool,
    /// `OLDPWD` was set: `cd -` goes where the line said.
    oldpwd_moved: bool,
    /// `set -P` / `set -o physical`: `cd` follows symbolic links.
    physical: bool,
}

/// The folder that stands for one Warden cannot know.
fn unknown() -> PathBuf {
    PathBuf::from("/")
}

impl Walker<'_> {
    /// Notes a variable the line sets that changes where `cd` goes.
    pub(super) fn note_cd_variable(&mut self, name: &str) {
        match name {
            "CDPATH" => self.place.searched = true,
            "HOME" => self.place.home_moved = true,
            "OLDPWD" => self.place.oldpwd_moved = true,
            _ => {}
        }
    }

    /// Follows `cd`, `pushd`, `popd`, and the `set`/`shopt` options that change what
    /// `cd` does.
    pub(super) fn track_cd(&mut self, program: &str, args: &[Word]) {
        let texts = || args.iter().map(|a| a.text.as_str());
        match program {
            "set" => {
                let physical = texts().any(|t| {
                    (t.starts_with('-') && !t.starts_with("--") && t.contains('P'))
                        || t == "physical"
                });
                self.place.physical |= physical;
                return;
            }
            "shopt" => {
                if texts().any(|t| t == "cdable_vars") && texts().any(|t| t == "-s") {
                    self.place.searched = true;
                }
                return;
            }
            "cd" | "pushd" | "popd" => {}
            _ => return,
        }
        let physical = self.place.physical
            || args.iter().any(|a| {
                !a.dynamic && a.text.starts_with('-') && a.text.len() > 1 && a.text.contains('P')
            });
        let target = args
            .iter()
            .find(|a| a.dynamic || !a.text.starts_with('-') || a.text == "-");
        let here = self.ctx.cwd.clone();
        let new_cwd = match (program, target) {
            (_, Some(t)) if t.dynamic => unknown(),
            ("popd", _) => self.place.dirs.pop().unwrap_or_else(unknown),
            ("cd", Some(t)) if t.text == "-" => match &self.place.oldpwd {
                Some(old) if !self.place.oldpwd_moved => old.clone(),
                _ => unknown(),
            },
            // `pushd` alone swaps the top two folders.
            ("pushd", None) => self.place.dirs.pop().unwrap_or_else(unknown),
            (_, None) => match &self.ctx.home {
                Some(home) if !self.place.home_moved => home.clone(),
                _ => unknown(),
            },
            (_, Some(t)) => {
                let searched = self.place.searched
                    && !(t.text.starts_with('/')
                        || t.text.starts_with('~')
                        || t.text == "."
                        || t.text == ".."
                        || t.text.starts_with("./")
                        || t.text.starts_with("../"));
                if searched {
                    unknown()
                } else {
                    let resolved = self.resolver.resolve(&t.text, &self.ctx);
                    if physical {
                        resolved.real
                    } else {
                        resolved.lexical
                    }
                }
            }
        };
        if program == "pushd" {
            self.place.dirs.push(here.clone());
        }
        self.place.oldpwd = Some(here);
        self.ctx.cwd = new_cwd;
    }
}
