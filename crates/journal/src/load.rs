//! Reading a journal back: what loads, what was damaged, and where every call stands.

use std::collections::{HashMap, HashSet};

use warden_permissions::Grant;

use crate::message::{CallStatus, Message, ToolKind};

use crate::claim::Claim;
use crate::record::{AnswerRecord, Header, LineProblem, ProposedCall, Record, decode};

/// A line that was not loaded, by its 1-based number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub kind: LineProblem,
}

/// The records of a journal that loaded, and the lines that did not. Never fails: a
/// damaged line is skipped and reported, the rest loads.
#[derive(Debug, Default)]
pub struct Parsed {
    pub records: Vec<Record>,
    pub problems: Vec<Problem>,
}

/// Splits a journal's bytes into records.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    let mut rest = bytes;
    let mut number = 0;
    while !rest.is_empty() {
        number += 1;
        let (line, complete) = match memchr_newline(rest) {
            Some(end) => {
                let line = &rest[..end];
                rest = &rest[end + 1..];
                (line, true)
            }
            None => (std::mem::take(&mut rest), false),
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match decode(line) {
            Ok(record) => parsed.records.push(record),
            // A last line without its newline was cut short by a crash: expected, and
            // harmless (see `Running`), so it is told apart from damage.
            Err(_) if !complete => parsed.problems.push(Problem {
                line: number,
                kind: LineProblem::Torn,
            }),
            Err(kind) => parsed.problems.push(Problem { line: number, kind }),
        }
    }
    parsed
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// What a client is shown again on `session/load`, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayItem {
    User { text: String },
    Agent { text: String },
    ToolCall(ReplayCall),
}

/// A tool call with its last status.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayCall {
    pub id: String,
    pub tool: String,
    pub title: String,
    pub kind: ToolKind,
    pub status: ReplayStatus,
    pub content: Option<String>,
}

/// The ACP status a replayed call shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
}

/// A call that has not run and whose latest question has no answer: evaluated again
/// on load (and asked again, as its next question, when the policy still asks).
#[derive(Debug, Clone, PartialEq)]
pub struct WaitingCall {
    /// The call as its latest question showed it (its `proposed` record).
    pub call: ProposedCall,
    /// The permission request that asked it, when one was sent.
    pub asked: Option<String>,
    /// How many questions were asked about it (its latest question's number; 0 when
    /// none was).
    pub question: u32,
    /// The latest question showed arguments the user edited, not the model's.
    pub edited: bool,
}

/// A call whose latest question was answered, and that has not started.
#[derive(Debug, Clone, PartialEq)]
pub struct AnsweredCall {
    /// The call as its latest question showed it.
    pub call: ProposedCall,
    pub answer: AnswerRecord,
    /// The latest question showed arguments the user edited, not the model's.
    pub edited: bool,
    /// The answer is known only from its claim file: no Warden applied it (the journal
    /// has no record of it), so it was given while no Warden ran, or in the moment
    /// before one stopped. Such an answer is applied on load; one a Warden applied (and
    /// journaled) is not applied again, since the call may have started since.
    pub unapplied: bool,
}

/// Why a call counts as interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interruption {
    /// It was running when Warden stopped.
    WasRunning,
    /// The journal is damaged, so whether it ran cannot be known.
    Damaged,
}

impl Interruption {
    /// What the model and the client are told.
    pub fn as_text(self) -> &'static str {
        match self {
            Interruption::WasRunning => {
                "Interrupted: Warden stopped while this call was running. It was not run again; it may have done part of its work."
            }
            Interruption::Damaged => {
                "Interrupted: the session's journal is damaged, so whether this call ran is unknown. It was not run again."
            }
        }
    }
}

/// A call that will not run: the caller records it as interrupted.
#[derive(Debug, Clone, PartialEq)]
pub struct InterruptedCall {
    pub call: ProposedCall,
    pub why: Interruption,
}

/// A session as its journal (and its answers folder) left it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    pub header: Header,
    pub mode: String,
    pub model: String,
    pub title: Option<String>,
    /// The conversation as the model saw it, with a failed result appended for every
    /// interrupted call that has none, so that the model is told.
    pub conversation: Vec<Message>,
    /// How many messages at the end of `conversation` the load added (the results of
    /// interrupted calls): the journal does not hold them yet.
    pub added: usize,
    pub replay: Vec<ReplayItem>,
    pub waiting: Vec<WaitingCall>,
    pub answered: Vec<AnsweredCall>,
    pub interrupted: Vec<InterruptedCall>,
    pub grants: Vec<Grant>,
    pub problems: Vec<Problem>,
    /// The names of the files in the session's answers folder when it was loaded (see
    /// `store/claim.rs`): the calls that may have an answer.
    pub answer_files: HashSet<String>,
}

#[derive(Debug)]
struct Track {
    call: ProposedCall,
    asked: Option<String>,
    /// The latest question's number (0 before the first).
    question: u32,
    edited: bool,
    /// The journaled answer to the latest question.
    answer: Option<AnswerRecord>,
    running: bool,
    done: bool,
    replay: usize,
}

/// The records applied in order, before the answers folder is consulted.
#[derive(Debug)]
pub struct Rebuilt {
    header: Header,
    mode: String,
    model: String,
    title: Option<String>,
    conversation: Vec<Message>,
    replay: Vec<ReplayItem>,
    tracks: Vec<Track>,
    grants: Vec<Grant>,
    problems: Vec<Problem>,
}

impl Rebuilt {
    /// Applies the records. `None` when no header was read (the journal's first record
    /// is its header; without it the session has no id or folder).
    pub fn new(parsed: Parsed) -> Option<Rebuilt> {
        let mut records = parsed.records.into_iter();
        let header = loop {
            match records.next()? {
                Record::Header(h) => break h,
                // Records before a damaged header are of no known session.
                _ => continue,
            }
        };
        let mut s = Rebuilt {
            mode: header.mode.clone(),
            model: header.model.clone(),
            title: header.title.clone(),
            header,
            conversation: Vec::new(),
            replay: Vec::new(),
            tracks: Vec::new(),
            grants: Vec::new(),
            problems: parsed.problems,
        };
        let mut by_id: HashMap<String, usize> = HashMap::new();
        for record in records {
            s.apply(record, &mut by_id);
        }
        Some(s)
    }

    fn apply(&mut self, record: Record, by_id: &mut HashMap<String, usize>) {
        let track = |id: &str| by_id.get(id).copied();
        match record {
            Record::Header(_) => {}
            Record::Mode { mode } => self.mode = mode,
            Record::Model { model } => self.model = model,
            Record::Title { title } => self.title = Some(title),
            Record::UserMessage { text } => self.replay.push(ReplayItem::User { text }),
            Record::AgentText { text } => match self.replay.last_mut() {
                Some(ReplayItem::Agent { text: last }) => last.push_str(&text),
                _ => self.replay.push(ReplayItem::Agent { text }),
            },
            Record::Proposed(call) => {
                // The same call proposed again (asked again after an edit or a restart):
                // it keeps its place and its questions' count, and starts over.
                if let Some(i) = track(&call.id).filter(|&i| !self.tracks[i].done) {
                    let t = &mut self.tracks[i];
                    (t.asked, t.answer, t.running, t.edited) = (None, None, false, false);
                    t.call = call;
                    self.set_status(i, ReplayStatus::Pending, None);
                    return;
                }
                self.replay.push(ReplayItem::ToolCall(ReplayCall {
                    id: call.id.clone(),
                    tool: call.tool.clone(),
                    title: call.title.clone(),
                    kind: call.kind,
                    status: ReplayStatus::Pending,
                    content: None,
                }));
                by_id.insert(call.id.clone(), self.tracks.len());
                self.tracks.push(Track {
                    call,
                    asked: None,
                    question: 0,
                    edited: false,
                    answer: None,
                    running: false,
                    done: false,
                    replay: self.replay.len() - 1,
                });
            }
            Record::Asked {
                call,
                request,
                question,
                edited,
            } => {
                if let Some(i) = track(&call) {
                    let t = &mut self.tracks[i];
                    // A journal from before questions had numbers: the next one.
                    t.question = if question == 0 {
                        t.question + 1
                    } else {
                        question
                    };
                    (t.asked, t.edited, t.answer) = (Some(request), edited, None);
                }
            }
            Record::Answered(mut answer) => {
                if let Some(i) = track(&answer.call) {
                    let t = &mut self.tracks[i];
                    if answer.question == 0 {
                        answer.question = t.question;
                    }
                    // Only an answer to the latest question counts: an earlier
                    // question's answer never stands for a later one.
                    if answer.question == t.question {
                        t.answer = Some(answer);
                    }
                }
            }
            Record::Running { call } => {
                if let Some(i) = track(&call) {
                    self.tracks[i].running = true;
                    self.set_status(i, ReplayStatus::InProgress, None);
                }
            }
            Record::Finished(f) => {
                if let Some(i) = track(&f.call) {
                    self.tracks[i].done = true;
                    let status = match f.status {
                        CallStatus::Completed => ReplayStatus::Completed,
                        _ => ReplayStatus::Failed,
                    };
                    self.set_status(i, status, Some(f.summary));
                }
            }
            Record::Interrupted { call } => {
                if let Some(i) = track(&call) {
                    self.tracks[i].done = true;
                    let text = Interruption::WasRunning.as_text().to_owned();
                    self.set_status(i, ReplayStatus::Failed, Some(text));
                }
            }
            Record::Grant { grant } => self.grants.push(grant),
            Record::Revoked { id } => self.grants.retain(|g| g.id != id),
            Record::Conversation { message } => self.conversation.push(message),
        }
    }

    fn set_status(&mut self, track: usize, status: ReplayStatus, content: Option<String>) {
        if let Some(ReplayItem::ToolCall(call)) = self.replay.get_mut(self.tracks[track].replay) {
            call.status = status;
            if content.is_some() {
                call.content = content;
            }
        }
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every call of the journal with the answer it records, if any, in order (a call
    /// id used again by a later reply comes again).
    pub fn calls(&self) -> impl Iterator<Item = (&ProposedCall, Option<&AnswerRecord>)> {
        self.tracks.iter().map(|t| (&t.call, t.answer.as_ref()))
    }

    /// The latest questions of the calls that have neither finished nor been marked
    /// interrupted: the only questions whose answer files matter.
    pub fn open_questions(&self) -> impl Iterator<Item = (&str, u32)> {
        self.tracks
            .iter()
            .filter(|t| !t.done && t.question > 0)
            .map(|t| (t.call.id.as_str(), t.question))
    }

    /// Every call of the journal with its latest question's number and the answer the
    /// journal records to it, if any, in order (a call id used again by a later reply
    /// comes again).
    pub fn questions(&self) -> impl Iterator<Item = (&ProposedCall, u32, Option<&AnswerRecord>)> {
        self.tracks
            .iter()
            .map(|t| (&t.call, t.question, t.answer.as_ref()))
    }

    /// Decides where every open call stands, with the answers claimed for their latest
    /// questions ([`Rebuilt::open_questions`]).
    ///
    /// A call that was running is interrupted. When a line other than a torn last one
    /// was damaged, a `running` record may be among the lost, so every open call is
    /// interrupted: nothing whose fate is unknown runs again. Otherwise a call with an
    /// answer (a journal record or a claim file) is answered, and the rest wait.
    pub fn settle(mut self, claims: &HashMap<String, Claim>) -> LoadedSession {
        let damaged = self.problems.iter().any(|p| p.kind != LineProblem::Torn);
        let mut waiting = Vec::new();
        let mut answered = Vec::new();
        let mut interrupted = Vec::new();
        let told: std::collections::HashSet<String> = self
            .conversation
            .iter()
            .filter_map(|m| match m {
                Message::ToolResult { call_id, .. } => Some(call_id.clone()),
                _ => None,
            })
            .collect();
        let journaled = self.conversation.len();
        let open: Vec<usize> = (0..self.tracks.len())
            .filter(|&i| !self.tracks[i].done)
            .collect();
        for i in open {
            let why = if self.tracks[i].running {
                Some(Interruption::WasRunning)
            } else if damaged {
                Some(Interruption::Damaged)
            } else {
                None
            };
            let t = &self.tracks[i];
            if let Some(why) = why {
                if !told.contains(&t.call.id) {
                    self.conversation.push(Message::ToolResult {
                        call_id: t.call.id.clone(),
                        tool: t.call.tool.clone(),
                        outcome: CallStatus::Failed,
                        content: why.as_text().to_owned(),
                    });
                }
                interrupted.push(InterruptedCall {
                    call: t.call.clone(),
                    why,
                });
                self.set_status(i, ReplayStatus::Failed, Some(why.as_text().to_owned()));
                continue;
            }
            let claimed = || {
                claims
                    .get(&t.call.id)
                    .filter(|c| t.question > 0 && c.question == t.question)
                    .map(Claim::record)
            };
            match (t.answer.clone(), claimed()) {
                (Some(answer), _) => answered.push(AnsweredCall {
                    call: t.call.clone(),
                    answer,
                    edited: t.edited,
                    unapplied: false,
                }),
                (None, Some(answer)) => answered.push(AnsweredCall {
                    call: t.call.clone(),
                    answer,
                    edited: t.edited,
                    unapplied: true,
                }),
                (None, None) => waiting.push(WaitingCall {
                    call: t.call.clone(),
                    asked: t.asked.clone(),
                    question: t.question,
                    edited: t.edited,
                }),
            }
        }
        LoadedSession {
            header: self.header,
            mode: self.mode,
            model: self.model,
            title: self.title,
            added: self.conversation.len() - journaled,
            conversation: self.conversation,
            replay: self.replay,
            waiting,
            answered,
            interrupted,
            grants: self.grants,
            problems: self.problems,
            answer_files: HashSet::new(),
        }
    }
}
