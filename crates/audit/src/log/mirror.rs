//! A second sink for the audit log's records (telemetry), fed by the writer thread.

use std::fmt::Debug;

use super::record::RecordBody;

/// Something that receives a copy of every record the log appends: the redacted body
/// (arguments only as their digest), after its line is on disk. The log stays the
/// record of truth; a mirror is best-effort.
///
/// [`AuditMirror::mirror`] runs on the log's writer thread, so it must not block: hand
/// the record to a queue of your own and drop it when that queue is full.
pub trait AuditMirror: Send + Sync + Debug {
    /// Takes a copy of one appended record.
    fn mirror(&self, body: &RecordBody);

    /// Sends on what is queued, within a short bound of the mirror's choosing. Called by
    /// [`crate::AuditLog::flush`] and when the log is closed.
    fn flush(&self);
}
