//! The turn's words for a person, from the message catalogs, in the session's language.
//! What the model is told stays in English: it is read by a program, and the contract
//! fixes some of it ("User denied tool invocation").

use warden_i18n::{Args, Catalog, Language, catalog};
use warden_permissions::Risk;

/// The catalog of the session's language, opened at its first message: a session that
/// never tells its user anything (most start-ups) never parses a catalog.
#[derive(Debug, Clone, Copy)]
pub struct Words(Language);

impl Words {
    pub fn new(language: Language) -> Words {
        Words(language)
    }

    pub fn language(self) -> Language {
        self.0
    }

    fn catalog(self) -> &'static Catalog {
        catalog(self.0)
    }

    /// The message `id` with its arguments.
    pub fn text(self, id: &str, args: &Args<'_>) -> String {
        self.catalog().text(id, args)
    }

    /// A message without arguments.
    pub fn plain(self, id: &str) -> String {
        self.catalog().plain(id)
    }

    /// The name of a risk level, as a person reads it before the reason.
    pub fn risk(self, risk: Risk) -> String {
        self.plain(match risk {
            Risk::Low => "agent-risk-low",
            Risk::Medium => "agent-risk-medium",
            Risk::High => "agent-risk-high",
            Risk::Critical => "agent-risk-critical",
        })
    }
}

impl Default for Words {
    fn default() -> Words {
        Words::new(Language::English)
    }
}
