//! The reference model: what the client saw (questions, answers, updates, withdrawals)
//! decides what must have run; the files and the audit log say what did.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{Value, json};

use super::pending::{self, PendingResult};
use super::process::{Folders, PATIENCE, Received, Warden, lines};
use super::{KillAt, Reopen, Reply, Step, Target};

/// How long without a message counts as quiet, when a turn waits for something the
/// client cannot see (a call of a resumed session that is settled without an update).
const QUIET: Duration = Duration::from_secs(1);

fn risk(target: Target) -> u8 {
    match target {
        Target::Runs => 1,
        Target::High => 2,
        Target::Envrc => 3,
    }
}

fn risk_word(target: Target) -> &'static str {
    match target {
        Target::Runs => "medium",
        Target::High => "high",
        Target::Envrc => "critical",
    }
}

/// The command that writes `word`: a unique word per call and variant of its arguments.
fn command(word: &str, target: Target) -> String {
    match target {
        Target::Runs => format!("echo {word} >> runs.log"),
        Target::High => format!("echo {word} >> runs.log; rm -f {word}.tmp"),
        Target::Envrc => format!("echo {word} >> .envrc"),
    }
}

/// `c<call>v<variant>` back to its numbers.
fn parse_word(word: &str) -> Option<(usize, usize)> {
    let (call, variant) = word.strip_prefix('c')?.split_once('v')?;
    Some((call.parse().ok()?, variant.parse().ok()?))
}

/// The word of a command (`echo <word> >> …`).
fn word_of(command: &str) -> Option<(usize, usize)> {
    command.split_whitespace().nth(1).and_then(parse_word)
}

/// Which rule a broken check belongs to: each property test reports its own (and
/// those that stop any sequence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The sequence could not be run as meant (Warden stuck, a load refused, a
    /// question about arguments nobody proposed, a risk other than the one expected).
    Always,
    /// A call runs iff the last question about it was allowed, once, as shown.
    Runs,
    /// A call is asked again only after an unanswered question or a raising edit, with a
    /// `tool_call_update`; `warden pending` answers open questions and only those.
    Questions,
    /// Every answer is in the audit log with who gave it.
    Audit,
}

/// An answer a question took.
#[derive(Debug, Clone)]
enum Given {
    Editor {
        reply: Reply,
        /// The option chosen was offered.
        offered: bool,
        /// An allowing option whose edit raised the risk: asked again.
        raised: bool,
        /// The variant an edit pointed the call at.
        edit: Option<usize>,
        /// Warden was killed right after the answer was sent: it may never have read it.
        doubtful: bool,
    },
    Pending {
        allow: bool,
        /// A Warden ran after the answer was given (and so could apply it).
        applied: bool,
    },
}

impl Given {
    fn allows(&self) -> bool {
        match self {
            Given::Editor {
                reply,
                offered,
                raised,
                ..
            } => {
                *offered
                    && !raised
                    && matches!(
                        reply,
                        Reply::AllowOnce | Reply::AllowSession | Reply::Edit { .. }
                    )
            }
            Given::Pending { allow, .. } => *allow,
        }
    }
}

#[derive(Debug, Clone)]
enum State {
    Open,
    Answered(Given),
    /// Withdrawn by Warden without an answer (a timeout, a cancelled turn).
    Withdrawn,
}

#[derive(Debug)]
struct Question {
    call: usize,
    rpc: Value,
    epoch: usize,
    variant: usize,
    options: Vec<String>,
    state: State,
}

#[derive(Debug, Default)]
struct Call {
    /// The variants of its arguments: the proposal's first, then each edit's.
    variants: Vec<Target>,
    questions: Vec<usize>,
    id: Option<String>,
    /// The Wardens (by number) that started it (`in_progress`), as the client saw.
    started: Vec<usize>,
}

/// One sequence: the Wardens it starts, what the client saw, and the model.
pub struct Sim {
    folders: Folders,
    warden: Option<Warden>,
    epoch: usize,
    session: Option<String>,
    calls: Vec<Call>,
    by_id: HashMap<String, usize>,
    questions: Vec<Question>,
    /// The running turn's prompt request.
    prompt: Option<u64>,
    /// Each call's last status, by tool call id.
    statuses: HashMap<String, String>,
    /// Tool call ids that had a `tool_call` before this Warden started.
    announced_before: HashSet<String>,
    announced_now: HashSet<String>,
    /// Tool call ids that had a `tool_call_update` from this Warden, outside a replay.
    updated_now: HashSet<String>,
    violations: Vec<(Rule, String)>,
    trace: Vec<String>,
    stuck: bool,
}

impl Sim {
    pub fn new() -> Sim {
        Sim {
            folders: Folders::new(),
            warden: None,
            epoch: 0,
            session: None,
            calls: Vec::new(),
            by_id: HashMap::new(),
            questions: Vec::new(),
            prompt: None,
            statuses: HashMap::new(),
            announced_before: HashSet::new(),
            announced_now: HashSet::new(),
            updated_now: HashSet::new(),
            violations: Vec::new(),
            trace: Vec::new(),
            stuck: false,
        }
    }

    /// Whether the sequence cannot go on (Warden did not settle, or a load failed).
    pub fn stuck(&self) -> bool {
        self.stuck
    }

    fn violation(&mut self, rule: Rule, text: String) {
        self.trace.push(format!("  !! {rule:?}: {text}"));
        self.violations.push((rule, text));
    }

    fn name(&self, call: usize) -> String {
        let id = self.calls[call].id.as_deref().unwrap_or("?");
        format!("c{call} ({id})")
    }

    pub fn step(&mut self, step: &Step) {
        self.trace.push(format!("{step:?}"));
        match step {
            Step::Prompt(targets) => self.prompt_step(targets),
            Step::Answer { pick, reply, kill } => self.answer_step(*pick, *reply, *kill),
            Step::Pending { pick, allow, race } => self.pending_step(*pick, *allow, *race),
            Step::Kill => self.kill(false),
            Step::Restart(reopen) => {
                self.kill(false);
                self.restart(*reopen);
            }
        }
    }

    /// A running Warden: the first one creates the session, a later one loads it.
    fn ensure_running(&mut self) {
        if self.warden.is_some() {
            return;
        }
        if self.session.is_some() {
            self.restart(Reopen::Load);
            return;
        }
        let mut warden = Warden::start(&self.folders);
        let id = warden.request(
            "session/new",
            json!({"cwd": self.folders.project, "mcpServers": []}),
        );
        let answer = warden.wait_response(id, |_| {});
        let session = answer["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("session/new: {answer}"))
            .to_owned();
        self.session = Some(session);
        self.warden = Some(warden);
    }

    fn prompt_step(&mut self, targets: &[Target]) {
        self.ensure_running();
        if self.stuck || self.prompt.is_some() {
            return;
        }
        let mut text = String::new();
        let first = self.calls.len();
        for &target in targets {
            let call = self.calls.len();
            self.calls.push(Call {
                variants: vec![target],
                ..Call::default()
            });
            let args = json!({"command": command(&format!("c{call}v0"), target)});
            let _ = writeln!(text, "/call terminal {args}");
        }
        self.send_prompt(&text);
        // Every call of the batch is announced before the first question is
        // answered: the settling below then knows them all.
        let last = self.calls.len();
        self.wait_until(|sim| {
            sim.prompt.is_none() || (first..last).all(|c| sim.calls[c].id.is_some())
        });
        self.settle();
    }

    fn send_prompt(&mut self, text: &str) {
        let session = self.session.clone().expect("a session");
        let warden = self.warden.as_mut().expect("a running Warden");
        let id = warden.request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        );
        self.prompt = Some(id);
    }

    /// The questions of the running Warden still waiting for the editor.
    fn open_questions(&self) -> Vec<usize> {
        (0..self.questions.len())
            .filter(|&q| {
                let question = &self.questions[q];
                question.epoch == self.epoch && matches!(question.state, State::Open)
            })
            .collect()
    }

    fn is_high(&self, q: usize) -> bool {
        let question = &self.questions[q];
        self.calls[question.call].variants[question.variant] == Target::High
    }

    fn answer_step(&mut self, pick: u8, reply: Reply, kill: Option<KillAt>) {
        self.ensure_running();
        let open = self.open_questions();
        if self.stuck || open.is_empty() {
            return;
        }
        let q = open[usize::from(pick) % open.len()];
        if self.is_high(q) {
            // Never answered by the editor (the answer would race its one-second
            // timeout): its timeout is what answers it.
            self.trace.push(format!("  waits for the timeout of q{q}"));
            self.wait_until(|sim| !matches!(sim.questions[q].state, State::Open));
            self.settle();
            return;
        }
        let (response, given) = self.reply_to(q, reply, kill.is_some());
        self.trace.push(format!("  q{q} answered {given:?}"));
        self.questions[q].state = State::Answered(given);
        self.warden
            .as_mut()
            .expect("a running Warden")
            .send(&response);
        if let Some(at) = kill {
            self.kill(at == KillAt::Unread);
        } else {
            self.settle();
        }
    }

    /// The response that answers question `q` with `reply`, and the answer the model
    /// records.
    fn reply_to(&mut self, q: usize, reply: Reply, doubtful: bool) -> (Value, Given) {
        let question = &self.questions[q];
        let offered = |option: &str| question.options.iter().any(|o| o == option);
        let shown = self.calls[question.call].variants[question.variant];
        let (option, offered) = match reply {
            Reply::AllowOnce => ("allow-once", offered("allow-once")),
            Reply::AllowSession => ("allow-session", offered("allow-session")),
            Reply::RejectOnce => ("reject-once", true),
            Reply::RejectProject if offered("reject-project") => ("reject-project", true),
            Reply::RejectProject => ("reject-once", true),
            Reply::UnknownOption => ("allow-everything", false),
            Reply::Edit { session: true, .. } => ("allow-session", offered("allow-session")),
            Reply::Edit { .. } => ("allow-once", offered("allow-once")),
            Reply::Cancelled | Reply::ErrorResponse | Reply::Malformed => ("", false),
        };
        let rpc = question.rpc.clone();
        let call = question.call;
        let mut given = Given::Editor {
            reply,
            offered,
            raised: false,
            edit: None,
            doubtful,
        };
        let mut result = json!({"outcome": {"outcome": "selected", "optionId": option}});
        match reply {
            Reply::Cancelled => result = json!({"outcome": {"outcome": "cancelled"}}),
            Reply::Malformed => result = json!({"outcome": {"outcome": "selected"}}),
            Reply::ErrorResponse => {
                let error = json!({"code": -32603, "message": "the client failed"});
                return (json!({"jsonrpc": "2.0", "id": rpc, "error": error}), given);
            }
            Reply::Edit { to, note, .. } => {
                let variant = self.calls[call].variants.len();
                self.calls[call].variants.push(to);
                let edited = command(&format!("c{call}v{variant}"), to);
                let mut warden = json!({"editedInput": {"command": edited}});
                if note {
                    warden["note"] = json!("edited by the test");
                }
                result["_meta"] = json!({ "warden": warden });
                given = Given::Editor {
                    reply,
                    offered,
                    raised: offered && risk(to) > risk(shown),
                    edit: Some(variant),
                    doubtful,
                };
            }
            _ => {}
        }
        (
            json!({"jsonrpc": "2.0", "id": rpc, "result": result}),
            given,
        )
    }

    fn pending_step(&mut self, pick: u8, allow: bool, race: Option<Reply>) {
        let Some(session) = self.session.clone() else {
            return;
        };
        let asked: Vec<usize> = (0..self.calls.len())
            .filter(|&c| !self.calls[c].questions.is_empty() && self.calls[c].id.is_some())
            .collect();
        if asked.is_empty() || self.stuck {
            return;
        }
        let call = asked[usize::from(pick) % asked.len()];
        let last = *self.calls[call].questions.last().expect("asked");
        let running = self.warden.is_some();
        // What `warden pending` must say: an open question takes the answer, an
        // answered one refuses it. Where the question's fate is not known from outside
        // (a timeout racing this answer, a Warden killed right after the editor's
        // answer, a question of a killed Warden that the new one did not ask again),
        // either is right.
        let expected = match &self.questions[last].state {
            // Its timeout may have come, unseen by the client yet.
            State::Open if self.is_high(last) => None,
            State::Open if !running || self.questions[last].epoch == self.epoch => {
                Some(PendingResult::Taken)
            }
            State::Open => None,
            State::Answered(Given::Editor { doubtful: true, .. }) => None,
            State::Answered(_) | State::Withdrawn => Some(PendingResult::Refused),
        };
        let id = self.calls[call].id.clone().expect("an id");
        let result = pending::answer(&self.folders.sessions(), &session, &id, allow);
        let command = if allow { "approve" } else { "deny" };
        let name = self.name(call);
        self.trace.push(format!(
            "  warden pending {command} {name} (question q{last}): {result:?}"
        ));
        if let Some(expected) = expected
            && expected != result
        {
            let state = &self.questions[last].state;
            let text = format!(
                "`warden pending {command}` for {name} said {result:?}, but its last question (q{last}, {state:?}) makes it {expected:?}"
            );
            self.violation(Rule::Questions, text);
        }
        // An answer taken for a question that was closed before is a broken rule (above),
        // and changes nothing in the model: that question's fate was settled.
        let open = matches!(
            self.questions[last].state,
            State::Open | State::Answered(Given::Editor { doubtful: true, .. })
        );
        if result == PendingResult::Taken && open {
            self.questions[last].state = State::Answered(Given::Pending {
                allow,
                applied: running,
            });
            if let (Some(reply), true) = (race, running) {
                // The editor answers too, a moment later: its answer comes second.
                let (response, _) = self.reply_to(last, reply, false);
                self.trace
                    .push(format!("  the editor answers q{last} too: {reply:?}"));
                self.warden.as_mut().expect("running").send(&response);
            }
        }
        if running {
            self.settle();
        }
    }

    /// `kill -9` of the running Warden, if one runs, once it waits for the client
    /// (`at_once`: right away).
    fn kill(&mut self, at_once: bool) {
        let Some(mut warden) = self.warden.take() else {
            return;
        };
        if !at_once {
            warden.idle();
        }
        warden.kill();
        self.trace.push("  (Warden killed)".to_owned());
        self.prompt = None;
        self.announced_before.extend(self.announced_now.drain());
        self.updated_now.clear();
    }

    /// A new Warden loads or resumes the session; then a prompt is sent at once (it
    /// joins the turn that goes on where the killed Warden stopped, if there is one),
    /// so that the end of that turn is seen.
    fn restart(&mut self, reopen: Reopen) {
        let Some(session) = self.session.clone() else {
            return;
        };
        self.epoch += 1;
        let mut warden = Warden::start(&self.folders);
        let (method, params) = match reopen {
            Reopen::Load => (
                "session/load",
                json!({"sessionId": session, "cwd": self.folders.project, "mcpServers": []}),
            ),
            Reopen::Resume => (
                "session/resume",
                json!({"sessionId": session, "cwd": self.folders.project}),
            ),
        };
        let id = warden.request(method, params);
        self.warden = Some(warden);
        self.wait_until(|sim| {
            sim.warden
                .as_ref()
                .is_some_and(|w| w.response(id).is_some())
        });
        let answer = self
            .warden
            .as_ref()
            .and_then(|w| w.response(id).cloned())
            .unwrap_or(Value::Null);
        if answer.get("result").is_none() {
            self.violation(Rule::Always, format!("{method} failed: {answer}"));
            self.stuck = true;
            return;
        }
        for question in &mut self.questions {
            if let State::Answered(Given::Pending { applied, .. }) = &mut question.state {
                *applied = true;
            }
        }
        self.send_prompt("/say back again");
        self.settle();
    }

    /// Handles what the client received.
    fn on(&mut self, received: &Received) {
        let message = &received.message;
        match message["method"].as_str() {
            Some("session/update") => self.on_update(&message["params"]["update"], received.replay),
            Some("session/request_permission") => self.on_request(message),
            Some("$/cancel_request") => {
                let rpc = &message["params"]["requestId"];
                let epoch = self.epoch;
                if let Some(question) = self
                    .questions
                    .iter_mut()
                    .find(|q| q.epoch == epoch && &q.rpc == rpc)
                    && matches!(question.state, State::Open)
                {
                    question.state = State::Withdrawn;
                }
            }
            Some(_) => {}
            None => {
                let id = message["id"].as_u64();
                if id.is_some() && id == self.prompt {
                    self.prompt = None;
                    // Every call of a turn is settled before its answer, whether or not
                    // the client was told (a resumed session's calls are not replayed).
                    for status in self.statuses.values_mut() {
                        if matches!(status.as_str(), "pending" | "in_progress") {
                            *status = "ended".to_owned();
                        }
                    }
                    if message.get("result").is_none() {
                        self.trace.push(format!("  the prompt failed: {message}"));
                    }
                }
            }
        }
    }

    fn on_update(&mut self, update: &Value, replay: bool) {
        let Some(id) = update["toolCallId"].as_str() else {
            return;
        };
        let kind = update["sessionUpdate"].as_str().unwrap_or_default();
        if kind == "tool_call" {
            if !replay && self.announced_before.contains(id) {
                let text = format!(
                    "a second `tool_call` for {id} after a restart: a call asked again must get a `tool_call_update`"
                );
                self.violation(Rule::Questions, text);
            }
            if !replay {
                self.announced_now.insert(id.to_owned());
            }
            if let Some((call, _)) = update["rawInput"]["command"].as_str().and_then(word_of)
                && call < self.calls.len()
            {
                self.calls[call].id = Some(id.to_owned());
                self.by_id.insert(id.to_owned(), call);
            }
            let status = update["status"].as_str().unwrap_or("pending");
            self.statuses.insert(id.to_owned(), status.to_owned());
        } else if kind == "tool_call_update" {
            if !replay {
                self.updated_now.insert(id.to_owned());
                if update["status"] == "in_progress"
                    && let Some(&call) = self.by_id.get(id)
                {
                    self.calls[call].started.push(self.epoch);
                }
            }
            if let Some(status) = update["status"].as_str() {
                self.statuses.insert(id.to_owned(), status.to_owned());
            }
        }
    }
}

mod asked;
mod check;
mod settle;
