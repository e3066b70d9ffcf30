//! The files `curl` and `wget` write: their output options (in every spelling: `-o
//! FILE`, `-oFILE`, `--output=FILE`, and inside a cluster of short options such as
//! `-sSLo FILE` or `-qO FILE`), the files named after the URL (`curl -O`, `wget`
//! without `-O`) in the folder they write to (`--output-dir`, `-P`), and their logs,
//! cookie jars and header dumps. Each is judged as a write, so the sandbox needs of the
//! call name it and the risk of the place applies (`curl -sSLo ~/.bashrc URL` is
//! Critical like any other write there).

use super::{Input, Verdict};
use crate::paths::FileOp;
use crate::shell::words::Word;

/// A download program's options, as far as its writes go.
struct Spec {
    /// Short options that take a value: in a cluster, the rest of the cluster (or else
    /// the next word) is the value.
    valued_short: &'static str,
    /// Long options that take a value (as `--opt VALUE` or `--opt=VALUE`).
    valued_long: &'static [&'static str],
    /// Options whose value is a file the program writes.
    writes_file: &'static [&'static str],
    /// Options whose value is the folder the files named after their URL go to.
    output_dir: &'static [&'static str],
    /// Options that make the program write files named after their URLs.
    remote_name: &'static [&'static str],
    /// Options that make it write a tree below its folder (recursion, server-chosen
    /// names): the folder itself is then what it writes.
    tree: &'static [&'static str],
    /// Whether it writes a file named after each URL unless told otherwise (`wget`).
    names_by_default: bool,
    /// The name of a URL's file when its path ends without one.
    index: Option<&'static str>,
}

const CURL: Spec = Spec {
    valued_short: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
    valued_long: &[
        "--output",
        "--output-dir",
        "--dump-header",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--etag-save",
        "--etag-compare",
        "--hsts",
        "--alt-svc",
        "--libcurl",
        "--header",
        "--data",
        "--data-raw",
        "--data-binary",
        "--data-urlencode",
        "--json",
        "--form",
        "--user-agent",
        "--user",
        "--request",
        "--max-time",
        "--connect-timeout",
        "--retry",
        "--cookie",
        "--proxy",
        "--referer",
        "--range",
        "--config",
        "--upload-file",
        "--write-out",
        "--cert",
        "--key",
        "--cacert",
        "--resolve",
        "--connect-to",
        "--interface",
        "--limit-rate",
        "--max-filesize",
        "--oauth2-bearer",
        "--aws-sigv4",
    ],
    writes_file: &[
        "-o",
        "--output",
        "-D",
        "--dump-header",
        "-c",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--etag-save",
        "--hsts",
        "--alt-svc",
        "--libcurl",
    ],
    output_dir: &["--output-dir"],
    remote_name: &["-O", "--remote-name", "--remote-name-all"],
    tree: &["-J", "--remote-header-name"],
    names_by_default: false,
    index: None,
};

const WGET: Spec = Spec {
    valued_short: "oaiOPtTwQlARDIXeUB",
    valued_long: &[
        "--output-document",
        "--output-file",
        "--append-output",
        "--directory-prefix",
        "--save-cookies",
        "--load-cookies",
        "--warc-file",
        "--header",
        "--user-agent",
        "--user",
        "--password",
        "--tries",
        "--timeout",
        "--wait",
        "--input-file",
        "--post-data",
        "--post-file",
        "--body-data",
        "--body-file",
        "--method",
        "--level",
        "--accept",
        "--reject",
        "--domains",
        "--include-directories",
        "--exclude-directories",
        "--execute",
        "--base",
        "--quota",
    ],
    writes_file: &[
        "-O",
        "--output-document",
        "-o",
        "--output-file",
        "-a",
        "--append-output",
        "--save-cookies",
        "--warc-file",
    ],
    output_dir: &["-P", "--directory-prefix"],
    remote_name: &[],
    tree: &[
        "-r",
        "--recursive",
        "-m",
        "--mirror",
        "-x",
        "--force-directories",
        "-p",
        "--page-requisites",
        "--content-disposition",
    ],
    names_by_default: true,
    index: Some("index.html"),
};

/// One option as written, with its value when it takes one.
struct Opt {
    name: String,
    value: Option<Word>,
}

/// Splits the arguments into options (clusters opened, values attached) and operands.
fn parse(spec: &Spec, args: &[Word]) -> (Vec<Opt>, Vec<Word>) {
    let (mut opts, mut operands) = (Vec::new(), Vec::new());
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let t = a.text.as_str();
        if only_operands || a.dynamic || !t.starts_with('-') || t == "-" {
            operands.push(a.clone());
            continue;
        }
        if t == "--" {
            only_operands = true;
            continue;
        }
        let mut next = || {
            let value = args.get(i).cloned();
            i += 1;
            value
        };
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(Word::literal(v))),
                None if spec.valued_long.contains(&t) => (t.to_owned(), next()),
                None => (t.to_owned(), None),
            };
            opts.push(Opt { name, value });
            continue;
        }
        // A cluster of short options: each letter is an option until one that takes a
        // value, which takes the rest of the cluster or the next word.
        for (at, letter) in t.char_indices().skip(1) {
            let name = format!("-{letter}");
            if spec.valued_short.contains(letter) {
                let rest = &t[at + letter.len_utf8()..];
                let value = if rest.is_empty() {
                    next()
                } else {
                    Some(Word::literal(rest))
                };
                opts.push(Opt { name, value });
                break;
            }
            opts.push(Opt { name, value: None });
        }
    }
    (opts, operands)
}

/// The file name a URL's content is saved under: the last segment of its path.
fn remote_name(url: &str, index: Option<&str>) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let name = rest
        .split_once('/')
        .map_or("", |(_, path)| path.rsplit('/').next().unwrap_or(""));
    if name.is_empty() {
        index.map(str::to_owned)
    } else {
        Some(name.to_owned())
    }
}

/// Judges every file `curl` or `wget` writes as a write.
pub(super) fn writes(v: &mut Verdict, input: &Input<'_>) {
    let spec = match input.program {
        "curl" => &CURL,
        "wget" => &WGET,
        _ => return,
    };
    let (opts, operands) = parse(spec, input.args);
    let has = |names: &[&str]| opts.iter().any(|o| names.contains(&o.name.as_str()));
    let mut output_given = false;
    let mut folder: Option<Word> = None;
    for opt in &opts {
        let Some(value) = &opt.value else { continue };
        if spec.writes_file.contains(&opt.name.as_str()) {
            output_given |=
                input.program == "wget" && matches!(opt.name.as_str(), "-O" | "--output-document");
            // `-` is standard output.
            if value.text != "-" {
                v.word(FileOp::Write, value, input);
            }
        } else if spec.output_dir.contains(&opt.name.as_str()) {
            folder = Some(value.clone());
        }
    }
    let urls: Vec<&Word> = operands
        .iter()
        .chain(
            opts.iter()
                .filter(|o| o.name == "--url")
                .filter_map(|o| o.value.as_ref()),
        )
        .collect();
    let named = if spec.names_by_default {
        !output_given
    } else {
        has(spec.remote_name)
    };
    if !named || urls.is_empty() {
        return;
    }
    let place = |name: &str| match &folder {
        Some(dir) => Word {
            text: format!("{}/{name}", dir.text.trim_end_matches('/')),
            dynamic: dir.dynamic,
        },
        None => Word::literal(name),
    };
    if has(spec.tree) {
        // Names the server or the recursion picks: the whole folder.
        let dir = folder.clone().unwrap_or_else(|| Word::literal("."));
        v.word(FileOp::Write, &dir, input);
        return;
    }
    for url in urls {
        let name = if url.dynamic {
            None
        } else {
            remote_name(&url.text, spec.index)
        };
        match name {
            // A name only known at run time, or globbed: the folder it goes to.
            None => v.word(FileOp::Write, &place("."), input),
            Some(name) if name.contains(['[', '{', '*', '?']) => {
                v.word(FileOp::Write, &place("."), input);
            }
            Some(name) => v.word(FileOp::Write, &place(&name), input),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Word> {
        text.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn a_cluster_of_short_options_gives_its_value_to_the_option_that_takes_one() {
        let (opts, operands) = parse(&CURL, &words("-sSLo out.html https://x.test/a"));
        let names: Vec<&str> = opts.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["-s", "-S", "-L", "-o"]);
        assert_eq!(
            opts[3].value.as_ref().map(|w| w.text.as_str()),
            Some("out.html")
        );
        assert_eq!(operands.len(), 1);
        let (opts, _) = parse(&WGET, &words("-qOout.html https://x.test/a"));
        assert_eq!(
            opts[1].value.as_ref().map(|w| w.text.as_str()),
            Some("out.html")
        );
    }

    #[test]
    fn a_url_s_file_is_the_last_segment_of_its_path() {
        assert_eq!(
            remote_name("https://x.test/d/f.tar.gz?x=1", None).as_deref(),
            Some("f.tar.gz")
        );
        assert_eq!(remote_name("https://x.test/", None), None);
        assert_eq!(
            remote_name("https://x.test", Some("index.html")).as_deref(),
            Some("index.html")
        );
        assert_eq!(remote_name("x.test/a", None).as_deref(), Some("a"));
    }
}
