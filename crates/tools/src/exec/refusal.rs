//! What a confined command was refused, told in a sentence where Warden can tell: a
//! `Permission denied` (or `Read-only file system`, `Operation not permitted`) on a
//! path its confinement does not let it write, a hidden secret location, or the
//! network a command without it failed to reach. The model then asks for the right
//! thing instead of retrying variants.

use std::path::{Path, PathBuf};

use warden_sandbox::Confinement;

/// Words that say an access was refused.
const REFUSED: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
];

/// Words that say the network could not be reached.
const OFFLINE: &[&str] = &[
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Couldn't connect to server",
    "Failed to connect to",
    "Connection refused",
    "unable to access",
    "Could not resolve hostname",
    "getaddrinfo",
];

/// The sentences for a command's output, none when nothing points at the sandbox.
pub(crate) fn explain(
    output: &str,
    confinement: &Confinement,
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<String> {
    let mut sentences: Vec<String> = Vec::new();
    let push = |sentences: &mut Vec<String>, s: String| {
        if !sentences.contains(&s) {
            sentences.push(s);
        }
    };
    for line in output.lines().take(2000) {
        if REFUSED.iter().any(|r| line.contains(r)) {
            for path in paths_in(line, cwd) {
                if confinement.hides(&path) {
                    push(
                        &mut sentences,
                        format!(
                            "the sandbox hides {} (a secret location)",
                            shown(&path, home)
                        ),
                    );
                } else if !confinement.may_write(&path) {
                    push(
                        &mut sentences,
                        format!("the sandbox refused a write to {}", shown(&path, home)),
                    );
                }
            }
            if line.contains("socket") && !confinement.network {
                push(
                    &mut sentences,
                    "the sandbox refused a network socket".to_owned(),
                );
            }
        } else if !confinement.network && OFFLINE.iter().any(|o| line.contains(o)) {
            push(
                &mut sentences,
                "the sandbox has no network for this command".to_owned(),
            );
        }
        if sentences.len() >= 5 {
            break;
        }
    }
    for path in &confinement.hidden {
        let name = shown(path, home);
        if output.contains(&path.display().to_string()) && output.contains("No such file") {
            push(
                &mut sentences,
                format!("the sandbox hides {name} (a secret location)"),
            );
        }
    }
    sentences
}

/// The paths a message names: quoted ones (`'…'`, `‘…’`, `"…"`) and the word before
/// `: Permission denied`, made absolute against `cwd`.
fn paths_in(line: &str, cwd: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for (open, close) in [('\'', '\''), ('‘', '’'), ('"', '"'), ('`', '\'')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let candidate = &after[..end];
            if candidate.contains('/') || candidate.starts_with('.') {
                found.push(candidate.to_owned());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    for refused in REFUSED {
        if let Some(before) = line.split(&format!(": {refused}")).next()
            && before.len() < line.len()
        {
            let word = before.rsplit(": ").next().unwrap_or(before).trim();
            if word.contains('/') && !word.contains(' ') {
                found.push(word.to_owned());
            } else if let Some(last) = word.rsplit(' ').next()
                && last.starts_with('/')
            {
                // `sh: 1: cannot create /x/y: Permission denied`
                found.push(last.to_owned());
            }
        }
    }
    found
        .into_iter()
        .filter(|p| !p.is_empty() && !p.contains('\n'))
        .map(|p| {
            let path = Path::new(&p);
            if path.is_absolute() {
                path.to_path_buf()
            } else {
                cwd.join(path)
            }
        })
        .collect()
}

fn shown(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// The paragraph that follows a command's output when the sandbox refused something.
pub(crate) fn paragraph(sentences: &[String]) -> Option<String> {
    if sentences.is_empty() {
        return None;
    }
    let mut text = String::from("Sandbox: ");
    text.push_str(&sentences.join("; "));
    text.push_str(
        ". Commands may write only the workspace and the temporary folders, read no keys or \
         credentials, and use the network only when the user allowed it. If the task needs \
         this access, call the command again with `sandbox: false` so that the user decides; \
         do not retry variants.",
    );
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confinement() -> Confinement {
        warden_sandbox::Workspace {
            roots: vec![PathBuf::from("/w")],
            home: Some(PathBuf::from("/home/u")),
            temp_dirs: vec![PathBuf::from("/tmp")],
            max_processes: 10,
            ..warden_sandbox::Workspace::default()
        }
        .confinement()
    }

    fn explained(output: &str) -> Vec<String> {
        explain(
            output,
            &confinement(),
            Path::new("/w"),
            Some(Path::new("/home/u")),
        )
    }

    #[test]
    fn a_refused_write_outside_the_workspace_is_named() {
        assert_eq!(
            explained("bash: line 1: /home/u/.bashrc: Permission denied"),
            ["the sandbox refused a write to ~/.bashrc"]
        );
        assert_eq!(
            explained("sh: 1: cannot create /home/u/.profile: Permission denied"),
            ["the sandbox refused a write to ~/.profile"]
        );
        assert_eq!(
            explained("touch: cannot touch '/home/u/x': Permission denied"),
            ["the sandbox refused a write to ~/x"]
        );
        assert_eq!(
            explained("PermissionError: [Errno 13] Permission denied: '/etc/hosts'"),
            ["the sandbox refused a write to /etc/hosts"]
        );
        assert_eq!(
            explained("bash: line 1: .git/hooks/pre-commit: Read-only file system"),
            ["the sandbox refused a write to /w/.git/hooks/pre-commit"]
        );
        assert_eq!(
            explained(
                "cp: cannot create regular file '.git/hooks/pre-commit': Read-only file system"
            ),
            ["the sandbox refused a write to /w/.git/hooks/pre-commit"]
        );
    }

    #[test]
    fn an_ordinary_failure_inside_the_workspace_is_not_the_sandbox() {
        assert!(explained("cat: '/w/x': Permission denied").is_empty());
        assert!(explained("error: test failed").is_empty());
    }

    #[test]
    fn the_missing_network_is_named() {
        assert_eq!(
            explained("curl: (6) Could not resolve host: example.com"),
            ["the sandbox has no network for this command"]
        );
        let paragraph = paragraph(&explained("Network is unreachable"));
        assert!(paragraph.is_some_and(|p| p.contains("sandbox: false")));
    }
}
