//! The process group of a child Warden started, ended with whatever owns it.

use rustix::process::{Pid, Signal, kill_process_group};

/// The process group of a child started as the leader of a group of its own
/// (`process_group(0)`, so the group's id is the child's pid). Dropping it kills every
/// process of the group, so nothing the child started, even in the background, outlives
/// the call, the server or the hook it was started for.
#[derive(Debug)]
pub struct ProcessGroup(Option<Pid>);

impl ProcessGroup {
    /// The group led by the child with this pid; `None` (a child already reaped) is a
    /// group with nothing left to end.
    pub fn led_by(pid: Option<u32>) -> ProcessGroup {
        ProcessGroup(pid.and_then(|pid| Pid::from_raw(i32::try_from(pid).ok()?)))
    }

    /// Sends `signal` to every process of the group. A group that is already gone (every
    /// process of it exited) is the expected end, not an error.
    pub fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.0
            && let Err(err) = kill_process_group(pgid, signal)
            && err != rustix::io::Errno::SRCH
        {
            tracing::warn!(pgid = pgid.as_raw_nonzero(), %err, "signalling a process group failed");
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.signal(Signal::KILL);
    }
}
