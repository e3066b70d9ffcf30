//! The file tools on the local filesystem (no editor).

use serde_json::json;
use warden_tools::Limits;

use super::support::{diff_of, get, put, run, run_with, workspace};

#[tokio::test]
async fn fs_read_reads_whole_files_and_line_ranges() {
    let dir = workspace();
    put(dir.path(), "a.txt", "one\ntwo\nthree\nfour\n");
    let out = run(dir.path(), "fs_read", json!({"path": "a.txt"})).await;
    assert!(out.ok);
    assert_eq!(out.for_model, "one\ntwo\nthree\nfour\n");
    let out = run(
        dir.path(),
        "fs_read",
        json!({"path": "a.txt", "line": 2, "limit": 2}),
    )
    .await;
    assert_eq!(out.for_model, "two\nthree\n");
    assert_eq!(out.raw_output["lines"], 2);
    let out = run(dir.path(), "fs_read", json!({"path": "a.txt", "line": 9})).await;
    assert!(out.ok);
    assert_eq!(out.for_model, "(a.txt has no lines from line 9 on)");
    let abs = dir.path().join("a.txt");
    let out = run(dir.path(), "fs_read", json!({"path": abs, "limit": 1})).await;
    assert_eq!(out.for_model, "one\n");
}

#[tokio::test]
async fn fs_read_cuts_large_files_and_says_where_to_continue() {
    let dir = workspace();
    put(dir.path(), "big.txt", &"0123456789\n".repeat(10));
    let limits = Limits {
        read_bytes: 25,
        ..Limits::default()
    };
    let out = run_with(
        dir.path(),
        None,
        limits.clone(),
        "fs_read",
        json!({"path": "big.txt"}),
    )
    .await;
    assert!(out.ok);
    assert_eq!(
        out.for_model,
        "0123456789\n0123456789\n[fs_read: cut at the 25-byte limit; continue with line 3]"
    );
    assert_eq!(out.raw_output["truncated"], true);
    let out = run_with(
        dir.path(),
        None,
        limits,
        "fs_read",
        json!({"path": "big.txt", "line": 9}),
    )
    .await;
    assert_eq!(out.for_model, "0123456789\n0123456789\n");
    assert_eq!(out.raw_output["truncated"], false);
}

#[tokio::test]
async fn fs_read_failures_are_clear() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("bin"), [0xff, 0xfe, 0x00]).expect("write");
    let cases = [
        ("missing.txt", "fs_read: missing.txt does not exist"),
        (
            "sub",
            "fs_read: sub is a directory; use fs_list for directories",
        ),
        ("bin", "fs_read: bin is not UTF-8 text"),
        ("/dev/null", "fs_read: /dev/null is not a regular file"),
    ];
    for (path, expect) in cases {
        let out = run(dir.path(), "fs_read", json!({"path": path})).await;
        assert!(!out.ok, "{path}");
        assert_eq!(out.for_model, expect);
    }
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_does_nothing() {
    let dir = workspace();
    let cancel = tokio_util::sync::CancellationToken::new();
    cancel.cancel();
    let out = super::support::run_full(
        dir.path(),
        None,
        Limits::default(),
        cancel,
        &|_| {},
        "fs_write",
        json!({"path": "a.txt", "content": "x"}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(out.for_model, "fs_write: cancelled");
    assert!(!dir.path().join("a.txt").exists());
}

#[tokio::test]
async fn fs_write_creates_parents_and_returns_a_diff() {
    let dir = workspace();
    let out = run(
        dir.path(),
        "fs_write",
        json!({"path": "new/dir/a.txt", "content": "hello\n"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(get(dir.path(), "new/dir/a.txt"), "hello\n");
    assert_eq!(out.for_model, "Wrote 6 bytes to new/dir/a.txt (new file).");
    let diff = diff_of(&out.content);
    assert_eq!(diff.path, dir.path().join("new/dir/a.txt"));
    assert_eq!(diff.old_text, None);
    assert_eq!(diff.new_text, "hello\n");

    let out = run(
        dir.path(),
        "fs_write",
        json!({"path": "new/dir/a.txt", "content": "bye\n"}),
    )
    .await;
    assert_eq!(
        out.for_model,
        "Wrote 4 bytes to new/dir/a.txt (replaced 6 bytes)."
    );
    let diff = diff_of(&out.content);
    assert_eq!(diff.old_text.as_deref(), Some("hello\n"));
    assert_eq!(get(dir.path(), "new/dir/a.txt"), "bye\n");
}

#[tokio::test]
async fn fs_write_refuses_a_directory() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    let out = run(
        dir.path(),
        "fs_write",
        json!({"path": "sub", "content": "x"}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(out.for_model, "fs_write: sub is a directory");
}

#[tokio::test]
async fn fs_edit_replaces_exactly_one_occurrence() {
    let dir = workspace();
    put(dir.path(), "a.rs", "fn a() {}\nfn b() {}\nfn b() {}\n");
    let out = run(
        dir.path(),
        "fs_edit",
        json!({"path": "a.rs", "old_text": "fn a", "new_text": "fn z"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        out.for_model,
        "Edited a.rs: replaced 1 occurrence at line 1."
    );
    assert_eq!(get(dir.path(), "a.rs"), "fn z() {}\nfn b() {}\nfn b() {}\n");
    let diff = diff_of(&out.content);
    assert_eq!(
        diff.old_text.as_deref(),
        Some("fn a() {}\nfn b() {}\nfn b() {}\n")
    );
    assert_eq!(diff.new_text, "fn z() {}\nfn b() {}\nfn b() {}\n");

    let out = run(
        dir.path(),
        "fs_edit",
        json!({"path": "a.rs", "old_text": "fn b", "new_text": "fn c"}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "fs_edit: `old_text` occurs 2 times in a.rs (at lines 2, 3); nothing was changed. Include more surrounding text so it occurs once."
    );
    let out = run(
        dir.path(),
        "fs_edit",
        json!({"path": "a.rs", "old_text": "fn q", "new_text": "fn c"}),
    )
    .await;
    assert!(!out.ok);
    assert!(
        out.for_model
            .starts_with("fs_edit: `old_text` was not found in a.rs; nothing was changed."),
        "{}",
        out.for_model
    );
    assert_eq!(get(dir.path(), "a.rs"), "fn z() {}\nfn b() {}\nfn b() {}\n");
    let out = run(
        dir.path(),
        "fs_edit",
        json!({"path": "nope.rs", "old_text": "a", "new_text": "b"}),
    )
    .await;
    assert_eq!(
        out.for_model,
        "fs_edit: nope.rs does not exist; use fs_write to create it"
    );
}

#[tokio::test]
async fn fs_list_lists_sorted_entries_marking_directories() {
    let dir = workspace();
    put(dir.path(), "b.txt", "x");
    put(dir.path(), "a/inner.txt", "x");
    put(dir.path(), ".hidden", "x");
    let out = run(dir.path(), "fs_list", json!({"path": "."})).await;
    assert!(out.ok);
    assert_eq!(out.for_model, ".hidden\na/\nb.txt\n");
    assert_eq!(out.raw_output["total"], 3);
    let limits = Limits {
        list_entries: 2,
        ..Limits::default()
    };
    let out = run_with(dir.path(), None, limits, "fs_list", json!({"path": "."})).await;
    assert_eq!(
        out.for_model,
        ".hidden\na/\n[fs_list: showing 2 of 3 entries]"
    );
    let out = run(dir.path(), "fs_list", json!({"path": "b.txt"})).await;
    assert_eq!(
        out.for_model,
        "fs_list: b.txt is not a directory; use fs_read for files"
    );
    let out = run(dir.path(), "fs_list", json!({"path": "zz"})).await;
    assert_eq!(out.for_model, "fs_list: zz does not exist");
}

#[tokio::test]
async fn fs_search_finds_lines_and_honours_gitignore() {
    let dir = workspace();
    put(dir.path(), ".gitignore", "target/\n");
    put(dir.path(), "src/main.rs", "fn main() {\n    run();\n}\n");
    put(dir.path(), "src/lib.rs", "pub fn run() {}\n");
    put(dir.path(), "target/gen.rs", "fn run() {}\n");
    put(dir.path(), ".git/HEAD", "fn run\n");
    std::fs::write(dir.path().join("src/blob"), b"run\0\x01").expect("write");
    let out = run(dir.path(), "fs_search", json!({"pattern": r"\brun\("})).await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        out.for_model,
        "src/lib.rs:1: pub fn run() {}\nsrc/main.rs:2:     run();\n"
    );
    let out = run(
        dir.path(),
        "fs_search",
        json!({"pattern": "main", "path": "src/main.rs"}),
    )
    .await;
    assert_eq!(out.for_model, "src/main.rs:1: fn main() {\n");
    let limits = Limits {
        search_matches: 1,
        ..Limits::default()
    };
    let out = run_with(
        dir.path(),
        None,
        limits,
        "fs_search",
        json!({"pattern": "run"}),
    )
    .await;
    assert_eq!(
        out.for_model,
        "src/lib.rs:1: pub fn run() {}\n[fs_search: stopped at 1 matches; narrow the pattern or the path]"
    );
    let out = run(
        dir.path(),
        "fs_search",
        json!({"pattern": "nothing-like-this"}),
    )
    .await;
    assert!(out.ok);
    assert_eq!(
        out.for_model,
        "No matches for `nothing-like-this` in . (3 files searched)."
    );
    let out = run(
        dir.path(),
        "fs_search",
        json!({"pattern": "x", "path": "nope"}),
    )
    .await;
    assert_eq!(out.for_model, "fs_search: nope does not exist");
}

/// A search sweeps a folder, which the engine judges by the folder: files in it that
/// hold secrets are left out (and said to be), so a search cannot read what `fs_read`
/// would ask for. A search pointed at the secret itself was asked about, and reads it.
#[tokio::test]
async fn fs_search_leaves_out_files_that_hold_secrets() {
    let dir = workspace();
    put(dir.path(), ".env", "API_KEY=hunter2\n");
    put(dir.path(), "deploy/id_rsa", "hunter2\n");
    put(
        dir.path(),
        "config/credentials.json",
        "{\"k\": \"hunter2\"}\n",
    );
    put(dir.path(), "src/main.rs", "// hunter2\n");
    let out = run(dir.path(), "fs_search", json!({"pattern": "hunter2"})).await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        out.for_model,
        "src/main.rs:1: // hunter2\n[fs_search: 3 files that hold secrets (.env files, keys, credentials) were not searched; read one with fs_read, which asks the user]"
    );
    assert_eq!(out.raw_output["withheld"], 3);
    let out = run(
        dir.path(),
        "fs_search",
        json!({"pattern": "hunter2", "path": ".env"}),
    )
    .await;
    assert_eq!(out.for_model, ".env:1: API_KEY=hunter2\n");
}

#[tokio::test]
async fn fs_delete_needs_recursive_for_directories() {
    let dir = workspace();
    put(dir.path(), "d/a.txt", "x");
    put(dir.path(), "f.txt", "x");
    let out = run(dir.path(), "fs_delete", json!({"path": "d"})).await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "fs_delete: d is a directory; nothing was deleted. Pass `recursive: true` to delete it and everything in it."
    );
    assert!(dir.path().join("d/a.txt").exists());
    let out = run(
        dir.path(),
        "fs_delete",
        json!({"path": "d", "recursive": true}),
    )
    .await;
    assert!(out.ok);
    assert_eq!(out.for_model, "Deleted directory d.");
    assert!(!dir.path().join("d").exists());
    let out = run(dir.path(), "fs_delete", json!({"path": "f.txt"})).await;
    assert_eq!(out.for_model, "Deleted f.txt.");
    assert!(!dir.path().join("f.txt").exists());
    let out = run(dir.path(), "fs_delete", json!({"path": "f.txt"})).await;
    assert_eq!(out.for_model, "fs_delete: f.txt does not exist");
}

#[tokio::test]
async fn fs_delete_removes_a_symlink_not_its_target() {
    let dir = workspace();
    put(dir.path(), "keep/a.txt", "x");
    std::os::unix::fs::symlink(dir.path().join("keep"), dir.path().join("link")).expect("symlink");
    let out = run(
        dir.path(),
        "fs_delete",
        json!({"path": "link", "recursive": true}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert!(std::fs::symlink_metadata(dir.path().join("link")).is_err());
    assert_eq!(get(dir.path(), "keep/a.txt"), "x");
}

#[tokio::test]
async fn fs_delete_refuses_the_working_directory_and_its_parents() {
    let dir = workspace();
    put(dir.path(), "a.txt", "x");
    for path in [".", "..", "/"] {
        let out = run(
            dir.path(),
            "fs_delete",
            json!({"path": path, "recursive": true}),
        )
        .await;
        assert!(!out.ok, "{path}");
        assert!(
            out.for_model
                .contains("because it contains the working directory"),
            "{}",
            out.for_model
        );
    }
    assert!(dir.path().join("a.txt").exists());
}

#[tokio::test]
async fn fs_move_renames_and_never_overwrites() {
    let dir = workspace();
    put(dir.path(), "a.txt", "A");
    put(dir.path(), "b.txt", "B");
    let out = run(
        dir.path(),
        "fs_move",
        json!({"from": "a.txt", "to": "b.txt"}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "fs_move: b.txt already exists; nothing was moved. fs_move never overwrites: delete the target first or pick another name."
    );
    assert_eq!(get(dir.path(), "b.txt"), "B");
    let out = run(
        dir.path(),
        "fs_move",
        json!({"from": "a.txt", "to": "sub/c.txt"}),
    )
    .await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(out.for_model, "Moved a.txt to sub/c.txt.");
    assert_eq!(get(dir.path(), "sub/c.txt"), "A");
    assert!(!dir.path().join("a.txt").exists());
    let out = run(
        dir.path(),
        "fs_move",
        json!({"from": "a.txt", "to": "d.txt"}),
    )
    .await;
    assert_eq!(out.for_model, "fs_move: a.txt does not exist");
}

#[tokio::test]
async fn fs_move_moves_directories_but_not_the_working_directory() {
    let dir = workspace();
    put(dir.path(), "d/a.txt", "A");
    let out = run(dir.path(), "fs_move", json!({"from": "d", "to": "e"})).await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(get(dir.path(), "e/a.txt"), "A");
    for from in [".", ".."] {
        let out = run(
            dir.path(),
            "fs_move",
            json!({"from": from, "to": "/tmp/elsewhere"}),
        )
        .await;
        assert!(!out.ok, "{from}");
        assert!(
            out.for_model
                .contains("because it contains the working directory"),
            "{}",
            out.for_model
        );
    }
    assert!(dir.path().join("e/a.txt").exists());
}
