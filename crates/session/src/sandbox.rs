//! A session's sandbox (the contract's section 10): how its `terminal` commands start,
//! and what the user is told about it when the session starts.
//!
//! The launch of a call is decided when the call is prepared, from what it needs
//! beyond its default confinement (`warden_permissions::sandbox`). A call that needs
//! more is never allowed by the mode alone: it runs only after the user allowed it, or
//! a grant or the user's own rule did, and then with exactly those needs added.

use std::sync::Arc;

use warden_permissions::sandbox::{SandboxNeeds, default_confinement};
use warden_permissions::{Context, SandboxSettings};
use warden_sandbox::{Helper, Support};
use warden_tools::{Confined, Launch};

use warden_i18n::Args;
use warden_turn::{Notice, Severity, Words};

/// The sandbox of one session.
#[derive(Debug, Clone)]
pub struct SessionSandbox {
    /// The programs that apply confinement.
    helper: Option<Arc<Helper>>,
    settings: SandboxSettings,
    /// Why commands cannot be confined here; `None` when they can.
    missing: Option<String>,
}

impl SessionSandbox {
    /// The sandbox of a session under these settings, on a system with this support.
    pub fn new(helper: Option<Helper>, settings: &SandboxSettings, support: &Support) -> Self {
        let missing = match &helper {
            None => Some(
                "Warden does not know where its own program is, which confines commands".to_owned(),
            ),
            Some(_) => support.missing(),
        };
        SessionSandbox {
            helper: helper.map(Arc::new),
            settings: settings.clone(),
            missing,
        }
    }

    /// Why commands cannot be confined (for the evaluation's context); `None` when they
    /// can or when confinement is turned off on purpose.
    pub fn missing(&self) -> Option<String> {
        if self.settings.enabled {
            self.missing.clone()
        } else {
            None
        }
    }

    /// How a call with these needs starts; `None` (it does not run) when it should be
    /// confined and there is nothing to confine it with.
    pub fn launch(&self, needs: &SandboxNeeds, ctx: &Context) -> Option<Launch> {
        match (&needs.unconfined, &self.helper) {
            // Each of these was asked about (or turned off by the user's own policy).
            (Some(_), _) => Some(Launch::Unconfined),
            (None, None) => None,
            (None, Some(helper)) => Some(Launch::Confined(Confined {
                helper: helper.clone(),
                confinement: default_confinement(ctx, &self.settings)
                    .widened(needs.network, &needs.writes),
            })),
        }
    }

    /// What the session says when it starts: confinement turned off (every session),
    /// or a system that cannot confine.
    pub fn notice(&self, words: Words) -> Option<Notice> {
        if !self.settings.enabled {
            return Some(Notice::new(
                Severity::Warning,
                words.plain("agent-notice-sandbox-off"),
                Some(words.plain("agent-notice-sandbox-off-detail")),
            ));
        }
        self.missing.as_ref().map(|why| {
            let args = Args::new().with("why", why.to_string());
            Notice::new(
                Severity::Warning,
                words.plain("agent-notice-sandbox-missing"),
                Some(words.text("agent-notice-sandbox-missing-detail", &args)),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use warden_permissions::sandbox::Unconfined;

    use super::*;

    fn full() -> Support {
        Support {
            landlock_abi: 7,
            seccomp: true,
            user_namespaces: Ok(()),
        }
    }

    #[test]
    fn a_call_runs_confined_with_exactly_its_needs_added() {
        let sandbox = SessionSandbox::new(
            Some(Helper::warden_only("/bin/warden".into())),
            &SandboxSettings::default(),
            &full(),
        );
        assert_eq!(sandbox.missing(), None);
        assert_eq!(sandbox.notice(Words::default()), None);
        let ctx = Context::new("/w").with_home("/home/u");
        let needs = SandboxNeeds {
            network: true,
            writes: vec![PathBuf::from("/home/u/.bashrc")],
            unconfined: None,
        };
        let Some(Launch::Confined(confined)) = sandbox.launch(&needs, &ctx) else {
            panic!("not confined");
        };
        assert!(confined.confinement.network);
        assert!(
            confined
                .confinement
                .may_write(std::path::Path::new("/home/u/.bashrc"))
        );
        assert!(
            !confined
                .confinement
                .may_write(std::path::Path::new("/etc/x"))
        );
        let plain = sandbox.launch(&SandboxNeeds::default(), &ctx);
        assert!(
            plain
                .as_ref()
                .and_then(Launch::confinement)
                .is_some_and(|c| !c.network)
        );
    }

    #[test]
    fn leaving_the_sandbox_or_a_system_without_one_runs_unconfined_after_asking() {
        let sandbox = SessionSandbox::new(
            Some(Helper::warden_only("/bin/warden".into())),
            &SandboxSettings::default(),
            &Support {
                landlock_abi: 0,
                ..full()
            },
        );
        assert_eq!(
            sandbox.missing().as_deref(),
            Some("this system has no Landlock")
        );
        assert!(sandbox.notice(Words::default()).is_some());
        let ctx = Context::new("/w");
        let requested = SandboxNeeds {
            unconfined: Some(Unconfined::Requested),
            ..SandboxNeeds::default()
        };
        assert_eq!(sandbox.launch(&requested, &ctx), Some(Launch::Unconfined));
        let unknown_helper = SessionSandbox::new(None, &SandboxSettings::default(), &full());
        assert!(unknown_helper.missing().is_some());
    }

    #[test]
    fn confinement_turned_off_is_said_in_every_session() {
        let settings = SandboxSettings {
            enabled: false,
            ..SandboxSettings::default()
        };
        let sandbox = SessionSandbox::new(
            Some(Helper::warden_only("/bin/warden".into())),
            &settings,
            &full(),
        );
        assert_eq!(sandbox.missing(), None);
        assert!(
            sandbox
                .notice(Words::default())
                .is_some_and(|n| n.title.contains("turned off"))
        );
    }
}
