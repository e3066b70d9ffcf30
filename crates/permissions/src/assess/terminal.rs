//! `terminal {command, cwd?, timeout_secs?}`: a shell command line, judged segment by
//! segment with the shell analyser.

use std::borrow::Cow;

use super::args::{ArgError, Args};
use super::{Assessment, Unit, UnitPath};
use crate::paths::{self, FileOp};
use crate::shell;
use crate::{Context, Risk, Sentence, ToolCall};

pub(super) fn assess(call: &ToolCall, ctx: &Context) -> Result<Assessment, ArgError> {
    let args = Args::new(&call.args, &["command", "cwd", "timeout_secs", "sandbox"])?;
    let command = args.string("command")?;
    args.opt_u64("timeout_secs")?;
    args.opt_bool("sandbox")?;
    let cwd = args.opt_string("cwd")?;

    // The command runs in `cwd`: its relative paths resolve there, and a folder
    // outside the workspace (or a sensitive one) makes every part riskier.
    // Borrowed unless `cwd` moves it: a context is a dozen paths to copy.
    let (inner_ctx, cwd_risk) = match cwd {
        Some("") => return Err(ArgError::Empty("cwd")),
        Some(raw) => {
            let resolved = paths::resolve(raw, ctx);
            let (risk, why) = paths::path_risk(FileOp::Read, &resolved);
            let mut inner = ctx.clone();
            inner.cwd = resolved.lexical.clone();
            (Cow::Owned(inner), Some((risk, why, resolved.lexical)))
        }
        None => (Cow::Borrowed(ctx), None),
    };

    let analysis = shell::analyse(command, &inner_ctx);
    let mut units: Vec<Unit> = analysis
        .segments
        .iter()
        .map(|s| Unit {
            text: s.text.clone(),
            risk: s.risk,
            own_risk: s.own_risk,
            reason: s.reason.clone(),
            argv: s.argv.clone(),
            paths: s.writes.iter().map(UnitPath::from).collect(),
            reads: segment_reads(s, &inner_ctx),
            reads_below: shell::reads_recursively(&s.argv),
            writes_files: !s.writes.is_empty(),
            opaque: s.opaque,
            env: s.env.clone(),
        })
        .collect();

    // Whatever the analyser could not pin on a segment (a parse problem, an
    // over-long command, a substitution) still has to be judged: it becomes a part
    // of its own that no allow rule or grant can match.
    let seg_max = units.iter().map(|u| u.risk).max();
    if units.is_empty() || analysis.problem.is_some() || Some(analysis.risk) > seg_max {
        units.push(Unit {
            text: command.to_owned(),
            risk: analysis.risk.max(Risk::High),
            own_risk: None,
            reason: match &analysis.problem {
                Some(problem) => {
                    Sentence::new("engine-command-unreadable").text("problem", problem)
                }
                None => Sentence::new("engine-command-not-by-parts"),
            },
            argv: Vec::new(),
            paths: Vec::new(),
            reads: Vec::new(),
            reads_below: false,
            writes_files: false,
            opaque: true,
            env: Vec::new(),
        });
    }

    if let Some((risk, why, dir)) = &cwd_risk {
        for unit in units.iter_mut().filter(|u| u.risk < *risk) {
            // The folder adds caution; it never makes a part looser than it is in
            // the workspace.
            unit.own_risk.get_or_insert(unit.risk);
            unit.risk = *risk;
            unit.reason = Sentence::new("engine-command-runs-in")
                .text("dir", dir.display().to_string())
                .sentence("reason", why.clone());
        }
    }

    let risk = units.iter().map(|u| u.risk).max().unwrap_or(Risk::High);
    let reason = match &cwd_risk {
        Some((_, _, dir)) => Sentence::new("engine-call-command-in")
            .text("dir", dir.display().to_string())
            .text("command", command),
        None => Sentence::new("engine-call-command").text("command", command),
    };
    Ok(Assessment {
        risk,
        reason,
        units,
        is_shell: true,
        edit_inside_workspace: false,
        domain: None,
        malformed: None,
    })
}

/// The files a segment reads. A recursive reader given no folder (`grep -r x`, `rg x`)
/// reads the folder it runs in.
fn segment_reads(s: &shell::Segment, ctx: &Context) -> Vec<UnitPath> {
    if s.reads.is_empty() && shell::reads_recursively(&s.argv) {
        return vec![UnitPath::from(&paths::resolve(".", ctx))];
    }
    s.reads.iter().map(UnitPath::from).collect()
}
