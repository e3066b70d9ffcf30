//! The files and folders that make programs run code later, when someone else starts
//! them (a shell entering the folder, Git, an editor, a package manager, the Python
//! interpreter): the one list the permission engine treats as Critical to change and
//! the sandbox keeps read-only at the top of a workspace.

/// Files that make a program run code later, by name, wherever they are: each is read
/// by a program at start-up and can name a command for it to run.
pub const EXEC_CONFIG_FILES: &[&str] = &[
    // direnv runs `.envrc` in every shell that enters the folder.
    ".envrc",
    ".gitconfig",
    ".vimrc",
    ".gvimrc",
    ".exrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pam_environment",
    "sitecustomize.py",
    "usercustomize.py",
    // An MCP server list starts the programs it names; a toolchain file picks the
    // compiler (a custom toolchain is any folder of programs).
    ".mcp.json",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".curlrc",
    ".wgetrc",
];

/// Folders whose files make programs run code later, with the files of theirs that do
/// (Cargo's configuration, editor settings, tasks and launchers, MCP server lists).
/// The sandbox keeps each folder read-only whole, so that a file of its that does not
/// exist yet cannot be created either.
pub const EXEC_CONFIG_FOLDERS: &[(&str, &[&str])] = &[
    (".cargo", &["config", "config.toml"]),
    (
        ".vscode",
        &["settings.json", "tasks.json", "launch.json", "mcp.json"],
    ),
    (".zed", &["settings.json", "tasks.json"]),
    (".cursor", &["mcp.json"]),
    (".roo", &["mcp.json"]),
    (".kiro", &["mcp.json"]),
];

/// Whether a file named `name` in a folder named `folder` (both lower case) makes
/// programs run code later.
pub fn is_exec_config(folder: Option<&str>, name: &str) -> bool {
    EXEC_CONFIG_FILES.contains(&name)
        || EXEC_CONFIG_FOLDERS
            .iter()
            .any(|(f, files)| folder == Some(*f) && files.contains(&name))
}

/// Entries of a workspace that stay read-only inside it besides the execution
/// configuration: Git's hooks and configuration (a hook or a `core.fsmonitor` runs
/// code at the next `git` command) and the project's Warden policy.
const ALSO_READ_ONLY: &[&str] = &[".git/hooks", ".git/config", ".warden"];

/// Every entry of a workspace (relative to its root) that stays read-only inside it:
/// Git's hooks and configuration, the project's Warden policy, the execution
/// configuration folders (whole) and files.
pub fn read_only_in_workspace() -> impl Iterator<Item = &'static str> {
    ALSO_READ_ONLY
        .iter()
        .copied()
        .chain(EXEC_CONFIG_FOLDERS.iter().map(|(folder, _)| *folder))
        .chain(EXEC_CONFIG_FILES.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_execution_config_entry_is_read_only_in_the_workspace() {
        let read_only: Vec<&str> = read_only_in_workspace().collect();
        for name in EXEC_CONFIG_FILES {
            assert!(read_only.contains(name), "{name}");
        }
        for (folder, _) in EXEC_CONFIG_FOLDERS {
            assert!(read_only.contains(folder), "{folder}");
        }
        for entry in [
            ".git/hooks",
            ".git/config",
            ".warden",
            ".envrc",
            ".yarnrc.yml",
        ] {
            assert!(read_only.contains(&entry), "{entry}");
        }
    }

    #[test]
    fn a_folder_s_file_is_execution_config_only_in_that_folder() {
        assert!(is_exec_config(Some(".vscode"), "tasks.json"));
        assert!(!is_exec_config(Some("src"), "tasks.json"));
        assert!(is_exec_config(Some("src"), ".envrc"));
        assert!(is_exec_config(None, "rust-toolchain.toml"));
        assert!(!is_exec_config(None, "main.rs"));
    }
}
