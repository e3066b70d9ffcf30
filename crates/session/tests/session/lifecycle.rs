//! The lifecycle of a question, as a property: random sequences of prompts, answers of
//! every kind, answers from another terminal (`warden pending`), timeouts, `kill -9`
//! and `session/load`/`session/resume`, run against the real agent (`WardenAgent` with
//! the scripted model) in process, and checked against a reference model written here,
//! independent of Warden's code:
//!
//! - a call runs iff the last question asked about it got an allowing answer (a call
//!   whose allowing answer reached a Warden killed before the call started does not run
//!   after the restart), at most once, and with the arguments that question showed (or
//!   the edited input of the allowing answer, when the edit did not raise the risk);
//! - a call is asked again only when its last question got no answer before its Warden
//!   was killed (then with a `tool_call_update`, never a second `tool_call`), or when an
//!   allowing answer's edit raised the risk;
//! - `warden pending` takes an answer to a call's open question and refuses one to a
//!   question answered before;
//! - every answer is in the audit log, with who gave it.
//!
//! Each rule is a test of its own, so that each shrinks to its own smallest failing
//! sequence.
//!
//! Every call is a `terminal` command that appends a unique word (`c<call>v<variant>`,
//! the variant counting the call's edits) to a file in the project (`runs.log`: Medium;
//! `.envrc`: Critical; `runs.log` and an `rm -f`: High, the one risk whose questions
//! time out, after one second), so the files tell whether, how often and with which
//! arguments each call ran. The client writes and reads raw protocol lines, so that it
//! can answer with an error response or a malformed result and see `$/cancel_request`.
//!
//! A failure prints what happened (each step, each question asked, each answer, each
//! kill, and `!!` where a check broke), what broke, and proptest's smallest sequence.

mod model;
mod pending;
mod process;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm, TestRng, TestRunner};

use model::{Rule, Sim};

/// What a call's command writes, and so how risky it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `echo … >> runs.log`: Medium, asked in `ask` mode, never times out.
    Runs,
    /// `echo … >> runs.log` and an `rm -f` of a file in the project: High, times out
    /// after one second.
    High,
    /// `echo … >> .envrc`: Critical (a file a shell runs on entering the folder).
    Envrc,
}

/// One way to answer a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    AllowOnce,
    AllowSession,
    RejectOnce,
    RejectProject,
    Cancelled,
    /// A JSON-RPC error response.
    ErrorResponse,
    /// A result that is not a permission outcome.
    Malformed,
    /// An option id that was not offered.
    UnknownOption,
    /// An allow option with `_meta.warden.editedInput` pointing the command at
    /// `to` (raising, keeping or lowering the risk), and a note or not.
    Edit {
        to: Target,
        session: bool,
        note: bool,
    },
}

/// When Warden is killed after an answer, before it settles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillAt {
    /// Right after the answer is written: Warden never reads it.
    Unread,
    /// Once Warden has done what was ready: it read the answer and may have claimed it,
    /// started the call, or asked again; nothing slow has finished.
    Read,
}

/// How a killed session comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reopen {
    Load,
    Resume,
}

/// One step of a sequence. Steps name what they act on by a number taken modulo what
/// there is then (the open questions, the calls), so that every sequence, shrunk or
/// not, can be run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A prompt whose calls form one batch.
    Prompt(Vec<Target>),
    /// The editor answers an open question; with `kill`, Warden is killed right after
    /// the answer is sent, before it settles. A High question is not answered: its
    /// timeout is waited for.
    Answer {
        pick: u8,
        reply: Reply,
        kill: Option<KillAt>,
    },
    /// `warden pending approve|deny` for a call; with `race`, the editor answers the
    /// same question right after.
    Pending {
        pick: u8,
        allow: bool,
        race: Option<Reply>,
    },
    /// `kill -9` of the running Warden.
    Kill,
    /// A new Warden loads or resumes the session (after a kill).
    Restart(Reopen),
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![6 => Just(Target::Runs), 3 => Just(Target::Envrc), 1 => Just(Target::High)]
}

fn reply() -> impl Strategy<Value = Reply> {
    let edit = (
        prop_oneof![1 => Just(Target::Runs), 2 => Just(Target::Envrc)],
        prop::bool::weighted(0.2),
        any::<bool>(),
    )
        .prop_map(|(to, session, note)| Reply::Edit { to, session, note });
    prop_oneof![
        3 => Just(Reply::AllowOnce),
        1 => Just(Reply::AllowSession),
        3 => Just(Reply::RejectOnce),
        1 => Just(Reply::RejectProject),
        1 => Just(Reply::Cancelled),
        1 => Just(Reply::ErrorResponse),
        1 => Just(Reply::Malformed),
        1 => Just(Reply::UnknownOption),
        6 => edit,
    ]
}

/// A prompt's calls: mostly one, so that an answer's pick often finds the question asked
/// again after an edit.
fn batch() -> impl Strategy<Value = Vec<Target>> {
    prop_oneof![
        3 => prop::collection::vec(target(), 1..=1),
        1 => prop::collection::vec(target(), 2..=3),
    ]
}

fn kill_at() -> impl Strategy<Value = Option<KillAt>> {
    prop_oneof![
        18 => Just(None),
        1 => Just(Some(KillAt::Unread)),
        1 => Just(Some(KillAt::Read)),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => batch().prop_map(Step::Prompt),
        7 => (any::<u8>(), reply(), kill_at())
            .prop_map(|(pick, reply, kill)| Step::Answer { pick, reply, kill }),
        2 => (any::<u8>(), any::<bool>(), prop::option::weighted(0.3, reply()))
            .prop_map(|(pick, allow, race)| Step::Pending { pick, allow, race }),
        1 => Just(Step::Kill),
        1 => prop_oneof![Just(Reopen::Load), Just(Reopen::Resume)].prop_map(Step::Restart),
    ]
}

/// Runs one sequence and checks it by `rules`; the error lists every broken check, after
/// what happened.
fn run(steps: &[Step], rules: &[Rule]) -> Result<(), String> {
    let mut sim = Sim::new();
    for step in steps {
        sim.step(step);
        if sim.stuck() {
            break;
        }
    }
    sim.finish(rules)
}

/// Runs `cases` random sequences (from a fixed seed) checked by `rule`, and fails with
/// the smallest failing sequence proptest finds.
// The run's length is printed for CI's log: the test's cost is watched.
#[allow(clippy::print_stderr)]
fn property(rule: Rule, seed: u8, cases: u32) {
    let config = Config {
        cases,
        // Shrinking runs real Wardens: bounded so that a failure is reported in
        // minutes.
        max_shrink_iters: 300,
        max_shrink_time: 240_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let started = std::time::Instant::now();
    let result = runner.run(&prop::collection::vec(step(), 1..=12), |steps| {
        run(&steps, &[rule]).map_err(TestCaseError::fail)
    });
    eprintln!(
        "lifecycle ({rule:?}): {cases} sequences in {:?}",
        started.elapsed()
    );
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

// The case counts are what finds, with these seeds, each rule broken by the code before
// answers belonged to questions (a rejected second question ran the edited call, in the
// 96 sequences of the first; the others, within a few), and what keeps the three within
// about a minute on two cores.

#[test]
fn lifecycle_a_call_runs_once_iff_the_last_question_about_it_was_allowed() {
    property(Rule::Runs, 21, 96);
}

#[test]
fn lifecycle_a_call_is_asked_again_only_when_its_last_question_went_unanswered() {
    property(Rule::Questions, 22, 48);
}

#[test]
fn lifecycle_every_answer_is_in_the_audit_log_with_who_gave_it() {
    property(Rule::Audit, 23, 48);
}

/// The sequence that showed an edit's second question taking the first question's
/// answer: `allow-once` with an edit that raises the risk is asked again, and the
/// rejection of that second question must stand.
#[test]
fn lifecycle_an_edit_that_raised_the_risk_then_rejected_never_runs() {
    let steps = [
        Step::Prompt(vec![Target::Runs]),
        Step::Answer {
            pick: 0,
            reply: Reply::Edit {
                to: Target::Envrc,
                session: false,
                note: false,
            },
            kill: None,
        },
        Step::Answer {
            pick: 0,
            reply: Reply::RejectOnce,
            kill: None,
        },
    ];
    if let Err(report) = run(&steps, &[Rule::Runs, Rule::Questions]) {
        panic!("{report}");
    }
}

/// The sequence that showed an approval given with `warden pending` while no Warden
/// ran being asked about again at load: it is used, without a second question.
#[test]
fn lifecycle_an_approval_given_while_no_warden_ran_is_used_at_load() {
    let steps = [
        Step::Prompt(vec![Target::Runs]),
        Step::Kill,
        Step::Pending {
            pick: 0,
            allow: true,
            race: None,
        },
        Step::Restart(Reopen::Load),
    ];
    if let Err(report) = run(&steps, &[Rule::Runs, Rule::Questions, Rule::Audit]) {
        panic!("{report}");
    }
}
