use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use warden_i18n::Language;
use warden_tools::{Place, locations, title};

use super::support::call;

fn check(tool: &str, args: Value, expect: expect_test::Expect) {
    let call = call(tool, args);
    let cwd = Path::new("/w");
    let home = Some(Path::new("/home/u"));
    let locations: Vec<String> = locations(&call, cwd, home)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let place = Place {
        cwd,
        home,
        language: Language::English,
    };
    expect.assert_eq(&format!(
        "{} | {}",
        title(&call, place),
        locations.join(", ")
    ));
}

#[test]
fn titles_follow_the_session_s_language_and_keep_paths_and_commands() {
    let place = Place {
        cwd: Path::new("/w"),
        home: None,
        language: Language::SimplifiedChinese,
    };
    let titles: Vec<String> = [
        ("terminal", json!({"command": "npm test"})),
        ("fs_write", json!({"path": "notes.txt", "content": "hello"})),
        ("fs_delete", json!({"path": "build", "recursive": true})),
    ]
    .into_iter()
    .map(|(tool, args)| title(&call(tool, args), place))
    .collect();
    assert_eq!(
        titles,
        [
            "运行 `npm test`",
            "向 notes.txt 写入 5 字节",
            "删除 build 及其中的全部内容"
        ]
    );
}

#[test]
fn titles_and_locations_say_what_a_call_does() {
    use expect_test::expect;
    check(
        "fs_read",
        json!({"path": "src/main.rs"}),
        expect!["Read src/main.rs | /w/src/main.rs"],
    );
    check(
        "fs_read",
        json!({"path": "/w/a.rs", "line": 10, "limit": 20}),
        expect!["Read a.rs (lines 10-29) | /w/a.rs"],
    );
    // `~` is the home folder, as the permission engine reads it.
    check(
        "fs_write",
        json!({"path": "~/.bashrc", "content": "x"}),
        expect!["Write 1 byte to /home/u/.bashrc | /home/u/.bashrc"],
    );
    check(
        "fs_read",
        json!({"path": "a.rs", "line": 10}),
        expect!["Read a.rs from line 10 | /w/a.rs"],
    );
    check(
        "fs_read",
        json!({"path": "../etc/passwd"}),
        expect!["Read /etc/passwd | /etc/passwd"],
    );
    check("fs_list", json!({"path": "."}), expect!["List . | /w"]);
    check(
        "fs_search",
        json!({"pattern": "fn main"}),
        expect!["Search for `fn main` | /w"],
    );
    check(
        "fs_search",
        json!({"pattern": "x", "path": "src"}),
        expect!["Search for `x` in src | /w/src"],
    );
    check(
        "fs_write",
        json!({"path": "src/lib.rs", "content": "x".repeat(120)}),
        expect!["Write 120 bytes to src/lib.rs | /w/src/lib.rs"],
    );
    check(
        "fs_write",
        json!({"path": "a", "content": "x"}),
        expect!["Write 1 byte to a | /w/a"],
    );
    check(
        "fs_edit",
        json!({"path": "a", "old_text": "x", "new_text": "y"}),
        expect!["Edit a | /w/a"],
    );
    check(
        "fs_delete",
        json!({"path": "build", "recursive": true}),
        expect!["Delete build and everything in it | /w/build"],
    );
    check(
        "fs_delete",
        json!({"path": "a.txt"}),
        expect!["Delete a.txt | /w/a.txt"],
    );
    check(
        "fs_move",
        json!({"from": "a", "to": "/tmp/b"}),
        expect!["Move a to /tmp/b | /w/a, /tmp/b"],
    );
    check(
        "terminal",
        json!({"command": "npm test"}),
        expect!["Run `npm test` | "],
    );
    check(
        "terminal",
        json!({"command": "make\n&& make install", "cwd": "sub"}),
        expect!["Run `make && make install` in sub | "],
    );
    check(
        "terminal",
        json!({"command": "x".repeat(200)}),
        expect![
            "Run `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…` | "
        ],
    );
    check(
        "http_fetch",
        json!({"url": "https://docs.rs/"}),
        expect!["Fetch https://docs.rs/ | "],
    );
    check(
        "http_fetch",
        json!({"url": "https://api.x/y", "method": "DELETE"}),
        expect!["DELETE https://api.x/y | "],
    );
    assert_eq!(
        PathBuf::from("/w"),
        warden_tools::resolve(Path::new("/w"), None, Path::new(""))
    );
}
