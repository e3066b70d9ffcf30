//! Letting the agent run until it waits for the client.

use std::time::Instant;

use super::{PATIENCE, QUIET, Rule, Sim, State};

impl Sim {
    /// Lets the running Warden work until `done` holds; a sequence in which it never
    /// does within [`PATIENCE`] fails as stuck.
    pub(super) fn wait_until(&mut self, done: impl Fn(&Sim) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while !done(self) {
            let Some(warden) = self.warden.as_mut() else {
                return;
            };
            match warden.next(deadline) {
                Some(received) => self.on(&received),
                None => {
                    let text =
                        format!("Warden did not get where the step waits for within {PATIENCE:?}");
                    self.violation(Rule::Always, text);
                    self.stuck = true;
                    return;
                }
            }
        }
    }

    /// Lets the running Warden work until it waits for the client: its turn has ended,
    /// or every call of it that is not settled waits for an answer (or nothing came
    /// for a while although some question is open).
    pub(super) fn settle(&mut self) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if (self.prompt.is_none() || self.waits_for_the_client()) && self.idle() {
                return;
            }
            let Some(warden) = self.warden.as_mut() else {
                return;
            };
            let quiet = Instant::now() + QUIET;
            match warden.next(deadline.min(quiet)) {
                Some(received) => self.on(&received),
                None if Instant::now() < deadline && !self.open_questions().is_empty() => {
                    self.trace.push("  (quiet)".to_owned());
                    return;
                }
                None if Instant::now() < deadline => {}
                None => {
                    let text = format!(
                        "Warden did not settle within {PATIENCE:?} (its turn neither ended nor asked)"
                    );
                    self.violation(Rule::Always, text);
                    self.stuck = true;
                    return;
                }
            }
        }
    }

    /// Lets the Warden run what is ready and takes what it sent meanwhile: `true` when
    /// it sent nothing more (what the client saw is all there is for now).
    fn idle(&mut self) -> bool {
        let Some(warden) = self.warden.as_mut() else {
            return true;
        };
        warden.idle();
        let mut quiet = true;
        while let Some(received) = self.warden.as_mut().and_then(super::Warden::try_next) {
            self.on(&received);
            quiet = false;
        }
        quiet
    }

    fn waits_for_the_client(&self) -> bool {
        let open = self.open_questions();
        if open.is_empty() {
            return false;
        }
        let asking: Vec<usize> = open.iter().map(|&q| self.questions[q].call).collect();
        self.statuses
            .iter()
            .filter(|(_, status)| matches!(status.as_str(), "pending" | "in_progress"))
            .all(|(id, _)| {
                self.by_id.get(id).is_some_and(|call| {
                    asking.contains(call)
                        && self.calls[*call]
                            .questions
                            .last()
                            .is_some_and(|&q| matches!(self.questions[q].state, State::Open))
                })
            })
    }
}
