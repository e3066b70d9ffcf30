//! Where a call is prepared: the folder its paths are relative to, the home `~` means,
//! and the language its title is written in.

use std::path::Path;

use warden_i18n::Language;

/// Where a call is prepared: what its paths are relative to.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The session's working folder (absolute).
    pub cwd: &'a Path,
    /// The home folder `~` means, as the permission engine knows it.
    pub home: Option<&'a Path>,
    /// The language of what a person reads about the call (its title).
    pub language: Language,
}
