//! The store's rules as tables: what a journal loads as, whatever state a crash or a
//! disk left it in, and answers that are used once.

use std::collections::HashMap;
use std::fmt::Write as _;

use expect_test::{Expect, expect};
use serde_json::json;
use warden_verdict::Risk;

use crate::record::encode_into;
use crate::*;

fn header(id: &str) -> Header {
    Header {
        id: id.into(),
        cwd: "/work/p".into(),
        created_ms: 1_790_000_000_000,
        model: "scripted".into(),
        mode: "ask".into(),
        title: None,
    }
}

fn proposed(id: &str) -> ProposedCall {
    ProposedCall {
        id: id.into(),
        tool: "terminal".into(),
        args: json!({"command": "echo hi >> log.txt"}),
        title: "echo hi >> log.txt".into(),
        kind: ToolKind::Execute,
        risk: Risk::Medium,
        reason: "writes log.txt".into(),
        options: vec![
            OfferedOption {
                id: "allow-once".into(),
                name: "Allow once".into(),
                kind: OptionKind::AllowOnce,
            },
            OfferedOption {
                id: "reject-once".into(),
                name: "Reject".into(),
                kind: OptionKind::RejectOnce,
            },
        ],
        grant: None,
        at_ms: 1_790_000_001_000,
    }
}

fn finished(id: &str, status: CallStatus) -> Record {
    Record::Finished(FinishedCall {
        call: id.into(),
        status,
        summary: format!("{id} {}", status.as_words()),
        told: "ok".into(),
    })
}

fn answered(id: &str, option: &str) -> Record {
    Record::Answered(AnswerRecord {
        call: id.into(),
        question: 1,
        option: option.into(),
        by: AnsweredBy::Editor,
        note: None,
    })
}

/// A journal of one turn: a prompt, a reply with three calls (one done, one asked and
/// waiting, one running) and the model's text.
fn turn() -> Vec<Record> {
    vec![
        Record::Header(header("s1")),
        Record::UserMessage { text: "hi".into() },
        Record::Conversation {
            message: Message::User { text: "hi".into() },
        },
        Record::AgentText {
            text: "Let me ".into(),
        },
        Record::AgentText {
            text: "look.".into(),
        },
        Record::Proposed(proposed("c1")),
        Record::Running { call: "c1".into() },
        finished("c1", CallStatus::Completed),
        Record::Proposed(proposed("c2")),
        Record::Asked {
            call: "c2".into(),
            request: "7".into(),
            question: 1,
            edited: false,
        },
        Record::Proposed(proposed("c3")),
        Record::Running { call: "c3".into() },
        Record::Mode {
            mode: "read-only".into(),
        },
    ]
}

fn bytes(records: &[Record]) -> Vec<u8> {
    records
        .iter()
        .flat_map(|r| encode(r).expect("encode"))
        .collect()
}

/// Lays out what a journal loads as, for the tables.
fn render(bytes: &[u8], claims: &HashMap<String, Claim>) -> String {
    let parsed = parse(bytes);
    let Some(rebuilt) = Rebuilt::new(parsed) else {
        return "no header\n".into();
    };
    let s = rebuilt.settle(claims);
    let mut out = String::new();
    writeln!(out, "session {} mode {}", s.header.id, s.mode).ok();
    for p in &s.problems {
        writeln!(out, "problem line {}: {:?}", p.line, p.kind).ok();
    }
    for item in &s.replay {
        match item {
            ReplayItem::User { text } => writeln!(out, "user: {text}"),
            ReplayItem::Agent { text } => writeln!(out, "agent: {text}"),
            ReplayItem::ToolCall(c) => writeln!(
                out,
                "call {} {:?}{}",
                c.id,
                c.status,
                c.content
                    .as_deref()
                    .map(|t| format!(": {}", &t[..t.len().min(40)]))
                    .unwrap_or_default()
            ),
        }
        .ok();
    }
    for w in &s.waiting {
        writeln!(out, "waiting {} asked {:?}", w.call.id, w.asked).ok();
    }
    for a in &s.answered {
        writeln!(
            out,
            "answered {} {} by {:?}",
            a.call.id, a.answer.option, a.answer.by
        )
        .ok();
    }
    for i in &s.interrupted {
        writeln!(out, "interrupted {} {:?}", i.call.id, i.why).ok();
    }
    writeln!(out, "conversation {} message(s)", s.conversation.len()).ok();
    out
}

fn check(bytes: &[u8], expect: Expect) {
    expect.assert_eq(&render(bytes, &HashMap::new()));
}

#[test]
fn a_whole_journal_loads_every_call_where_it_stood() {
    check(
        &bytes(&turn()),
        expect![[r#"
            session s1 mode read-only
            user: hi
            agent: Let me look.
            call c1 Completed: c1 completed
            call c2 Pending
            call c3 Failed: Interrupted: Warden stopped while this c
            waiting c2 asked Some("7")
            interrupted c3 WasRunning
            conversation 2 message(s)
        "#]],
    );
}

#[test]
fn a_torn_last_record_is_reported_and_the_rest_loads() {
    let mut b = bytes(&turn());
    let whole = b.len();
    b.extend_from_slice(&encode(&finished("c3", CallStatus::Completed)).expect("encode"));
    // Cut the last record in its middle: the crash happened while it was written.
    b.truncate(whole + 30);
    check(
        &b,
        expect![[r#"
            session s1 mode read-only
            problem line 14: Torn
            user: hi
            agent: Let me look.
            call c1 Completed: c1 completed
            call c2 Pending
            call c3 Failed: Interrupted: Warden stopped while this c
            waiting c2 asked Some("7")
            interrupted c3 WasRunning
            conversation 2 message(s)
        "#]],
    );
}

/// A record without its newline that verifies was written whole: it counts.
#[test]
fn a_whole_last_record_without_its_newline_loads() {
    let mut b = bytes(&turn()[..2]);
    b.pop();
    check(
        &b,
        expect![[r#"
            session s1 mode ask
            user: hi
            conversation 0 message(s)
        "#]],
    );
}

/// A damaged line in the middle may have been a call's `running` record, so no open
/// call is run or asked again: each is interrupted, and the model is told.
#[test]
fn a_corrupt_line_in_the_middle_interrupts_every_open_call() {
    let mut records = turn();
    records.insert(11, answered("c2", "allow-once"));
    let mut b = bytes(&records);
    // Flip one byte inside the `running` record of c3, keeping the line's length.
    let text = String::from_utf8(b.clone()).expect("utf-8");
    let at = text
        .find("\"running\",\"call\":\"c3\"")
        .expect("c3 running")
        + 18;
    b[at] = b'4';
    check(
        &b,
        expect![[r#"
            session s1 mode read-only
            problem line 13: Corrupt("checksum mismatch")
            user: hi
            agent: Let me look.
            call c1 Completed: c1 completed
            call c2 Failed: Interrupted: the session's journal is da
            call c3 Failed: Interrupted: the session's journal is da
            interrupted c2 Damaged
            interrupted c3 Damaged
            conversation 3 message(s)
        "#]],
    );
}

#[test]
fn lines_of_another_version_or_not_of_a_journal_are_skipped() {
    let mut b = bytes(&turn()[..2]);
    b.extend_from_slice(b"{\"v\":2,\"sum\":\"0000000000000000\",\"rec\":{\"type\":\"agent_text\",\"text\":\"new\"}}\n");
    b.extend_from_slice(b"not json\n\n   \n");
    b.extend_from_slice(b"{\"v\":1,\"sum\":\"00\",\"rec\":{}}\n");
    b.extend_from_slice(&bytes(&[Record::AgentText { text: "old".into() }]));
    check(
        &b,
        expect![[r#"
            session s1 mode ask
            problem line 3: Version(2)
            problem line 4: Corrupt("not a journal line")
            problem line 7: Corrupt("cut short")
            user: hi
            agent: old
            conversation 0 message(s)
        "#]],
    );
}

/// A record whose checksum verifies but whose type this build does not know (written
/// by hand, or by a later build that kept the version) is skipped, not guessed at.
#[test]
fn an_unknown_record_type_is_corrupt() {
    let rec = br#"{"type":"telepathy","call":"c9"}"#;
    let sum = {
        use sha2::{Digest, Sha256};
        hex::encode(&Sha256::digest(rec)[..8])
    };
    let mut b = bytes(&turn()[..1]);
    b.extend_from_slice(format!("{{\"v\":1,\"sum\":\"{sum}\",\"rec\":").as_bytes());
    b.extend_from_slice(rec);
    b.extend_from_slice(b"}\n");
    check(
        &b,
        expect![[r#"
            session s1 mode ask
            problem line 2: Corrupt("unknown record")
            conversation 0 message(s)
        "#]],
    );
}

#[test]
fn an_empty_or_headless_journal_is_no_session() {
    check(b"", expect!["no header\n"]);
    check(&bytes(&turn()[1..4]), expect!["no header\n"]);
    // A header cut short is no header either.
    let mut b = bytes(&turn()[..1]);
    b.truncate(b.len() / 2);
    check(&b, expect!["no header\n"]);
}

/// An answer found in the answers folder (from `warden pending` while no Warden ran)
/// is applied; one in the journal too; a call answered and then started is
/// interrupted, never answered again.
#[test]
fn answers_from_the_folder_or_the_journal_are_applied_once() {
    let mut records = turn();
    records.push(Record::Proposed(proposed("c4")));
    records.push(Record::Asked {
        call: "c4".into(),
        request: "8".into(),
        question: 1,
        edited: false,
    });
    records.push(answered("c4", "reject-once"));
    let claims = HashMap::from([(
        "c2".to_owned(),
        Claim {
            call: "c2".into(),
            question: 1,
            option: "allow-once".into(),
            by: AnsweredBy::Pending,
            note: None,
            at_ms: 1,
        },
    )]);
    expect![[r#"
        session s1 mode read-only
        user: hi
        agent: Let me look.
        call c1 Completed: c1 completed
        call c2 Pending
        call c3 Failed: Interrupted: Warden stopped while this c
        call c4 Pending
        answered c2 allow-once by Pending
        answered c4 reject-once by Editor
        interrupted c3 WasRunning
        conversation 2 message(s)
    "#]]
    .assert_eq(&render(&bytes(&records), &claims));
}

fn store() -> (tempfile::TempDir, SessionStore) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = SessionStore::open(dir.path().join("state/sessions")).expect("open");
    (dir, store)
}

/// A session's grants load with it, except those it revoked.
#[test]
fn a_revoked_session_grant_does_not_come_back() {
    let (_dir, store) = store();
    let grant = |id: &str| warden_permissions::Grant {
        id: id.into(),
        created_at: std::time::UNIX_EPOCH,
        expires_at: None,
        client: "test".into(),
        effect: warden_permissions::Effect::Allow,
        scope: warden_permissions::Scope::Session,
        project: None,
        session: Some("s1".into()),
        matchers: vec![warden_permissions::GrantMatcher::Tool {
            tool: "fs_write".into(),
        }],
        max_risk: Risk::Medium,
        widens: Default::default(),
    };
    let mut journal = store.create(&header("s1")).expect("create");
    for record in [
        Record::Grant { grant: grant("g1") },
        Record::Grant { grant: grant("g2") },
        Record::Revoked { id: "g1".into() },
    ] {
        journal.append(&record).expect("append");
    }
    let loaded = store.load("s1").expect("load");
    let ids: Vec<&str> = loaded.grants.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["g2"]);
}

/// Appending after a crash that tore the last line starts a fresh line, so the new
/// record loads and only the torn one is lost.
#[test]
fn appending_after_a_torn_line_loses_only_that_line() {
    let (_dir, store) = store();
    let mut journal = store.create(&header("s1")).expect("create");
    journal
        .append(&Record::UserMessage { text: "one".into() })
        .expect("append");
    drop(journal);
    let path = store.journal_path("s1").expect("path");
    let mut b = std::fs::read(&path).expect("read");
    b.extend_from_slice(b"{\"v\":1,\"sum\":\"12");
    std::fs::write(&path, &b).expect("write");
    let mut journal = store.reopen("s1").expect("reopen");
    journal
        .append(&Record::UserMessage { text: "two".into() })
        .expect("append");
    let loaded = store.load("s1").expect("load");
    assert_eq!(
        loaded.replay,
        vec![
            ReplayItem::User { text: "one".into() },
            ReplayItem::User { text: "two".into() }
        ]
    );
    assert_eq!(
        loaded.problems,
        vec![Problem {
            line: 3,
            kind: LineProblem::Corrupt("cut short")
        }]
    );
}

/// Staged records reach the file only when flushed or when a record is appended after
/// them, and then in the order they were staged; a line encoded into a buffer that holds
/// others is the same line `encode` gives.
#[test]
fn staged_records_are_written_in_their_order_with_the_next_write() {
    let (_dir, store) = store();
    let mut journal = store.create(&header("s1")).expect("create");
    let path = store.journal_path("s1").expect("path");
    let written = || std::fs::read(&path).expect("read").len();
    let before = written();
    journal
        .stage(&Record::UserMessage { text: "one".into() })
        .expect("stage");
    journal
        .stage(&Record::AgentText { text: "two".into() })
        .expect("stage");
    assert_eq!(written(), before, "staged records are not written yet");
    journal
        .append(&Record::UserMessage {
            text: "three".into(),
        })
        .expect("append");
    journal
        .stage(&Record::AgentText {
            text: "four".into(),
        })
        .expect("stage");
    journal.flush().expect("flush");
    journal.flush().expect("a flush with nothing staged");
    let loaded = store.load("s1").expect("load");
    assert_eq!(
        loaded.replay,
        vec![
            ReplayItem::User { text: "one".into() },
            ReplayItem::Agent { text: "two".into() },
            ReplayItem::User {
                text: "three".into()
            },
            ReplayItem::Agent {
                text: "four".into()
            },
        ]
    );
    let mut buffer = b"earlier".to_vec();
    let record = Record::Proposed(proposed("c1"));
    encode_into(&record, &mut buffer).expect("encode");
    assert_eq!(&buffer[7..], encode(&record).expect("encode").as_slice());
    assert_eq!(decode(&buffer[7..buffer.len() - 1]), Ok(record));
}

fn claim(call: &str, option: &str) -> Claim {
    Claim {
        call: call.into(),
        question: 1,
        option: option.into(),
        by: AnsweredBy::Editor,
        note: None,
        at_ms: 1,
    }
}

#[test]
fn a_second_answer_is_refused_and_the_first_one_stands() {
    let (_dir, store) = store();
    let first = claim("c1", "allow-once");
    assert_eq!(store.claim("s1", &first).expect("claim"), ClaimResult::Won);
    assert_eq!(
        store
            .claim("s1", &claim("c1", "reject-once"))
            .expect("claim"),
        ClaimResult::Taken(Some(first.clone()))
    );
    assert_eq!(store.claim_of("s1", "c1", 1).expect("look"), Some(first));
    assert_eq!(store.claim_of("s1", "c2", 1).expect("look"), None);
    // The same call id in another session is another call.
    assert_eq!(
        store
            .claim("s2", &claim("c1", "reject-once"))
            .expect("claim"),
        ClaimResult::Won
    );
}

/// A claim made with a spare file (linked under the call's name) is exclusive like one
/// made by creating the file: it wins once, a later claim of either kind is refused
/// with the first answer, a refused spare comes back unused, and once synced the answer
/// reads back as written. The spare's own name does not stay in the folder.
#[test]
fn a_claim_made_with_a_spare_is_used_once_like_any_other() {
    let (_dir, store) = store();
    let first = claim("c1", "allow-once");
    let spare = store.spare("s1").expect("spare");
    let Taken::Won(unsynced) = store.take("s1", &first, spare).expect("take") else {
        panic!("the first claim wins");
    };
    unsynced.sync().expect("sync");
    assert_eq!(
        store.claim_of("s1", "c1", 1).expect("look"),
        Some(first.clone())
    );
    assert_eq!(
        store
            .claim("s1", &claim("c1", "reject-once"))
            .expect("claim"),
        ClaimResult::Taken(Some(first.clone()))
    );
    let again = store.spare("s1").expect("spare");
    match store
        .take("s1", &claim("c1", "reject-once"), again)
        .expect("take")
    {
        Taken::Before(owner, spare) => {
            assert_eq!(owner, Some(first.clone()));
            // Unused: it claims another call.
            assert!(matches!(
                store.take("s1", &claim("c2", "reject-once"), spare),
                Ok(Taken::Won(_))
            ));
        }
        Taken::Won(_) => panic!("a second claim with a spare won"),
    }
    let dir = store.answers_dir("s1").expect("dir");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("read")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["c1", "c2"]);
}

/// Many answers racing for one call, from threads of their own: exactly one wins.
#[test]
fn answers_racing_for_one_call_have_one_winner() {
    let (_dir, store) = store();
    for round in 0..20 {
        let call = format!("c{round}");
        let barrier = std::sync::Barrier::new(8);
        let won = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let (store, call, barrier) = (&store, &call, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        let option = if i % 2 == 0 {
                            "allow-once"
                        } else {
                            "reject-once"
                        };
                        store.claim("s1", &claim(call, option)).expect("claim")
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("join"))
                .filter(|r| *r == ClaimResult::Won)
                .count()
        });
        assert_eq!(won, 1, "round {round}");
    }
}

/// Call ids come from the model: one that could name another file, or is long, gets a
/// hashed file name, and two such ids never share an answer.
#[test]
fn call_ids_that_are_not_plain_names_get_answers_of_their_own() {
    let (_dir, store) = store();
    let long_a = format!("{}a", "x".repeat(150));
    let long_b = format!("{}b", "x".repeat(150));
    for call in [
        "../../grants.jsonl",
        ".hidden",
        "a/b",
        &long_a,
        &long_b,
        "%41",
    ] {
        assert_eq!(
            store
                .claim("s1", &claim(call, "allow-once"))
                .expect("claim"),
            ClaimResult::Won,
            "{call}"
        );
    }
    let names: Vec<String> = std::fs::read_dir(store.answers_dir("s1").expect("dir"))
        .expect("read")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 6);
    assert!(
        names.iter().all(|n| n.starts_with('%') && n.len() == 65),
        "{names:?}"
    );
    assert!(!store.dir().join("grants.jsonl").exists());
}

#[test]
fn session_ids_that_could_name_another_file_are_refused() {
    let (_dir, store) = store();
    for id in ["", "../x", ".x", "a/b", "a\0b", &"x".repeat(129)] {
        assert!(
            matches!(store.load(id), Err(SessionStoreError::InvalidId { .. })),
            "{id:?}"
        );
    }
    assert!(matches!(
        store.load("sess_1"),
        Err(SessionStoreError::NotFound { .. })
    ));
}

#[cfg(unix)]
#[test]
fn a_folder_others_may_use_is_refused_with_the_reason() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = dir.path().join("sessions");
    SessionStore::open(&sessions).expect("open");
    let mode = std::fs::metadata(&sessions)
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
    for loose in [0o750, 0o705, 0o777] {
        std::fs::set_permissions(&sessions, std::fs::Permissions::from_mode(loose)).expect("chmod");
        let err = SessionStore::open(&sessions).expect_err("loose folder");
        assert!(
            matches!(&err, SessionStoreError::Unsafe { reason, .. } if reason.contains(&format!("{loose:o}"))),
            "{err}"
        );
    }
    std::fs::set_permissions(&sessions, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&sessions, &link).expect("symlink");
    let err = SessionStore::open(&link).expect_err("symlink");
    assert!(err.to_string().contains("not a folder"), "{err}");
}

#[cfg(unix)]
#[test]
fn journals_and_answers_are_the_user_s_only() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, store) = store();
    store.create(&header("s1")).expect("create");
    store
        .claim("s1", &claim("c1", "allow-once"))
        .expect("claim");
    let mode =
        |p: std::path::PathBuf| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(store.journal_path("s1").expect("path")), 0o600);
    assert_eq!(mode(store.answers_dir("s1").expect("dir")), 0o700);
    assert_eq!(
        mode(store.answers_dir("s1").expect("dir").join("c1")),
        0o600
    );
    // A session id is created once: a second header for it is refused.
    assert!(store.create(&header("s1")).is_err());
}

/// Sessions pending approval, listed across sessions and answered by their id.
#[test]
fn pending_calls_are_listed_across_sessions_and_answered_once() {
    let (_dir, store) = store();
    for id in ["s1", "s2"] {
        let mut j = store.create(&header(id)).expect("create");
        for r in &turn()[1..] {
            j.append(r).expect("append");
        }
    }
    let ids: Vec<String> = store
        .pending()
        .expect("pending")
        .iter()
        .map(PendingCall::id)
        .collect();
    assert_eq!(ids, ["s1/c2", "s2/c2"]);
    assert!(matches!(store.find_pending("s").expect("find"), Lookup::Ambiguous(v) if v.len() == 2));
    assert_eq!(store.find_pending("s3").expect("find"), Lookup::NotFound);
    let Lookup::Found(call) = store.find_pending("s2").expect("find") else {
        panic!("s2 names one call");
    };
    assert_eq!(
        store
            .answer_pending(&call, false, Some("no".into()))
            .expect("answer"),
        ClaimResult::Won
    );
    assert!(matches!(
        store.answer_pending(&call, true, None).expect("answer"),
        ClaimResult::Taken(Some(Claim { ref option, .. })) if option == "reject-once"
    ));
    let ids: Vec<String> = store
        .pending()
        .expect("pending")
        .iter()
        .map(PendingCall::id)
        .collect();
    assert_eq!(ids, ["s1/c2"]);
    let loaded = store.load("s2").expect("load");
    assert_eq!(loaded.answered.len(), 1);
    assert_eq!(loaded.answered[0].answer.note.as_deref(), Some("no"));
}

#[test]
fn pruning_drops_old_sessions_then_the_oldest_beyond_the_limit() {
    let (_dir, store) = store();
    let now = std::time::SystemTime::now();
    let day = std::time::Duration::from_secs(24 * 60 * 60);
    for (id, age_days) in [("a", 0), ("b", 1), ("c", 2), ("old", 31), ("open", 40)] {
        store.create(&header(id)).expect("create");
        let file = std::fs::File::options()
            .append(true)
            .open(store.journal_path(id).expect("path"))
            .expect("open");
        file.set_modified(now - day * age_days).expect("touch");
        store.claim(id, &claim("c1", "allow-once")).expect("claim");
    }
    let retention = Retention {
        days: 30,
        max_sessions: 3,
    };
    // `open` is kept however old: this process has it open. It counts towards the
    // limit, so the oldest of the others beyond it go.
    assert_eq!(store.prune(now, retention, &["open"]).expect("prune"), 2);
    let left: Vec<String> = store
        .list()
        .expect("list")
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(left, ["a", "b", "open"]);
    assert!(!store.answers_dir("old").expect("dir").exists());
    assert!(!store.answers_dir("c").expect("dir").exists());
}

/// Who holds a journal when a Warden opens it (see `lock.rs`).
#[derive(Debug, Clone, Copy)]
enum Holder {
    Nobody,
    /// Another process: a lock taken on a file of its own, outside the store, which
    /// the kernel treats as any other holder's and this process does not count as its
    /// own.
    OtherProcess,
    OtherProcessGone,
    /// A journal this process has open.
    ThisProcess,
    ThisProcessGone,
}

fn lock_elsewhere(store: &SessionStore, id: &str) -> std::fs::File {
    let file = std::fs::File::open(store.journal_path(id).expect("path")).expect("open");
    file.try_lock().expect("the journal is free");
    file
}

/// Opens a stored session's journal (with a torn last line) while `holder` holds it,
/// and says what became of the open and whether the journal changed.
fn open_while(holder: Holder) -> String {
    let (_dir, store) = store();
    drop(store.create(&header("s1")).expect("create"));
    let path = store.journal_path("s1").expect("path");
    let mut torn = std::fs::read(&path).expect("read");
    torn.extend_from_slice(b"{\"v\":1,\"sum\":\"12");
    std::fs::write(&path, &torn).expect("write");
    let (mut other, mut ours) = (None, None);
    match holder {
        Holder::Nobody => {}
        Holder::OtherProcess => other = Some(lock_elsewhere(&store, "s1")),
        Holder::OtherProcessGone => drop(lock_elsewhere(&store, "s1")),
        Holder::ThisProcess => ours = Some(store.reopen("s1").expect("reopen")),
        Holder::ThisProcessGone => drop(store.reopen("s1").expect("reopen")),
    }
    // Without waiting: this process's own hold would otherwise be waited for.
    let opened = Journal::reopen(path.clone(), "s1", std::time::Duration::ZERO);
    let changed = std::fs::read(&path).expect("read") != torn;
    let outcome = match opened {
        Ok(_) => "opened".to_owned(),
        Err(e) => e.to_string(),
    };
    drop((other, ours));
    format!(
        "{holder:?}: {outcome}{}",
        if changed {
            " (the journal changed)"
        } else {
            ""
        }
    )
}

/// Regression: two Wardens that loaded one session both appended to its journal. A
/// journal has one owner at a time; a refused open writes nothing.
#[test]
fn a_journal_opens_for_one_owner_at_a_time() {
    let got: Vec<String> = [
        Holder::Nobody,
        Holder::OtherProcess,
        Holder::OtherProcessGone,
        Holder::ThisProcess,
        Holder::ThisProcessGone,
    ]
    .into_iter()
    .map(open_while)
    .collect();
    expect![[r#"
        Nobody: opened
        OtherProcess: session s1 is open in another Warden process
        OtherProcessGone: opened
        ThisProcess: session s1 is still in use in this Warden process (being loaded or closed); try again
        ThisProcessGone: opened"#]]
    .assert_eq(&got.join("\n"));
}

/// A new session's journal is held from its creation: a load of it elsewhere is
/// refused until it is dropped, and the store's own open does not wait for another
/// process.
#[test]
fn a_new_session_s_journal_is_held_until_it_is_dropped() {
    let (_dir, store) = store();
    let journal = store.create(&header("s1")).expect("create");
    let path = store.journal_path("s1").expect("path");
    let elsewhere = std::fs::File::open(&path).expect("open");
    assert!(matches!(
        elsewhere.try_lock(),
        Err(std::fs::TryLockError::WouldBlock)
    ));
    drop(journal);
    elsewhere.try_lock().expect("free once dropped");
    assert!(matches!(
        store.reopen("s1"),
        Err(SessionStoreError::Busy { ref id }) if id == "s1"
    ));
}

/// A session closed a moment ago may still be ending its turn when it is loaded
/// again: the load waits for this process's own hold to end, and then opens.
#[test]
fn an_open_waits_for_this_process_to_let_go_of_the_journal() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_dir, store) = store();
    let first = store.create(&header("s1")).expect("create");
    let waits = lock::WAITS.load(Ordering::SeqCst);
    let gave_up = std::sync::Arc::new(AtomicBool::new(false));
    let told = gave_up.clone();
    let holder = std::thread::spawn(move || {
        // Let go only once the open below waits (or has given up without waiting):
        // then nothing but the wait lets it through.
        while lock::WAITS.load(Ordering::SeqCst) == waits && !told.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        drop(first);
    });
    let second = store.reopen("s1");
    gave_up.store(true, Ordering::SeqCst);
    holder.join().expect("the holder");
    let mut second = second.expect("opened after the first let go");
    second
        .append(&Record::UserMessage { text: "on".into() })
        .expect("append");
}

/// A session a running Warden holds is neither deleted nor pruned; once let go, it is.
#[test]
fn a_session_another_process_holds_is_neither_deleted_nor_pruned() {
    let (_dir, store) = store();
    drop(store.create(&header("s1")).expect("create"));
    let other = lock_elsewhere(&store, "s1");
    assert!(matches!(
        store.delete("s1"),
        Err(SessionStoreError::Busy { .. })
    ));
    let none = Retention {
        days: 0,
        max_sessions: 0,
    };
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(86_400);
    assert_eq!(store.prune(later, none, &[]).expect("prune"), 0);
    assert!(store.journal_path("s1").expect("path").exists());
    drop(other);
    assert!(store.delete("s1").expect("delete"));
    assert!(!store.journal_path("s1").expect("path").exists());
}

/// Regression: a second `warden pending` answer to a call answered and used since read
/// as an unknown id. What an id names, after `s1/c2` was answered (`s2/c2` waits).
#[test]
fn an_answered_call_is_told_apart_from_an_unknown_id() {
    let (_dir, store) = store();
    for id in ["s1", "s2"] {
        let mut j = store.create(&header(id)).expect("create");
        for r in &turn()[1..] {
            j.append(r).expect("append");
        }
    }
    let Lookup::Found(call) = store.find_pending("s1/c2").expect("find") else {
        panic!("s1/c2 waits");
    };
    store
        .answer_pending(&call, true, Some("ok".into()))
        .expect("answer");
    let got: Vec<String> = [
        "s1/c2", "s1/c", "s1", "s2/c2", "s", "s1/c1", "s1/c9", "s9/c2", "../x/c2",
    ]
    .into_iter()
    .map(|q| {
        let found = match store.find_pending(q).expect("find") {
            Lookup::Found(c) => format!("waiting {}", c.id()),
            Lookup::Answered { call, first } => format!(
                "answered {} ({} by {}, {:?})",
                call.id(),
                first.option,
                first.by.as_words(),
                first.note
            ),
            Lookup::NotFound => "not found".to_owned(),
            Lookup::Ambiguous(ids) => format!("ambiguous {ids:?}"),
        };
        format!("{q}: {found}")
    })
    .collect();
    expect![[r#"
        s1/c2: answered s1/c2 (allow-once by warden pending, Some("ok"))
        s1/c: answered s1/c2 (allow-once by warden pending, Some("ok"))
        s1: answered s1/c2 (allow-once by warden pending, Some("ok"))
        s2/c2: waiting s2/c2
        s: waiting s2/c2
        s1/c1: not found
        s1/c9: not found
        s9/c2: not found
        ../x/c2: not found"#]]
    .assert_eq(&got.join("\n"));
}

fn asked(id: &str, question: u32, edited: bool) -> Record {
    Record::Asked {
        call: id.into(),
        request: question.to_string(),
        question,
        edited,
    }
}

fn answer_of(id: &str, question: u32, option: &str, by: AnsweredBy) -> Claim {
    Claim {
        call: id.into(),
        question,
        option: option.into(),
        by,
        note: None,
        at_ms: 1,
    }
}

/// A session whose call `c1` was asked twice (an edit raised its risk): the first
/// question's answer is in the journal and in its file, the second waits.
fn asked_twice(store: &SessionStore) {
    let mut journal = store.create(&header("s1")).expect("create");
    let first = answer_of("c1", 1, "allow-once", AnsweredBy::Editor);
    store.claim("s1", &first).expect("claim");
    for record in [
        Record::Proposed(proposed("c1")),
        asked("c1", 1, false),
        Record::Answered(first.record()),
        Record::Proposed(ProposedCall {
            args: json!({"command": "echo hi >> ~/.bashrc"}),
            risk: Risk::Critical,
            ..proposed("c1")
        }),
        asked("c1", 2, true),
    ] {
        journal.append(&record).expect("append");
    }
}

/// What broke: answers were claimed per call, so the answer to a call's second question
/// found the first question's file and the first answer (`allow-once`) stood in for it.
/// Each question has its own file: the second question's answer is its own, and the
/// first question's answer never reads as the second's.
#[test]
fn an_answer_to_a_first_question_never_answers_the_second() {
    let (_dir, store) = store();
    asked_twice(&store);
    let loaded = store.load("s1").expect("load");
    assert_eq!(
        loaded.answered,
        [],
        "the first question's answer is not the call's"
    );
    let [waiting] = loaded.waiting.as_slice() else {
        panic!("one waiting call: {:?}", loaded.waiting);
    };
    assert_eq!((waiting.question, waiting.edited), (2, true));
    assert_eq!(waiting.call.args["command"], "echo hi >> ~/.bashrc");
    assert_eq!(store.claim_of("s1", "c1", 2).expect("look"), None);
    let reject = answer_of("c1", 2, "reject-once", AnsweredBy::Editor);
    assert_eq!(store.claim("s1", &reject).expect("claim"), ClaimResult::Won);
    assert_eq!(
        store.claim_of("s1", "c1", 2).expect("look"),
        Some(reject.clone())
    );
    let loaded = store.load("s1").expect("load");
    let [answered] = loaded.answered.as_slice() else {
        panic!("one answered call: {:?}", loaded.answered);
    };
    assert_eq!(answered.answer, reject.record());
    assert!(answered.unapplied);
    // A file holding another question's answer reads as unreadable (a denial), never
    // as the answer it holds.
    let dir = store.answers_dir("s1").expect("dir");
    std::fs::copy(dir.join("c1"), dir.join("c1#3")).expect("copy");
    let copied = store
        .claim_of("s1", "c1", 3)
        .expect("look")
        .expect("a file");
    assert_eq!(copied.option, UNREADABLE_CLAIM_OPTION);
}

/// `warden pending` answers a call's latest open question.
#[test]
fn pending_lists_and_answers_the_latest_question() {
    let (_dir, store) = store();
    asked_twice(&store);
    let Lookup::Found(call) = store.find_pending("s1/c1").expect("find") else {
        panic!("the call waits");
    };
    assert_eq!(call.question, 2);
    assert_eq!(call.call.risk, Risk::Critical);
    assert_eq!(
        store.answer_pending(&call, false, None).expect("answer"),
        ClaimResult::Won
    );
    assert_eq!(
        store.claim_of("s1", "c1", 2).expect("look").map(|c| c.by),
        Some(AnsweredBy::Pending)
    );
    assert!(matches!(
        store.find_pending("s1/c1").expect("find"),
        Lookup::Answered { first, .. } if first.question == 2 && first.option == "reject-once"
    ));
}

/// At load, Warden closes the open question of every waiting call before asking it
/// again: an answer given to it before the close wins and is used; one given after is
/// refused, so no answer to a question that is no longer open is taken.
#[test]
fn a_load_closes_open_questions_so_a_late_answer_to_them_is_refused() {
    let (_dir, store) = store();
    asked_twice(&store);
    let mut loaded = store.load("s1").expect("load");
    store.close_waiting_questions(&mut loaded).expect("close");
    assert_eq!(loaded.waiting.len(), 1, "still waiting, to be asked again");
    let late = answer_of("c1", 2, "allow-once", AnsweredBy::Pending);
    assert!(matches!(
        store.claim("s1", &late).expect("claim"),
        ClaimResult::Taken(Some(Claim { by: AnsweredBy::Warden, ref option, .. }))
            if option == SUPERSEDED_OPTION
    ));

    let (_dir, store) = self::store();
    asked_twice(&store);
    let mut loaded = store.load("s1").expect("load");
    // Answered between the load's read and its close: the answer is used.
    let early = answer_of("c1", 2, "allow-once", AnsweredBy::Pending);
    assert_eq!(store.claim("s1", &early).expect("claim"), ClaimResult::Won);
    store.close_waiting_questions(&mut loaded).expect("close");
    assert_eq!(loaded.waiting, []);
    let [answered] = loaded.answered.as_slice() else {
        panic!("one answered call: {:?}", loaded.answered);
    };
    assert_eq!((answered.answer.question, answered.unapplied), (2, true));
    assert_eq!(answered.answer.by, AnsweredBy::Pending);
}

/// A journal written before questions had numbers loads: its `asked` records count as
/// questions 1, 2, … and an answer without a number answers the latest.
#[test]
fn a_journal_without_question_numbers_still_loads() {
    let old = [
        r#"{"type":"header","id":"s1","cwd":"/work/p","created_ms":1,"model":"scripted","mode":"ask","title":null}"#,
        r#"{"type":"proposed","id":"c1","tool":"terminal","args":{"command":"ls"},"title":"ls","kind":"execute","risk":"medium","reason":"r","options":[],"grant":null,"at_ms":1}"#,
        r#"{"type":"asked","call":"c1","request":"1"}"#,
        r#"{"type":"asked","call":"c1","request":"2"}"#,
        r#"{"type":"answered","call":"c1","option":"reject-once","by":"editor","note":null}"#,
    ];
    let records: Vec<Record> = old
        .iter()
        .map(|r| serde_json::from_str(r).expect("an old record"))
        .collect();
    let (_dir, store) = store();
    let mut journal = store.create(&header("s1")).expect("create");
    for record in &records[1..] {
        journal.append(record).expect("append");
    }
    let loaded = store.load("s1").expect("load");
    let [answered] = loaded.answered.as_slice() else {
        panic!("one answered call: {:?}", loaded.answered);
    };
    assert_eq!(answered.answer.question, 2);
    assert!(!answered.unapplied);
    let old_claim: Claim = serde_json::from_str(
        r#"{"call":"c1","option":"allow-once","by":"pending","note":null,"at_ms":1}"#,
    )
    .expect("an old claim");
    assert_eq!(old_claim.question, 1);
}

/// Regression: `reject-and-stop` is a `reject_once` option as well; `warden pending deny`
/// answers `reject-once` even when the stopping option is listed first, so a denial
/// from another terminal never stops the turn.
#[test]
fn a_denial_from_pending_is_reject_once_not_reject_and_stop() {
    let (_dir, store) = store();
    let mut call = proposed("c2");
    call.options.insert(
        0,
        OfferedOption {
            id: "reject-and-stop".into(),
            name: "Reject and stop".into(),
            kind: OptionKind::RejectOnce,
        },
    );
    let mut j = store.create(&header("s1")).expect("create");
    for r in [
        Record::Proposed(call),
        Record::Asked {
            call: "c2".into(),
            request: "1".into(),
            question: 1,
            edited: false,
        },
    ] {
        j.append(&r).expect("append");
    }
    let Lookup::Found(pending) = store.find_pending("s1").expect("find") else {
        panic!("s1 has one call waiting");
    };
    assert_eq!(
        store.answer_pending(&pending, false, None).expect("answer"),
        ClaimResult::Won
    );
    assert!(matches!(
        store.answer_pending(&pending, true, None).expect("answer"),
        ClaimResult::Taken(Some(Claim { ref option, .. })) if option == "reject-once"
    ));
}
