//! Redacting the known values of Warden's own secrets from tool output: whole text,
//! text in chunks, overlapping values, and values too short to redact.

use warden_redact::{KnownSecrets, MIN_SECRET_LEN};

const KEY: &str = "sk-test-0123456789abcdef";

fn secrets(pairs: &[(&str, &str)]) -> KnownSecrets {
    KnownSecrets::new(pairs.iter().map(|(n, v)| (*n, *v)))
}

#[track_caller]
fn check(pairs: &[(&str, &str)], input: &str, expected: &str) {
    assert_eq!(secrets(pairs).redact(input), expected, "input: {input}");
}

#[test]
fn every_occurrence_of_a_value_becomes_its_marker() {
    let key = [("OPENAI_API_KEY", KEY)];
    check(&key, "nothing here", "nothing here");
    check(
        &key,
        &format!("OPENAI_API_KEY={KEY}\nagain {KEY}{KEY}"),
        "OPENAI_API_KEY=[redacted: OPENAI_API_KEY]\nagain [redacted: OPENAI_API_KEY][redacted: OPENAI_API_KEY]",
    );
    check(&key, "sk-test-0123456789abcde", "sk-test-0123456789abcde");
    check(&[], KEY, KEY);
}

#[test]
fn overlapping_values_hide_every_byte_and_name_the_longest() {
    // One value inside another: the longer one names the range.
    check(
        &[
            ("SHORT_TOKEN", "0123456789"),
            ("LONG_TOKEN", "xx0123456789yy"),
        ],
        "a xx0123456789yy b 0123456789 c",
        "a [redacted: LONG_TOKEN] b [redacted: SHORT_TOKEN] c",
    );
    // Two values that overlap without either containing the other: nothing of
    // either is left.
    check(
        &[("A_TOKEN", "abcdefgh1234"), ("B_TOKEN", "1234ijklmnop")],
        "<abcdefgh1234ijklmnop>",
        "<[redacted: A_TOKEN]>",
    );
    // Overlapping occurrences of one value.
    check(
        &[("A_KEY", "aaaaaaaa")],
        "aaaaaaaaaa!",
        "[redacted: A_KEY]!",
    );
    // The same value under two names is redacted once.
    check(
        &[("A_KEY", "same-value-1"), ("B_KEY", "same-value-1")],
        "same-value-1",
        "[redacted: A_KEY]",
    );
}

#[test]
fn values_too_short_to_redact_are_left_in_place() {
    let short = "x".repeat(MIN_SECRET_LEN - 1);
    let exact = "y".repeat(MIN_SECRET_LEN);
    let known = secrets(&[
        ("SHORT_KEY", &short),
        ("EXACT_KEY", &exact),
        ("EMPTY_KEY", ""),
    ]);
    assert_eq!(known.names().collect::<Vec<_>>(), ["EXACT_KEY"]);
    let text = format!("{short} {exact}");
    assert_eq!(
        known.redact(&text),
        format!("{short} [redacted: EXACT_KEY]")
    );
    // A short value that is also a common word would otherwise wreck the output.
    let words = secrets(&[("PASS", "test")]);
    assert!(words.is_empty());
    assert_eq!(words.redact("cargo test: test ok"), "cargo test: test ok");
}

/// Feeds `input` cut into pieces of `size` bytes through a stream.
fn streamed(known: &KnownSecrets, input: &str, size: usize) -> String {
    let mut stream = known.stream();
    let mut out = Vec::new();
    for chunk in input.as_bytes().chunks(size) {
        out.extend(stream.push(chunk));
    }
    out.extend(stream.finish());
    String::from_utf8(out).expect("utf-8")
}

/// `text` with each run of adjacent markers as one `#`.
fn markers_merged(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("[redacted: ") {
        out.push_str(&rest[..at]);
        if !out.ends_with('#') || at > 0 {
            out.push('#');
        }
        let end = rest[at..].find(']').map_or(rest.len(), |e| at + e + 1);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn a_value_split_across_chunks_is_still_redacted() {
    let known = secrets(&[
        ("OPENAI_API_KEY", KEY),
        ("A_TOKEN", "abcdefgh1234"),
        ("B_TOKEN", "1234ijklmnop"),
        ("A_KEY", "aaaaaaaa"),
    ]);
    let inputs = [
        format!("start {KEY} middle {KEY}{KEY} end"),
        KEY.to_string(),
        "x abcdefgh1234ijklmnop y".to_string(),
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!".to_string(),
        "no secret in this line at all".to_string(),
    ];
    for input in &inputs {
        let whole = known.redact(input).into_owned();
        for size in 1..=input.len() {
            let out = streamed(&known, input, size);
            assert!(!out.contains(KEY), "chunks of {size}: {out}");
            assert!(
                !out.contains("1234") && !out.contains("aaaaaaaa"),
                "chunks of {size}: {out}"
            );
            // However it is cut, the text around the secrets is kept whole (a secret
            // found across a cut may become two markers side by side).
            assert_eq!(
                markers_merged(&out),
                markers_merged(&whole),
                "chunks of {size}"
            );
        }
        assert_eq!(streamed(&known, input, input.len()), whole);
    }
}

#[test]
fn a_stream_without_secrets_passes_everything_through() {
    let known = KnownSecrets::default();
    let mut stream = known.stream();
    assert_eq!(stream.push(b"abc"), b"abc");
    assert_eq!(stream.finish(), b"");
}
