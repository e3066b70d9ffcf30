//! Scores the shell analyser on public corpora fetched by `corpus/fetch.sh`
//! (`cargo run -p warden-permissions --example score_corpus -- DIR`): each snippet is
//! only evaluated, never run.
//!
//! - GTFOBins (`DIR/gtfobins`): per function, how many snippets `ask` would allow
//!   without asking (Low) and how many `auto-approve` would allow (below Critical).
//!   `score_corpus DIR FUNCTION` also lists that function's snippets below Critical.
//! - cheat's cheatsheets (`DIR/cheat`): everyday command examples; of those that only
//!   read (by the rule in `cheat.rs`), the share `ask` would still ask about, with the
//!   most frequent reasons. `score_corpus DIR cheat` lists every read-only example
//!   that asks.

// An example prints its report and stops on a bad corpus folder.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

mod cheat;
mod gtfobins;

use std::path::PathBuf;

use warden_permissions::Context;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/corpus"));
    // A second argument names what to list in full.
    let list = std::env::args().nth(2);
    let ws = workspace_dir();
    let ctx = Context::new(&ws).with_home("/home/corpus");
    if dir.join("gtfobins").is_dir() {
        gtfobins::score(&dir.join("gtfobins"), &ctx, list.as_deref());
    }
    if dir.join("cheat").is_dir() {
        cheat::score(&dir.join("cheat"), &ctx, list.as_deref() == Some("cheat"));
    }
}

/// A workspace folder for the session the snippets are judged in.
fn workspace_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warden-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("workspace");
    dir.canonicalize().expect("canonical")
}
