//! The writer thread gives way to the thread that serves the protocol.
//!
//! Recording an event wakes the writer. At its normal priority, the scheduler often
//! lets the woken writer preempt the thread that woke it, on the same core, while that
//! thread still has a step of the turn to finish (and on a two-core machine the other
//! core is usually busy with the client reading what was just written). Below the
//! default priority it waits for a free core instead. It is never starved: a lower
//! priority is a smaller share of a busy core, not none, so the bounded queue keeps
//! draining.

/// How far below its own priority the writer runs (added to the `nice` value).
#[cfg(target_os = "linux")]
const NICE: i32 = 10;

/// Lowers the calling thread's priority by [`NICE`], relative to what it inherited (so a
/// Warden started with `nice` keeps its writer below itself). On Linux the nice value
/// is per thread, and `rustix`'s `nice` (`getpriority`, then `setpriority` of the
/// calling task) changes this thread's alone, clamped at 19. Failing is harmless and
/// only logged.
#[cfg(target_os = "linux")]
pub(super) fn lower_this_thread() {
    if let Err(error) = rustix::process::nice(NICE) {
        tracing::debug!(%error, "could not lower the audit writer's priority");
    }
}

/// Elsewhere the writer keeps the default priority.
#[cfg(not(target_os = "linux"))]
pub(super) fn lower_this_thread() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn only_the_calling_thread_is_lowered() {
        let nice = || {
            std::fs::read_to_string("/proc/thread-self/stat").map(|stat| {
                // The 19th field, counted after the command name's closing parenthesis.
                let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
                rest.split_whitespace().nth(16).unwrap_or("").to_owned()
            })
        };
        let before = nice().expect("this thread's stat");
        let lowered = std::thread::spawn(move || {
            super::lower_this_thread();
            nice().expect("the new thread's stat")
        })
        .join()
        .expect("the thread");
        let base: i32 = before.parse().expect("a nice value");
        assert_eq!(lowered, (base + super::NICE).min(19).to_string());
        assert_eq!(nice().expect("this thread's stat again"), before);
    }
}
