//! Permission requests in the interactive chat, answered one at a time (the disposition
//! rules of the contract's section 9): each request gets its buttons on keys; an answered one shows its
//! disposition ("Approved for session", "Approved once", "Denied") and can be undone
//! until the last one of the batch is answered; then every answer goes back together.
//! Ctrl-C answers every open request `cancelled`. The state is plain data, driven by keys,
//! so the rules are tested without a terminal.

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome,
};
use serde_json::Value;
use tokio::sync::oneshot;
use warden_acp_transport::{AnswerExtension, to_meta};
use warden_i18n::{Args, Catalog};

use crate::clean::clean;
use crate::request::Marks;
use crate::style::Style;

/// One of the agent's options, on a key.
#[derive(Debug, Clone)]
pub struct Button {
    pub key: char,
    /// What the button reads: for Warden's own agent the contract's words for the three
    /// known kinds; for any other agent its own option name, as it sent it.
    pub label: String,
    pub option: PermissionOption,
}

/// A request's buttons in the contract's order (`Allow for this chat`, `Allow once`, `Deny`,
/// then the agent's further options in its order), and the one Enter picks.
#[derive(Debug, Clone)]
pub struct Buttons {
    pub list: Vec<Button>,
    /// Never an allow option for a call the agent marks Critical, never an "always"
    /// option, and nothing at all for an agent that sends no risk: the agent's first
    /// once-option, or its reject-once option when Critical.
    pub preselected: Option<usize>,
    /// Whether the agent offers any option that refuses the call.
    pub can_refuse: bool,
}

impl Buttons {
    /// The buttons of `request`. When it carries Warden's `_meta.warden.risk` (Warden's
    /// own agent, or an agent behind Warden) the risk is known and the chat's own labels
    /// apply, in the reader's language; another agent's options keep the names it sent.
    /// The keys are the same in every language: `a`, `o`, `d`, then digits.
    pub fn new(request: &RequestPermissionRequest, words: &Catalog) -> Buttons {
        let options = &request.options;
        let marks = Marks::of(request);
        let known = marks.risk().is_some();
        let first = |kind: PermissionOptionKind| options.iter().position(|o| o.kind == kind);
        let mut taken = Vec::new();
        let mut list = Vec::new();
        for (kind, key, label) in [
            (
                PermissionOptionKind::AllowAlways,
                'a',
                "chat-option-allow-session",
            ),
            (
                PermissionOptionKind::AllowOnce,
                'o',
                "chat-option-allow-once",
            ),
            (PermissionOptionKind::RejectOnce, 'd', "chat-option-deny"),
        ] {
            if let Some(i) = first(kind) {
                taken.push(i);
                // Another agent's options keep its own names: its "Yes, and don't ask
                // again" is not "Allow for this chat".
                let label = if known {
                    words.plain(label)
                } else {
                    clean(&options[i].name)
                };
                list.push(Button {
                    key,
                    label,
                    option: options[i].clone(),
                });
            }
        }
        let mut digit = 1u32;
        for (i, option) in options.iter().enumerate() {
            if taken.contains(&i) {
                continue;
            }
            let Some(key) = char::from_digit(digit, 10) else {
                // More than nine further options: the rest have no key.
                break;
            };
            digit += 1;
            list.push(Button {
                key,
                label: clean(&option.name),
                option: option.clone(),
            });
        }
        let preselected = if !known {
            // Without the agent's risk, Enter means nothing: a person picks a key.
            None
        } else if marks.critical() {
            list.iter()
                .position(|b| b.option.kind == PermissionOptionKind::RejectOnce)
        } else {
            // The agent's own order decides between allow-once and reject-once (Warden
            // lists reject-once first for a Critical call, whatever its `_meta` says).
            options
                .iter()
                .find(|o| {
                    matches!(
                        o.kind,
                        PermissionOptionKind::AllowOnce | PermissionOptionKind::RejectOnce
                    )
                })
                .and_then(|o| list.iter().position(|b| b.option.option_id == o.option_id))
        };
        let can_refuse = options.iter().any(|o| {
            matches!(
                o.kind,
                PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways
            )
        });
        Buttons {
            list,
            preselected,
            can_refuse,
        }
    }

    /// `[a] Allow for this chat  [o] Allow once (Enter)  [d] Deny  [1] <further option>`:
    /// each option with its key, the one Enter picks marked (and in reverse video).
    pub fn line(&self, style: Style, words: &Catalog) -> String {
        let enter = words.plain("chat-key-enter-mark");
        self.list
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let text = format!("[{}] {}", b.key, b.label);
                if Some(i) == self.preselected {
                    format!("{} {}", style.reverse(&text), style.bold(&enter))
                } else {
                    text
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    }

    /// What the "Allow for this chat" button stores, in the agent's words, when they
    /// say more than the label.
    pub fn scope(&self, words: &Catalog) -> Option<String> {
        let button = self.list.iter().find(|b| b.key == 'a')?;
        let name = clean(&button.option.name);
        (name != button.label).then(|| {
            let args = Args::new()
                .with("label", button.label.clone())
                .with("scope", name);
            format!("  {}", words.text("chat-option-scope", &args))
        })
    }

    /// The line of the keys that are not options: the options carry their own.
    pub fn keys(&self, words: &Catalog, extras: bool, undo: bool, diff: bool) -> String {
        let mut ids = vec!["chat-key-arguments"];
        if diff {
            ids.push("chat-key-whole-diff");
        }
        if extras {
            ids.push("chat-key-edit");
            ids.push("chat-key-note");
        }
        if undo {
            ids.push("chat-key-undo");
        }
        if self.preselected.is_none() {
            ids.push("chat-key-enter-nothing");
        }
        if !self.can_refuse {
            ids.push("chat-key-no-refuse");
        }
        let parts: Vec<String> = ids.into_iter().map(|id| words.plain(id)).collect();
        words.text("chat-keys", &Args::new().with("keys", parts.join(" · ")))
    }

    fn find(&self, key: char) -> Option<usize> {
        self.list.iter().position(|b| b.key == key)
    }
}

/// What an answered request shows instead of its buttons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disposition {
    /// Whether the answer allows the call.
    pub allowed: bool,
    /// The words, in the reader's language.
    pub text: String,
}

/// The words an answered request shows instead of its buttons.
pub fn disposition(button: &Button, words: &Catalog) -> Disposition {
    let label = || Args::new().with("option", button.label.clone());
    let session = words.plain("chat-option-allow-session");
    let (allowed, text) = match button.option.kind {
        PermissionOptionKind::AllowAlways if button.label == session => {
            (true, words.plain("chat-approved-session"))
        }
        PermissionOptionKind::AllowOnce => (true, words.plain("chat-approved-once")),
        PermissionOptionKind::RejectOnce => (false, words.plain("chat-denied")),
        PermissionOptionKind::AllowAlways => (true, words.text("chat-approved-option", &label())),
        _ => (false, words.text("chat-denied-option", &label())),
    };
    Disposition { allowed, text }
}

/// One request waiting for the person.
#[derive(Debug)]
pub struct Pending {
    pub request: RequestPermissionRequest,
    pub buttons: Buttons,
    /// The button picked, once answered.
    pub choice: Option<usize>,
    pub show_args: bool,
    /// Whether the call's diffs are shown whole rather than folded (`v`).
    pub whole_diff: bool,
    pub edited: Option<Value>,
    pub note: Option<String>,
    reply: Option<oneshot::Sender<RequestPermissionResponse>>,
}

impl Pending {
    /// The answer: the picked option, with Warden's `_meta` extension (`editedInput` on
    /// an approval, `note` on either) when the agent reads it.
    pub fn response(&self, extras: bool) -> RequestPermissionResponse {
        let Some(button) = self.choice.and_then(|i| self.buttons.list.get(i)) else {
            return cancelled();
        };
        let mut response = RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
            SelectedPermissionOutcome::new(button.option.option_id.clone()),
        ));
        if extras {
            let allow = matches!(
                button.option.kind,
                PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
            );
            let answer = AnswerExtension {
                edited_input: self
                    .edited
                    .as_ref()
                    .filter(|_| allow)
                    .and_then(Value::as_object)
                    .cloned(),
                note: self.note.clone(),
            };
            if !answer.is_empty() {
                response = response.meta(to_meta(&answer));
            }
        }
        response
    }
}

fn cancelled() -> RequestPermissionResponse {
    RequestPermissionResponse::new(RequestPermissionOutcome::Cancelled)
}

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Nothing: a key without a meaning here.
    Ignored,
    /// The prompt changed (arguments or the whole diff shown or hidden): draw it again.
    Redraw,
    /// Request `index` was answered; more are open.
    Answered {
        index: usize,
        disposition: Disposition,
    },
    /// The last open request was answered: every answer has gone back.
    Sent {
        index: usize,
        disposition: Disposition,
        count: usize,
    },
    /// Request `index` is open again.
    Undone {
        index: usize,
    },
    /// The person wants to edit the arguments, or add a note.
    Edit,
    Note,
}

/// A key from the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
}

/// The requests of one cycle, from the first request to the answers going back.
#[derive(Debug)]
pub struct Batch {
    items: Vec<Pending>,
    /// Answered requests, in the order they were answered (undo takes the last).
    answered: Vec<usize>,
    /// The chat's own words, in the reader's language.
    words: &'static Catalog,
}

impl Default for Batch {
    fn default() -> Self {
        Batch::new(warden_i18n::catalog(warden_i18n::Language::English))
    }
}

impl Batch {
    /// An empty batch whose buttons and dispositions read in `words`' language.
    pub fn new(words: &'static Catalog) -> Batch {
        Batch {
            items: Vec::new(),
            answered: Vec::new(),
            words,
        }
    }

    pub fn push(
        &mut self,
        request: RequestPermissionRequest,
        reply: oneshot::Sender<RequestPermissionResponse>,
    ) {
        let buttons = Buttons::new(&request, self.words);
        self.items.push(Pending {
            request,
            buttons,
            choice: None,
            show_args: false,
            whole_diff: false,
            edited: None,
            note: None,
            reply: Some(reply),
        });
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The request on screen: the first one not answered.
    pub fn current(&self) -> Option<usize> {
        self.items.iter().position(|p| p.choice.is_none())
    }

    pub fn get(&self, index: usize) -> Option<&Pending> {
        self.items.get(index)
    }

    pub fn get_mut(&mut self, index: usize) -> Option<&mut Pending> {
        self.items.get_mut(index)
    }

    pub fn can_undo(&self) -> bool {
        !self.answered.is_empty()
    }

    /// Applies a key to the request on screen.
    pub fn key(&mut self, key: Key, extras: bool) -> Step {
        let Some(index) = self.current() else {
            return Step::Ignored;
        };
        let pending = &mut self.items[index];
        let picked = match key {
            Key::Enter => pending.buttons.preselected,
            Key::Char('>') => {
                pending.show_args = !pending.show_args;
                return Step::Redraw;
            }
            Key::Char('v') => {
                pending.whole_diff = !pending.whole_diff;
                return Step::Redraw;
            }
            Key::Char('u') => {
                return match self.answered.pop() {
                    Some(undone) => {
                        self.items[undone].choice = None;
                        Step::Undone { index: undone }
                    }
                    None => Step::Ignored,
                };
            }
            Key::Char('e') if extras => return Step::Edit,
            Key::Char('n') if extras => return Step::Note,
            Key::Char(c) => pending.buttons.find(c.to_ascii_lowercase()),
        };
        let Some(button) = picked else {
            return Step::Ignored;
        };
        pending.choice = Some(button);
        let disposition = disposition(&pending.buttons.list[button], self.words);
        if self.current().is_some() {
            self.answered.push(index);
            return Step::Answered { index, disposition };
        }
        let count = self.send(extras);
        Step::Sent {
            index,
            disposition,
            count,
        }
    }

    /// Every answer goes back, in the order the requests came; the batch is then empty.
    fn send(&mut self, extras: bool) -> usize {
        let count = self.items.len();
        for mut pending in self.items.drain(..) {
            let response = pending.response(extras);
            if let Some(reply) = pending.reply.take() {
                // The agent may have withdrawn the request; nothing to do then.
                let _ = reply.send(response);
            }
        }
        self.answered.clear();
        count
    }

    /// Answers every request of the batch `cancelled`, answered ones too (nothing has gone
    /// back yet). Returns how many.
    pub fn cancel_all(&mut self) -> usize {
        let count = self.items.len();
        for mut pending in self.items.drain(..) {
            if let Some(reply) = pending.reply.take() {
                let _ = reply.send(cancelled());
            }
        }
        self.answered.clear();
        count
    }
}

#[cfg(test)]
mod tests;
