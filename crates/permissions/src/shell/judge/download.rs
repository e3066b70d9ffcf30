//! The files `curl` and `wget` write without being told their names: the files named
//! after the URL (`curl -O`, `wget` without `-O`) in the folder they write to
//! (`--output-dir`, `-P`), and the folder itself when the names are the server's or
//! the recursion's. The files their options name (`-o FILE`, `-oFILE`,
//! `--output=FILE`, `-sSLo FILE`, `-qO FILE`, logs, cookie jars, header dumps) are
//! the option table's (`options.rs`), which also reads every spelling of the options
//! used here. Each is judged as a write, so the sandbox needs of the call name it and
//! the risk of the place applies (`curl -sSLo ~/.bashrc URL` is Critical like any
//! other write there).

use super::{Input, Verdict};
use crate::paths::FileOp;
use crate::shell::options::{self, Parsed};
use crate::shell::words::Word;

/// How a download program names the files it writes without being told their names.
/// The options are named by their long names in the option table (`options.rs`),
/// which reads every spelling of them; the files named by an option's value (`-o F`,
/// `--output-document=F`, logs, cookie jars) are judged from that table alone.
struct Naming {
    /// Options whose value is the folder the files named after their URL go to.
    output_dir: &'static [&'static str],
    /// Options that make the program write files named after their URLs.
    remote_name: &'static [&'static str],
    /// Options that name the one file a download goes to, which ends naming by URL.
    output: &'static [&'static str],
    /// Options that make it write a tree below its folder (recursion, server-chosen
    /// names): the folder itself is then what it writes.
    tree: &'static [&'static str],
    /// Whether it writes a file named after each URL unless told otherwise (`wget`).
    names_by_default: bool,
    /// The name of a URL's file when its path ends without one.
    index: Option<&'static str>,
}

const CURL: Naming = Naming {
    output_dir: &["output-dir"],
    remote_name: &["remote-name", "remote-name-all"],
    output: &[],
    tree: &["remote-header-name"],
    names_by_default: false,
    index: None,
};

const WGET: Naming = Naming {
    output_dir: &["directory-prefix"],
    remote_name: &[],
    output: &["output-document"],
    tree: &[
        "recursive",
        "mirror",
        "force-directories",
        "page-requisites",
        "content-disposition",
    ],
    names_by_default: true,
    index: Some("index.html"),
};

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

/// Judges every file `curl` or `wget` writes without naming it as a write.
pub(super) fn writes(v: &mut Verdict, input: &Input<'_>) {
    let naming = match input.program {
        "curl" => &CURL,
        "wget" => &WGET,
        _ => return,
    };
    let Some(parsed) = options::parse(input.program, input.args) else {
        return;
    };
    let has = |names: &[&str]| names.iter().any(|n| parsed.given(n));
    let folder: Option<Word> = naming
        .output_dir
        .iter()
        .find_map(|n| parsed.value_of(n))
        .cloned();
    let named = if naming.names_by_default {
        !has(naming.output)
    } else {
        has(naming.remote_name)
    };
    let urls = urls(&parsed);
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
    if has(naming.tree) {
        // Names the server or the recursion picks: the whole folder.
        let dir = folder.clone().unwrap_or_else(|| Word::literal("."));
        v.word(FileOp::Write, &dir, input);
        return;
    }
    for url in urls {
        let name = if url.dynamic {
            None
        } else {
            remote_name(&url.text, naming.index)
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

/// The URLs a download fetches: its operands and `--url` values.
fn urls(parsed: &Parsed) -> Vec<&Word> {
    parsed
        .operands
        .iter()
        .chain(
            parsed
                .found
                .iter()
                .filter(|f| f.name == "url")
                .filter_map(|f| f.value.as_ref()),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Word> {
        text.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn a_cluster_of_short_options_gives_its_value_to_the_option_that_takes_one() {
        let parsed = options::parse("curl", &words("-sSLo out.html https://x.test/a"));
        let parsed = parsed.unwrap_or_default();
        assert_eq!(
            parsed.value_of("output").map(|w| w.text.as_str()),
            Some("out.html")
        );
        assert!(parsed.given("silent") && parsed.given("location"));
        assert_eq!(urls(&parsed).len(), 1);
        let parsed = options::parse("wget", &words("-qOout.html https://x.test/a"));
        let parsed = parsed.unwrap_or_default();
        assert_eq!(
            parsed.value_of("output-document").map(|w| w.text.as_str()),
            Some("out.html")
        );
        let parsed = options::parse("curl", &words("--remote-name-a --output-d=d --url u"));
        let parsed = parsed.unwrap_or_default();
        assert!(parsed.given("remote-name-all"));
        assert_eq!(
            parsed.value_of("output-dir").map(|w| w.text.as_str()),
            Some("d")
        );
        assert_eq!(urls(&parsed).len(), 1);
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
