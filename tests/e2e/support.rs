//! The end-to-end harness: a small ACP client that drives the real `warden` binary,
//! keeps the transcript, validates every message the agent emits against the official
//! ACP schema for its method, and renders normalised transcripts for snapshots.

#![allow(
    dead_code,
    unused_imports,
    reason = "the harness offers its whole API to every scenario module; not each uses every part"
)]

pub mod acp;
pub mod chat_env;
pub mod client;
pub mod envelope;
pub mod normalize;
pub mod process;
pub mod schema;

pub use acp::{initialize_params, prompt_params};
pub use client::{Answer, Client, Direction, Entry};
pub use process::{Process, Spawn, chown_tree};
