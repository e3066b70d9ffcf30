//! Build entry points: the files a build or test tool runs as code (`Makefile`,
//! `build.rs`, `setup.py`, `package.json`, ...), and settings on a build tool's
//! command line that name the programs its recipes run (`make CC=CMD`, `make
//! SHELL=PROG`, `cargo --config build.rustc-wrapper=PROG`).
//!
//! Running a build tool is Medium: it runs the project's own code, which the user
//! chose to work on. A program named on its command line is not the project's: the
//! setting is High and its command is judged as a script. A build entry file written
//! earlier in the same line is the line's own code, which Warden does not read as
//! code: running a build tool after it is High (`walk.rs`).

use crate::Sentence as S;
use std::path::Path;

use super::{Input, Verdict};
use crate::Risk;

/// File names a build or test tool runs as code.
const ENTRY_FILES: &[&str] = &[
    "makefile",
    "gnumakefile",
    "build.rs",
    "cargo.toml",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "conftest.py",
    "noxfile.py",
    "tox.ini",
    "package.json",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "gradlew",
    "pom.xml",
    "mvnw",
    "cmakelists.txt",
    "meson.build",
    "justfile",
    ".justfile",
    "rakefile",
    "build",
    "build.bazel",
    "workspace",
    "workspace.bazel",
    "build.zig",
    "deno.json",
    "composer.json",
    "gemfile",
    "mix.exs",
    "package.swift",
    "build.sbt",
    "taskfile.yml",
    "dodo.py",
];

/// Whether `path` names a file a build or test tool runs as code: one of
/// [`ENTRY_FILES`], a make include (`*.mk`), a Go file (`go generate` runs its
/// `//go:generate` lines), or a C# or F# project.
pub(in crate::shell) fn is_build_entry(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().to_lowercase()) else {
        return false;
    };
    ENTRY_FILES.contains(&name.as_str())
        || [".mk", ".go", ".csproj", ".fsproj", ".gemspec"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// make variables that choose how recipes run, whatever the value.
const MAKE_CONTROL: &[&str] = &[
    "SHELL",
    ".SHELLFLAGS",
    "MAKESHELL",
    "MAKEFLAGS",
    "MAKEFILES",
];

/// cargo configuration keys whose value is a program cargo runs (`build.rustc-wrapper`,
/// `target.<triple>.runner`, `target.<triple>.linker`, an alias, a credential
/// provider) or that sets the environment of build scripts (`env.*`).
fn cargo_key_runs(key: &str) -> bool {
    let key = key.trim().to_ascii_lowercase();
    let last = key.rsplit('.').next().unwrap_or("");
    key.starts_with("alias.")
        || key.starts_with("env.")
        || matches!(
            last,
            "rustc-wrapper"
                | "rustc-workspace-wrapper"
                | "rustc"
                | "rustdoc"
                | "runner"
                | "linker"
                | "ar"
                | "credential-provider"
                | "global-credential-providers"
        )
}

/// A TOML value as cargo takes a command from it: a string's text, or an array's
/// strings joined with blanks.
fn toml_command(value: &str) -> String {
    let v = value.trim();
    let parts: Vec<&str> = v
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|p| p.trim().trim_matches(['"', '\'']))
        .filter(|p| !p.is_empty())
        .collect();
    parts.join(" ")
}

/// Judges settings on a build tool's command line that name programs its recipes or
/// builds run.
pub(super) fn build_settings(input: &Input<'_>, v: &mut Verdict) {
    match input.program {
        "make" | "gmake" => make_settings(input, v),
        "cargo" => cargo_settings(input, v),
        _ => {}
    }
}

/// `make NAME=VALUE`: a variable given on the command line overrides the Makefile's,
/// and recipes run `$(CC)`, `$(SHELL)`, ...: a value that is more than one plain word
/// is a command the recipes may run, judged as a script; the variables that choose
/// how every recipe runs are High whatever their value.
fn make_settings(input: &Input<'_>, v: &mut Verdict) {
    for arg in input.args {
        if arg.text.starts_with('-') {
            continue;
        }
        let Some((name, value)) = arg.text.split_once('=') else {
            continue;
        };
        let name = name.trim_end_matches([':', '+', '?', '!']);
        let plain = !arg.dynamic
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-+,:@%".contains(c));
        if MAKE_CONTROL.contains(&name) || !plain {
            v.raise(
                Risk::High,
                crate::Sentence::new("engine-build-make-variable")
                    .text("program", input.program)
                    .text("name", name)
                    .text("value", value),
            );
            // A value only known at run time is asked about as High; the
            // substitution that makes it is judged on its own.
            if !arg.dynamic && !value.trim().is_empty() {
                v.scripts.push(value.to_string());
            }
        }
    }
}

/// `cargo --config KEY=VALUE` and `--config FILE`: a key that names a program is High
/// and its command judged; a configuration file from elsewhere can name any.
fn cargo_settings(input: &Input<'_>, v: &mut Verdict) {
    let mut i = 0;
    while let Some(arg) = input.args.get(i) {
        i += 1;
        let value = match arg.text.as_str() {
            "--config" => input.args.get(i).inspect(|_| i += 1).cloned(),
            t => t.strip_prefix("--config=").map(|rest| super::Word {
                text: rest.to_string(),
                dynamic: arg.dynamic,
            }),
        };
        let Some(value) = value else { continue };
        if value.dynamic {
            v.opaque = true;
            v.raise(
                Risk::High,
                S::new("engine-build-cargo-configuration-known-at"),
            );
            continue;
        }
        match value.text.split_once('=') {
            Some((key, command)) if cargo_key_runs(key) => {
                v.raise(
                    Risk::High,
                    crate::Sentence::new("engine-build-cargo-program").text("key", key.trim()),
                );
                let command = toml_command(command);
                if !command.is_empty() {
                    v.scripts.push(command);
                }
            }
            Some(_) => {}
            None => v.raise(
                Risk::High,
                crate::Sentence::new("engine-build-cargo-config-file")
                    .text("path", value.text.as_str()),
            ),
        }
    }
}
