//! When what a call needs beyond its sandbox makes an allowed call ask.

use crate::evaluation::DecidedBy;
use crate::rule::Layer;
use crate::sandbox::{SandboxNeeds, Unconfined};

use super::decide::UnitOutcome;

/// Why an allowed `terminal` call must still be asked, in words that follow "…, but":
/// it leaves the sandbox (asked each time, whatever allowed it), or it needs more
/// than its sandbox gives and what allowed it was only the mode (or a project's rule,
/// or `auto_approved_tools`): only the user, a grant or the user's (or the
/// administrator's) own allow rule may widen a sandbox.
pub(super) fn must_ask(needs: &SandboxNeeds, outcomes: &[UnitOutcome<'_>]) -> Option<String> {
    match &needs.unconfined {
        Some(Unconfined::Requested) => {
            return Some(
                "the call asks to run WITHOUT the sandbox, which only the user can allow, each time"
                    .to_owned(),
            );
        }
        Some(Unconfined::Unavailable(why)) => {
            return Some(format!(
                "this system cannot confine commands ({why}), so every command is asked"
            ));
        }
        Some(Unconfined::TurnedOff) => return None,
        None => {}
    }
    if !needs.widens() {
        return None;
    }
    let widened_by_user = outcomes.iter().all(|o| {
        matches!(
            o.decided_by,
            DecidedBy::Grant { .. }
                | DecidedBy::Rule {
                    layer: Layer::User | Layer::Managed,
                    ..
                }
        )
    });
    (!widened_by_user).then(|| {
        format!(
            "the call needs more than its sandbox gives ({}), which the mode alone never allows",
            needs.words(None).join("; ")
        )
    })
}
