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
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::approve::marked_critical;
use crate::render::clean;
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

/// Whether the request carries Warden's `_meta.warden.risk` (Warden's own agent, or an
/// agent behind Warden): then the risk is known, and the contract's labels apply.
fn risk_known(request: &RequestPermissionRequest) -> bool {
    request
        .meta
        .as_ref()
        .and_then(|meta| meta.get("warden"))
        .is_some_and(|warden| warden.get("risk").is_some())
}

impl Buttons {
    pub fn new(request: &RequestPermissionRequest) -> Buttons {
        let options = &request.options;
        let known = risk_known(request);
        let first = |kind: PermissionOptionKind| options.iter().position(|o| o.kind == kind);
        let mut taken = Vec::new();
        let mut list = Vec::new();
        for (kind, key, label) in [
            (
                PermissionOptionKind::AllowAlways,
                'a',
                "Allow for this chat",
            ),
            (PermissionOptionKind::AllowOnce, 'o', "Allow once"),
            (PermissionOptionKind::RejectOnce, 'd', "Deny"),
        ] {
            if let Some(i) = first(kind) {
                taken.push(i);
                // Another agent's options keep its own names: its "Yes, and don't ask
                // again" is not "Allow for this chat".
                let label = if known {
                    label.to_owned()
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
        } else if marked_critical(request) {
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
    pub fn line(&self, style: Style) -> String {
        self.list
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let text = format!("[{}] {}", b.key, b.label);
                if Some(i) == self.preselected {
                    format!("{} {}", style.reverse(&text), style.bold("(Enter)"))
                } else {
                    text
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    }

    /// What the "Allow for this chat" button stores, in the agent's words, when they
    /// say more than the label.
    pub fn scope(&self) -> Option<String> {
        let button = self.list.iter().find(|b| b.key == 'a')?;
        let name = clean(&button.option.name);
        (name != button.label).then(|| format!("  {}: {name}", button.label))
    }

    /// The line of the keys that are not options: the options carry their own.
    pub fn keys(&self, extras: bool, undo: bool, diff: bool) -> String {
        let mut parts: Vec<String> = vec!["> arguments".to_owned()];
        if diff {
            parts.push("v whole diff".to_owned());
        }
        if extras {
            parts.push("e edit".to_owned());
            parts.push("n note".to_owned());
        }
        if undo {
            parts.push("u undo".to_owned());
        }
        if self.preselected.is_none() {
            parts.push("Enter picks nothing: choose an option's key".to_owned());
        }
        if !self.can_refuse {
            parts.push("the agent offers no option to refuse: Ctrl-C cancels the turn".to_owned());
        }
        format!("keys: {}", parts.join(" · "))
    }

    fn find(&self, key: char) -> Option<usize> {
        self.list.iter().position(|b| b.key == key)
    }
}

/// The words an answered request shows instead of its buttons.
pub fn disposition(button: &Button) -> String {
    match button.option.kind {
        PermissionOptionKind::AllowAlways if button.label == "Allow for this chat" => {
            "Approved for session".to_owned()
        }
        PermissionOptionKind::AllowOnce => "Approved once".to_owned(),
        PermissionOptionKind::RejectOnce => "Denied".to_owned(),
        PermissionOptionKind::AllowAlways => format!("Approved: {}", button.label),
        _ => format!("Denied: {}", button.label),
    }
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
            let mut warden = serde_json::Map::new();
            if let (true, Some(edited)) = (allow, &self.edited) {
                warden.insert("editedInput".to_owned(), edited.clone());
            }
            if let Some(note) = &self.note {
                warden.insert("note".to_owned(), Value::String(note.clone()));
            }
            if !warden.is_empty() {
                response = response.meta(json!({ "warden": warden }).as_object().cloned());
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
        disposition: String,
    },
    /// The last open request was answered: every answer has gone back.
    Sent {
        index: usize,
        disposition: String,
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
#[derive(Debug, Default)]
pub struct Batch {
    items: Vec<Pending>,
    /// Answered requests, in the order they were answered (undo takes the last).
    answered: Vec<usize>,
}

impl Batch {
    pub fn push(
        &mut self,
        request: RequestPermissionRequest,
        reply: oneshot::Sender<RequestPermissionResponse>,
    ) {
        let buttons = Buttons::new(&request);
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
        let disposition = disposition(&pending.buttons.list[button]);
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
