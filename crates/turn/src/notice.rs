//! What the user must know but is not a reply: a grant that was stored, or could not
//! be; a policy file that could not be used; MCP servers that were not started.

/// How much it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Info,
    Warning,
}

/// One notice: a title that stands alone, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub severity: Severity,
    pub title: String,
    pub detail: Option<String>,
}

impl Notice {
    pub fn new(severity: Severity, title: impl Into<String>, detail: Option<String>) -> Notice {
        Notice {
            severity,
            title: title.into(),
            detail,
        }
    }
}
