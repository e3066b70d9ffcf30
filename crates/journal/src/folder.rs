//! The private folders the store writes into, and the names it gives files.

use std::path::Path;

use crate::SessionStoreError;

/// Creates `dir` (and its parents) with mode 0700 when it is missing, then checks that
/// it is a real folder (not a symlink), owned by the user Warden runs as, with no
/// permission for group or others: sessions hold prompts, arguments and tool output,
/// and an answer file in a folder others can write would let them approve calls.
pub(crate) fn ensure_private(dir: &Path) -> Result<(), SessionStoreError> {
    create_private(dir)?;
    check_private(dir)
}

#[cfg(unix)]
fn create_private(dir: &Path) -> Result<(), SessionStoreError> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| SessionStoreError::io(parent, "create the folder", e))?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(SessionStoreError::io(dir, "create the folder", e)),
    }
}

#[cfg(not(unix))]
fn create_private(dir: &Path) -> Result<(), SessionStoreError> {
    std::fs::create_dir_all(dir).map_err(|e| SessionStoreError::io(dir, "create the folder", e))
}

/// Checks an existing folder as [`ensure_private`] describes.
#[cfg(unix)]
pub(crate) fn check_private(dir: &Path) -> Result<(), SessionStoreError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| SessionStoreError::io(dir, "look at the folder", e))?;
    let unsafe_because = |reason: String| SessionStoreError::Unsafe {
        path: dir.to_owned(),
        reason,
    };
    if !meta.is_dir() {
        return Err(unsafe_because(
            "it is not a folder (a symlink or a file)".into(),
        ));
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(unsafe_because(format!(
            "it belongs to user id {}, not to the user Warden runs as ({me})",
            meta.uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(unsafe_because(format!(
            "its permissions are {mode:o}: group or others may use it (chmod 700 fixes it)"
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn check_private(_dir: &Path) -> Result<(), SessionStoreError> {
    Ok(())
}

/// Syncs a folder, so that a file just created or removed in it stays so after a crash.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), SessionStoreError> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)
            .and_then(|f| f.sync_all())
            .map_err(|e| SessionStoreError::io(dir, "sync the folder", e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Whether a session id can name a file: it comes from the client on `session/load`,
/// so it must not be able to point anywhere else.
pub fn valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// The file name of a call's answer. Call ids come from the model, so an id that is
/// not plainly safe (or is long) is named by `%` and the hex SHA-256 of its bytes: `%`
/// is never in a safe id, so the two forms cannot meet, and two calls never share an
/// answer.
pub fn call_file_name(call: &str) -> String {
    use sha2::{Digest, Sha256};
    if valid_session_id(call) && call.len() <= 100 {
        call.to_owned()
    } else {
        format!("%{}", hex::encode(Sha256::digest(call.as_bytes())))
    }
}

/// The file name of the answer to question `question` about a call: the call's own
/// name for the first question (the name answers had before calls were asked more than
/// once), and `<name>#<question>` for the later ones. `#` is in neither form of
/// [`call_file_name`], so no two questions of any two calls share a file.
pub fn answer_file_name(call: &str, question: u32) -> String {
    let name = call_file_name(call);
    if question <= 1 {
        name
    } else {
        format!("{name}#{question}")
    }
}

/// The call file name and question number an answer file's name stands for (see
/// [`answer_file_name`]); `None` for a name that is no answer's (a spare).
pub fn parse_answer_file_name(name: &str) -> Option<(&str, u32)> {
    if name.starts_with('.') {
        return None;
    }
    match name.split_once('#') {
        None => Some((name, 1)),
        Some((call, question)) => question
            .parse::<u32>()
            .ok()
            .filter(|&q| q > 1)
            .map(|q| (call, q)),
    }
}

/// Sets a file's mode to 0600 at creation.
pub(crate) fn private_file(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}
