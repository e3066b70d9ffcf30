//! Scores the shell analyser on public corpora fetched by `corpus/fetch.sh`
//! (`cargo run -p warden-permissions --example score_corpus -- DIR`): each snippet is
//! only evaluated, never run. Prints, per GTFOBins function, how many snippets `ask`
//! would allow without asking (Low) and how many `auto-approve` would allow (below
//! Critical).

// An example prints its report and stops on a bad corpus folder.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use warden_permissions::shell::analyse;
use warden_permissions::{Context, Mode, Risk};

#[derive(Default)]
struct Tally {
    total: usize,
    allowed_in_ask: usize,
    allowed_in_auto_approve: usize,
    examples: Vec<String>,
}

fn main() {
    // A second argument names a function whose snippets below Critical are listed.
    let list = std::env::args().nth(2);
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/corpus"));
    let ws = tempfile_dir();
    let ctx = Context::new(&ws).with_home("/home/corpus");
    let mut by_function: BTreeMap<String, Tally> = BTreeMap::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir.join("gtfobins"))
        .expect("run corpus/fetch.sh first")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("read");
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        let Some(functions) = value.get("functions").and_then(|f| f.as_object()) else {
            continue;
        };
        for (function, snippets) in functions {
            for snippet in snippets.as_array().into_iter().flatten() {
                let Some(code) = snippet.get("code").and_then(|c| c.as_str()) else {
                    continue;
                };
                let risk = analyse(code, &ctx).risk;
                let tally = by_function.entry(function.clone()).or_default();
                tally.total += 1;
                if Mode::Ask.decide(risk, false) == warden_permissions::Decision::Allow {
                    tally.allowed_in_ask += 1;
                    if tally.examples.len() < 5 {
                        tally.examples.push(code.trim().replace('\n', "; "));
                    }
                }
                if risk < Risk::Critical {
                    tally.allowed_in_auto_approve += 1;
                    if list.as_deref() == Some(function.as_str()) {
                        println!(
                            "below Critical ({risk}): {}",
                            code.trim().replace('\n', "; ")
                        );
                    }
                }
            }
        }
    }
    println!("| GTFOBins function | snippets | allowed unasked in ask | allowed in auto-approve |");
    println!("| --- | ---: | ---: | ---: |");
    for (function, t) in &by_function {
        println!(
            "| {function} | {} | {} | {} |",
            t.total, t.allowed_in_ask, t.allowed_in_auto_approve
        );
    }
    for (function, t) in &by_function {
        for e in &t.examples {
            println!("allowed in ask ({function}): {e}");
        }
    }
}

/// A workspace folder for the session the snippets are judged in.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warden-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("workspace");
    dir.canonicalize().expect("canonical")
}
