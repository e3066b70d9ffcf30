//! Environment variables set for a command (`NAME=value cmd`, `env NAME=value cmd`,
//! `export NAME=value`): which are inert, which hold a command, and which move where
//! programs find their configuration, libraries or tools.
//!
//! The list is an allow-list: a variable is inert only when it is named here. A
//! variable whose value is a command (`GIT_PAGER`, `EDITOR`, `GIT_SSH_COMMAND`, …) has
//! its value analysed like a `bash -c` script, so `GIT_PAGER=cat` is harmless and
//! `EDITOR='rm -rf ~'` is Critical. A variable that relocates configuration or tools
//! (`GIT_DIR`, `GIT_CONFIG_*`, `XDG_CONFIG_HOME`, `LD_PRELOAD`, `*PATH`, …) is High.
//! Any other variable is at least Medium, and allow rules and grants stop matching the
//! command it is set for: Warden cannot tell what it changes.

use crate::Risk;
use crate::Sentence as S;

/// What setting a variable for a command does, as far as Warden knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Var {
    /// Changes only presentation, logging or similar: nothing runs or moves.
    Inert,
    /// Its value is a command some program runs (`GIT_PAGER`, `EDITOR`).
    Command,
    /// Moves where programs find configuration, libraries or tools, or changes how a
    /// shell reads commands (`GIT_DIR`, `LD_PRELOAD`, `PATH`, `IFS`).
    Relocating,
    /// Not known to Warden.
    Unknown,
}

/// Variables known to change nothing but presentation, logging, identity strings or
/// similar harmless settings.
const INERT: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "COLORTERM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CI",
    "DEBUG",
    "VERBOSE",
    "QUIET",
    "LOG_LEVEL",
    "LOGLEVEL",
    "RUST_BACKTRACE",
    "RUST_LIB_BACKTRACE",
    "RUST_LOG",
    "RUST_LOG_STYLE",
    "RUST_TEST_THREADS",
    "RUST_TEST_NOCAPTURE",
    "RUST_MIN_STACK",
    "CARGO_TERM_COLOR",
    "CARGO_TERM_VERBOSE",
    "CARGO_TERM_QUIET",
    "CARGO_TERM_PROGRESS_WHEN",
    "CARGO_INCREMENTAL",
    "CARGO_BUILD_JOBS",
    "CARGO_NET_OFFLINE",
    "NODE_ENV",
    "NODE_NO_WARNINGS",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED",
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "GIT_TERMINAL_PROMPT",
    "GIT_OPTIONAL_LOCKS",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_MERGE_AUTOEDIT",
    "GIT_FLUSH",
    "GIT_PROGRESS_DELAY",
    "GOMAXPROCS",
    "GOGC",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "SOURCE_DATE_EPOCH",
    "TERM_PROGRAM",
    "MIX_ENV",
    "RAILS_ENV",
    "RACK_ENV",
    "APP_ENV",
    "FLASK_ENV",
];

/// Variables whose value is a command that some program runs.
const COMMANDS: &[&str] = &[
    "GIT_SSH",
    "GIT_EXTERNAL_DIFF",
    "BROWSER",
    "SHELL",
    "LESSOPEN",
    "LESSCLOSE",
    "CC",
    "CXX",
    "LD",
    "AR",
    "RUSTC",
    "RUSTDOC",
    "PROMPT_COMMAND",
    "VISUAL",
];

/// Suffixes of variables whose value is a command: `*EDITOR`, `*PAGER`,
/// `*_COMMAND`, `*ASKPASS`, `*WRAPPER` (`RUSTC_WRAPPER`), `*_RUNNER` (Cargo's
/// target runners).
const COMMAND_SUFFIXES: &[&str] = &[
    "EDITOR", "PAGER", "_COMMAND", "ASKPASS", "WRAPPER", "_RUNNER",
];

/// Variables that change how the shell itself reads or starts commands.
const SHELL_CONTROL: &[&str] = &[
    "IFS",
    "ENV",
    "BASH_ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "BASH_ALIASES",
    "BASH_CMDS",
    "BASH_XTRACEFD",
    "BASH_COMPAT",
    "EXECIGNORE",
    "HISTFILE",
    "POSIXLY_CORRECT",
    "GLOBIGNORE",
    "HOME",
    "ZDOTDIR",
    "INPUTRC",
    "TERMINFO",
    "LESS",
    "LESSKEY",
    "VIMINIT",
    "EXINIT",
    "MYVIMRC",
];

/// Prefixes of variables that relocate configuration, libraries or tools.
const RELOCATING_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "BASH_FUNC_",
    "GIT_CONFIG",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX",
    "GIT_OBJECT",
    "GIT_ALTERNATE",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE",
    "XDG_",
    "WARDEN_",
    "NPM_CONFIG_",
    "YARN_",
    "PIP_",
    "UV_",
    "CARGO_",
    "RUSTUP_",
    "PYTHON",
    "NODE_",
    "PERL",
    "RUBY",
    "GEM_",
    "BUNDLE_",
    "JAVA_",
    "_JAVA_",
    "JDK_",
    "GO",
    "MAKE",
    "PYTEST_",
    "KUBE",
    "DOCKER_",
];

/// Suffixes of variables that relocate configuration, libraries or tools.
const RELOCATING_SUFFIXES: &[&str] = &[
    "PATH", "_HOME", "_DIR", "_DIRS", "OPTS", "OPTIONS", "FLAGS", "LIB", "CONFIG", "RC",
];

/// How Warden treats setting `name` for a command.
pub(super) fn classify(name: &str) -> Var {
    let upper = name.to_ascii_uppercase();
    let upper = upper.as_str();
    if INERT.contains(&upper) || upper.starts_with("LC_") {
        return Var::Inert;
    }
    if COMMANDS.contains(&upper) || COMMAND_SUFFIXES.iter().any(|s| upper.ends_with(s)) {
        return Var::Command;
    }
    if SHELL_CONTROL.contains(&upper)
        || RELOCATING_PREFIXES.iter().any(|p| upper.starts_with(p))
        || RELOCATING_SUFFIXES.iter().any(|s| upper.ends_with(s))
    {
        return Var::Relocating;
    }
    Var::Unknown
}

/// The shell script a command variable's value stands for. `LESSOPEN` and
/// `LESSCLOSE` start with `|` (or `||`) and hold `%s` for the file.
pub(super) fn command_script(name: &str, value: &str) -> String {
    let upper = name.to_ascii_uppercase();
    if upper == "LESSOPEN" || upper == "LESSCLOSE" {
        return value.trim_start_matches(['|', '-']).replace("%s", "file");
    }
    value.to_string()
}

/// The risk and reason of setting a variable that is not a command, or `None` for an
/// inert one. `for_program` is false for a standalone assignment, which an unknown
/// variable only makes a shell variable (it reaches no program unless exported).
pub(super) fn setting_risk(name: &str, for_program: bool) -> Option<(Risk, S)> {
    match classify(name) {
        Var::Inert | Var::Command => None,
        Var::Relocating => Some((
            Risk::High,
            S::new("engine-env-sets-name-changes-where").text("name", name),
        )),
        Var::Unknown if for_program => Some((
            Risk::Medium,
            S::new("engine-env-sets-name-variable-warden").text("name", name),
        )),
        Var::Unknown => None,
    }
}

/// Whether setting this variable (with `printf -v`, `read`, ...) changes which
/// programs run or how they start.
pub(super) fn is_dangerous_variable(name: &str) -> bool {
    matches!(classify(name), Var::Command | Var::Relocating)
}

#[cfg(test)]
mod tests {
    use super::{Var, classify};

    #[test]
    fn variables_are_classified() {
        for (name, kind) in [
            ("LANG", Var::Inert),
            ("LC_ALL", Var::Inert),
            ("RUST_BACKTRACE", Var::Inert),
            ("CI", Var::Inert),
            ("NO_COLOR", Var::Inert),
            ("GIT_PAGER", Var::Command),
            ("PAGER", Var::Command),
            ("MANPAGER", Var::Command),
            ("EDITOR", Var::Command),
            ("VISUAL", Var::Command),
            ("GIT_SEQUENCE_EDITOR", Var::Command),
            ("GIT_SSH_COMMAND", Var::Command),
            ("SSH_ASKPASS", Var::Command),
            ("RUSTC_WRAPPER", Var::Command),
            ("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", Var::Command),
            ("GIT_DIR", Var::Relocating),
            ("GIT_CONFIG_COUNT", Var::Relocating),
            ("GIT_CONFIG_KEY_0", Var::Relocating),
            ("GIT_CONFIG_PARAMETERS", Var::Relocating),
            ("XDG_CONFIG_HOME", Var::Relocating),
            ("LD_PRELOAD", Var::Relocating),
            ("PATH", Var::Relocating),
            ("PYTHONPATH", Var::Relocating),
            ("NODE_OPTIONS", Var::Relocating),
            ("RUSTFLAGS", Var::Relocating),
            ("HOME", Var::Relocating),
            ("IFS", Var::Relocating),
            ("BASH_ENV", Var::Relocating),
            ("WARDEN_HOME", Var::Relocating),
            ("FOO", Var::Unknown),
            ("MY_TOKEN", Var::Unknown),
        ] {
            assert_eq!(classify(name), kind, "{name}");
        }
    }
}
