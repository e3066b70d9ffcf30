//! The records of a session journal and the line each is written as.
//!
//! A line is one JSON object, `{"v":1,"sum":"<16 hex>","rec":{...}}`, where `sum` is the
//! first 8 bytes of the SHA-256 of the `rec` text exactly as written. The writer lays the
//! line out in that order, so the reader can take the `rec` bytes without parsing twice
//! and check them: a torn or altered record never passes for a good one, and a line of a
//! later version is told apart from a corrupt one.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use warden_permissions::Grant;
use warden_verdict::{AnsweredBy, Risk};

use crate::message::{CallStatus, Message, OptionKind, ToolKind};

/// The version of the line format and of the records this build writes.
pub const VERSION: u64 = 1;

/// One record of a session journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The first record of every journal.
    Header(Header),
    /// The session's mode changed.
    Mode { mode: String },
    /// The session's model changed.
    Model { model: String },
    /// The session got a title.
    Title { title: String },
    /// A user prompt, as the client sent it (for the replay).
    UserMessage { text: String },
    /// Agent text the client was shown (for the replay).
    AgentText { text: String },
    /// The model proposed a call and the engine judged it.
    Proposed(ProposedCall),
    /// A permission request for the call was sent: question `question` about it (1 for
    /// the first; a call is asked again after an edit that raised its risk, or after a
    /// restart). `request` numbers the requests of its turn. `edited` says that the
    /// question showed arguments the user edited, not the model's own (they are in the
    /// `proposed` record written just before it). Journals written before questions had
    /// numbers read as 0, which a load takes as "the next question".
    Asked {
        call: String,
        request: String,
        #[serde(default)]
        question: u32,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        edited: bool,
    },
    /// The call was answered (after its claim was made durable, see `claim.rs`).
    Answered(AnswerRecord),
    /// The call is about to run. Written before it starts, so that a journal without it
    /// proves that the call never started (after a crash; after a power loss only for
    /// calls that were asked, whose answer was synced first).
    Running { call: String },
    /// The call ended.
    Finished(FinishedCall),
    /// The call was running when Warden stopped; it was not run again.
    Interrupted { call: String },
    /// A grant that holds for this session only, in the grant store's own record
    /// format (versioned and tested with the grant store).
    Grant { grant: Grant },
    /// A grant of this session was revoked (`/revoke`): a load must not bring it back.
    Revoked { id: String },
    /// One entry of the conversation as the model sees it.
    Conversation { message: Message },
}

/// What a session is, written once at its start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub id: String,
    pub cwd: PathBuf,
    /// Milliseconds since the Unix epoch.
    pub created_ms: u64,
    pub model: String,
    pub mode: String,
    pub title: Option<String>,
}

/// A proposed call with everything a person was (or will be) shown about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposedCall {
    pub id: String,
    pub tool: String,
    pub args: serde_json::Value,
    pub title: String,
    /// The tool kind the client was shown (`read`, `edit`, `execute`, ...).
    pub kind: ToolKind,
    pub risk: Risk,
    pub reason: String,
    /// The options a permission request offers (or offered), in their order.
    pub options: Vec<OfferedOption>,
    /// The words of the grant an "always" answer would store.
    pub grant: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
}

/// One option of a permission request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferedOption {
    pub id: String,
    pub name: String,
    pub kind: OptionKind,
}

/// An answer to one question about a call (one permission request).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerRecord {
    pub call: String,
    /// The question it answers (see [`Record::Asked`]); 0 in journals written before
    /// questions had numbers, read as the call's latest question.
    #[serde(default)]
    pub question: u32,
    /// The chosen option's id (`allow-once`, `reject-once`, ...).
    pub option: String,
    pub by: AnsweredBy,
    pub note: Option<String>,
}

/// What became of a call that ran or was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishedCall {
    pub call: String,
    pub status: CallStatus,
    /// The content the client was shown, shortened.
    pub summary: String,
    /// What the model was told.
    pub told: String,
}

/// Why a line was not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineProblem {
    /// The last line has no newline and does not verify: a write cut short.
    Torn,
    /// A line of another format version.
    Version(u64),
    /// Anything else: a wrong checksum, not JSON, an unknown record.
    Corrupt(&'static str),
}

const PREFIX: &str = "{\"v\":1,\"sum\":\"";
const SUM_LEN: usize = 16;
const REC: &str = "\",\"rec\":";

fn checksum(rec: &[u8]) -> String {
    let digest = Sha256::digest(rec);
    hex::encode(&digest[..SUM_LEN / 2])
}

/// The line for a record, with its newline.
pub fn encode(record: &Record) -> Result<Vec<u8>, serde_json::Error> {
    let mut line = Vec::new();
    encode_into(record, &mut line)?;
    Ok(line)
}

/// Appends the line for a record, with its newline, to `out`: the record is serialised
/// in place and its checksum written in front of it, so a line costs no allocation of
/// its own. On an error `out` is left as it was.
pub fn encode_into(record: &Record, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    let start = out.len();
    out.extend_from_slice(PREFIX.as_bytes());
    let sum_at = out.len();
    out.extend_from_slice(&[b'0'; SUM_LEN]);
    out.extend_from_slice(REC.as_bytes());
    let rec_at = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, record) {
        out.truncate(start);
        return Err(e);
    }
    let sum = checksum(&out[rec_at..]);
    out[sum_at..sum_at + SUM_LEN].copy_from_slice(sum.as_bytes());
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// Reads one line (without its newline).
pub fn decode(line: &[u8]) -> Result<Record, LineProblem> {
    let Some(rest) = line.strip_prefix(PREFIX.as_bytes()) else {
        return Err(other_version(line));
    };
    if rest.len() < SUM_LEN + REC.len() + 1 || !rest.ends_with(b"}") {
        return Err(LineProblem::Corrupt("cut short"));
    }
    let (sum, rest) = rest.split_at(SUM_LEN);
    let Some(rec) = rest
        .strip_prefix(REC.as_bytes())
        .and_then(|r| r.strip_suffix(b"}"))
    else {
        return Err(LineProblem::Corrupt("not laid out as written"));
    };
    if checksum(rec).as_bytes() != sum {
        return Err(LineProblem::Corrupt("checksum mismatch"));
    }
    serde_json::from_slice(rec).map_err(|_| LineProblem::Corrupt("unknown record"))
}

/// A line that does not start as this version writes: another version when it is a
/// JSON object with a numeric `v`, corrupt otherwise.
fn other_version(line: &[u8]) -> LineProblem {
    #[derive(Deserialize)]
    struct Versioned {
        v: u64,
    }
    match serde_json::from_slice::<Versioned>(line) {
        Ok(Versioned { v }) if v != VERSION => LineProblem::Version(v),
        _ => LineProblem::Corrupt("not a journal line"),
    }
}
