//! The file tools through the editor's `fs/*`.

use std::sync::Arc;

use serde_json::json;
use warden_tools::{Editor, Limits};

use super::fake_editor::FakeEditor;
use super::support::{diff_of, get, put, run_with, workspace};

#[tokio::test]
async fn fs_read_uses_the_editor_buffer_with_line_and_limit() {
    let dir = workspace();
    put(dir.path(), "a.txt", "on disk\n");
    let path = dir.path().join("a.txt");
    let editor =
        Arc::new(FakeEditor::new(true, false, false).with_file(&path, "one\ntwo\nthree\n"));
    let out = run_with(
        dir.path(),
        Some(editor.clone() as Arc<dyn Editor>),
        Limits::default(),
        "fs_read",
        json!({"path": "a.txt", "line": 2, "limit": 1}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(out.for_model, "two\n");
    assert_eq!(
        editor.log(),
        [format!("read {} Some(2) Some(1)", path.display())]
    );
}

#[tokio::test]
async fn fs_read_reports_editor_errors() {
    let dir = workspace();
    let editor: Arc<dyn Editor> = Arc::new(FakeEditor::new(true, false, false));
    let out = run_with(
        dir.path(),
        Some(editor),
        Limits::default(),
        "fs_read",
        json!({"path": "x"}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "fs_read: x: fs/read_text_file failed: Resource not found"
    );
}

#[tokio::test]
async fn fs_read_cuts_editor_text_to_the_limit() {
    let dir = workspace();
    let path = dir.path().join("a.txt");
    let editor: Arc<dyn Editor> =
        Arc::new(FakeEditor::new(true, false, false).with_file(&path, "aaaa\nbbbb\ncccc\n"));
    let limits = Limits {
        read_bytes: 12,
        ..Limits::default()
    };
    let out = run_with(
        dir.path(),
        Some(editor),
        limits,
        "fs_read",
        json!({"path": "a.txt"}),
    )
    .await;
    assert_eq!(
        out.for_model,
        "aaaa\nbbbb\n[fs_read: cut at the 12-byte limit; continue with line 3]"
    );
}

#[tokio::test]
async fn fs_write_goes_through_the_editor_with_the_buffer_as_old_text() {
    let dir = workspace();
    put(dir.path(), "a.txt", "on disk\n");
    let path = dir.path().join("a.txt");
    let editor = Arc::new(FakeEditor::new(true, true, false).with_file(&path, "unsaved\n"));
    let out = run_with(
        dir.path(),
        Some(editor.clone() as Arc<dyn Editor>),
        Limits::default(),
        "fs_write",
        json!({"path": "a.txt", "content": "new\n"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        editor.log(),
        [
            format!("read {} None None", path.display()),
            format!("write {} \"new\\n\"", path.display())
        ]
    );
    // The editor wrote it (and will save it); the disk is the editor's business.
    assert_eq!(get(dir.path(), "a.txt"), "on disk\n");
    let diff = diff_of(&out.content);
    assert_eq!(diff.old_text.as_deref(), Some("unsaved\n"));
    assert_eq!(diff.new_text, "new\n");
}

#[tokio::test]
async fn fs_write_of_a_new_file_through_the_editor_has_no_old_text() {
    let dir = workspace();
    let editor = Arc::new(FakeEditor::new(true, true, false));
    let out = run_with(
        dir.path(),
        Some(editor.clone() as Arc<dyn Editor>),
        Limits::default(),
        "fs_write",
        json!({"path": "n.txt", "content": "x"}),
    )
    .await;
    assert!(out.ok);
    assert_eq!(out.for_model, "Wrote 1 byte to n.txt (new file).");
    let diff = diff_of(&out.content);
    assert_eq!(diff.old_text, None);
}

/// Some editors report a read of a missing file as an error to the user, others answer
/// `""`: a new file is recognised on disk, and the editor is not asked to read it.
#[tokio::test]
async fn a_new_file_is_not_read_through_the_editor() {
    let dir = workspace();
    let path = dir.path().join("n.txt");
    // An editor that answers "" for a file that does not exist.
    let editor = Arc::new(FakeEditor::new(true, true, false).with_file(&path, ""));
    let out = run_with(
        dir.path(),
        Some(editor.clone() as Arc<dyn Editor>),
        Limits::default(),
        "fs_write",
        json!({"path": "n.txt", "content": "xy"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(out.for_model, "Wrote 2 bytes to n.txt (new file).");
    let diff = diff_of(&out.content);
    assert_eq!(diff.old_text, None);
    assert!(
        editor.log().iter().all(|entry| !entry.starts_with("read ")),
        "{:?}",
        editor.log()
    );
}

#[tokio::test]
async fn fs_edit_edits_the_editor_buffer() {
    let dir = workspace();
    put(dir.path(), "a.rs", "fn a() {}\n");
    let path = dir.path().join("a.rs");
    let editor = Arc::new(
        FakeEditor::new(true, true, false).with_file(&path, "fn a() {}\nfn unsaved() {}\n"),
    );
    let out = run_with(
        dir.path(),
        Some(editor.clone() as Arc<dyn Editor>),
        Limits::default(),
        "fs_edit",
        json!({"path": "a.rs", "old_text": "unsaved", "new_text": "saved"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        editor
            .files
            .lock()
            .expect("lock")
            .get(&path)
            .map(String::as_str),
        Some("fn a() {}\nfn saved() {}\n")
    );
    assert_eq!(
        out.for_model,
        "Edited a.rs: replaced 1 occurrence at line 2."
    );
}

#[tokio::test]
async fn write_only_editors_get_writes_and_reads_stay_local() {
    let dir = workspace();
    put(dir.path(), "a.txt", "disk\n");
    let path = dir.path().join("a.txt");
    let editor = Arc::new(FakeEditor::new(false, true, false));
    let out = run_with(
        dir.path(),
        Some(editor.clone() as Arc<dyn Editor>),
        Limits::default(),
        "fs_read",
        json!({"path": "a.txt"}),
    )
    .await;
    assert_eq!(out.for_model, "disk\n");
    let out = run_with(
        dir.path(),
        Some(editor.clone() as Arc<dyn Editor>),
        Limits::default(),
        "fs_edit",
        json!({"path": "a.txt", "old_text": "disk", "new_text": "edited"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        editor.log(),
        [format!("write {} \"edited\\n\"", path.display())]
    );
}
