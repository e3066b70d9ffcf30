//! `warden --trace FILE`: every protocol line with its direction, for debugging editor
//! integrations.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The direction of a traced line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the client to Warden.
    In,
    /// From Warden to the client.
    Out,
}

/// An append-only trace file. Each line is `<unix seconds.millis> <in|out> <line>`.
#[derive(Debug)]
pub struct Trace {
    file: Mutex<File>,
}

impl Trace {
    /// Opens `path` for appending, creating it if needed.
    pub fn open(path: &Path) -> std::io::Result<Trace> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Trace {
            file: Mutex::new(file),
        })
    }

    pub(crate) fn record(&self, direction: Direction, line: &[u8]) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let dir = match direction {
            Direction::In => "in ",
            Direction::Out => "out",
        };
        let mut entry = format!("{}.{:03} {dir} ", now.as_secs(), now.subsec_millis()).into_bytes();
        entry.extend_from_slice(line);
        entry.push(b'\n');
        // A trace is a debugging aid: a failed write is logged, never fatal.
        let Ok(mut file) = self.file.lock() else {
            return;
        };
        if let Err(err) = file.write_all(&entry) {
            tracing::warn!(%err, "could not write to the trace file");
        }
    }
}
