//! The Landlock rule set: what the confined process may read, write and connect to.

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use super::ExecError;
use crate::Confinement;

/// The ABI whose rights are required (filesystem with `truncate`, TCP); newer rights
/// (device `ioctl`, scopes) are used where the kernel has them.
const REQUIRED: ABI = ABI::V4;
const WANTED: ABI = ABI::V6;

/// Device files every program expects to read and write (`/dev/null`, terminals, the
/// random devices); the kernel's own permissions still apply to the others.
const DEVICES: &str = "/dev";

/// Restricts this process (and what it execs) to `confinement`.
pub(super) fn restrict(confinement: &Confinement) -> Result<(), ExecError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(REQUIRED))?;
    if !confinement.network {
        ruleset = ruleset.handle_access(AccessNet::from_all(REQUIRED))?;
    }
    let ruleset = ruleset
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(WANTED))?
        .scope(Scope::from_all(WANTED))?;
    let device_access = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
    let status = ruleset
        .create()?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(WANTED)))?
        .add_rules(path_beneath_rules([DEVICES], device_access))?
        .add_rules(path_beneath_rules(["/dev/shm"], AccessFs::from_all(WANTED)))?
        .add_rules(path_beneath_rules(
            &confinement.writable,
            AccessFs::from_all(WANTED),
        ))?
        .restrict_self()?;
    if status.ruleset == RulesetStatus::NotEnforced || !status.no_new_privs {
        return Err(ExecError::NotEnforced);
    }
    Ok(())
}

/// The kernel's Landlock ABI version, 0 without Landlock.
pub(super) fn abi_version() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with the VERSION flag, `landlock_create_ruleset` reads no memory (the
    // attribute pointer must be null and the size 0) and returns the ABI version or -1;
    // it creates no file descriptor.
    #[allow(unsafe_code)]
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(version).unwrap_or(0).max(0)
}
