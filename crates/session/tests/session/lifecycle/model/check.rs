//! After a sequence: what ran against what the model says, and the audit log against
//! the answers given.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Given, Reply, Rule, Sim, State, Target, lines, parse_word};

/// What the model says of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    NotRun,
    /// Ran once, with this variant of its arguments.
    Ran(usize),
    /// An allowing answer sent just before its Warden (this one, by number) was
    /// killed: the call ran with this variant, started by that Warden, or never.
    RanBeforeKillOrNot(usize, usize),
}

/// An answer the audit log must hold: an outcome line of the call, of this type (any,
/// when `None`), saying who answered (anything, when `None`).
struct Audited {
    id: String,
    kind: Option<&'static str>,
    by: Option<&'static str>,
    what: String,
}

impl Sim {
    /// Every run seen in the project's files: (call, variant, file).
    pub(super) fn runs(&self) -> Vec<(usize, usize, &'static str)> {
        let mut out = Vec::new();
        for file in ["runs.log", ".envrc"] {
            for line in lines(&self.folders.file(file)) {
                match parse_word(line.trim()) {
                    Some((call, variant)) => out.push((call, variant, file)),
                    None => out.push((usize::MAX, 0, file)),
                }
            }
        }
        out
    }

    /// Settles and kills the last Warden (which flushes its audit log), then checks
    /// everything; the error lists each broken check of `rules` after what happened.
    pub fn finish(mut self, rules: &[Rule]) -> Result<(), String> {
        if !self.stuck {
            self.settle();
        }
        self.kill(false);
        self.check_runs();
        self.check_audit();
        let broken: Vec<&String> = self
            .violations
            .iter()
            .filter(|(r, _)| rules.contains(r) || *r == Rule::Always)
            .map(|(_, v)| v)
            .collect();
        if broken.is_empty() {
            return Ok(());
        }
        let mut report = String::from("what happened:\n");
        for line in &self.trace {
            let _ = writeln!(report, "  {line}");
        }
        let _ = writeln!(report, "broken ({rules:?}):");
        for v in broken {
            let _ = writeln!(report, "  - {v}");
        }
        Err(report)
    }

    fn expect(&self, call: usize) -> Expect {
        let Some(&last) = self.calls[call].questions.last() else {
            return Expect::NotRun;
        };
        let question = &self.questions[last];
        let State::Answered(given) = &question.state else {
            return Expect::NotRun;
        };
        if !given.allows() {
            return Expect::NotRun;
        }
        match given {
            Given::Editor { edit, doubtful, .. } => {
                let variant = edit.unwrap_or(question.variant);
                if *doubtful {
                    Expect::RanBeforeKillOrNot(variant, question.epoch)
                } else {
                    Expect::Ran(variant)
                }
            }
            // Given while no Warden ran, and no Warden ran after: nothing applied it.
            Given::Pending { applied: false, .. } => Expect::NotRun,
            Given::Pending { .. } => Expect::Ran(question.variant),
        }
    }

    fn check_runs(&mut self) {
        let runs = self.runs();
        if runs.iter().any(|(call, _, _)| *call >= self.calls.len()) {
            let text = format!("a line in the project's files no call wrote: {runs:?}");
            self.violation(Rule::Runs, text);
        }
        for call in 0..self.calls.len() {
            let ran: Vec<(usize, &str)> = runs
                .iter()
                .filter(|(c, _, _)| *c == call)
                .map(|(_, v, f)| (*v, *f))
                .collect();
            let expect = self.expect(call);
            let name = self.name(call);
            let ok = match (expect, ran.as_slice()) {
                (Expect::NotRun | Expect::RanBeforeKillOrNot(..), []) => true,
                (Expect::Ran(v), [(r, _)]) => *r == v,
                (Expect::RanBeforeKillOrNot(v, killed), [(r, _)]) => {
                    *r == v && self.calls[call].started.iter().all(|&by| by <= killed)
                }
                _ => false,
            };
            if !ok {
                let asked: Vec<String> = self.calls[call]
                    .questions
                    .iter()
                    .map(|&q| format!("q{q}: {:?}", self.questions[q].state))
                    .collect();
                let text = format!(
                    "{name} ran {ran:?} (variant, file), but the model says {expect:?}; its questions: {asked:?}"
                );
                self.violation(Rule::Runs, text);
            }
            for (variant, file) in &ran {
                let target = self.calls[call].variants.get(*variant).copied();
                let right = match target {
                    Some(Target::Envrc) => ".envrc",
                    Some(Target::Runs | Target::High) => "runs.log",
                    None => "no file",
                };
                if right != *file {
                    let text = format!("{name} v{variant} wrote {file}, not {right}");
                    self.violation(Rule::Runs, text);
                }
            }
        }
    }

    /// The answers the audit log must hold.
    fn expected_audit(&self) -> Vec<Audited> {
        let mut out = Vec::new();
        for (q, question) in self.questions.iter().enumerate() {
            let Some(id) = self.calls[question.call].id.clone() else {
                continue;
            };
            let State::Answered(given) = &question.state else {
                continue;
            };
            let (kind, by) = match given {
                Given::Editor { doubtful: true, .. } => continue,
                Given::Editor { raised: true, .. } => (None, Some("editor")),
                Given::Pending { applied: false, .. } => continue,
                Given::Pending { allow, .. } => (
                    Some(if *allow { "granted" } else { "denied" }),
                    Some("warden pending"),
                ),
                g if g.allows() => (Some("granted"), Some("editor")),
                Given::Editor { reply, offered, .. } => match reply {
                    Reply::Cancelled => (Some("cancelled"), None),
                    Reply::ErrorResponse | Reply::Malformed => (Some("error"), None),
                    Reply::RejectOnce | Reply::RejectProject => (Some("denied"), Some("editor")),
                    _ if !offered => (Some("error"), Some("editor")),
                    _ => (None, Some("editor")),
                },
            };
            out.push(Audited {
                id,
                kind,
                by,
                what: format!("q{q} {given:?}"),
            });
        }
        // The most specific first, so that a loose one does not take a line a
        // specific one needs.
        out.sort_by_key(|a| u8::from(a.kind.is_none()) + u8::from(a.by.is_none()));
        out
    }

    fn check_audit(&mut self) {
        let text = std::fs::read_to_string(self.folders.audit_log()).unwrap_or_default();
        let session = self.session.clone().unwrap_or_default();
        let outcomes: Vec<Value> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|l| l["outcome"].is_object() && l["session_id"] == session.as_str())
            .collect();
        let mut used = vec![false; outcomes.len()];
        let mut missing = Vec::new();
        for a in self.expected_audit() {
            let found = outcomes.iter().enumerate().position(|(i, l)| {
                !used[i]
                    && l["tool_call_id"] == a.id.as_str()
                    && a.kind.is_none_or(|k| l["outcome"]["type"] == k)
                    && a.by.is_none_or(|b| l["decided_by"]["answered_by"] == b)
            });
            match found {
                Some(i) => used[i] = true,
                None => {
                    missing.push(format!("{} {:?} by {:?} ({})", a.id, a.kind, a.by, a.what));
                }
            }
        }
        if !missing.is_empty() {
            let seen: Vec<String> = outcomes
                .iter()
                .map(|l| {
                    format!(
                        "{} {} by {}",
                        l["tool_call_id"], l["outcome"]["type"], l["decided_by"]["answered_by"]
                    )
                })
                .collect();
            let text = format!(
                "answers missing from the audit log: {missing:?}; its outcome lines: {seen:?}"
            );
            self.violation(Rule::Audit, text);
        }
    }
}
