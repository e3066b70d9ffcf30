//! A simple command: its wrappers, its program (or the line's function it calls), the
//! variables set for it and what its redirections bring, judged into one segment; the
//! scripts it runs are then analysed as nested lines.

use std::path::PathBuf;

use super::redirect::Effect;
use super::{
    Walker, capitalise, functions, is_system_program, modelled, raise, raise_around, vars,
};
use crate::Risk;
use crate::Sentence as S;
use crate::shell::Segment;
use crate::shell::env;
use crate::shell::judge::{self, DOWNLOADERS, Input, SHELLS, Stdin};
use crate::shell::normalize::normalize_argv;
use crate::shell::provenance::{Provenance, is_socket_path};
use crate::shell::words::Word;
use crate::shell::wrappers::{self, Unwrapped, basename};

/// What judging a simple command gathers besides its segment.
#[derive(Default)]
struct Gathered {
    /// The scripts the command runs, each analysed as a nested line.
    scripts: Vec<String>,
    /// The body of a line's function this command calls, with its arguments.
    call: Option<String>,
    /// Whether the command handles data from the network.
    network: bool,
    /// Whether it reads or prints secrets.
    secrets: bool,
}

/// What the judgement of a simple command's program needs of the rest of it.
struct Command<'c> {
    unwrapped: &'c Unwrapped,
    effects: &'c [Effect],
    assignments: &'c [(String, Word)],
    /// Its arguments are data from the network (`curl URL | xargs sh -c`).
    substituted_download: bool,
    /// Its input comes from the network through a redirection.
    redirected_network: bool,
    /// A redirection opens a socket.
    socket: bool,
}

impl Walker<'_> {
    /// Builds and judges the segment of one simple command from its words.
    pub(super) fn simple(
        &mut self,
        text: String,
        mut assignments: Vec<(String, Word)>,
        words_: Vec<Word>,
        effects: Vec<Effect>,
        substituted_download: bool,
        level: usize,
    ) {
        let mut seg = self.segment(text, Risk::Low, String::new());
        let unwrapped = wrappers::unwrap(&words_);
        for (name, _) in &assignments {
            self.note_cd_variable(name);
        }
        // `curl URL | xargs sh -c`: xargs makes its input the program's arguments.
        let substituted_download = substituted_download
            || (unwrapped.xargs && matches!(self.stdin, Stdin::Pipe(Provenance::Network)));
        assignments.extend(unwrapped.assignments.iter().filter_map(|a| {
            a.text.split_once('=').map(|(n, v)| {
                (
                    n.to_string(),
                    Word {
                        text: v.to_string(),
                        dynamic: a.dynamic,
                    },
                )
            })
        }));
        let inner: Vec<Word> = if unwrapped.xargs && unwrapped.start >= words_.len() {
            vec![Word::literal("echo")]
        } else {
            words_.get(unwrapped.start..).unwrap_or(&[]).to_vec()
        };
        seg.dynamic_args = inner.iter().skip(1).any(|w| w.dynamic);
        let mut g = Gathered::default();
        wrapper_findings(&mut seg, &unwrapped, &words_, &mut g.scripts);
        let (socket, redirected_network) = self.redirected_network(&effects, &mut seg);
        g.network = substituted_download || redirected_network || socket;
        // What the scripts this command runs read: its own input.
        let mut script_stdin = self.stdin.clone();
        let c = Command {
            unwrapped: &unwrapped,
            effects: &effects,
            assignments: &assignments,
            substituted_download,
            redirected_network,
            socket,
        };
        if let Some((program_word, args)) = inner.split_first() {
            if program_word.dynamic {
                dynamic_program(&mut seg, &inner, substituted_download, &mut g.scripts);
            } else {
                script_stdin = self.program(&mut seg, &c, &program_word.text, args, &mut g);
            }
        } else if seg.reason.is_empty() {
            seg.reason = crate::Sentence::new("engine-sets-variables");
        }
        variables(&mut seg, &assignments, !inner.is_empty(), &mut g.scripts);
        self.apply_effects(&effects, &mut seg);
        for effect in &effects {
            if let Effect::Expands(script) = effect {
                g.scripts.push(script.clone());
            }
        }
        // What a command that reads network data writes holds network data.
        if g.network {
            for w in &seg.writes {
                self.tainted.add_file(&w.lexical);
            }
        }
        if seg.reason.is_empty() {
            seg.reason = crate::Sentence::new("engine-runs").text("program", seg.program.as_str());
        }
        if inner.is_empty()
            && effects.iter().all(|e| matches!(e, Effect::Stdin(_)))
            && seg.risk == Risk::Low
            && g.scripts.is_empty()
        {
            // Only harmless assignments: nothing runs.
            return;
        }
        self.record(seg, &effects, g, script_stdin, level);
    }

    /// A socket (`/dev/tcp/HOST/PORT`) or a file this line downloaded, read through a
    /// redirection, is data from the network on standard input: whether a redirection
    /// opens a socket, and whether the input is from the network.
    fn redirected_network(&mut self, effects: &[Effect], seg: &mut Segment) -> (bool, bool) {
        let socket = effects.iter().any(|e| match e {
            Effect::Read(w) | Effect::Write(w) => !w.dynamic && is_socket_path(&w.text),
            _ => false,
        });
        let redirected_network = effects.iter().any(|e| match e {
            Effect::Read(w) => {
                !w.dynamic && (is_socket_path(&w.text) || self.holds_network_data(&w.text))
            }
            Effect::ReadFd => self.tainted.socket,
            _ => false,
        });
        if socket {
            self.tainted.socket = true;
            raise_around(
                seg,
                Risk::High,
                S::new("engine-walk-opens-network-connection-through"),
            );
            // Writing to a socket sends whatever the command writes to a host the
            // command picks.
            if effects
                .iter()
                .any(|e| matches!(e, Effect::Write(w) if !w.dynamic && is_socket_path(&w.text)))
            {
                raise_around(
                    seg,
                    Risk::Critical,
                    S::new("engine-walk-sends-data-network-through"),
                );
            }
        }
        (socket, redirected_network)
    }

    /// Judges a program named by a word known before it runs, and returns what the
    /// scripts it runs read.
    fn program(
        &mut self,
        seg: &mut Segment,
        c: &Command<'_>,
        written: &str,
        args: &[Word],
        g: &mut Gathered,
    ) -> Stdin {
        // Judged in lower case: on a case-insensitive file system (macOS by
        // default) `RM` runs `rm`.
        let name = basename(written).to_ascii_lowercase();
        let system_path = is_system_program(written);
        let argv0 = if system_path {
            name.clone()
        } else {
            written.to_string()
        };
        let stdin = match c.effects.iter().rev().find_map(|e| match e {
            Effect::Stdin(t) => Some(t.clone()),
            _ => None,
        }) {
            _ if c.redirected_network => Stdin::Pipe(Provenance::Network),
            Some(text) => Stdin::Text(text),
            None => self.stdin.clone(),
        };
        let expands = self.expand_calls && self.in_function == 0;
        let verdict = self.program_verdict(c, &name, written, args, &stdin, expands);
        raise(seg, verdict.risk, verdict.reason);
        self.unmodelled(seg, c.unwrapped, &name, args);
        g.secrets |= verdict.secrets;
        seg.writes.extend(verdict.writes);
        seg.reads.extend(verdict.reads);
        seg.opaque |= verdict.opaque;
        g.scripts.extend(verdict.scripts);
        if !system_path {
            raise(
                seg,
                Risk::High,
                S::new("engine-walk-written-program-outside-standard").text("written", written),
            );
        }
        if let Some(text) = self.written_script(&name, written, args) {
            g.scripts.push(text);
        }
        // A call of a function the line defined runs its body with these arguments:
        // judged as such (`cat(){ rm "$@"; }; cat -rf ~`).
        if expands && let Some(body) = self.functions.body_of(written) {
            g.call = Some(functions::called_body(&body, args));
        }
        g.network |= DOWNLOADERS.contains(&name.as_str())
            || matches!(stdin, Stdin::Pipe(Provenance::Network));
        self.path_relative = c.assignments.iter().any(|(n, w)| {
            n == "PATH"
                && (w.dynamic
                    || w.text
                        .split(':')
                        .any(|d| d.is_empty() || !d.starts_with('/')))
        });
        self.follow_network_data(seg, &name, written, args, c.socket, &mut g.network);
        self.path_relative = false;
        let mut argv = vec![argv0];
        argv.extend(args.iter().map(|w| w.text.clone()));
        seg.argv = normalize_argv(&argv);
        seg.program = name.clone();
        self.track_cd(&name, args);
        stdin
    }

    /// The program's verdict: a function the line defined (and that shadows no program)
    /// is judged by its body, called with these arguments, later; any other program by
    /// what Warden knows of it.
    fn program_verdict(
        &self,
        c: &Command<'_>,
        name: &str,
        written: &str,
        args: &[Word],
        stdin: &Stdin,
        expands: bool,
    ) -> judge::Verdict {
        let function = self
            .functions
            .body_of(written)
            .filter(|_| !c.unwrapped.xargs && !judge::knows(name));
        if function.is_none() {
            // `env -C DIR prog`: prog's relative paths land in DIR.
            let moved_ctx = c.unwrapped.chdir.as_ref().map(|dir| {
                let mut ctx = self.ctx.clone();
                ctx.cwd = if dir.dynamic {
                    PathBuf::from("/")
                } else {
                    self.resolver.resolve(&dir.text, &self.ctx).lexical
                };
                ctx
            });
            return judge::judge(&Input {
                program: name,
                args,
                ctx: moved_ctx.as_ref().unwrap_or(&self.ctx),
                resolver: &self.resolver,
                xargs: c.unwrapped.xargs,
                stdin,
                substituted_download: c.substituted_download,
            });
        }
        if expands || args.is_empty() {
            judge::Verdict {
                reason: crate::Sentence::new("engine-calls-function").text("name", written),
                ..judge::Verdict::default()
            }
        } else {
            judge::Verdict {
                risk: Risk::Medium,
                reason: crate::Sentence::new("engine-calls-function-unfollowed")
                    .text("name", written),
                ..judge::Verdict::default()
            }
        }
    }

    /// What the analyser does not model raises the line (`modelled.rs`), and what the
    /// command assigns is forgotten.
    fn unmodelled(&mut self, seg: &mut Segment, unwrapped: &Unwrapped, name: &str, args: &[Word]) {
        let known_arithmetic = name == "let" && self.let_is_known(args);
        let construct = if unwrapped.wrappers.iter().any(|w| w == "coproc") {
            Some("engine-construct-coproc")
        } else {
            modelled::unmodelled_command(name, args, known_arithmetic)
        };
        if let Some(construct) = construct {
            raise(
                seg,
                Risk::Medium,
                S::new("engine-walk-uses-construct-warden-does")
                    .sentence("construct", S::new(construct)),
            );
            self.forget(vars::Assigns::All);
        }
        if let Some(word) = modelled::unpinned_value(name, args) {
            raise(
                seg,
                Risk::Medium,
                S::new("engine-walk-unpinned-value")
                    .text("name", name)
                    .text("word", word.text.as_str()),
            );
        }
        if let Some(assigns) = vars::assigned_by(name, args) {
            self.forget(assigns);
        }
    }

    /// The text of a script file this line wrote with a known text, run by a shell
    /// (`sh s.sh`, `. s.sh`) or as a program (`./s.sh`).
    fn written_script(&self, name: &str, written: &str, args: &[Word]) -> Option<String> {
        let file = if SHELLS.contains(&name) || matches!(name, "source" | ".") {
            args.iter()
                .find(|a| !a.text.starts_with('-'))
                .filter(|a| !a.dynamic)
                .map(|a| a.text.clone())
        } else if written.contains('/') {
            Some(written.to_string())
        } else {
            None
        }?;
        let path = self.resolver.resolve(&file, &self.ctx).lexical;
        self.written_texts
            .iter()
            .rev()
            .find(|(p, _)| *p == path)
            .map(|(_, text)| text.clone())
    }

    /// Records the segment, then analyses the scripts it runs and the body of the
    /// function it calls as nested lines.
    fn record(
        &mut self,
        seg: Segment,
        effects: &[Effect],
        g: Gathered,
        script_stdin: Stdin,
        level: usize,
    ) {
        // What a printer of known text writes into a file is that file's text.
        let text_written =
            matches!(seg.program.as_str(), "echo" | "printf" | "cat") && !seg.writes.is_empty();
        let index = self.segments.len();
        let secrets = g.secrets
            || seg
                .reads
                .iter()
                .any(|r| r.sensitive.is_some_and(|k| k.read_is_sensitive()))
            || effects
                .iter()
                .any(|e| matches!(e, Effect::SecretExpansion(_)));
        let writes: Vec<PathBuf> = seg.writes.iter().map(|w| w.lexical.clone()).collect();
        self.entry_files
            .extend(writes.iter().filter(|w| judge::is_build_entry(w)).cloned());
        self.push_with(seg, g.network, secrets);
        if text_written {
            let stdin = script_stdin.clone();
            if let Provenance::Known(texts) = self.stage_output(index..index + 1, &stdin) {
                for w in writes {
                    self.written_texts.push((w, texts.concat()));
                }
            }
        }
        self.script_stdin = script_stdin;
        for script in g.scripts {
            self.nested(index, &script, level);
        }
        if let Some(body) = g.call {
            self.calling = true;
            self.nested(index, &body, level);
            self.calling = false;
        }
        self.script_stdin = Stdin::Inherited;
    }
}

/// What the wrappers before the program say: one given as a path outside the system
/// folders, a floor on the risk, a problem reading them, and `env -S`'s command.
fn wrapper_findings(
    seg: &mut Segment,
    unwrapped: &Unwrapped,
    words_: &[Word],
    scripts: &mut Vec<String>,
) {
    // A wrapper given as a path outside the system folders (`./busybox cat f`) is
    // a program of that folder, whatever it is named.
    if let Some(w) = words_
        .get(..unwrapped.start.min(words_.len()))
        .and_then(|peeled| {
            peeled.iter().find(|w| {
                w.text.contains('/')
                    && !is_system_program(&w.text)
                    && unwrapped
                        .wrappers
                        .contains(&basename(&w.text).to_ascii_lowercase())
            })
        })
    {
        raise(
            seg,
            Risk::High,
            S::new("engine-walk-written-program-outside-standard").text("written", w.text.as_str()),
        );
    }
    if let Some((risk, why)) = &unwrapped.floor {
        raise_around(seg, *risk, why.clone());
    }
    if let Some(problem) = &unwrapped.problem {
        seg.opaque = true;
        raise(
            seg,
            Risk::High,
            format!("{}.", capitalise(&problem.to_string())),
        );
    }
    if let Some(split) = &unwrapped.split_string {
        if split.dynamic {
            seg.opaque = true;
            raise(seg, Risk::High, S::new("engine-walk-env-s-command-known"));
        } else {
            scripts.push(split.text.clone());
            raise(seg, Risk::Low, S::new("engine-walk-env-s-whose-command"));
        }
    }
}

/// A program only known at run time: High, Critical with downloaded arguments; a `-c`
/// script given to it is still judged, since it is likely a shell's.
fn dynamic_program(
    seg: &mut Segment,
    inner: &[Word],
    substituted_download: bool,
    scripts: &mut Vec<String>,
) {
    let Some((program_word, args)) = inner.split_first() else {
        return;
    };
    seg.opaque = true;
    seg.program = program_word.text.clone();
    seg.argv = inner.iter().map(|w| w.text.clone()).collect();
    raise(
        seg,
        if substituted_download {
            Risk::Critical
        } else {
            Risk::High
        },
        S::new("engine-walk-dynamic-program").text("program", program_word.text.as_str()),
    );
    // `$SHELL -c '...'`: the program is unknown, but a `-c` script is still worth
    // judging.
    if let Some(pos) = args.iter().position(|a| a.text == "-c")
        && let Some(script) = args.get(pos + 1).filter(|w| !w.dynamic)
    {
        scripts.push(script.text.clone());
    }
}

/// Variables set for the program: a command variable's value is a script of its own;
/// any other variable that is not inert is judged by its kind and keeps allow rules
/// and grants from matching.
fn variables(
    seg: &mut Segment,
    assignments: &[(String, Word)],
    runs_program: bool,
    scripts: &mut Vec<String>,
) {
    for (name, value) in assignments {
        if env::classify(name) == env::Var::Command {
            if value.dynamic {
                seg.opaque = true;
                raise(
                    seg,
                    Risk::High,
                    S::new("engine-walk-sets-name-command-warden").text("name", name),
                );
            } else if !value.text.trim().is_empty() {
                scripts.push(env::command_script(name, &value.text));
            }
        } else if let Some((risk, reason)) = env::setting_risk(name, runs_program) {
            raise_around(seg, risk, reason);
            if runs_program {
                seg.env.push(name.clone());
            }
        }
        // `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` is `git -c KEY=VALUE`: a key that
        // runs a program has its value judged as a script.
        if let Some(n) = name.strip_prefix("GIT_CONFIG_KEY_") {
            let value_name = format!("GIT_CONFIG_VALUE_{n}");
            let paired = assignments.iter().find(|(v, _)| *v == value_name);
            if value.dynamic || judge::git_config_key(&value.text) == judge::GitKey::Runs {
                match paired {
                    Some((_, v)) if !v.dynamic && !value.dynamic => {
                        if let Some(script) = judge::git_value_script(&value.text, &v.text) {
                            scripts.push(script);
                        }
                    }
                    Some(_) => {
                        seg.opaque = true;
                        raise(
                            seg,
                            Risk::High,
                            S::new("engine-walk-sets-git-configuration-known"),
                        );
                    }
                    None => {}
                }
            }
        }
    }
}
