//! What is said about a call that does not run: to the model, in English (a program
//! reads it, and the contract fixes some of it: "User denied tool invocation"), and to
//! the person, in their language.

use std::time::Duration;

use warden_i18n::{Args, Language};
use warden_model::denied_content;

use crate::gate::Verdict;
use crate::words::Words;

use super::TurnLimits;

/// The two texts of a call that ends without running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Said {
    /// The call's result, for the model.
    pub model: String,
    /// The call's failed update, for the person.
    pub person: String,
}

impl Said {
    pub fn invalid(words: Words, reason: &str) -> Said {
        Said {
            model: format!("Invalid call: {reason}"),
            person: words.text(
                "agent-invalid-call",
                &Args::new().with("reason", reason.to_owned()),
            ),
        }
    }

    /// Why a call was denied: what the call does, then the sentence of what decided, with
    /// a deny rule's own `reason` or the mode's words (as `warden policy check` says it),
    /// so that a model stops trying variants of a call the policy will never allow.
    pub fn denied_by_policy(words: Words, verdict: &Verdict) -> Said {
        // In English, as the request's `_meta` and `warden policy check` write it.
        let explanation = verdict
            .why
            .explanation
            .as_ref()
            .map(|sentence| sentence.render(Language::English));
        let why = explanation
            .as_deref()
            .map(str::trim)
            .filter(|why| !why.is_empty());
        let reason = verdict.reason.trim_end_matches('.').to_owned();
        match why {
            Some(why) => Said {
                model: format!("Denied by policy: {reason}. {why}"),
                person: words.text(
                    "agent-denied-by-policy-why",
                    &Args::new()
                        .with("reason", reason)
                        .with("why", why.to_owned()),
                ),
            },
            None => Said {
                model: format!("Denied by policy: {}", verdict.reason),
                person: words.text(
                    "agent-denied-by-policy",
                    &Args::new().with("reason", verdict.reason.clone()),
                ),
            },
        }
    }

    pub fn too_many(words: Words, limits: &TurnLimits, verdict: &Verdict) -> Said {
        let args = Args::new()
            .with("pending", limits.max_pending)
            .with("asks", limits.max_asks)
            .with("reason", verdict.reason.clone());
        Said {
            model: format!(
                "Denied without asking: too many permission requests in this turn \
                 (at most {} waiting at once and {} per turn). {}",
                limits.max_pending, limits.max_asks, verdict.reason
            ),
            person: words.text("agent-denied-too-many", &args),
        }
    }

    /// Nobody answered: a timeout, never a denial, in what either reads.
    pub fn timed_out(words: Words, timeout: Option<Duration>) -> Said {
        let wait = timeout
            .map(|t| format!(" within {} s", t.as_secs()))
            .unwrap_or_default();
        let person = match timeout {
            Some(t) => words.text("agent-timed-out", &Args::new().with("seconds", t.as_secs())),
            None => words.plain("agent-timed-out-forever"),
        };
        Said {
            model: format!(
                "The permission request timed out: the user did not answer{wait}, so the call did not run. It was not denied."
            ),
            person,
        }
    }

    pub fn answer_failed(words: Words, reason: &str) -> Said {
        Said {
            model: format!(
                "The permission request failed ({reason}), which counts as a denial: the call did not run."
            ),
            person: words.text(
                "agent-answer-failed",
                &Args::new().with("reason", reason.to_owned()),
            ),
        }
    }

    pub fn not_offered(words: Words, option_id: &str) -> Said {
        Said {
            model: format!(
                "Treated as a denial: the client chose `{option_id}`, which was not offered. The call did not run."
            ),
            person: words.text(
                "agent-answer-not-offered",
                &Args::new().with("option", format!("`{option_id}`")),
            ),
        }
    }

    pub fn edited_invalid(words: Words, reason: &str) -> Said {
        Said {
            model: format!("The edited input is invalid ({reason}); the call did not run."),
            person: words.text(
                "agent-edited-invalid",
                &Args::new().with("reason", reason.to_owned()),
            ),
        }
    }

    pub fn denied_by_user(words: Words, note: Option<&str>) -> Said {
        let person = match note {
            Some(note) => words.text(
                "agent-denied-by-user-note",
                &Args::new().with("note", note.to_owned()),
            ),
            None => words.plain("agent-denied-by-user"),
        };
        Said {
            model: denied_content(note),
            person,
        }
    }

    pub fn cancelled(words: Words) -> Said {
        Said {
            model: "Cancelled: the turn was cancelled before this call finished.".to_owned(),
            person: words.plain("agent-cancelled"),
        }
    }

    pub fn stopped(words: Words) -> Said {
        Said {
            model: "Not run: the user stopped the turn before this call finished.".to_owned(),
            person: words.plain("agent-stopped-call"),
        }
    }
}
