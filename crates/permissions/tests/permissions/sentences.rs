//! The engine's words come from its catalog: every message id the engine's code names
//! is in the English catalog (so no reader ever sees an id), and a sentence whose
//! translation is missing reads in English.

use std::path::Path;

use warden_permissions::{Language, Sentence};

/// Every `"engine-…"` string literal in the crate's sources: the ids of the messages the
/// engine can produce (`Sentence::new("engine-…")` and the ids it chooses by kind).
fn ids_in_sources() -> Vec<String> {
    let mut ids = Vec::new();
    let mut folders = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read the sources") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("read a source");
                for piece in text.split("\"engine-").skip(1) {
                    let id: String = piece
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                        .collect();
                    if piece[id.len()..].starts_with('"') {
                        ids.push(format!("engine-{id}"));
                    }
                }
            }
        }
    }
    ids.sort();
    ids.dedup();
    ids
}

#[test]
fn every_sentence_id_the_engine_names_is_in_the_english_catalog() {
    let ids = ids_in_sources();
    // The scan must find the engine's words, or it proves nothing.
    assert!(ids.len() > 50, "only {} ids found: {ids:?}", ids.len());
    let english = warden_i18n::catalog(Language::English);
    let missing: Vec<&String> = ids.iter().filter(|id| !english.has(id)).collect();
    assert!(missing.is_empty(), "not in en/engine.ftl: {missing:?}");
}

#[test]
fn a_sentence_renders_in_english_and_in_chinese_with_its_arguments_as_written() {
    let sentence = Sentence::new("engine-path-sensitive")
        .text("op", "delete")
        .text("path", "/root/.ssh/id_rsa")
        .sentence("what", Sentence::new("engine-sensitive-private-key"));
    assert_eq!(
        sentence.render(Language::English),
        "Deletes /root/.ssh/id_rsa, which is a private key."
    );
    assert_eq!(
        sentence.render(Language::SimplifiedChinese),
        "删除 /root/.ssh/id_rsa，它是私钥。"
    );
    assert_eq!(
        sentence.render_clause(Language::English),
        "deletes /root/.ssh/id_rsa, which is a private key"
    );
    assert_eq!(sentence.to_string(), sentence.render(Language::English));
}

/// A sentence whose Chinese is missing reads in English, never as its id; its
/// arguments (a nested sentence the catalog does translate) stay in Chinese.
#[test]
fn a_sentence_missing_from_the_chinese_catalog_renders_in_english() {
    let partial = warden_i18n::Catalog::with_messages(
        Language::SimplifiedChinese,
        &["engine-sensitive-private-key = 私钥\n"],
    );
    let sentence = Sentence::new("engine-by-mode")
        .text("mode", "ask")
        .text("decision", "ask")
        .text("risk", "high")
        .text("critical", "no");
    assert_eq!(
        sentence.render_in(&partial),
        "Mode `ask` asks high-risk calls"
    );
    let nested = Sentence::new("engine-path-outside")
        .text("op", "read")
        .text("path", "/srv/key");
    assert_eq!(
        nested.render_in(&partial),
        "Reads /srv/key, outside the workspace."
    );
}

/// The contract's example, in both languages: the deciding part's sentence of `rm -rf ~`.
#[test]
fn a_recursive_delete_of_the_home_folder_reads_in_english_and_chinese() {
    let ctx = warden_permissions::Context::new("/srv/project").with_home("/root");
    let call =
        warden_permissions::ToolCall::new("terminal", serde_json::json!({"command": "rm -rf ~"}));
    let assessment = warden_permissions::assess(&call, &ctx);
    let unit = assessment
        .units
        .iter()
        .max_by_key(|u| u.risk)
        .expect("a unit");
    assert_eq!(unit.risk, warden_permissions::Risk::Critical);
    assert_eq!(
        unit.reason.render_clause(Language::English),
        "recursively deletes /root, the home folder"
    );
    assert_eq!(
        unit.reason.render_clause(Language::SimplifiedChinese),
        "递归删除你的主目录 /root"
    );
}
