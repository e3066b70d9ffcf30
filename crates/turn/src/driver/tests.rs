//! The driver across its seams: a turn, the scripted model, a tool that records each
//! run, and an outlet and a journal that record what they are handed and answer as
//! each scenario says. What is asserted is what ran, what was written down, in which
//! order, and what was audited.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use warden_model::{Conversation, ScriptedModel};
use warden_permissions::{Decision, Risk};
use warden_tools::{
    ExecContext, Place, PreparedCall, ToolInfo, ToolKind, ToolOutput, ToolSource, Toolbox,
    ValidationError,
};
use warden_verdict::AnsweredBy;

use super::{Driven, TurnSetup, drive};
use crate::audit::{AuditContext, AuditKind, AuditNote, AuditSink};
use crate::choice::Answer;
use crate::command::Stop;
use crate::gate::{Gate, GrantEffect, GrantScope, PrepareError, Prepared, RememberError, Verdict};
use crate::journal::{ClaimRequest, Claimed, Durable, Entry, Journal, JournalError, Prior};
use crate::offer::Offered;
use crate::outlet::{FormError, Outlet, PendingAnswer, Update};
use crate::turn::TurnLimits;
use crate::view::{Form, Question};
use crate::words::Words;

type Log = Arc<Mutex<Vec<String>>>;

fn push(log: &Log, line: impl Into<String>) {
    log.lock().expect("log").push(line.into());
}

/// One tool, `poke`, that records each run in the shared log.
#[derive(Debug)]
struct Poke(Log);

impl ToolSource for Poke {
    fn tools(&self) -> Arc<[ToolInfo]> {
        Arc::new([ToolInfo {
            name: "poke".to_owned(),
            description: "pokes".to_owned(),
            schema: json!({"type": "object"}),
        }])
    }

    fn prepare(
        &self,
        tool: &str,
        args: Value,
        _: Place<'_>,
    ) -> Result<PreparedCall, ValidationError> {
        Ok(PreparedCall::new(
            tool.to_owned(),
            args,
            ToolKind::Other,
            "poke".to_owned(),
        ))
    }

    fn run<'a>(&'a self, call: &'a PreparedCall, _: ExecContext<'a>) -> BoxFuture<'a, ToolOutput> {
        push(&self.0, format!("ran {}", call.args));
        Box::pin(async { ToolOutput::completed("poked".to_owned(), Value::Null) })
    }
}

/// Every call is asked, at Medium.
struct AskEverything;

impl Gate for AskEverything {
    fn prepare(&self, tool: &str, args: &Value) -> Result<Prepared, PrepareError> {
        Ok(Prepared {
            call: PreparedCall::new(
                tool.to_owned(),
                args.clone(),
                ToolKind::Other,
                "poke".to_owned(),
            ),
            hint: None,
        })
    }

    fn evaluate(&self, _: &Prepared) -> Verdict {
        Verdict {
            decision: Decision::Ask,
            risk: Risk::Medium,
            reason: "pokes".to_owned(),
            risk_reason: "pokes".to_owned(),
            deciding_part: None,
            proposal: None,
            timeout: None,
            why: Arc::default(),
        }
    }

    fn remember(
        &self,
        _: &Prepared,
        _: &Verdict,
        _: GrantScope,
        _: GrantEffect,
    ) -> Result<Option<warden_permissions::Grant>, RememberError> {
        Ok(None)
    }
}

/// Answers each question with the next of `answers`, at once, and records what it is
/// shown and asked.
struct Person {
    log: Log,
    answers: Mutex<VecDeque<&'static str>>,
    withdrawn: Mutex<Vec<CancellationToken>>,
}

impl Outlet for Person {
    fn update(&self, update: Update<'_>) {
        let line = match update {
            Update::Show { view, .. } => format!("show {}", view.call_id),
            Update::Running { call_id } => format!("running {call_id}"),
            Update::Failed { call_id, reason } => format!("failed {call_id}: {reason}"),
            Update::Finished { call_id, result } => format!("finished {call_id} ok={}", result.ok),
            _ => return,
        };
        push(&self.log, line);
    }

    fn ask(
        &self,
        question: &Question,
        offered: &[Offered],
        withdraw: CancellationToken,
    ) -> PendingAnswer {
        push(
            &self.log,
            format!(
                "ask {} #{} ({} options)",
                question.call_id(),
                question.number,
                offered.len()
            ),
        );
        self.withdrawn
            .lock()
            .expect("tokens")
            .push(withdraw.clone());
        let Some(option) = self.answers.lock().expect("answers").pop_front() else {
            // Nobody answers: the question waits until it is withdrawn.
            return Box::pin(async move {
                withdraw.cancelled().await;
                None
            });
        };
        Box::pin(async move {
            Some(Answer::Selected {
                option_id: option.to_owned(),
                edited_input: None,
                note: None,
            })
        })
    }

    fn elicit(&self, _: &Form, _: CancellationToken) -> Result<PendingAnswer, FormError> {
        Err(FormError("no forms here".into()))
    }
}

/// How the journal settles a claim.
#[derive(Clone)]
enum Claims {
    /// The editor's answer wins; what it needs on disk fails when `sync_fails`.
    Win { sync_fails: bool },
    /// An answer given from elsewhere came first.
    Taken(Prior),
}

struct Book {
    log: Log,
    claims: Claims,
    running_fails: bool,
    elsewhere: Mutex<Option<Prior>>,
    /// The log's lines as they were each time the journal was asked to make answers
    /// ready.
    prepared: Mutex<Vec<Vec<String>>>,
}

fn failure(what: &str) -> JournalError {
    JournalError(what.to_owned().into())
}

impl Journal for Book {
    fn stage(&self, entry: Entry<'_>) {
        match entry {
            Entry::Proposed(call) => push(&self.log, format!("journal proposed {}", call.id)),
            Entry::Asked { call, question, .. } => {
                push(&self.log, format!("journal asked {call} #{question}"))
            }
            Entry::Finished(_) => push(&self.log, "journal finished"),
            _ => {}
        }
    }

    fn write(&self, entry: Entry<'_>) {
        self.stage(entry);
    }

    fn flush(&self) {}

    fn running(&self, call: &str) -> Result<(), JournalError> {
        if self.running_fails {
            return Err(failure("the disk is full"));
        }
        push(&self.log, format!("journal running {call}"));
        Ok(())
    }

    fn forget_old_answers(&self, _: &str) {}

    fn asking(&self, _: &str, _: u32) {}

    fn prepare_answers(&self) {
        let seen = lines(&self.log);
        self.prepared.lock().expect("prepared").push(seen);
    }

    fn answered_elsewhere(&self, _: &str, _: u32) -> Option<Prior> {
        self.elsewhere.lock().expect("elsewhere").take()
    }

    fn claim(&self, request: ClaimRequest) -> BoxFuture<'static, Result<Claimed, JournalError>> {
        push(
            &self.log,
            format!(
                "claim {} #{} {}",
                request.call, request.question, request.option
            ),
        );
        let log = self.log.clone();
        let claimed = match self.claims.clone() {
            Claims::Win { sync_fails } => Claimed::This(Some(Box::new(move || {
                if sync_fails {
                    return Err(failure("the disk is gone"));
                }
                push(&log, "claim synced");
                Ok(())
            }) as Durable)),
            Claims::Taken(prior) => Claimed::First(prior),
        };
        Box::pin(async move { Ok(claimed) })
    }

    fn sync(&self) -> Durable {
        Box::new(|| Ok(()))
    }
}

#[derive(Default)]
struct Audits(Mutex<Vec<(AuditNote, AuditContext)>>);

impl AuditSink for Audits {
    fn record(&self, note: &AuditNote, context: AuditContext) {
        self.0.lock().expect("audits").push((note.clone(), context));
    }
}

struct Scenario {
    log: Log,
    journal: Arc<Book>,
    audits: Arc<Audits>,
    person: Arc<Person>,
    driven: Driven,
}

async fn run(answers: &[&'static str], book: impl FnOnce(Log) -> Book) -> Scenario {
    let log = Log::default();
    let person = Arc::new(Person {
        log: log.clone(),
        answers: Mutex::new(answers.iter().copied().collect()),
        withdrawn: Mutex::default(),
    });
    let audits = Arc::new(Audits::default());
    let journal = Arc::new(book(log.clone()));
    let setup = TurnSetup {
        cwd: std::env::temp_dir(),
        home: None,
        outlet: person.clone(),
        gate: Arc::new(AskEverything),
        model: Arc::new(ScriptedModel::new()),
        toolbox: Toolbox::new(vec![Arc::new(Poke(log.clone()))]),
        editor: None,
        limits: TurnLimits::default(),
        tool_limits: warden_tools::Limits::default(),
        secrets: Arc::new(warden_tools::Secrets::new(&[], |_| None)),
        audit: audits.clone(),
        forms: false,
        words: Words::default(),
        journal: Some(journal.clone()),
        resumed: Vec::new(),
    };
    let prompt = r#"/call poke {"n": 1}"#.to_owned();
    let driven = drive(
        setup,
        Conversation::default(),
        Some(prompt),
        CancellationToken::new(),
        None,
    )
    .await;
    Scenario {
        log,
        journal,
        audits,
        person,
        driven,
    }
}

fn lines(log: &Log) -> Vec<String> {
    log.lock().expect("log").clone()
}

fn book(claims: Claims) -> impl FnOnce(Log) -> Book {
    move |log| Book {
        log,
        claims,
        running_fails: false,
        elsewhere: Mutex::default(),
        prepared: Mutex::default(),
    }
}

#[tokio::test]
async fn an_allowed_call_runs_once_after_its_question_is_written_down_and_its_claim_synced() {
    let s = run(&["allow-once"], book(Claims::Win { sync_fails: false })).await;
    assert_eq!(
        lines(&s.log),
        [
            "show call_1",
            "journal proposed call_1",
            "journal asked call_1 #1",
            "ask call_1 #1 (4 options)",
            "claim call_1 #1 allow-once",
            "running call_1",
            "claim synced",
            "journal running call_1",
            r#"ran {"n":1}"#,
            // Written down as the result joins the conversation, before it is shown.
            "journal finished",
            "finished call_1 ok=true",
        ]
    );
    assert_eq!(s.driven.stop, Stop::EndTurn);
    let answered = s.audits.0.lock().expect("audits");
    let by: Vec<_> = answered
        .iter()
        .filter(|(n, _)| matches!(n.kind, AuditKind::Answered { .. }))
        .map(|(_, c)| c.answered_by)
        .collect();
    assert_eq!(by, [Some(AnsweredBy::Editor)]);
}

/// The answers a reply's questions may take are made ready while the model thinks:
/// making them when the first question is asked put a wake-up of another thread on the
/// question's path.
#[tokio::test]
async fn answers_are_made_ready_before_the_first_question_is_written_down() {
    let s = run(&["allow-once"], book(Claims::Win { sync_fails: false })).await;
    let prepared = s.journal.prepared.lock().expect("prepared");
    let first = prepared.first().expect("answers made ready");
    assert!(
        !first.iter().any(|l| l.starts_with("journal asked")),
        "made ready only once a question was written down: {first:?}"
    );
}

#[tokio::test]
async fn a_call_whose_answer_cannot_reach_the_disk_does_not_run() {
    let s = run(&["allow-once"], book(Claims::Win { sync_fails: true })).await;
    let lines = lines(&s.log);
    assert!(!lines.iter().any(|l| l.starts_with("ran")), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("journal running")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"finished call_1 ok=false".to_owned()),
        "{lines:?}"
    );
}

#[tokio::test]
async fn a_call_that_cannot_be_written_down_as_running_does_not_run() {
    let s = run(&["allow-once"], |log| Book {
        running_fails: true,
        ..book(Claims::Win { sync_fails: false })(log)
    })
    .await;
    let lines = lines(&s.log);
    assert!(lines.contains(&"claim synced".to_owned()), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("ran")), "{lines:?}");
}

/// The editor allowed, but `warden pending` had denied first: the first answer is the
/// one the question takes, and the editor's is audited as refused.
#[tokio::test]
async fn an_answer_that_came_second_is_refused_and_the_first_decides() {
    let denied = Prior {
        question: 1,
        option: "reject-once".to_owned(),
        note: None,
        by: AnsweredBy::Pending,
    };
    let s = run(&["allow-once"], book(Claims::Taken(denied))).await;
    let lines = lines(&s.log);
    assert!(!lines.iter().any(|l| l.starts_with("ran")), "{lines:?}");
    let audits = s.audits.0.lock().expect("audits");
    let refused: Vec<_> = audits
        .iter()
        .filter_map(|(n, c)| match &n.kind {
            AuditKind::Refused { option_id, .. } => Some((option_id.clone(), c.answered_by)),
            _ => None,
        })
        .collect();
    assert_eq!(
        refused,
        [("allow-once".to_owned(), Some(AnsweredBy::Editor))]
    );
    let answered: Vec<_> = audits
        .iter()
        .filter_map(|(n, c)| match &n.kind {
            AuditKind::Answered { option_id, .. } => Some((option_id.clone(), c.answered_by)),
            _ => None,
        })
        .collect();
    assert_eq!(
        answered,
        [(Some("reject-once".to_owned()), Some(AnsweredBy::Pending))]
    );
}

/// Nobody answers in the editor; `warden pending` allows from another terminal: the
/// editor's question is withdrawn and the call runs on that answer.
#[tokio::test]
async fn an_answer_from_elsewhere_withdraws_the_editor_s_question() {
    let allowed = Prior {
        question: 1,
        option: "allow-once".to_owned(),
        note: None,
        by: AnsweredBy::Pending,
    };
    let s = run(&[], |log| Book {
        elsewhere: Mutex::new(Some(allowed)),
        ..book(Claims::Win { sync_fails: false })(log)
    })
    .await;
    let lines = lines(&s.log);
    assert!(lines.contains(&r#"ran {"n":1}"#.to_owned()), "{lines:?}");
    // No claim: the answer from elsewhere already owns the question.
    assert!(!lines.iter().any(|l| l.starts_with("claim")), "{lines:?}");
    let tokens = s.person.withdrawn.lock().expect("tokens");
    assert!(tokens.iter().all(CancellationToken::is_cancelled));
}
