//! How the guard's process is made: `clone` with `CLONE_VM`, so that it shares the
//! helper's memory instead of copying it. A `fork` of the helper (a large binary)
//! copies its page tables, and each process then faults in again every page of code it
//! runs and copies every page it writes; on the guarded path that was most of what the
//! guard added to a command's start (`docs/performance.md`). `posix_spawn` makes its
//! child the same way, but stops the parent until the child has called `exec`; the
//! guard runs alongside the helper until the command has ended, so the two keep to
//! this rule: **once the guard exists, the helper makes raw system calls only** (no
//! allocation, no C library function that sets `errno`, no lock), until it has waited
//! for the guard's end. The guard alone uses the shared heap and `errno` meanwhile, as
//! one thread would. The guard has a stack, a file table and signal handlers of its
//! own (no `CLONE_FILES`, no `CLONE_SIGHAND`).

use std::ffi::c_void;

/// The guard's stack: as large as a main thread's, reserved but not committed (only
/// the pages it uses are ever allocated), with an inaccessible page below it so that an
/// overflow faults instead of writing into other memory.
const STACK_SIZE: usize = 8 << 20;
const GUARD_PAGE: usize = 4096;

/// The guard's stack, unmapped when dropped (only once the guard has ended).
pub(super) struct Stack {
    base: *mut c_void,
}

impl Stack {
    pub(super) fn new() -> std::io::Result<Stack> {
        // SAFETY: a new private anonymous mapping, nothing else is touched.
        #[allow(unsafe_code)]
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                STACK_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let stack = Stack { base };
        // SAFETY: the lowest page of the mapping just made.
        #[allow(unsafe_code)]
        if unsafe { libc::mprotect(base, GUARD_PAGE, libc::PROT_NONE) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// The top of the stack (it grows down), aligned as the ABI wants.
    fn top(&self) -> *mut c_void {
        self.base.wrapping_byte_add(STACK_SIZE)
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`; the only process that ran on it has ended.
        #[allow(unsafe_code)]
        unsafe {
            libc::munmap(self.base, STACK_SIZE);
        }
    }
}

/// Starts `main(job)` in a new process that shares this one's memory, on `stack`, and
/// returns its pid. `job` and `stack` must outlive that process: the caller waits for it
/// before it drops either, and keeps to the rule above until then.
pub(super) fn start<T>(
    stack: &Stack,
    main: extern "C" fn(*mut c_void) -> libc::c_int,
    job: *mut T,
) -> std::io::Result<libc::pid_t> {
    // SAFETY: `clone` runs `main(job)` on the given stack in a new process (`SIGCHLD`
    // makes it an ordinary child, which the caller waits for). The stack is this
    // process's own mapping, unused by anything else; `job` stays valid as the caller
    // promises.
    #[allow(unsafe_code)]
    let pid = unsafe {
        libc::clone(
            main,
            stack.top(),
            libc::CLONE_VM | libc::SIGCHLD,
            job.cast::<c_void>(),
        )
    };
    if pid < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(pid)
    }
}
