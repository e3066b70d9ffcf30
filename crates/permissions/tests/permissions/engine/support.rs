//! A project on disk to evaluate calls in: a workspace with files, a symlink that
//! leads out of it, a home folder with secrets, and Warden's own state folder.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::Value;
use warden_permissions::policy::Source;
use warden_permissions::{
    Context, Engine, Evaluation, GrantStore, Layer, Mode, Policy, SessionGrants, ToolCall,
};

/// A temporary world: `home/`, `home/project/` (the workspace and cwd), `outside/`
/// and `state/` (Warden's own folder).
pub struct World {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub ws: PathBuf,
    pub state: PathBuf,
    /// The session the scenarios evaluate in (`eval`), whose grants they give.
    pub s1: SessionGrants,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical tempdir");
        let home = root.join("home");
        let ws = home.join("project");
        let state = root.join("state");
        for d in [
            ws.join("src"),
            ws.join("build"),
            ws.join("docs"),
            ws.join(".git"),
            home.join(".ssh"),
            root.join("outside"),
            state.clone(),
        ] {
            fs::create_dir_all(d).expect("mkdir");
        }
        for (f, text) in [
            (ws.join("src/main.rs"), "fn main() {}\n"),
            (ws.join("README.md"), "# readme\n"),
            (ws.join(".env"), "TOKEN=x\n"),
            (home.join(".ssh/id_rsa"), "key\n"),
            (home.join(".bashrc"), "# rc\n"),
            (root.join("outside/notes.txt"), "notes\n"),
        ] {
            fs::write(f, text).expect("write");
        }
        symlink(root.join("outside"), ws.join("out_link")).expect("symlink");
        symlink(home.join(".ssh/id_rsa"), ws.join("src/key_link")).expect("symlink");
        World {
            _dir: dir,
            root,
            home,
            ws,
            state,
            s1: SessionGrants::new("s1"),
        }
    }

    pub fn ctx(&self) -> Context {
        Context::new(&self.ws)
            .with_home(&self.home)
            .with_protected(vec![self.state.clone()])
    }

    /// Replaces `$WS`, `$HOME` and `$ROOT` in a JSON text.
    pub fn expand(&self, text: &str) -> String {
        text.replace("$WS", &self.ws.display().to_string())
            .replace("$HOME", &self.home.display().to_string())
            .replace("$ROOT", &self.root.display().to_string())
    }

    /// An engine over the given layers (weakest first), with a grants store in the
    /// state folder.
    pub fn engine(&self, layers: &[(Layer, &str)], trusted: bool) -> Engine {
        let sources: Vec<Source> = layers
            .iter()
            .map(|(layer, text)| Source::text(*layer, format!("{}.toml", layer.as_str()), *text))
            .collect();
        let policy = Policy::from_sources(&sources, trusted);
        Engine::with_policy(
            policy,
            &self.ws,
            Some(GrantStore::new(self.state.join("grants.jsonl"))),
        )
    }

    /// The evaluation of a `terminal` call of this command line.
    pub fn eval_command(&self, engine: &Engine, command: &str, mode: Mode) -> Evaluation {
        let args = serde_json::json!({ "command": command }).to_string();
        self.eval(engine, "terminal", &args, mode)
    }

    pub fn eval(&self, engine: &Engine, tool: &str, args: &str, mode: Mode) -> Evaluation {
        let value: Value = serde_json::from_str(&self.expand(args))
            .unwrap_or_else(|e| panic!("bad test JSON {args}: {e}"));
        // As the agent and `warden policy check` do: a malformed hint makes the call
        // malformed.
        match ToolCall::from_model(tool, value) {
            Ok(call) => engine.evaluate(&call, &self.ctx(), mode, &self.s1),
            Err(e) => engine.reject_malformed(tool, &e.to_string(), mode),
        }
    }
}

#[allow(dead_code)]
pub fn path_of(p: &Path) -> String {
    p.display().to_string()
}

/// The cases a table test ran and the ones that failed, so that one run reports every
/// failure, not only the first.
#[derive(Debug, Default)]
pub struct Tally {
    pub cases: usize,
    pub failures: Vec<String>,
}

impl Tally {
    /// Fails with every recorded failure, or when fewer than `at_least` cases ran (a
    /// table that shrank by mistake must not pass).
    pub fn finish(self, at_least: usize) {
        assert!(
            self.failures.is_empty(),
            "{} of {} cases failed:\n{}",
            self.failures.len(),
            self.cases,
            self.failures.join("\n")
        );
        assert!(self.cases >= at_least, "only {} cases", self.cases);
    }
}
