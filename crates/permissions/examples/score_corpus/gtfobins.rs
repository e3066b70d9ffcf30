//! GTFOBins: snippets that start shells, read and write files, download and upload, as
//! one JSON file per program.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use warden_permissions::shell::analyse;
use warden_permissions::{Context, Mode, Risk};

#[derive(Default)]
struct Tally {
    total: usize,
    allowed_in_ask: usize,
    allowed_in_auto_approve: usize,
    examples: Vec<String>,
}

/// Scores every snippet of the GTFOBins files in `dir`; `list` names a function whose
/// snippets below Critical are printed.
pub fn score(dir: &Path, ctx: &Context, list: Option<&str>) {
    let mut by_function: BTreeMap<String, Tally> = BTreeMap::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
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
                let risk = analyse(code, ctx).risk;
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
                    if list == Some(function.as_str()) {
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
