//! Writers whose targets are not plain operands: `tar` (what it extracts, where),
//! `patch` (the file it patches, or the files its patch names), `ed` and `ex` (the
//! file they edit), and `perl -i` / `ruby -i` (the files they rewrite in place).

use super::{Input, Verdict};
use crate::Risk;
use crate::Sentence as S;
use crate::paths::FileOp;
use crate::shell::options;
use crate::shell::words::Word;

/// `tar`: listing reads the archive (Low); creating writes it; extracting writes an
/// unknown set of files into the folder given by `-C` (or the shell's folder), which
/// is at least Medium however harmless the folder. Options that run programs
/// (`--to-command`, `-I`, ...) are judged from the option table (`options.rs`).
pub(super) fn tar(input: &Input<'_>) -> Verdict {
    let args = input.args;
    // The first word may be bundled letters without a dash (`tar xzf a.tgz`), the old
    // form: its letters are options, and `f` takes the next word.
    let bundle = args
        .first()
        .filter(|a| !a.dynamic && !a.text.starts_with('-'))
        .map(|a| a.text.clone());
    let dashed: Vec<Word> = match &bundle {
        Some(b) => std::iter::once(Word::literal(format!("-{b}")))
            .chain(args[1..].iter().cloned())
            .collect(),
        None => args.to_vec(),
    };
    // Every other spelling (`--ext`, `--dir=D`, `-C~`, `-xvzf`) from the option table.
    let parsed = options::parse(input.program, &dashed).unwrap_or_default();
    let given = |long: &str| parsed.given(long);
    let extract = given("extract") || given("get");
    let create = [
        "create",
        "append",
        "update",
        "catenate",
        "concatenate",
        "delete",
    ]
    .iter()
    .any(|l| given(l));
    let list = given("list");
    let archive = parsed.value_of("file").cloned();
    let folder = parsed.value_of("directory").cloned();
    let into_option = given("directory");
    let mut v = if extract {
        let mut v = Verdict::new(
            Risk::Medium,
            "Runs tar to extract an archive, which writes files whose names are in the \
             archive, unknown to Warden.",
        );
        if !into_option {
            // The folder written into; `-C DIR` is judged by the writing options.
            v.word(FileOp::Write, &Word::literal("."), input);
        }
        // Names Warden cannot see, extracted into the home folder (or above it), can
        // be its start-up files and settings that run code later.
        let folder = folder.unwrap_or_else(|| Word::literal("."));
        if let Some(home) = &input.ctx.home
            && (folder.dynamic || home.starts_with(input.resolve(&folder.text).lexical))
        {
            v.raise(
                Risk::Critical,
                S::new("engine-unpack-into-home").text("path", folder.text.as_str()),
            );
        }
        v
    } else if create {
        Verdict::new(
            Risk::Medium,
            S::new("engine-unpack-tar-create-change-archive"),
        )
    } else if list {
        Verdict::new(Risk::Low, S::new("engine-unpack-tar-list-archive"))
    } else {
        Verdict::new(Risk::Medium, S::new("engine-unpack-tar"))
    };
    if let Some(file) = archive.filter(|f| f.text != "-") {
        let op = if create { FileOp::Write } else { FileOp::Read };
        v.word(op, &file, input);
    }
    v
}

/// `patch [FILE [PATCHFILE]]`: the file is written; without one, the patch names the
/// files it writes, which Warden does not read: never below High.
pub(super) fn patch(input: &Input<'_>) -> Verdict {
    const VALUED: &[&str] = &[
        "-p",
        "-i",
        "--input",
        "-o",
        "--output",
        "-d",
        "--directory",
        "-B",
        "--prefix",
        "-r",
        "--reject-file",
        "-D",
        "--ifdef",
        "-F",
        "--fuzz",
        "-V",
        "-z",
        "--suffix",
    ];
    let mut operands: Vec<&Word> = Vec::new();
    let mut i = 0;
    while let Some(a) = input.args.get(i) {
        i += 1;
        if !a.dynamic && VALUED.contains(&a.text.as_str()) {
            i += 1;
        } else if a.dynamic || !a.text.starts_with('-') {
            operands.push(a);
        }
    }
    let output = input
        .args
        .iter()
        .any(|a| matches!(a.text.as_str(), "-o" | "--output") || a.text.starts_with("--output="));
    let mut v = Verdict::new(
        Risk::Medium,
        S::new("engine-unpack-patch-changes-files-patches"),
    );
    match operands.first() {
        Some(file) => {
            v.word(FileOp::Write, file, input);
            if let Some(patch) = operands.get(1) {
                v.word(FileOp::Read, patch, input);
            }
        }
        None if !output => v.raise(
            Risk::High,
            "Runs patch without naming the file, so it writes the files its patch names, \
             which Warden does not read.",
        ),
        None => {}
    }
    v
}

/// `ed FILE`, `ex FILE`: line editors that write their file, with commands from
/// input or `-c` that Warden does not read (they can run shell commands): High,
/// and the file is judged as written.
pub(super) fn line_editor(input: &Input<'_>) -> Verdict {
    let p = input.program;
    let mut v = Verdict::new(
        Risk::High,
        S::new("engine-unpack-program-editor-whose-commands").text("program", p),
    );
    let mut i = 0;
    while let Some(a) = input.args.get(i) {
        i += 1;
        if !a.dynamic && matches!(a.text.as_str(), "-c" | "-p" | "-u" | "-i" | "-S") {
            i += 1;
        } else if a.dynamic || !a.text.starts_with(['-', '+']) {
            v.word(FileOp::Write, a, input);
        }
    }
    v
}

/// The files `perl -i` and `ruby -i` rewrite in place: the operands after the code
/// (`-e CODE`, or the script file when there is no `-e`). `None` without `-i`.
pub(super) fn in_place_targets(input: &Input<'_>) -> Option<Vec<Word>> {
    let args = input.args;
    let in_place = args.iter().any(|a| {
        !a.dynamic && a.text.starts_with('-') && !a.text.starts_with("--") && {
            // `-i`, `-i.bak`, `-pi`, `-pie`: an `i` among the letters before any value.
            let letters = &a.text[1..];
            letters.starts_with('i') || letters.split('e').next().is_some_and(|l| l.contains('i'))
        }
    });
    if !in_place {
        return None;
    }
    let mut code_given = false;
    let mut targets = Vec::new();
    let mut script_seen = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if !a.dynamic && a.text.starts_with('-') && a.text.len() > 1 {
            // `-e CODE` (also at the end of a cluster: `-pie CODE`).
            if a.text.ends_with('e') || a.text.ends_with('E') {
                code_given = true;
                i += 1;
            }
            continue;
        }
        if !code_given && !script_seen {
            script_seen = true;
            continue;
        }
        targets.push(a.clone());
    }
    Some(targets)
}
