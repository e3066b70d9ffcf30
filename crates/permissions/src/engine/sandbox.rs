//! When what a call needs beyond its sandbox makes an allowed call ask.

use crate::evaluation::DecidedBy;
use crate::policy::SandboxSettings;
use crate::rule::Layer;
use crate::sandbox::{SandboxNeeds, Unconfined, unit_needs, workspace};
use crate::{Context, Sentence};

use super::outcome::UnitOutcome;

/// Why an allowed `terminal` call must still be asked, in words that follow "…, but":
/// it leaves the sandbox (asked each time, whatever allowed it), or it needs more
/// than its sandbox gives and what allowed it was only the mode (or a project's rule,
/// or `auto_approved_tools`): only the user, a grant or the user's (or the
/// administrator's) own allow rule may widen a sandbox, and a grant only by what the
/// call it was approved for needed (a grant stored without that widens nothing).
pub(super) fn must_ask(
    needs: &SandboxNeeds,
    outcomes: &[UnitOutcome<'_>],
    ctx: &Context,
    settings: &SandboxSettings,
) -> Option<Sentence> {
    match &needs.unconfined {
        Some(Unconfined::Requested) => {
            return Some(Sentence::new("engine-asks-sandbox-off"));
        }
        Some(Unconfined::Unavailable(why)) => {
            return Some(Sentence::new("engine-asks-no-sandbox").text("why", why.as_str()));
        }
        Some(Unconfined::TurnedOff) => return None,
        None => {}
    }
    if !needs.widens() {
        return None;
    }
    // A grant widens a part only by what the call it was approved for needed: the
    // part's own needs are worked out (once, and only here) against the same default
    // confinement.
    let default = std::cell::OnceCell::new();
    let part_needs = |o: &UnitOutcome<'_>| {
        unit_needs(o.unit(), default.get_or_init(|| workspace(ctx, settings)))
    };
    let mut beyond_grant = None;
    let widened_by_user = outcomes.iter().all(|o| match &o.decided_by {
        DecidedBy::Grant { id, .. } => {
            let covered = o
                .grant_widens
                .as_ref()
                .is_some_and(|w| w.covers(&part_needs(o)));
            if !covered {
                beyond_grant.get_or_insert_with(|| id.clone());
            }
            covered
        }
        DecidedBy::Rule {
            layer: Layer::User | Layer::Managed,
            ..
        } => true,
        _ => false,
    });
    if widened_by_user {
        return None;
    }
    let words = Sentence::list(needs.words(None))?;
    Some(match beyond_grant {
        Some(id) => Sentence::new("engine-asks-beyond-grant")
            .sentence("needs", words)
            .text("grant", id),
        None => Sentence::new("engine-asks-beyond-mode").sentence("needs", words),
    })
}
