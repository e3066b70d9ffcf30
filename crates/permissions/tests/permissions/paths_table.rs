//! Path resolution and classification as a table, plus symlink escapes on a real
//! temporary folder.

use std::path::{Path, PathBuf};

use warden_permissions::paths::{FileOp, Sensitive, is_precious, path_risk, resolve};
use warden_permissions::shell::analyse;
use warden_permissions::{Context, Risk};

const HOME: &str = "/home/wardentest";
const WS: &str = "/home/wardentest/project";

fn ctx() -> Context {
    Context::new(WS)
        .with_home(HOME)
        .with_protected(vec![PathBuf::from("/home/wardentest/.config/warden")])
}

use FileOp::{Delete, Read, Write};
use Risk::{Critical, High, Low, Medium};

#[test]
fn paths_have_the_expected_risk() {
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut check = |raw: &str, op: FileOp, expected: Risk| {
        cases += 1;
        let path = resolve(raw, &ctx());
        let (risk, reason) = path_risk(op, &path);
        if risk != expected {
            failures.push(format!(
                "{raw:?} {op:?}: expected {expected}, got {risk} ({reason})"
            ));
        }
    };
    // Inside the workspace.
    check("src/main.rs", Read, Low);
    check("src/main.rs", Write, Medium);
    check("src/main.rs", Delete, High);
    check("./src/../Cargo.toml", Read, Low);
    check(WS, Read, Low);
    check("new/dir/file.txt", Write, Medium);
    // Outside: one step up.
    check("/tmp/x", Read, Medium);
    check("/tmp/x", Write, High);
    check("/tmp/x", Delete, Critical);
    check("../other/file", Read, Medium);
    check("../other/file", Write, High);
    check("src/../../escape.txt", Write, High);
    check("~/notes.txt", Read, Medium);
    check("~", Write, High);
    check("/home/wardentest/project2/x", Write, High);
    // Sensitive: High to read, Critical to change.
    check("~/.ssh/id_rsa", Read, High);
    check("~/.ssh/config", Write, Critical);
    check("~/.ssh", Delete, Critical);
    check("~/.aws/credentials", Read, High);
    check("~/.kube/config", Read, High);
    check("~/.config/gcloud/credentials.db", Read, High);
    check("~/.docker/config.json", Read, High);
    check("~/.netrc", Read, High);
    check("~/.git-credentials", Read, High);
    check("~/.gnupg/secring.gpg", Read, High);
    check(".env", Read, High);
    check(".env", Write, Critical);
    check(".env.production", Read, High);
    check("config/prod.env", Read, High);
    check(".env.example", Read, Low);
    check(".envrc", Read, High);
    check(".envrc", Write, Critical);
    check(".env.sample", Write, Medium);
    check("certs/server.pem", Read, High);
    check("certs/server.key", Write, Critical);
    check("id_ed25519", Read, High);
    check("~/.ssh/id_rsa.pub", Read, High);
    check("keys/id_rsa.pub", Read, Low);
    check("src/id_utils.rs", Read, Low);
    check("/etc/shadow", Read, High);
    check("/etc/sudoers", Write, Critical);
    check("/etc/passwd", Write, Critical);
    check("/etc/hosts", Read, Medium);
    check("/root/.profile", Read, High);
    check("/proc/self/environ", Read, High);
    check("~/.bashrc", Write, Critical);
    check("~/.zshrc", Read, High);
    check("~/.profile", Write, Critical);
    check("~/.config/fish/config.fish", Write, Critical);
    check("/etc/profile.d/x.sh", Write, Critical);
    check(".warden/policy.toml", Read, High);
    check(".warden/policy.toml", Write, Critical);
    check(".git/config", Read, High);
    check(".git/hooks/pre-commit", Write, Critical);
    check(".git", Delete, Critical);
    check(".gitignore", Write, Medium);
    check("~/.config/warden/policy.toml", Write, Critical);
    check("~/.config/warden", Delete, Critical);
    check("/dev/sda", Write, Critical);
    check("/dev/nvme0n1", Write, Critical);
    check("~/.SSH/id_rsa", Read, High);
    check(".ENV", Read, High);
    // Tilde forms.
    check("~root/.bashrc", Write, Critical);
    check("~other/file", Read, Medium);
    assert!(
        failures.is_empty(),
        "{} of {cases} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(cases >= 60);
}

#[test]
fn lexical_paths_are_normalised_without_the_disk() {
    let p = resolve("src/../../x/./y", &ctx());
    assert_eq!(p.lexical, PathBuf::from("/home/wardentest/x/y"));
    assert!(!p.inside_workspace);
    assert_eq!(p.raw, "src/../../x/./y");
    let p = resolve("/../../etc/passwd", &ctx());
    assert_eq!(p.lexical, PathBuf::from("/etc/passwd"));
    let p = resolve("~", &ctx());
    assert_eq!(p.lexical, PathBuf::from(HOME));
    let p = resolve("~/a/b", &ctx());
    assert_eq!(p.lexical, PathBuf::from("/home/wardentest/a/b"));
}

#[test]
fn sensitivity_names_its_kind() {
    let kind = |raw: &str| resolve(raw, &ctx()).sensitive;
    assert_eq!(kind("~/.ssh/id_rsa"), Some(Sensitive::SshDir));
    assert_eq!(kind(".env"), Some(Sensitive::EnvFile));
    assert_eq!(kind("a/b.pem"), Some(Sensitive::PrivateKey));
    assert_eq!(kind(".git/HEAD"), Some(Sensitive::GitInternals));
    assert_eq!(kind(".warden/x"), Some(Sensitive::WardenProject));
    assert_eq!(
        kind("~/.config/warden/audit.jsonl"),
        Some(Sensitive::WardenState)
    );
    assert_eq!(kind("src/lib.rs"), None);
    assert!(Sensitive::ShellRc.description().contains("shell"));
}

#[test]
fn precious_places_are_the_root_home_workspace_and_their_ancestors() {
    let precious = |raw: &str| is_precious(&resolve(raw, &ctx()), &ctx());
    assert!(precious("/"));
    assert!(precious("~"));
    assert!(precious("~/*"));
    assert!(precious("/home"));
    assert!(precious(WS));
    assert!(precious("."));
    assert!(precious("*"));
    assert!(precious("/usr"));
    assert!(!precious("build"));
    assert!(!precious("src/*"));
}

/// A temporary workspace holding `inside/`, plus an `outside/` folder beside it.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ws: PathBuf,
    outside: PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical tempdir");
    let ws = root.join("ws");
    let outside = root.join("outside");
    std::fs::create_dir_all(ws.join("src")).expect("mkdir ws");
    std::fs::create_dir_all(&outside).expect("mkdir outside");
    std::fs::write(outside.join("secret.txt"), "s").expect("write");
    std::fs::write(ws.join("src/lib.rs"), "").expect("write");
    Tree {
        _dir: dir,
        root,
        ws,
        outside,
    }
}

fn ws_ctx(t: &Tree) -> Context {
    Context::new(&t.ws).with_home(t.root.join("home"))
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

#[cfg(unix)]
#[test]
fn a_symlink_pointing_outside_is_seen() {
    let t = tree();
    symlink(&t.outside, &t.ws.join("escape"));
    let ctx = ws_ctx(&t);
    let p = resolve("escape/secret.txt", &ctx);
    assert_eq!(p.lexical, t.ws.join("escape/secret.txt"));
    assert_eq!(p.real, t.outside.join("secret.txt"));
    assert!(!p.inside_workspace, "{p:?}");
    assert_eq!(path_risk(Write, &p).0, High);
    // A new file below the symlinked folder escapes too.
    let p = resolve("escape/new/file.txt", &ctx);
    assert_eq!(p.real, t.outside.join("new/file.txt"));
    assert!(!p.inside_workspace);
    // And the shell analyser sees it through redirections and rm.
    assert_eq!(analyse("echo x > escape/new.txt", &ctx).risk, High);
    assert_eq!(analyse("rm -rf escape/sub", &ctx).risk, Critical);
    // `link/..` is the parent of the link's target, not the workspace.
    let p = resolve("escape/../x", &ctx);
    assert_eq!(p.real, t.root.join("x"));
    assert!(!p.inside_workspace);
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_secret_is_sensitive() {
    let t = tree();
    let ssh = t.root.join("home/.ssh");
    std::fs::create_dir_all(&ssh).expect("mkdir .ssh");
    std::fs::write(ssh.join("id_rsa"), "k").expect("write key");
    symlink(&ssh.join("id_rsa"), &t.ws.join("innocent.txt"));
    let ctx = ws_ctx(&t);
    let p = resolve("innocent.txt", &ctx);
    assert_eq!(p.sensitive, Some(Sensitive::SshDir));
    assert_eq!(path_risk(Read, &p).0, High);
    assert_eq!(analyse("cat innocent.txt", &ctx).risk, High);
}

#[cfg(unix)]
#[test]
fn a_symlink_inside_the_workspace_stays_inside() {
    let t = tree();
    symlink(&t.ws.join("src"), &t.ws.join("alias"));
    let ctx = ws_ctx(&t);
    let p = resolve("alias/lib.rs", &ctx);
    assert_eq!(p.real, t.ws.join("src/lib.rs"));
    assert!(p.inside_workspace);
    assert_eq!(path_risk(Write, &p).0, Medium);
}

#[test]
fn a_new_file_in_an_existing_folder_resolves_through_it() {
    let t = tree();
    let ctx = ws_ctx(&t);
    let p = resolve("src/new.rs", &ctx);
    assert_eq!(p.real, t.ws.join("src/new.rs"));
    assert!(p.inside_workspace);
    let p = resolve("a/b/c/d.txt", &ctx);
    assert_eq!(p.real, t.ws.join("a/b/c/d.txt"));
    assert!(p.inside_workspace);
}

#[cfg(unix)]
#[test]
fn a_workspace_reached_through_a_symlink_is_still_inside() {
    // The workspace root itself is a symlink (as /tmp is on macOS).
    let t = tree();
    let link = t.root.join("ws-link");
    symlink(&t.ws, &link);
    let ctx = Context::new(&link);
    let p = resolve("src/lib.rs", &ctx);
    assert!(p.inside_workspace, "{p:?}");
}

#[cfg(unix)]
#[test]
fn resolved_roots_judge_like_fresh_ones() {
    // A workspace reached through a symlink, with its roots resolved once up front:
    // the same verdicts as resolving them at every call.
    let t = tree();
    let link = t.root.join("ws-link");
    symlink(&t.ws, &link);
    symlink(&t.outside, &t.ws.join("escape"));
    let fresh = Context::new(&link);
    let cached = Context::new(&link).resolve_roots();
    for raw in [
        "src/lib.rs",
        "escape/secret.txt",
        "../outside/x",
        "new/file",
    ] {
        let (a, b) = (resolve(raw, &fresh), resolve(raw, &cached));
        assert_eq!(a, b, "{raw}");
    }
    assert!(resolve("src/lib.rs", &cached).inside_workspace);
    assert!(!resolve("escape/secret.txt", &cached).inside_workspace);
}

#[test]
fn a_root_added_after_resolving_counts_as_workspace() {
    // Regression guard for the roots cache: a root added to the context later must not
    // be ignored because the cached list predates it.
    let t = tree();
    let mut ctx = Context::new(&t.ws).resolve_roots();
    let file = t.outside.join("secret.txt");
    assert!(!resolve(file.to_str().expect("utf-8"), &ctx).inside_workspace);
    ctx.workspace_roots.push(t.outside.clone());
    assert!(resolve(file.to_str().expect("utf-8"), &ctx).inside_workspace);
}

#[cfg(unix)]
#[test]
fn a_root_replaced_by_a_symlink_after_resolving_is_still_the_folder_it_was() {
    // What resolving the roots up front means: a session's folder is the one it
    // started in. Swapping it for a symlink to elsewhere does not make elsewhere the
    // workspace; files there are judged as outside.
    let t = tree();
    let ws2 = t.root.join("ws2");
    std::fs::create_dir_all(&ws2).expect("mkdir ws2");
    let ctx = Context::new(&ws2).resolve_roots();
    std::fs::remove_dir(&ws2).expect("rmdir ws2");
    symlink(&t.outside, &ws2);
    let p = resolve("secret.txt", &ctx);
    assert_eq!(p.real, t.outside.join("secret.txt"));
    assert!(!p.inside_workspace, "{p:?}");
}

#[test]
fn globs_are_as_sensitive_as_what_they_can_match() {
    let t = tree();
    std::fs::write(t.ws.join(".env"), "KEY=1").expect("write .env");
    std::fs::write(t.ws.join("notes.txt"), "").expect("write notes");
    let ctx = ws_ctx(&t);
    let kind = |raw: &str| resolve(raw, &ctx).sensitive;
    assert_eq!(kind(".e*"), Some(Sensitive::EnvFile));
    assert_eq!(kind(".[e]nv"), Some(Sensitive::EnvFile));
    assert_eq!(kind(".*"), Some(Sensitive::EnvFile));
    // Like bash, `*` does not match dot files, and nothing else here is secret.
    assert_eq!(kind("*"), None);
    assert_eq!(kind("no*"), None);
    assert_eq!(analyse("cat .e*", &ctx).risk, High);
    assert_eq!(analyse("cat *", &ctx).risk, Low);
    std::fs::write(t.ws.join("server.pem"), "").expect("write pem");
    assert_eq!(analyse("cat *", &ctx).risk, High);
}

#[test]
fn tilde_without_a_known_home_is_outside_and_precious() {
    // Regression: with no home in the context `~` became a relative name inside the
    // workspace, so `rm -rf ~` looked like deleting a subfolder.
    let ctx = Context::new(WS);
    let p = resolve("~", &ctx);
    assert!(!p.inside_workspace);
    assert!(is_precious(&p, &ctx));
    assert_eq!(
        resolve("~/.ssh/id_rsa", &ctx).sensitive,
        Some(Sensitive::SshDir)
    );
    assert_eq!(analyse("rm -rf ~", &ctx).risk, Critical);
    assert_eq!(analyse("rm -rf $HOME", &ctx).risk, Critical);
}

#[test]
fn root_s_own_home_is_not_a_system_secret() {
    // Regression: running as root (home /root), every file of a workspace below
    // /root counted as a system secret, so every read was High.
    let ctx = Context::new("/root/project").with_home("/root");
    let p = resolve("src/main.rs", &ctx);
    assert_eq!(p.sensitive, None);
    assert_eq!(path_risk(Read, &p).0, Low);
    assert_eq!(
        resolve("/root/.ssh/id_rsa", &ctx).sensitive,
        Some(Sensitive::SshDir)
    );
    assert_eq!(
        resolve("~/.bashrc", &ctx).sensitive,
        Some(Sensitive::ShellRc)
    );
    // For anyone else /root stays secret.
    assert_eq!(
        resolve("/root/notes.txt", &self::ctx()).sensitive,
        Some(Sensitive::SystemSecret)
    );
}

#[test]
fn globs_beyond_the_listing_budget_fall_back_to_typical_secret_names() {
    use warden_permissions::paths::{MAX_GLOB_LISTINGS, Resolver};
    let t = tree();
    std::fs::write(t.ws.join("notes.txt"), "").expect("write notes");
    let ctx = ws_ctx(&t);
    let resolver = Resolver::new(&ctx);
    // While listings are left, `*` is judged by what the folder holds: nothing secret.
    for _ in 0..MAX_GLOB_LISTINGS {
        assert_eq!(resolver.resolve("*", &ctx).sensitive, None);
    }
    // Then it is judged by the names it could match, strictly.
    assert_eq!(
        resolver.resolve("*", &ctx).sensitive,
        Some(Sensitive::PrivateKey)
    );
    assert_eq!(
        resolver.resolve(".e*", &ctx).sensitive,
        Some(Sensitive::EnvFile)
    );
}
