//! `warden policy check` and `warden policy lint`.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use warden_permissions::policy::{FileProblem, Source};
use warden_permissions::{Evaluation, Language, Layer, Locations, Mode, Severity, lint};

use super::evaluate::{Confinement, Evaluator};

#[derive(Debug, clap::Subcommand)]
pub enum PolicyCommand {
    /// Evaluate one call and print the evaluation as JSON. Changes nothing; exits 0
    /// whenever it prints an evaluation, whatever the decision.
    Check(CheckArgs),
    /// Report parse errors, shadowed, duplicate and dead rules and failed examples.
    /// Exits 1 when it finds errors.
    Lint(LintArgs),
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The tool's name (`fs_read`, `terminal`, `mcp__server__tool`, ...).
    #[arg(long)]
    tool: String,
    /// The call's arguments as a JSON object (`risk_level` is read as the model's hint).
    #[arg(long, value_name = "JSON")]
    args: String,
    /// The session's working folder and project root (default: the current folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The session mode (default: the policy's `mode`).
    #[arg(long, value_parser = parse_mode)]
    mode: Option<Mode>,
    /// Evaluate as the client with this `clientInfo.name` is treated: its `client` rules
    /// and `[[client]]` defaults (default: `unknown`, a client that sends no name).
    #[arg(long, value_name = "NAME", default_value = warden_permissions::UNKNOWN_CLIENT)]
    client: String,
    /// The language of the sentences (`reason`, `explanation`, `risk_reason`): `en` or
    /// `zh-CN` (default: `language` in config.toml, else the locale, else English). JSON
    /// keys and ids never change.
    #[arg(long, value_name = "TAG", value_parser = parse_language)]
    language: Option<Language>,
}

fn parse_language(s: &str) -> Result<Language, String> {
    Language::parse(s).ok_or_else(|| format!("no catalog for `{s}`; one of: en, zh-CN"))
}

#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Policy files to lint (default: the user, project and managed files in effect).
    files: Vec<PathBuf>,
    /// The project whose policy is in effect (default: the current folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Print the findings as JSON lines.
    #[arg(long)]
    json: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    deny_warnings: bool,
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s).ok_or_else(|| {
        let ids: Vec<&str> = Mode::ALL.iter().map(|m| m.id()).collect();
        format!("unknown mode `{s}`; one of: {}", ids.join(", "))
    })
}

pub fn run(cmd: PolicyCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        PolicyCommand::Check(args) => check(args),
        PolicyCommand::Lint(args) => lint_files(args),
    }
}

pub fn session_dir(cwd: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let dir = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let dir = if dir.is_absolute() {
        dir
    } else {
        std::env::current_dir()
            .context("cannot read the current folder")?
            .join(dir)
    };
    Ok(dir.canonicalize().unwrap_or(dir))
}

#[allow(clippy::print_stdout)]
fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let cwd = session_dir(args.cwd)?;
    let evaluator = Evaluator::for_project(&cwd, &args.client, args.mode, Confinement::Probe);
    let evaluation = evaluator.evaluate_text(&args.tool, &args.args);
    let language = args.language.unwrap_or_else(super::language);
    let json = serde_json::to_string_pretty(&in_language(&evaluation, language)?)
        .context("cannot encode the evaluation")?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}").context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// The evaluation as JSON with its sentences in `language`: the same keys, and the
/// same text in English (the evaluation serialises its sentences in English).
fn in_language(evaluation: &Evaluation, language: Language) -> anyhow::Result<serde_json::Value> {
    let mut json = serde_json::to_value(evaluation).context("cannot encode the evaluation")?;
    if language == Language::English {
        return Ok(json);
    }
    json["reason"] = evaluation.reason.render(language).into();
    json["explanation"] = evaluation.explanation.render(language).into();
    json["risk_reason"] = evaluation.risk_reason.render(language).into();
    if let Some(segments) = json["segments"].as_array_mut() {
        for (json, segment) in segments.iter_mut().zip(&evaluation.segments) {
            json["reason"] = segment.reason.render(language).into();
        }
    }
    Ok(json)
}

#[allow(clippy::print_stdout)]
fn lint_files(args: LintArgs) -> anyhow::Result<ExitCode> {
    let sources: Vec<Source> = if args.files.is_empty() {
        let locations = Locations::from_env();
        let cwd = session_dir(args.cwd)?;
        [
            (Layer::User, locations.user_policy()),
            (Layer::Project, cwd.join(warden_permissions::PROJECT_POLICY)),
            (Layer::Managed, locations.managed_policy.clone()),
        ]
        .into_iter()
        .filter_map(|(layer, path)| Source::read(layer, &path))
        .collect()
    } else {
        args.files
            .iter()
            .map(|path| {
                Source::read(Layer::User, path).unwrap_or_else(|| Source {
                    layer: Layer::User,
                    file: path.display().to_string(),
                    text: Err(FileProblem::Missing),
                })
            })
            .collect()
    };
    let findings = lint(&sources);
    let mut out = std::io::stdout().lock();
    for finding in &findings {
        if args.json {
            let line = serde_json::to_string(finding).context("cannot encode a finding")?;
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{finding}")?;
        }
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    if !args.json {
        let files: Vec<&str> = sources.iter().map(|s| s.file.as_str()).collect();
        writeln!(
            out,
            "{} file(s) checked{}: {errors} error(s), {warnings} warning(s)",
            files.len(),
            if files.is_empty() {
                String::new()
            } else {
                format!(" ({})", files.join(", "))
            }
        )?;
    }
    let failed = errors > 0 || (args.deny_warnings && warnings > 0);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
