//! The user and mount namespaces: where the secret locations are hidden and the
//! protected entries of the workspace made read-only, before Landlock forbids any
//! further change of the mounts.

use std::path::Path;

use rustix::fs::StatVfsMountFlags;
use rustix::mount::{MountFlags, MountPropagationFlags};
use rustix::thread::UnshareFlags;

use super::ExecError;
use crate::{Confinement, NoUserNamespaces};

/// Enters a new user namespace (this user mapped to itself, so files keep their
/// owners) with a private mount namespace (and, with `pid`, a PID namespace for the
/// next child), and lays the mounts of `confinement`.
pub(super) fn enter(confinement: &Confinement, pid: bool) -> Result<(), ExecError> {
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    let mut flags = UnshareFlags::NEWUSER | UnshareFlags::NEWNS;
    if pid {
        flags |= UnshareFlags::NEWPID;
    }
    // SAFETY: `unshare_unsafe` is unsafe only for `CLONE_FILES`, which would let threads
    // see different file tables; these flags do not include it, and the helper has a
    // single thread when it runs this.
    #[allow(unsafe_code)]
    unsafe { rustix::thread::unshare_unsafe(flags) }.map_err(|e| ExecError::Namespace(e.into()))?;
    let write = |file: &str, text: String| std::fs::write(file, text).map_err(ExecError::Namespace);
    write("/proc/self/setgroups", "deny".to_owned())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    // Nothing laid here may reach the mounts outside.
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
    )
    .map_err(|e| mount_error("make private", Path::new("/"), e))?;
    for path in &confinement.reserve {
        // An empty folder where a protected one is missing, so that it can be bound
        // read-only below: otherwise the command could create it with a file in it
        // that runs later (a Git hook). Only inside an existing parent, and only an
        // empty folder: nothing else of the workspace changes. Where this process may
        // not create it, the command (the same user, with less) may not either.
        if !path.exists() && path.parent().is_some_and(Path::is_dir) {
            let _ = std::fs::create_dir(path);
        }
    }
    for path in &confinement.read_only {
        if path.exists() {
            bind_read_only(path, path)?;
        } else if std::fs::symlink_metadata(path).is_ok() {
            // Neither bound (nothing to bind) nor guarded (not missing): refused, since
            // the command could create the file the link points to.
            return Err(ExecError::DanglingProtected(path.clone()));
        }
    }
    for path in &confinement.hidden {
        // A workspace inside a hidden folder stays visible: it was given explicitly.
        let holds_workspace = confinement.writable.iter().any(|w| w.starts_with(path));
        if holds_workspace {
            continue;
        }
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => hide_dir(path)?,
            Ok(_) => bind_read_only(Path::new("/dev/null"), path)?,
            // Nothing there to read; writing there is Landlock's to refuse.
            Err(_) => {}
        }
    }
    Ok(())
}

fn mount_error(what: &'static str, path: &Path, err: rustix::io::Errno) -> ExecError {
    ExecError::Mount {
        what,
        path: path.to_path_buf(),
        err: err.into(),
    }
}

/// Covers a folder with an empty read-only file system.
fn hide_dir(path: &Path) -> Result<(), ExecError> {
    rustix::mount::mount(
        "none",
        path,
        "tmpfs",
        MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
        c"mode=0755,size=4k",
    )
    .map_err(|e| mount_error("hide", path, e))
}

/// Binds `source` over `target`, read-only. The flags the kernel locked on the mount
/// below (`nosuid`, `nodev`, `noexec`, the access-time ones) are kept, since a user
/// namespace may not clear them.
fn bind_read_only(source: &Path, target: &Path) -> Result<(), ExecError> {
    rustix::mount::mount_bind_recursive(source, target)
        .map_err(|e| mount_error("bind", target, e))?;
    let locked = rustix::fs::statvfs(target)
        .map_err(|e| mount_error("inspect", target, e))?
        .f_flag;
    let mut flags = MountFlags::BIND | MountFlags::RDONLY;
    for (has, keep) in [
        (StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
        (StatVfsMountFlags::NOATIME, MountFlags::NOATIME),
        (StatVfsMountFlags::NODIRATIME, MountFlags::NODIRATIME),
        (StatVfsMountFlags::RELATIME, MountFlags::RELATIME),
    ] {
        if locked.contains(has) {
            flags |= keep;
        }
    }
    rustix::mount::mount_remount(target, flags, "").map_err(|e| mount_error("protect", target, e))
}

/// Whether this system lets an unprivileged process create a user namespace.
pub(super) fn available() -> Result<(), NoUserNamespaces> {
    let read = |file: &str| {
        std::fs::read_to_string(file)
            .ok()
            .map(|s| s.trim().to_owned())
    };
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Err(NoUserNamespaces::MaxIsZero);
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return Err(NoUserNamespaces::UnprivilegedCloneOff);
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        return Err(NoUserNamespaces::AppArmor);
    }
    if !Path::new("/proc/self/ns/user").exists() {
        return Err(NoUserNamespaces::NoKernelSupport);
    }
    Ok(())
}
