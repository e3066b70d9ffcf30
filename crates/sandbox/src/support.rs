//! What this system supports, found once: whether every layer of confinement can be
//! applied, and if not, why (the words the permission request shows).

/// The oldest Landlock ABI with every right Warden relies on: filesystem access with
/// `truncate` and `refer` (ABI 3) and TCP `bind`/`connect` rules (ABI 4).
pub const MIN_LANDLOCK_ABI: i32 = 4;

/// What the kernel offers for confinement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version, 0 without Landlock.
    pub landlock_abi: i32,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
    /// Whether an unprivileged process may create a user namespace (with a mount
    /// namespace inside it), and if not, why.
    pub user_namespaces: Result<(), NoUserNamespaces>,
}

/// Why an unprivileged process may not create a user namespace here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoUserNamespaces {
    #[error("user.max_user_namespaces is 0")]
    MaxIsZero,
    #[error("kernel.unprivileged_userns_clone is 0")]
    UnprivilegedCloneOff,
    #[error("AppArmor restricts unprivileged user namespaces")]
    AppArmor,
    #[error("the kernel has no user namespaces")]
    NoKernelSupport,
    #[error("this system is not Linux")]
    NotLinux,
}

impl Support {
    /// Reads what this system supports. Cheap: a system call and a few small files of
    /// `/proc`, no process is started.
    pub fn probe() -> Support {
        crate::linux_or_not::probe()
    }

    /// Why confinement cannot be applied here, in words that complete "runs without a
    /// sandbox: …"; `None` when every layer is there.
    pub fn missing(&self) -> Option<String> {
        if self.landlock_abi == 0 {
            return Some("this system has no Landlock".to_owned());
        }
        if self.landlock_abi < MIN_LANDLOCK_ABI {
            return Some(format!(
                "this system's Landlock (ABI {}) is older than ABI {MIN_LANDLOCK_ABI}, the first that covers the network",
                self.landlock_abi
            ));
        }
        if !self.seccomp {
            return Some("this system has no seccomp filters".to_owned());
        }
        if let Err(why) = &self.user_namespaces {
            return Some(format!("user namespaces are not available ({why})"));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_missing_layer_is_named() {
        let full = Support {
            landlock_abi: 7,
            seccomp: true,
            user_namespaces: Ok(()),
        };
        assert_eq!(full.missing(), None);
        let no_landlock = Support {
            landlock_abi: 0,
            ..full.clone()
        };
        assert_eq!(
            no_landlock.missing().as_deref(),
            Some("this system has no Landlock")
        );
        let old = Support {
            landlock_abi: 3,
            ..full.clone()
        };
        assert!(old.missing().is_some_and(|m| m.contains("ABI 3")));
        let no_seccomp = Support {
            seccomp: false,
            ..full.clone()
        };
        assert!(no_seccomp.missing().is_some_and(|m| m.contains("seccomp")));
        let no_userns = Support {
            user_namespaces: Err(NoUserNamespaces::AppArmor),
            ..full
        };
        assert!(
            no_userns
                .missing()
                .is_some_and(|m| m.contains("AppArmor restricts"))
        );
    }

    /// This machine (and CI's) has every layer: a test that needs them says so loudly
    /// when one is missing.
    #[cfg(target_os = "linux")]
    #[test]
    fn this_system_supports_every_layer() {
        let support = Support::probe();
        assert_eq!(support.missing(), None, "{support:?}");
    }
}
