//! Walking the hash chain of a log.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::chain::{GENESIS, chain_fields, line_hash};
use super::error::AuditError;

/// At most this many problems are listed; the rest are only counted.
pub const MAX_PROBLEMS: usize = 100;

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    pub path: PathBuf,
    /// Lines in the log.
    pub lines: u64,
    /// The `seq` of the last readable line (0 when there is none).
    pub last_seq: u64,
    /// Hash of the last line (`GENESIS` for an empty log). Keeping it elsewhere is
    /// the only way to detect later that lines were cut off the end.
    pub head: String,
    /// Records lost before they were written, as counted by `dropped` markers.
    pub dropped: u64,
    /// The problems found, in file order, at most [`MAX_PROBLEMS`].
    pub problems: Vec<Problem>,
    /// Problems beyond [`MAX_PROBLEMS`].
    pub more_problems: u64,
}

impl VerifyReport {
    /// True when every line chains to the one before.
    pub fn is_intact(&self) -> bool {
        self.problems.is_empty()
    }

    /// The first broken line, if any.
    pub fn first_break(&self) -> Option<&Problem> {
        self.problems.first()
    }
}

/// One broken link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number.
    pub line: u64,
    pub kind: ProblemKind,
}

/// Why a line breaks the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    /// The last line has no newline and is not a complete record: a write was cut
    /// off (a crash, a full disk).
    Torn,
    /// The line is not a JSON object with `seq` and `prev`.
    BadJson { error: String },
    /// `prev` is not the hash of the line before (or, on line 1, not the genesis).
    PrevMismatch { expected: String, found: String },
    /// `seq` does not follow the previous line's.
    SeqGap { expected: u64, found: u64 },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.line;
        match &self.kind {
            ProblemKind::Torn => write!(
                f,
                "line {n} is torn: it ends without a newline in the middle of a record (a write was cut off)"
            ),
            ProblemKind::BadJson { error } => write!(
                f,
                "line {n} is not a valid audit record ({error}): it was edited or its write was cut off"
            ),
            ProblemKind::PrevMismatch { .. } if n == 1 => write!(
                f,
                "line 1 does not start a chain: its prev is not the genesis hash (lines were removed from the start, or line 1 was edited)"
            ),
            ProblemKind::PrevMismatch { .. } => write!(
                f,
                "line {n} does not follow line {}: its prev is not the hash of line {} (line {} was edited, or lines were inserted, deleted or moved here)",
                n - 1,
                n - 1,
                n - 1
            ),
            ProblemKind::SeqGap { expected, found } => write!(
                f,
                "line {n} has seq {found} where {expected} was expected (lines were deleted, inserted or moved)"
            ),
        }
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match self.first_break() {
            None => writeln!(
                f,
                "{path}: {} lines, chain intact; last seq {}, head {}",
                self.lines, self.last_seq, self.head
            )?,
            Some(first) => {
                writeln!(f, "{path}: {} lines, chain BROKEN: {first}", self.lines)?;
                for problem in &self.problems[1..] {
                    writeln!(f, "  also: {problem}")?;
                }
                if self.more_problems > 0 {
                    writeln!(f, "  and {} more problems", self.more_problems)?;
                }
            }
        }
        if self.dropped > 0 {
            writeln!(
                f,
                "{} records were lost before they were written (see the `dropped` lines)",
                self.dropped
            )?;
        }
        Ok(())
    }
}

/// Walks the chain of the log at `path`. A missing or empty log is intact with
/// no lines. Errors only when the file cannot be read.
pub fn verify(path: &Path) -> Result<VerifyReport, AuditError> {
    let mut report = VerifyReport {
        path: path.to_path_buf(),
        lines: 0,
        last_seq: 0,
        head: GENESIS.to_string(),
        dropped: 0,
        problems: Vec::new(),
        more_problems: 0,
    };
    let read_err = |source| AuditError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(report),
        Err(err) => return Err(read_err(err)),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(read_err)? == 0 {
            break;
        }
        let terminated = line.last() == Some(&b'\n');
        if terminated {
            line.pop();
        }
        report.lines += 1;
        check_line(&mut report, &line, terminated);
        report.head = line_hash(&line);
    }
    Ok(report)
}

/// Checks one line against the state left by the lines before it. The writer
/// chains a new line to a broken one by that line's hash, and numbers it after the
/// last readable seq, so each damage is reported once and the lines after it
/// verify again.
fn check_line(report: &mut VerifyReport, line: &[u8], terminated: bool) {
    let n = report.lines;
    let fields = match chain_fields(line) {
        Ok(fields) => fields,
        Err(err) => {
            let kind = if terminated {
                ProblemKind::BadJson {
                    error: err.to_string(),
                }
            } else {
                ProblemKind::Torn
            };
            push(report, n, kind);
            return;
        }
    };
    if fields.prev != report.head {
        push(
            report,
            n,
            ProblemKind::PrevMismatch {
                expected: report.head.clone(),
                found: fields.prev,
            },
        );
    }
    let expected = report.last_seq + 1;
    if fields.seq != expected {
        push(
            report,
            n,
            ProblemKind::SeqGap {
                expected,
                found: fields.seq,
            },
        );
    }
    report.last_seq = fields.seq;
    report.dropped += fields.dropped.unwrap_or(0);
}

fn push(report: &mut VerifyReport, line: u64, kind: ProblemKind) {
    if report.problems.len() < MAX_PROBLEMS {
        report.problems.push(Problem { line, kind });
    } else {
        report.more_problems += 1;
    }
}
