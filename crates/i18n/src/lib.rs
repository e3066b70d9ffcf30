//! What a person reads, in their language: Warden's message catalogs (Fluent), in English
//! and Simplified Chinese, and the rule that chooses between them.
//!
//! Messages are looked up by id with named arguments, never assembled from fragments, so
//! a translation can reorder a sentence. A message missing from a translation falls back
//! to English; the English catalog is complete by test, so a reader never sees an id.
//! What machines match (option ids, tool names, `_meta` keys, audit records, JSON keys)
//! never goes through here.
//!
//! A leaf crate: the agent, the engine's wording and `warden chat` all read from it.

mod catalog;
mod language;
mod template;

pub use catalog::{Args, Catalog, catalog};
pub use language::Language;
