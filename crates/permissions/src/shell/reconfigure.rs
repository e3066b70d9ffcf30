//! Options that make a program load configuration, a manifest, a toolchain or tools
//! from somewhere else (`cargo --config`, `--manifest-path`, `cargo +nightly`,
//! `make -f`, `go -toolexec`, `pytest -p`, ...). A narrow allow rule or a command
//! grant names a command, not where it loads its code from: it does not match a
//! command that uses one of these, unless the rule names the option itself.

/// Per program, the options (as written, or as the part before `=`) that load
/// configuration or tools from elsewhere. `+` stands for a `+toolchain` word.
const TABLE: &[(&str, &[&str])] = &[
    (
        "cargo",
        &["--config", "--manifest-path", "-Z", "--lockfile-path", "+"],
    ),
    ("rustup", &["+"]),
    (
        "npm",
        &[
            "--prefix",
            "-C",
            "--userconfig",
            "--globalconfig",
            "--script-shell",
            "--node-options",
            "--registry",
        ],
    ),
    ("pnpm", &["--dir", "-C", "--config", "--registry"]),
    ("yarn", &["--cwd", "--use-yarnrc", "--registry"]),
    ("npx", &["-p", "--package", "--registry"]),
    (
        "make",
        &[
            "-f",
            "--file",
            "--makefile",
            "-C",
            "--directory",
            "-I",
            "--include-dir",
            "--eval",
            "=",
        ],
    ),
    (
        "gmake",
        &[
            "-f",
            "--file",
            "--makefile",
            "-C",
            "--directory",
            "-I",
            "--include-dir",
            "--eval",
            "=",
        ],
    ),
    ("just", &["-f", "--justfile", "-d", "--working-directory"]),
    (
        "go",
        &[
            "-toolexec",
            "-exec",
            "-modfile",
            "-overlay",
            "-C",
            "-ldflags",
            "-gcflags",
            "-asmflags",
        ],
    ),
    (
        "pytest",
        &[
            "-c",
            "--config-file",
            "--rootdir",
            "-p",
            "--confcutdir",
            "-o",
            "--override-ini",
        ],
    ),
    (
        "git",
        &[
            "-c",
            "-C",
            "--git-dir",
            "--work-tree",
            "--exec-path",
            "--config-env",
            "--namespace",
        ],
    ),
    ("docker", &["--config", "-H", "--host", "--context"]),
    ("kubectl", &["--kubeconfig", "--context", "--server", "-s"]),
    (
        "gradle",
        &[
            "-I",
            "--init-script",
            "-c",
            "--settings-file",
            "-b",
            "--build-file",
            "-p",
            "--project-dir",
            "--gradle-user-home",
        ],
    ),
    (
        "mvn",
        &[
            "-s",
            "--settings",
            "-gs",
            "--global-settings",
            "-f",
            "--file",
        ],
    ),
    ("deno", &["-c", "--config", "--import-map"]),
    ("tsc", &["-p", "--project"]),
    (
        "eslint",
        &[
            "-c",
            "--config",
            "--rulesdir",
            "--resolve-plugins-relative-to",
            "--plugin",
        ],
    ),
    ("prettier", &["--config", "--plugin"]),
    ("jest", &["-c", "--config"]),
    ("vitest", &["-c", "--config"]),
    ("cmake", &["-C", "-P"]),
    ("ruff", &["--config"]),
    ("black", &["--config"]),
    ("mypy", &["--config-file"]),
    (
        "pip",
        &[
            "-i",
            "--index-url",
            "--extra-index-url",
            "-c",
            "--constraint",
            "--config-settings",
        ],
    ),
    (
        "pip3",
        &[
            "-i",
            "--index-url",
            "--extra-index-url",
            "-c",
            "--constraint",
            "--config-settings",
        ],
    ),
    (
        "uv",
        &[
            "--index-url",
            "--extra-index-url",
            "--config-file",
            "--directory",
            "--project",
        ],
    ),
];

/// The options of `argv` (in normal form) that load configuration or tools from
/// elsewhere, by their names (`--config`, not `--config=x`).
pub fn reconfiguring_options(argv: &[String]) -> Vec<String> {
    let Some((program, rest)) = argv.split_first() else {
        return Vec::new();
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let Some((_, options)) = TABLE.iter().find(|(p, _)| *p == program) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for word in rest {
        if word == "--" {
            break;
        }
        let name = word.split_once('=').map_or(word.as_str(), |(n, _)| n);
        let hit = if word.starts_with('+') {
            options.contains(&"+")
        } else if word.starts_with('-') {
            options.contains(&name)
                // A short option with its value attached (`-Zflag`, `-ffile`).
                || options
                    .iter()
                    .any(|o| o.len() == 2 && !o.starts_with("--") && word.starts_with(o) && !word.starts_with("--"))
        } else {
            // `make VAR=value` overrides a variable of the makefile (`SHELL`, `CC`).
            options.contains(&"=") && word.contains('=')
        };
        if hit {
            found.push(name.to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::reconfiguring_options;

    fn check(line: &str) -> Vec<String> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        reconfiguring_options(&argv)
    }

    #[test]
    fn options_that_load_code_from_elsewhere_are_found() {
        assert_eq!(check("cargo test --config x"), ["--config"]);
        assert_eq!(check("cargo test --config=target.x.runner=y"), ["--config"]);
        assert_eq!(check("cargo +nightly test"), ["+nightly"]);
        assert_eq!(
            check("cargo test --manifest-path ../x/Cargo.toml"),
            ["--manifest-path"]
        );
        assert_eq!(check("make SHELL=/tmp/x"), ["SHELL"]);
        assert_eq!(check("make -f /tmp/Makefile"), ["-f"]);
        assert_eq!(check("go test -toolexec=/tmp/x ./..."), ["-toolexec"]);
        assert_eq!(check("pytest -p evil"), ["-p"]);
        assert!(check("cargo test").is_empty());
        assert!(check("cargo test -- --config").is_empty());
        assert!(check("cargo test --release -p foo").is_empty());
        assert!(check("npm test").is_empty());
        assert!(check("ls --config").is_empty());
    }
}
