//! Parameters written as JSON text by Warden and spliced into the SDK's line.
//!
//! The SDK takes every outgoing message as a `serde_json::Value`, copies a request's
//! whole, and writes it out again as text: for a permission request, the largest
//! message of a tool call's path, that was a tree of several hundred nodes built,
//! copied, written and freed twice. A message whose parameters are already JSON text
//! gives the SDK a placeholder instead, an object with one member under this
//! connection's key, and the line writer puts the text in its place (decision 0024).
//!
//! Only a line whose whole `params` member is a placeholder is spliced: the key holds a
//! random number of this connection, so no text that reaches Warden from elsewhere (a
//! model's arguments, a tool's output) can name it, and it is matched only at the end
//! of the line, where the SDK writes `params`, never inside another member. A
//! placeholder with nothing held for it goes out as it is, and the client refuses the
//! message: nothing is ever spliced into the wrong place.

use std::collections::VecDeque;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// How many held texts wait for their lines at most. A message the SDK takes and then
/// drops unsent (its request withdrawn meanwhile) leaves its text behind; the oldest
/// such text goes when this many are held.
const MAX_HELD: usize = 64;

/// The texts held for one connection's outgoing lines.
#[derive(Debug)]
pub(crate) struct Splices {
    /// The placeholder's member name: `$warden.params.` and this connection's number,
    /// drawn when the first text is held (a connection that never asks draws none).
    key: OnceLock<String>,
    next: AtomicU64,
    /// How many texts are held, read without the lock by every line written.
    count: AtomicUsize,
    held: Mutex<VecDeque<(u64, String)>>,
}

impl Splices {
    pub(crate) fn new() -> Splices {
        Splices {
            key: OnceLock::new(),
            next: AtomicU64::new(0),
            count: AtomicUsize::new(0),
            held: Mutex::new(VecDeque::new()),
        }
    }

    fn key(&self) -> &str {
        self.key.get_or_init(|| {
            // A random number per connection, from the keys the standard library draws
            // for its hash maps.
            let random = std::hash::RandomState::new().hash_one(0x5741_5244_454e_u64);
            format!("$warden.params.{random:016x}")
        })
    }

    /// Holds `json`, a JSON object's text, and returns the placeholder the SDK writes
    /// in its place.
    pub(crate) fn hold(&self, json: String) -> serde_json::Value {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if held.len() == MAX_HELD {
            held.pop_front();
            tracing::warn!("a message's parameters were held and never written");
        }
        held.push_back((id, json));
        self.count.store(held.len(), Ordering::Release);
        let mut placeholder = serde_json::Map::with_capacity(1);
        placeholder.insert(self.key().to_owned(), serde_json::Value::from(id));
        serde_json::Value::Object(placeholder)
    }

    /// `line` with its placeholder replaced by the text held for it; any other line
    /// as it is.
    pub(crate) fn apply(&self, line: String) -> String {
        if self.count.load(Ordering::Acquire) == 0 {
            return line;
        }
        let Some((at, id)) = self.placeholder(&line) else {
            return line;
        };
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(index) = held.iter().position(|(held_id, _)| *held_id == id) else {
            tracing::error!("a line names parameters that are not held; it goes out as it is");
            return line;
        };
        let (_, json) = held.remove(index).unwrap_or_default();
        self.count.store(held.len(), Ordering::Release);
        drop(held);
        let mut spliced = String::with_capacity(at + json.len() + 1);
        spliced.push_str(&line[..at]);
        spliced.push_str(&json);
        spliced.push('}');
        spliced
    }

    /// Where a line's `params` placeholder starts, and its number: the line must end
    /// with `"params":{"<key>":<number>}}`, the placeholder closing the message.
    fn placeholder(&self, line: &str) -> Option<(usize, u64)> {
        let body = line.strip_suffix("}}")?;
        let digits = body.len() - body.bytes().rev().take_while(u8::is_ascii_digit).count();
        let id = body[digits..].parse().ok()?;
        let before = body[..digits].strip_suffix("\":")?;
        let before = before.strip_suffix(self.key())?;
        let before = before.strip_suffix("\"params\":{\"")?;
        Some((before.len() + "\"params\":".len(), id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line the SDK writes for a request whose parameters are `params`.
    fn line(params: &serde_json::Value) -> String {
        serde_json::json!({"jsonrpc": "2.0", "id": "r1", "method": "session/request_permission"})
            .to_string()
            .strip_suffix('}')
            .map(|head| format!("{head},\"params\":{params}}}"))
            .unwrap_or_default()
    }

    #[test]
    fn a_placeholder_becomes_the_text_held_for_it_once() {
        let splices = Splices::new();
        let text = r#"{"sessionId":"s","options":[{"optionId":"allow-once"}]}"#;
        let placeholder = splices.hold(text.to_owned());
        let written = splices.apply(line(&placeholder));
        let expected = line(&serde_json::from_str(text).unwrap_or_default());
        assert_eq!(written, expected);
        let parsed: serde_json::Value = serde_json::from_str(&written).unwrap_or_default();
        assert_eq!(parsed["params"]["options"][0]["optionId"], "allow-once");
        // Held once: the same line again goes out as it is.
        assert_eq!(splices.apply(line(&placeholder)), line(&placeholder));
    }

    #[test]
    fn texts_are_found_by_number_whatever_the_order_of_the_lines() {
        let splices = Splices::new();
        let first = splices.hold(r#"{"n":1}"#.to_owned());
        let second = splices.hold(r#"{"n":2}"#.to_owned());
        assert_eq!(
            splices.apply(line(&second)),
            line(&serde_json::json!({"n": 2}))
        );
        assert_eq!(
            splices.apply(line(&first)),
            line(&serde_json::json!({"n": 1}))
        );
    }

    /// A placeholder inside another member (a model's arguments that copy one, a
    /// tool's output) is text like any other: only the message's own `params` is
    /// replaced, and only under this connection's key.
    #[test]
    fn nothing_but_the_whole_params_member_is_replaced() {
        let splices = Splices::new();
        let placeholder = splices.hold(r#"{"n":1}"#.to_owned());
        let nested = line(&serde_json::json!({"rawInput": placeholder.clone()}));
        assert_eq!(splices.apply(nested.clone()), nested);
        let deeper = line(&serde_json::json!({"params": placeholder.clone()}));
        assert_eq!(splices.apply(deeper.clone()), deeper);
        let other = Splices::new().hold(r#"{"n":9}"#.to_owned());
        assert_eq!(splices.apply(line(&other)), line(&other));
        let guessed = line(&serde_json::json!({"$warden.params.0000000000000000": 0}));
        assert_eq!(splices.apply(guessed.clone()), guessed);
        // The held text is still there for its own line.
        assert_eq!(
            splices.apply(line(&placeholder)),
            line(&serde_json::json!({"n": 1}))
        );
    }

    /// Start-up does no work for splicing: the key is drawn when the first text is held,
    /// and a line goes out untouched before that.
    #[test]
    fn a_connection_that_never_holds_a_text_draws_no_key() {
        let splices = Splices::new();
        let plain = line(&serde_json::json!({"sessionId": "s"}));
        assert_eq!(splices.apply(plain.clone()), plain);
        assert!(splices.key.get().is_none());
        splices.hold("{}".to_owned());
        assert!(
            splices
                .key
                .get()
                .is_some_and(|k| k.starts_with("$warden.params."))
        );
    }

    #[test]
    fn texts_never_written_are_dropped_oldest_first() {
        let splices = Splices::new();
        let first = splices.hold(r#"{"n":0}"#.to_owned());
        for n in 1..=MAX_HELD {
            splices.hold(format!(r#"{{"n":{n}}}"#));
        }
        assert_eq!(splices.apply(line(&first)), line(&first));
        assert_eq!(splices.count.load(Ordering::Acquire), MAX_HELD);
    }
}
