//! Redaction of JSON by key, and of Warden's own secret values wherever they appear.

use std::borrow::Cow;

use serde_json::Value;

use crate::patterns::{REDACTED, is_secret_key, redact_text};

/// Returns `value` with the values of secret-named keys replaced whole and every
/// string redacted with [`redact_text`].
pub fn redact_json(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(redact_text(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(redact_json).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    let item = match item {
                        // A flag such as `"token_auth": true` tells nothing secret.
                        Value::Null | Value::Bool(_) => item.clone(),
                        _ if is_secret_key(key) => Value::String(REDACTED.to_string()),
                        _ => redact_json(item),
                    };
                    (redact_text(key).into_owned(), item)
                })
                .collect(),
        ),
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    }
}

/// Secret values shorter than this are not redacted by value: a short value (`abc`,
/// `1234`) occurs in ordinary output, and replacing every occurrence would destroy the
/// output while protecting little. Such a value is still kept out of tool processes'
/// environments by name.
pub const MIN_SECRET_LEN: usize = 8;

/// One known secret: the variable it came from and its value.
#[derive(Clone)]
struct KnownSecret {
    name: String,
    value: Vec<u8>,
}

/// The values of Warden's own secrets (the model's API key, the variables the user
/// lists), replaced by `[redacted: NAME]` wherever they occur.
///
/// Every byte of every occurrence is hidden, overlapping occurrences included: the
/// occurrences of all secrets are found first, ranges that overlap are merged, and
/// each merged range becomes one marker naming the longest secret in it. Values
/// shorter than [`MIN_SECRET_LEN`] are not redacted (see there); a warning says so.
/// [`KnownSecrets::stream`] redacts output that arrives in chunks.
#[derive(Clone, Default)]
pub struct KnownSecrets {
    /// Longest first, so the marker of a merged range names the longest secret.
    secrets: Vec<KnownSecret>,
    /// The length of the longest value, in bytes.
    longest: usize,
}

impl std::fmt::Debug for KnownSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Only the names: a value in a debug line would be a leak of its own.
        f.debug_list()
            .entries(self.secrets.iter().map(|s| &s.name))
            .finish()
    }
}

impl KnownSecrets {
    /// The secrets among `(name, value)`; values shorter than [`MIN_SECRET_LEN`] are
    /// left out with a warning.
    pub fn new<N, V>(pairs: impl IntoIterator<Item = (N, V)>) -> KnownSecrets
    where
        N: Into<String>,
        V: AsRef<[u8]>,
    {
        let mut secrets: Vec<KnownSecret> = Vec::new();
        for (name, value) in pairs {
            let name = name.into();
            let value = value.as_ref();
            if value.is_empty() {
                continue;
            }
            if value.len() < MIN_SECRET_LEN {
                tracing::warn!(
                    variable = %name,
                    "the value of {name} is shorter than {MIN_SECRET_LEN} bytes, too short to \
                     redact from tool output without destroying it; it is kept out of tool \
                     environments, but not redacted"
                );
                continue;
            }
            if secrets.iter().any(|s| s.value == value) {
                continue;
            }
            secrets.push(KnownSecret {
                name,
                value: value.to_vec(),
            });
        }
        secrets.sort_by_key(|s| std::cmp::Reverse(s.value.len()));
        let longest = secrets.first().map_or(0, |s| s.value.len());
        KnownSecrets { secrets, longest }
    }

    /// No value to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The names of the secrets whose values are redacted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.secrets.iter().map(|s| s.name.as_str())
    }

    /// Whether `text` contains any of the values.
    pub fn occurs_in(&self, text: &[u8]) -> bool {
        self.secrets
            .iter()
            .any(|s| memchr::memmem::find(text, &s.value).is_some())
    }

    /// `text` with every occurrence of every value replaced by its marker.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let ranges = self.ranges(text.as_bytes());
        if ranges.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = Vec::with_capacity(text.len());
        self.write_redacted(text.as_bytes(), 0, text.len(), &ranges, &mut out);
        // Values are whole UTF-8 strings found in UTF-8 text, so every cut is at a
        // character boundary; were one not, the text would still lose no secret.
        Cow::Owned(match String::from_utf8(out) {
            Ok(text) => text,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        })
    }

    /// Every string in `value` redacted with [`KnownSecrets::redact`], keys included.
    pub fn redact_json(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.redact(s).into_owned()),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(key, item)| (self.redact(key).into_owned(), self.redact_json(item)))
                    .collect(),
            ),
            Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        }
    }

    /// A redactor for output that arrives in chunks: a secret split across chunks is
    /// still found.
    pub fn stream(&self) -> RedactStream {
        RedactStream {
            secrets: self.clone(),
            seen: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// The occurrences of every value in `hay`, overlapping ones merged: sorted
    /// `(start, end, secret)` where `secret` is the longest secret in the range.
    fn ranges(&self, hay: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut found: Vec<(usize, usize, usize)> = Vec::new();
        for (index, secret) in self.secrets.iter().enumerate() {
            let finder = memchr::memmem::Finder::new(&secret.value);
            let mut from = 0;
            // Overlapping occurrences of one value too (`aaaa` twice in `aaaaa`).
            while let Some(at) = hay.get(from..).and_then(|rest| finder.find(rest)) {
                let start = from + at;
                found.push((start, start + secret.value.len(), index));
                from = start + 1;
            }
        }
        found.sort_unstable();
        let mut merged: Vec<(usize, usize, usize)> = Vec::with_capacity(found.len());
        for (start, end, index) in found {
            match merged.last_mut() {
                Some(last) if start < last.1 => {
                    last.1 = last.1.max(end);
                    last.2 = last.2.min(index);
                }
                _ => merged.push((start, end, index)),
            }
        }
        merged
    }

    /// Writes `hay[from..to]` to `out` with the parts inside `ranges` replaced by
    /// markers (a range that begins before `from` is cut at it).
    fn write_redacted(
        &self,
        hay: &[u8],
        from: usize,
        to: usize,
        ranges: &[(usize, usize, usize)],
        out: &mut Vec<u8>,
    ) {
        let mut at = from;
        for &(start, end, index) in ranges {
            if end <= at || start >= to {
                continue;
            }
            out.extend_from_slice(&hay[at..start.max(at)]);
            out.extend_from_slice(b"[redacted: ");
            out.extend_from_slice(self.secrets[index].name.as_bytes());
            out.push(b']');
            at = end.min(to).max(at);
        }
        if at < to {
            out.extend_from_slice(&hay[at..to]);
        }
    }
}

/// Redacts known secrets from output that arrives in chunks ([`KnownSecrets::stream`]).
///
/// Up to one byte less than the longest value is held back after each chunk, since it
/// may be the start of a secret that the next chunk completes; [`RedactStream::finish`]
/// lets it go. The last bytes already let go are kept (raw) as context, so an
/// occurrence that began in them and ends in a later chunk is still found, and its
/// remaining part hidden.
#[derive(Debug)]
pub struct RedactStream {
    secrets: KnownSecrets,
    /// The last bytes already let go (raw), at most the longest value less one.
    seen: Vec<u8>,
    /// Bytes not yet let go (raw).
    pending: Vec<u8>,
}

impl RedactStream {
    /// Takes one chunk; returns the redacted bytes that are certain now.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        if self.secrets.is_empty() {
            return chunk.to_vec();
        }
        self.pending.extend_from_slice(chunk);
        self.release(false)
    }

    /// The rest, redacted, at the end of the output.
    pub fn finish(&mut self) -> Vec<u8> {
        if self.secrets.is_empty() {
            return std::mem::take(&mut self.pending);
        }
        self.release(true)
    }

    fn release(&mut self, all: bool) -> Vec<u8> {
        let offset = self.seen.len();
        let mut window = std::mem::take(&mut self.seen);
        window.append(&mut self.pending);
        let ranges = self.secrets.ranges(&window);
        let keep = if all { 0 } else { self.secrets.longest - 1 };
        // Every occurrence that starts before `cut` lies wholly in the window; one
        // that runs past `cut` is let go whole.
        let mut cut = window.len().saturating_sub(keep).max(offset);
        for &(start, end, _) in &ranges {
            if start < cut && end > cut {
                cut = end;
            }
        }
        let mut out = Vec::with_capacity(cut - offset);
        self.secrets
            .write_redacted(&window, offset, cut, &ranges, &mut out);
        self.pending = window.split_off(cut);
        let context = self.secrets.longest - 1;
        self.seen = window.split_off(window.len().saturating_sub(context));
        out
    }
}
