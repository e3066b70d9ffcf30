//! The engine's words for people, as values: a message id of `engine.ftl` and its named
//! arguments, rendered in the reader's language only when someone reads it.
//!
//! An evaluation holds sentences, not strings, so that the same evaluation reads in
//! English in the audit log and in `policy check`'s default output, and in the user's
//! language in a permission request. Arguments that name things machines match
//! (commands, paths, hosts, tool names, rule ids) are [`Arg::Text`] and never translated;
//! a part that is itself a sentence is rendered in the same language.

use std::fmt;

use serde::{Serialize, Serializer};
use warden_i18n::{Args, Catalog, Language, catalog};

/// One named argument of a [`Sentence`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// Shown as it is, in every language: a command, a path, a host, a tool name.
    Text(String),
    /// A count, formatted (and, where a language has them, pluralised) by the catalog.
    Number(u64),
    /// Another sentence, rendered in the same language.
    Sentence(Box<Sentence>),
    /// Another sentence whose first letter is lowered (in a language that has case), as
    /// it reads inside a longer sentence ("Runs a script that deletes ~.").
    LowerFirst(Box<Sentence>),
    /// Another sentence as a clause that reads after a colon ("recursively deletes
    /// /root" rather than "Recursively deletes /root.").
    Clause(Box<Sentence>),
}

/// A message of the engine's catalog with its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    id: &'static str,
    args: Vec<(&'static str, Arg)>,
}

/// The id of a sentence given as English text, for words the catalog does not hold yet
/// (the shell analyser's reasons, a rule's own `reason`, which is the user's words):
/// it reads the same in every language.
pub const VERBATIM: &str = "engine-verbatim";

impl Sentence {
    /// The message `id` of `engine.ftl`, without arguments so far.
    pub fn new(id: &'static str) -> Sentence {
        Sentence {
            id,
            args: Vec::new(),
        }
    }

    /// Text shown as it is in every language (see [`VERBATIM`]).
    pub fn verbatim(text: impl Into<String>) -> Sentence {
        Sentence::new(VERBATIM).text("text", text)
    }

    /// Adds `$name`, shown as it is: a command, a path, a host, a name.
    pub fn text(mut self, name: &'static str, value: impl Into<String>) -> Sentence {
        self.args.push((name, Arg::Text(value.into())));
        self
    }

    /// Adds `$name`, a number.
    pub fn number(mut self, name: &'static str, value: u64) -> Sentence {
        self.args.push((name, Arg::Number(value)));
        self
    }

    /// Adds `$name`, another sentence.
    pub fn sentence(mut self, name: &'static str, value: Sentence) -> Sentence {
        self.args.push((name, Arg::Sentence(Box::new(value))));
        self
    }

    /// Adds `$name`, another sentence with its first letter lowered.
    pub fn lower_first(mut self, name: &'static str, value: Sentence) -> Sentence {
        self.args.push((name, Arg::LowerFirst(Box::new(value))));
        self
    }

    /// Adds `$name`, another sentence read as a clause.
    pub fn clause(mut self, name: &'static str, value: Sentence) -> Sentence {
        self.args.push((name, Arg::Clause(Box::new(value))));
        self
    }

    /// Several sentences as one list ("needs the network; writes outside …"), the
    /// catalog choosing the separator; `None` for none.
    pub fn list(items: impl IntoIterator<Item = Sentence>) -> Option<Sentence> {
        items.into_iter().reduce(|list, item| {
            Sentence::new("engine-list")
                .sentence("list", list)
                .sentence("item", item)
        })
    }

    pub fn id(&self) -> &'static str {
        self.id
    }

    pub fn args(&self) -> &[(&'static str, Arg)] {
        &self.args
    }

    /// Whether nothing would be shown (a verbatim sentence of no text).
    pub fn is_empty(&self) -> bool {
        self.id == VERBATIM
            && self
                .args
                .iter()
                .all(|(_, a)| matches!(a, Arg::Text(t) if t.is_empty()))
    }

    /// The sentence in `language` (English for a message the language lacks).
    pub fn render(&self, language: Language) -> String {
        self.render_in(catalog(language))
    }

    /// The sentence in the language of `catalog` (English for a message it lacks).
    pub fn render_in(&self, catalog: &Catalog) -> String {
        let language = catalog.language();
        let rendered: Vec<(&'static str, RenderedArg)> = self
            .args
            .iter()
            .map(|(name, arg)| {
                let value = match arg {
                    Arg::Text(text) => RenderedArg::Text(text.clone()),
                    Arg::Number(n) => RenderedArg::Number(*n),
                    Arg::Sentence(s) => RenderedArg::Text(s.render(language)),
                    Arg::Clause(s) => RenderedArg::Text(s.render_clause(language)),
                    Arg::LowerFirst(s) => {
                        let text = s.render(language);
                        let mut chars = text.chars();
                        RenderedArg::Text(match chars.next() {
                            Some(first) => first.to_lowercase().chain(chars).collect(),
                            None => String::new(),
                        })
                    }
                };
                (*name, value)
            })
            .collect();
        let mut args = Args::new();
        for (name, value) in &rendered {
            args = match value {
                RenderedArg::Text(text) => args.with(name, text.as_str()),
                RenderedArg::Number(n) => args.with(name, *n),
            };
        }
        catalog.text(self.id, &args)
    }

    /// The sentence as a clause that reads after a colon: without its full stop, and in
    /// English with its first word in lower case ("Recursively deletes /root." reads
    /// "recursively deletes /root"); names that start a sentence ("SSH", "/etc") keep
    /// their case.
    pub fn render_clause(&self, language: Language) -> String {
        clause(&self.render(language))
    }
}

enum RenderedArg {
    Text(String),
    Number(u64),
}

/// A sentence as a clause: no final full stop (`.` or `。`), and a first word in lower
/// case when it is a capital followed by a lower-case letter.
pub fn clause(sentence: &str) -> String {
    let trimmed = sentence.trim().trim_end_matches(['.', '。']);
    let mut chars = trimmed.chars();
    match chars.next() {
        Some(first)
            if first.is_uppercase() && chars.clone().next().is_some_and(char::is_lowercase) =>
        {
            first.to_lowercase().chain(chars).collect()
        }
        _ => trimmed.to_owned(),
    }
}

impl From<String> for Sentence {
    fn from(text: String) -> Sentence {
        Sentence::verbatim(text)
    }
}

impl From<&str> for Sentence {
    fn from(text: &str) -> Sentence {
        Sentence::verbatim(text)
    }
}

/// English, as the audit log and machines read it.
impl fmt::Display for Sentence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Language::English))
    }
}

/// A sentence equals the text it reads in English.
impl PartialEq<&str> for Sentence {
    fn eq(&self, other: &&str) -> bool {
        self.render(Language::English) == *other
    }
}

/// Serialised in English: the audit log and `policy check`'s JSON keep one language for
/// machines (`policy check` replaces its sentences when another language is chosen).
impl Serialize for Sentence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.render(Language::English))
    }
}

/// A sentence read as a clause after the risk ("Critical: recursively deletes /root"),
/// serialised as the English clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause(pub Sentence);

impl Clause {
    pub fn render(&self, language: Language) -> String {
        self.0.render_clause(language)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Language::English))
    }
}

impl Serialize for Clause {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.render(Language::English))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verbatim_sentence_reads_the_same_in_every_language() {
        let s = Sentence::verbatim("Runs frobnicate.");
        for language in Language::ALL {
            assert_eq!(s.render(language), "Runs frobnicate.");
        }
        assert_eq!(s.render_clause(Language::English), "runs frobnicate");
    }

    #[test]
    fn clauses_lose_the_full_stop_and_lower_only_a_first_word() {
        assert_eq!(clause("Deletes x."), "deletes x");
        assert_eq!(clause("SSH keys."), "SSH keys");
        assert_eq!(clause("/etc is read."), "/etc is read");
        assert_eq!(clause("删除 /root。"), "删除 /root");
    }
}
