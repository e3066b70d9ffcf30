//! The last lines of a log, read from its end.

use std::fs::File;
use std::path::Path;

use super::error::AuditError;
use super::record::AuditRecord;
use super::rev_lines::RevLines;

/// One line of the log as `tail` returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct TailLine {
    /// The line as written (invalid UTF-8 replaced), without its newline.
    pub raw: String,
    /// The parsed record, or `None` when the line is not one.
    pub record: Option<AuditRecord>,
    /// False for a torn last line.
    pub terminated: bool,
}

/// The last `n` lines of the log at `path`, oldest first. A missing log has none.
pub fn tail(path: &Path, n: usize) -> Result<Vec<TailLine>, AuditError> {
    let read_err = |source| AuditError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(read_err(err)),
    };
    let len = file.metadata().map_err(read_err)?.len();
    let mut lines = RevLines::new(&mut file, len).map_err(read_err)?;
    let mut out = Vec::with_capacity(n.min(1024));
    while out.len() < n {
        let Some(line) = lines.next_line().map_err(read_err)? else {
            break;
        };
        out.push(TailLine {
            record: serde_json::from_slice(&line.bytes).ok(),
            raw: String::from_utf8_lossy(&line.bytes).into_owned(),
            terminated: line.terminated,
        });
    }
    out.reverse();
    Ok(out)
}
