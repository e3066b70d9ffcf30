//! Secret redaction for everything Warden writes down or passes on about a tool call.
//!
//! Two layers work on any text: in JSON, the value of any key that names a secret
//! (`password`, `api_key`, `Authorization`, ...) is replaced whole ([`redact_json`]); in
//! every string, patterns that look like secrets (bearer tokens, vendor keys, private key
//! blocks, `://user:pass@` in URLs, `--password=x` and `TOKEN=x` in commands) are replaced
//! ([`redact_text`]). A third layer knows the values themselves: [`KnownSecrets`] holds
//! Warden's own credentials and replaces every occurrence of their values in tool output,
//! also across the chunks of a stream ([`RedactStream`]).
//!
//! A leaf crate: the audit log, the tools and the policy engine (which proposes no grant
//! that would store a secret) share one notion of what a secret looks like.

mod known;
mod patterns;

pub use known::{KnownSecrets, MIN_SECRET_LEN, RedactStream, redact_json};
pub use patterns::{REDACTED, is_secret_key, is_secret_variable, redact_text};
