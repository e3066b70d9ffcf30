//! Codex's `apply_patch` bodies read file by file.

use serde_json::json;
use warden_hook::{PatchError, parse_patch};

#[test]
fn each_file_of_a_patch_is_one_call() {
    let patch = [
        "*** Begin Patch",
        "*** Add File: hello.txt",
        "+Hello",
        "+world",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ def greet():",
        " context",
        "-print(\"Hi\")",
        "+print(\"Hello\")",
        "*** End of File",
        "*** Delete File: obsolete.txt",
        "*** End Patch",
        "",
    ]
    .join("\n");
    let calls = parse_patch(&patch).unwrap();
    let got: Vec<(&str, serde_json::Value)> =
        calls.iter().map(|c| (c.tool, c.args.clone())).collect();
    assert_eq!(
        got,
        [
            (
                "fs_write",
                json!({"path": "hello.txt", "content": "Hello\nworld\n"})
            ),
            (
                "fs_edit",
                json!({"path": "src/app.py", "old_text": "context\nprint(\"Hi\")\n", "new_text": "context\nprint(\"Hello\")\n"})
            ),
            (
                "fs_write",
                json!({"path": "src/main.py", "content": "context\nprint(\"Hello\")\n"})
            ),
            ("fs_delete", json!({"path": "src/app.py"})),
            ("fs_delete", json!({"path": "obsolete.txt"})),
        ]
    );
}

#[test]
fn a_patch_that_cannot_be_read_is_an_error() {
    let cases: [(&str, PatchError); 5] = [
        ("*** Add File: a\n+x\n*** End Patch", PatchError::NoBegin),
        ("*** Begin Patch\n*** Add File: a\n+x\n", PatchError::NoEnd),
        ("*** Begin Patch\n*** End Patch", PatchError::Empty),
        (
            "*** Begin Patch\nrm -rf /\n*** End Patch",
            PatchError::Unexpected {
                line: 2,
                text: "rm -rf /".to_owned(),
            },
        ),
        (
            "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
            PatchError::Unexpected {
                line: 3,
                text: "x".to_owned(),
            },
        ),
    ];
    for (patch, expected) in cases {
        assert_eq!(parse_patch(patch), Err(expected), "{patch}");
    }
}
