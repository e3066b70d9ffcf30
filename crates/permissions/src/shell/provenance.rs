//! Provenance: where the data a command reads came from, as far as running it matters.
//!
//! Data from the network (a downloader's output, a `/dev/tcp` socket) stays "from the
//! network" through everything that carries it within one command line: pipes, `$(...)`
//! and `<(...)` (which read the command's own standard input), here-strings, variables
//! set from a substitution, and files written earlier in the line (`curl -o x.sh URL &&
//! sh x.sh`, `cp`, `mv`, archives extracted from it). A shell or interpreter that runs
//! such data runs code nobody has seen: Critical by any route. Text whose content is
//! known (`printf`/`echo` literals) is judged as the script it is; text made at run
//! time by a program Warden cannot follow (a decoder, a variable) cannot be seen at all.

use std::path::{Path, PathBuf};

/// What an earlier pipeline stage writes, as far as running it matters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum Provenance {
    /// Output Warden knows nothing special about: a file of the workspace (`cat
    /// script.sh`) is as readable as running the file itself.
    #[default]
    Plain,
    /// Text whose content is known: a `printf`/`echo` of literals.
    Known(Vec<String>),
    /// Text made at run time that Warden cannot see: a variable, a decoder, another
    /// program's output.
    Unseen,
    /// Data from the network.
    Network,
    /// The names of files `find` listed below folders it was allowed to read
    /// (`find . -name '*.rs' | xargs wc -l`): paths, which a shell must not run.
    Found,
}

/// Everything in one command line that holds data from the network.
#[derive(Debug, Default, Clone)]
pub(super) struct Tainted {
    /// Files written with data from the network.
    files: Vec<PathBuf>,
    /// Folders into which a download wrote files whose names Warden cannot tell
    /// (`wget URL`, `curl -O`, an archive extracted from a download).
    folders: Vec<PathBuf>,
    /// Variables set from a substitution that downloads.
    pub variables: Vec<String>,
    /// A `/dev/tcp` or `/dev/udp` socket was opened: a later read of a numbered file
    /// descriptor (`<&3`) may read from it.
    pub socket: bool,
}

impl Tainted {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.folders.is_empty()
    }

    pub fn add_file(&mut self, path: &Path) {
        if !self.files.iter().any(|f| f == path) {
            self.files.push(path.to_path_buf());
        }
    }

    pub fn add_folder(&mut self, path: &Path) {
        if !self.folders.iter().any(|f| f == path) {
            self.folders.push(path.to_path_buf());
        }
    }

    /// Whether `path` (lexical) may hold data from the network. A path with glob
    /// characters holds it when it may match such a file (`sh ./*.sh`).
    pub fn holds(&self, path: &Path) -> bool {
        if self.files.iter().any(|f| f == path) || self.folders.iter().any(|d| path.starts_with(d))
        {
            return true;
        }
        let text = path.to_string_lossy();
        if !text.contains(['*', '?', '[']) {
            return false;
        }
        let Ok(glob) = globset::GlobBuilder::new(&text)
            .literal_separator(true)
            .build()
            .map(|g| g.compile_matcher())
        else {
            // A pattern Warden cannot read may match anything.
            return true;
        };
        self.files.iter().any(|f| glob.is_match(f))
            || self.folders.iter().any(|d| {
                // A pattern below a marked folder may match a file in it.
                let prefix: String = text.split(['*', '?', '[']).next().unwrap_or("").to_string();
                Path::new(&prefix).starts_with(d)
                    || d.starts_with(Path::new(prefix.trim_end_matches('/')))
            })
    }

    /// Whether some file or folder holding network data lies within `folder` (or
    /// `folder` within a marked folder): a build tool run there may run it.
    pub fn any_within(&self, folder: &Path) -> bool {
        self.files.iter().any(|f| f.starts_with(folder))
            || self
                .folders
                .iter()
                .any(|d| d.starts_with(folder) || folder.starts_with(d))
    }

    /// Whether a word's source text expands a variable set from a download.
    pub fn mentions_variable(&self, text: &str) -> bool {
        self.variables.iter().any(|name| mentions(text, name))
    }
}

/// Whether `text` expands `$name` or `${name...}`.
fn mentions(text: &str, name: &str) -> bool {
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        rest = &rest[i + 1..];
        let candidate = rest.strip_prefix('{').unwrap_or(rest);
        if let Some(after) = candidate.strip_prefix(name)
            && !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            return true;
        }
    }
    false
}

/// Names of standard input as a file: a shell or interpreter given one as its script
/// reads the script from its input (`curl URL | bash /dev/stdin`).
pub(super) fn is_stdin_path(text: &str) -> bool {
    matches!(
        text,
        "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "/proc/thread-self/fd/0"
    )
}

/// bash's network redirections: `/dev/tcp/HOST/PORT` and `/dev/udp/HOST/PORT` open a
/// socket (bash makes them up; they need not exist as files).
pub(super) fn is_socket_path(text: &str) -> bool {
    text.starts_with("/dev/tcp/") || text.starts_with("/dev/udp/")
}

/// Programs that unpack an archive into files whose names Warden cannot tell.
pub(super) const UNPACKERS: &[&str] = &[
    "tar", "bsdtar", "unzip", "7z", "7za", "cpio", "gunzip", "bunzip2", "unxz", "pax", "ar",
];

/// The text `echo ARGS` writes, in every reading the command may get: bash's `echo`
/// prints backslashes as they are unless given `-e`; dash's (`sh` on Debian and
/// Ubuntu) always interprets them. Where the readings differ both are returned, so
/// the script a shell is piped is judged in each and the stricter wins. `None` when a
/// backslash escape cannot be read.
pub(super) fn echo_texts(args: &[&str]) -> Option<Vec<String>> {
    let mut i = 0;
    let mut escapes = false;
    let mut newline = true;
    while let Some(a) = args.get(i) {
        let flags = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && f.chars().all(|c| matches!(c, 'n' | 'e' | 'E')));
        let Some(flags) = flags else { break };
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let raw = args[i..].join(" ");
    let end = if newline { "\n" } else { "" };
    let interpreted = unescape(&raw, true)?;
    let mut out = vec![format!("{interpreted}{end}")];
    if !escapes && interpreted != raw {
        out.push(format!("{raw}{end}"));
    }
    Some(out)
}

/// The text `printf FORMAT ARGS` writes, when every directive is one Warden reads
/// (`%s`, `%b`, `%c`, `%d`, `%i`, `%%`, with no width or precision); `None` otherwise.
/// The format is reused while arguments remain, as printf does.
pub(super) fn printf_text(format: &str, args: &[&str]) -> Option<String> {
    let format = unescape(format, false)?;
    let mut out = String::new();
    let mut next = 0;
    // At least once, and again while arguments remain (bounded: each round takes one).
    for round in 0..=args.len() {
        let mut took = false;
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let d = chars.next()?;
            if d == '%' {
                out.push('%');
                continue;
            }
            let arg = args.get(next).copied().unwrap_or("");
            if next < args.len() {
                next += 1;
                took = true;
            }
            match d {
                's' | 'd' | 'i' => out.push_str(arg),
                'c' => out.extend(arg.chars().next()),
                'b' => out.push_str(&unescape(arg, true)?),
                _ => return None,
            }
        }
        if !took || next >= args.len() || round == args.len() {
            break;
        }
    }
    Some(out)
}

/// Backslash escapes as `printf` and `echo -e` read them: `\n`, `\t`, `\\`, `\xHH`,
/// octal `\NNN` (and `\0NNN` for `echo`). `None` for `\c` and for an escape that makes
/// a character that is not valid text.
fn unescape(text: &str, echo: bool) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.get(i) else {
            out.push('\\');
            break;
        };
        i += 1;
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            'e' | 'E' => Some('\u{1b}'),
            '\\' => Some('\\'),
            '"' => Some('"'),
            '\'' => Some('\''),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let digits = |i: &mut usize, radix: u32, max: usize| -> Option<u32> {
            let start = *i;
            while *i < chars.len() && *i - start < max && chars[*i].is_digit(radix) {
                *i += 1;
            }
            (*i > start).then(|| {
                chars[start..*i]
                    .iter()
                    .fold(0, |n, c| n * radix + c.to_digit(radix).unwrap_or(0))
            })
        };
        let code = match e {
            'x' => digits(&mut i, 16, 2),
            '0' if echo => Some(digits(&mut i, 8, 3).unwrap_or(0)),
            '0'..='7' => {
                i -= 1;
                digits(&mut i, 8, 3)
            }
            'c' => return None,
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        match code {
            Some(n) => out.push(char::from_u32(n)?),
            None => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_and_echo_write_the_text_the_shell_gets() {
        for (format, args, expect) in [
            ("rm -rf ~", &[][..], Some("rm -rf ~")),
            ("rm -rf ~\\n", &[], Some("rm -rf ~\n")),
            ("%s\\n", &["a", "b"], Some("a\nb\n")),
            ("\\x72\\x6d -rf ~", &[], Some("rm -rf ~")),
            ("\\162\\155 x", &[], Some("rm x")),
            ("%b", &["a\\nb"], Some("a\nb")),
            ("100%%", &[], Some("100%")),
            ("%5s", &["x"], None),
            ("a\\cb", &[], None),
        ] {
            assert_eq!(printf_text(format, args).as_deref(), expect, "{format}");
        }
        assert_eq!(
            echo_texts(&["-e", "ls\\nrm x"]),
            Some(vec!["ls\nrm x\n".to_owned()])
        );
        // Without -e, bash prints the backslash and dash interprets it: both readings.
        assert_eq!(
            echo_texts(&["ls\\nrm x"]),
            Some(vec!["ls\nrm x\n".to_owned(), "ls\\nrm x\n".to_owned()])
        );
        assert_eq!(echo_texts(&["-n", "hi"]), Some(vec!["hi".to_owned()]));
    }

    #[test]
    fn a_variable_is_mentioned_only_by_its_whole_name() {
        let t = Tainted {
            variables: vec!["x".to_owned()],
            ..Tainted::default()
        };
        assert!(t.mentions_variable("\"$x\""));
        assert!(t.mentions_variable("${x:-a}"));
        assert!(!t.mentions_variable("$xy"));
        assert!(!t.mentions_variable("x"));
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::{echo_texts, printf_text};

    proptest! {
        /// The printf and echo readers never panic, and what they return is bounded by
        /// their input (the format repeats at most once per argument).
        #[test]
        fn printf_and_echo_readers_never_panic(
            format in "[a-z%\\\\0-7xbcsdn ]{0,24}",
            args in proptest::collection::vec("[a-z\\\\%]{0,6}", 0..4),
        ) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            if let Some(text) = printf_text(&format, &args) {
                let bound = (format.len() + args.iter().map(|a| a.len()).sum::<usize>()) * (args.len() + 1);
                prop_assert!(text.len() <= bound + 1);
            }
            let mut words = vec![format.as_str()];
            words.extend(args.iter().copied());
            let _ = echo_texts(&words);
        }
    }
}
