//! Every message the chat writes for a person is in its catalog: each `chat-…` id the
//! chat's source names exists in English (so no reader ever sees an id) and in
//! Simplified Chinese (so a Chinese reader never meets an English sentence).

// A test: a file it cannot read is a failure, so it panics.
#![allow(clippy::expect_used)]

use std::path::Path;

use warden_i18n::{Language, catalog};

/// The `"chat-…"` string literals of the files under `dir`.
fn ids_in(dir: &Path, ids: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).expect("the chat's source folder");
    for entry in entries {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            ids_in(&path, ids);
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (at, _) in text.match_indices("\"chat-") {
            let rest = &text[at + 1..];
            let end = rest.find('"').expect("a closed string");
            let id = &rest[..end];
            if id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                ids.push(id.to_owned());
            }
        }
    }
}

#[test]
fn every_id_the_chat_uses_is_in_the_english_and_the_chinese_catalog() {
    let mut ids = Vec::new();
    ids_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut ids);
    ids.sort();
    ids.dedup();
    assert!(
        ids.len() > 50,
        "the scan finds the chat's messages: {ids:?}"
    );
    for language in Language::ALL {
        let words = catalog(language);
        let missing: Vec<&String> = ids.iter().filter(|id| !words.has(id)).collect();
        assert!(missing.is_empty(), "{language} lacks {missing:?}");
    }
}

#[test]
fn the_prompt_reads_in_chinese_with_the_same_keys() {
    let words = catalog(Language::SimplifiedChinese);
    let header = words.text(
        "chat-prompt-header",
        &warden_i18n::Args::new().with("server", "Warden"),
    );
    assert_eq!(header, "是否允许来自 Warden 的工具调用？");
    assert_eq!(words.plain("chat-approved-once"), "已批准本次");
    // The keys a person presses are named, never translated.
    for (id, key) in [
        ("chat-key-arguments", ">"),
        ("chat-key-whole-diff", "v"),
        ("chat-key-edit", "e"),
        ("chat-key-note", "n"),
        ("chat-key-undo", "u"),
    ] {
        assert!(words.plain(id).starts_with(key), "{id}");
    }
}
