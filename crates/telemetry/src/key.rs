//! The installation's key for the arguments' hash: 32 random bytes in a file beside
//! the audit log, made on first use and readable by the user alone.
//!
//! The audit log's own digest is a plain SHA-256 of the redacted arguments, which a
//! collector could test guesses against (`rm -rf /`, a known file). Keyed with a secret
//! that never leaves the machine, the exported hash lets a collector see that two calls
//! had the same arguments, and nothing more; whoever holds the key and the log can
//! match a span to its line.

use std::io::Write;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::TelemetryError;

/// The file name, in the audit log's folder.
pub const KEY_FILE: &str = "telemetry.key";

const KEY_BYTES: usize = 32;

/// The key, held in memory.
#[derive(Clone)]
pub struct ArgsKey([u8; KEY_BYTES]);

impl std::fmt::Debug for ArgsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArgsKey(…)")
    }
}

impl ArgsKey {
    /// Reads the key in `dir`, making it first when there is none. A file that is not
    /// a key is an error: telemetry then stays off rather than export an unkeyed hash.
    pub fn load_or_create(dir: &Path) -> Result<ArgsKey, TelemetryError> {
        let path = dir.join(KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => parse(&path, &text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => create(dir, &path),
            Err(source) => Err(TelemetryError::Key { path, source }),
        }
    }

    /// A key from fixed bytes (tests).
    pub fn from_bytes(bytes: [u8; KEY_BYTES]) -> ArgsKey {
        ArgsKey(bytes)
    }

    /// Hex HMAC-SHA256 of `digest` (the audit log's SHA-256 of the redacted arguments).
    pub fn hash(&self, digest: &str) -> String {
        // HMAC takes a key of any length, so this cannot fail.
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.0) else {
            return String::new();
        };
        mac.update(digest.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }
}

fn parse(path: &Path, text: &str) -> Result<ArgsKey, TelemetryError> {
    let bad = || TelemetryError::BadKey {
        path: path.to_path_buf(),
    };
    let bytes = hex::decode(text.trim()).map_err(|_| bad())?;
    let bytes: [u8; KEY_BYTES] = bytes.try_into().map_err(|_| bad())?;
    Ok(ArgsKey(bytes))
}

fn create(dir: &Path, path: &Path) -> Result<ArgsKey, TelemetryError> {
    let io_error = |source| TelemetryError::Key {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes).map_err(|err| io_error(std::io::Error::other(err)))?;
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(io_error)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(hex::encode(bytes).as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(io_error)?;
            Ok(ArgsKey(bytes))
        }
        // Another Warden made it first: use theirs, so both hash alike.
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            let text = std::fs::read_to_string(path).map_err(io_error)?;
            parse(path, &text)
        }
        Err(err) => Err(io_error(err)),
    }
}

/// Where the key lives for the audit log at `audit_log`.
pub fn key_dir(audit_log: &Path) -> PathBuf {
    audit_log
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_made_once_private_and_reused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = ArgsKey::load_or_create(dir.path()).expect("made");
        let again = ArgsKey::load_or_create(dir.path()).expect("read");
        assert_eq!(first.hash("abc"), again.hash("abc"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE))
                .expect("key file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_different_key_hashes_differently() {
        let a = ArgsKey::from_bytes([1; KEY_BYTES]);
        let b = ArgsKey::from_bytes([2; KEY_BYTES]);
        assert_ne!(a.hash("abc"), b.hash("abc"));
        assert_eq!(a.hash("abc").len(), 64);
    }

    #[test]
    fn a_damaged_key_file_is_an_error_not_a_new_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(KEY_FILE), "not hex").expect("write");
        assert!(matches!(
            ArgsKey::load_or_create(dir.path()),
            Err(TelemetryError::BadKey { .. })
        ));
    }
}
