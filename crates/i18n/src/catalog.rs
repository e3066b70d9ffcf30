//! The catalogs: Fluent files compiled into the binary, one bundle per file of a language,
//! each parsed when a message of that file is first looked up, with English behind every
//! other language for a message it lacks.

use std::borrow::Cow;
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use rustc_hash::FxHashMap;
use unic_langid::LanguageIdentifier;

use crate::Language;
use crate::template::Template;

/// The Fluent files of a language, by name, in the order they are searched. Each part of
/// Warden keeps its messages in a file of its own, and every message id of a file starts
/// with the file's name and a dash (a test holds it): `agent.ftl` (permission requests,
/// options, notices, denials), `engine.ftl` (risk sentences and reasons), `chat.ftl`
/// (`warden chat`'s own text), `cli.ftl` (the other commands) and `tools.ftl` (what a
/// call does, its title).
fn sources(language: Language) -> &'static [(&'static str, &'static str)] {
    match language {
        Language::English => &[
            ("agent", include_str!("../locales/en/agent.ftl")),
            ("engine", include_str!("../locales/en/engine.ftl")),
            ("chat", include_str!("../locales/en/chat.ftl")),
            ("cli", include_str!("../locales/en/cli.ftl")),
            ("tools", include_str!("../locales/en/tools.ftl")),
        ],
        Language::SimplifiedChinese => &[
            ("agent", include_str!("../locales/zh-CN/agent.ftl")),
            ("engine", include_str!("../locales/zh-CN/engine.ftl")),
            ("chat", include_str!("../locales/zh-CN/chat.ftl")),
            ("cli", include_str!("../locales/zh-CN/cli.ftl")),
            ("tools", include_str!("../locales/zh-CN/tools.ftl")),
        ],
    }
}

/// Named arguments of a message. Values are strings or numbers; Fluent formats numbers
/// (and chooses plural forms) by the language's rules.
#[derive(Debug, Default)]
pub struct Args<'a>(FluentArgs<'a>);

impl<'a> Args<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the argument `$name`.
    pub fn with(mut self, name: &'a str, value: impl Into<FluentValue<'a>>) -> Self {
        self.0.set(name, value);
        self
    }
}

/// One Fluent file of a catalog. It is parsed into its bundle and templates when a message
/// of it is first looked up: a session that says one notice parses `agent.ftl` alone, not
/// the engine's sentences or the chat's text (parsing every file was most of the
/// instructions of a `session/new` that gives a notice).
struct Part {
    /// The first word of every message id of this file (`agent` for `agent-…`); `None`
    /// for a file of a test catalog, which may hold any id and is searched for every one.
    name: Option<&'static str>,
    source: Cow<'static, str>,
    parsed: OnceLock<Parsed>,
}

/// A parsed file: its Fluent bundle, and the templates of its messages (see [`Template`]),
/// each compiled when it is first written: a file of a hundred messages, compiled whole,
/// would cost its first message about as much as parsing it.
struct Parsed {
    bundle: FluentBundle<FluentResource>,
    /// The slot in `templates` of each message and attribute, by id (`message`, or
    /// `message.attribute`).
    slots: FxHashMap<Box<str>, usize>,
    /// `None` once compiled: a pattern that does not compile is written by Fluent.
    templates: Box<[OnceLock<Option<Template>>]>,
}

impl Parsed {
    /// The template of the message `id` in this file, compiled on its first use.
    fn template(&self, id: &str) -> Option<&Template> {
        let slot = &self.templates[*self.slots.get(id)?];
        slot.get_or_init(|| Template::compile(self.pattern(id)?))
            .as_ref()
    }

    /// The pattern of the message `id` (`id` or `id.attribute`) in this file.
    fn pattern(&self, id: &str) -> Option<&fluent_syntax::ast::Pattern<&str>> {
        let (message, attribute) = split_id(id);
        let message = self.bundle.get_message(message)?;
        match attribute {
            Some(attribute) => message.get_attribute(attribute).map(|a| a.value()),
            None => message.value(),
        }
    }
}

impl Part {
    fn new(name: Option<&'static str>, source: Cow<'static, str>) -> Part {
        Part {
            name,
            source,
            parsed: OnceLock::new(),
        }
    }

    /// Whether a message named `message` can be in this file.
    fn may_hold(&self, message: &str) -> bool {
        self.name.is_none_or(|name| {
            message
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('-'))
        })
    }

    fn parsed(&self, language: Language) -> &Parsed {
        self.parsed.get_or_init(|| {
            let id: LanguageIdentifier = language.tag().parse().unwrap_or_default();
            let mut bundle = FluentBundle::new_concurrent(vec![id]);
            // Unicode isolation marks around arguments would reach terminals and editors
            // as invisible characters inside commands and paths.
            bundle.set_use_isolating(false);
            // A file with a syntax error still yields the messages around the error; the
            // catalogs' tests make sure none has one.
            let resource = FluentResource::try_new(self.source.clone().into_owned())
                .unwrap_or_else(|(resource, errors)| {
                    tracing::error!(%language, ?errors, "a message catalog does not parse");
                    resource
                });
            let slots = slots(&resource);
            if let Err(errors) = bundle.add_resource(resource) {
                tracing::error!(%language, ?errors, "a message catalog repeats a message");
            }
            let templates = slots.values().map(|_| OnceLock::new()).collect();
            Parsed {
                bundle,
                slots,
                templates,
            }
        })
    }
}

/// A slot for each message and attribute of a file that has a pattern, by id.
fn slots(resource: &FluentResource) -> FxHashMap<Box<str>, usize> {
    let mut slots = FxHashMap::default();
    for entry in resource.entries() {
        let fluent_syntax::ast::Entry::Message(message) = entry else {
            continue;
        };
        let name = message.id.name;
        let ids = message.value.iter().map(|_| Box::<str>::from(name)).chain(
            message
                .attributes
                .iter()
                .map(|attribute| format!("{name}.{}", attribute.id.name).into_boxed_str()),
        );
        for id in ids {
            let next = slots.len();
            slots.entry(id).or_insert(next);
        }
    }
    slots
}

/// The messages of one language.
pub struct Catalog {
    language: Language,
    parts: Vec<Part>,
    /// English, for a message the language lacks; `None` when the language is English.
    english: Option<Box<Catalog>>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("language", &self.language)
            .finish_non_exhaustive()
    }
}

/// The catalog of `language`, made once per process (its files are parsed as they are
/// needed, see [`Part`]).
pub fn catalog(language: Language) -> &'static Catalog {
    static CATALOGS: [OnceLock<Catalog>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = match language {
        Language::English => &CATALOGS[0],
        Language::SimplifiedChinese => &CATALOGS[1],
    };
    slot.get_or_init(|| Catalog::build(language))
}

impl Catalog {
    /// Warden's own catalog of `language`, with English behind it.
    fn build(language: Language) -> Catalog {
        let english =
            (language != Language::English).then(|| Box::new(Catalog::build(Language::English)));
        let parts = sources(language)
            .iter()
            .map(|(name, source)| Part::new(Some(*name), Cow::Borrowed(*source)))
            .collect();
        Catalog {
            language,
            parts,
            english,
        }
    }

    /// A catalog of the messages of `sources` (any ids), searched in order.
    fn from_sources(language: Language, sources: &[&str], english: Option<Box<Catalog>>) -> Self {
        let parts = sources
            .iter()
            .map(|source| Part::new(None, Cow::Owned((*source).to_owned())))
            .collect();
        Catalog {
            language,
            parts,
            english,
        }
    }

    /// A catalog of `language` that holds only the messages of `sources`, with Warden's
    /// English catalog behind it: for tests of what a reader sees when a translation
    /// lacks a message.
    pub fn with_messages(language: Language, sources: &[&str]) -> Catalog {
        let english = Catalog::build(Language::English);
        Catalog::from_sources(language, sources, Some(Box::new(english)))
    }

    pub fn language(&self) -> Language {
        self.language
    }

    /// Whether this language itself (not its English fallback) has the message `id`
    /// (`id` or `id.attribute`).
    pub fn has(&self, id: &str) -> bool {
        self.files_for(id)
            .any(|parsed| parsed.pattern(id).is_some())
    }

    /// The message `id` (or the attribute `id.attribute`) with its arguments, in this
    /// language, else in English.
    pub fn text(&self, id: &str, args: &Args<'_>) -> String {
        if let Some(text) = self.format(id, args) {
            return text;
        }
        if let Some(text) = self.english.as_ref().and_then(|e| e.format(id, args)) {
            return text;
        }
        // Unreachable for the ids Warden uses: the English catalog's tests cover them.
        tracing::error!(id, "no message has this id, in any language");
        id.to_owned()
    }

    /// A message without arguments.
    pub fn plain(&self, id: &str) -> String {
        self.text(id, &Args::new())
    }

    /// The ids of every message of this language (not its fallback), for tests.
    pub fn ids(&self) -> Vec<String> {
        let mut ids = Vec::new();
        for part in &self.parts {
            let Ok(resource) = FluentResource::try_new(part.source.clone().into_owned()) else {
                continue;
            };
            for entry in resource.entries() {
                if let fluent_syntax::ast::Entry::Message(message) = entry {
                    let name = message.id.name;
                    ids.push(name.to_owned());
                    ids.extend(
                        message
                            .attributes
                            .iter()
                            .map(|a| format!("{name}.{}", a.id.name)),
                    );
                }
            }
        }
        ids
    }

    /// The message `id` with `args` in this language: written from its template when it
    /// has one and its arguments are text, else by Fluent.
    fn format(&self, id: &str, args: &Args<'_>) -> Option<String> {
        self.files_for(id).find_map(|parsed| {
            if let Some(text) = parsed.template(id).and_then(|t| t.render(&args.0)) {
                return Some(text);
            }
            Some(fluent_format(&parsed.bundle, parsed.pattern(id)?, id, args))
        })
    }

    /// The files that may hold the message `id`, in order, each parsed as it is reached.
    fn files_for<'c>(&'c self, id: &'c str) -> impl Iterator<Item = &'c Parsed> {
        let (message, _) = split_id(id);
        self.parts
            .iter()
            .filter(move |part| part.may_hold(message))
            .map(|part| part.parsed(self.language))
    }
}

/// `message.attribute` as its two names; a message id has no dot.
fn split_id(id: &str) -> (&str, Option<&str>) {
    match id.split_once('.') {
        Some((message, attribute)) => (message, Some(attribute)),
        None => (id, None),
    }
}

fn fluent_format(
    bundle: &FluentBundle<FluentResource>,
    pattern: &fluent_syntax::ast::Pattern<&str>,
    id: &str,
    args: &Args<'_>,
) -> String {
    let mut errors = Vec::new();
    let text: Cow<'_, str> = bundle.format_pattern(pattern, Some(&args.0), &mut errors);
    if !errors.is_empty() {
        // A missing argument is a bug of the caller; the text still reads, with the
        // argument's name in braces, and the log says which.
        tracing::error!(id, ?errors, "a message was formatted with errors");
    }
    text.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_parses_without_errors_or_repeats() {
        for language in Language::ALL {
            let mut seen = std::collections::HashSet::new();
            for (_, source) in sources(language) {
                let resource = FluentResource::try_new((*source).to_owned());
                assert!(
                    resource.is_ok(),
                    "{language}: {:?}",
                    resource.err().map(|e| e.1)
                );
                let Ok(resource) = resource else { continue };
                for entry in resource.entries() {
                    if let fluent_syntax::ast::Entry::Message(m) = entry {
                        assert!(
                            seen.insert(m.id.name.to_owned()),
                            "{language}: {} twice",
                            m.id.name
                        );
                    }
                }
            }
        }
    }

    /// A message is looked up in the file its id names; one in another file would never
    /// be found.
    #[test]
    fn every_message_id_starts_with_its_file_s_name() {
        for language in Language::ALL {
            for (name, source) in sources(language) {
                let Ok(resource) = FluentResource::try_new((*source).to_owned()) else {
                    panic!("{language}: {name}.ftl does not parse");
                };
                for entry in resource.entries() {
                    match entry {
                        fluent_syntax::ast::Entry::Message(m) => assert!(
                            m.id.name.starts_with(&format!("{name}-")),
                            "{language}: {} in {name}.ftl",
                            m.id.name
                        ),
                        fluent_syntax::ast::Entry::Term(t) => {
                            panic!("{language}: the term -{} in {name}.ftl", t.id.name)
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// Each file is a bundle of its own, so a message that referred to another (`{ id }`
    /// or a term, `{ -id }`) would not find one in another file: none refers to any.
    #[test]
    fn no_message_refers_to_another_message_or_a_term() {
        for language in Language::ALL {
            for (name, source) in sources(language) {
                for (at, _) in source.match_indices('{') {
                    let inside = source[at + 1..].trim_start();
                    assert!(
                        !inside.starts_with(|c: char| c.is_ascii_lowercase() || c == '-'),
                        "{language}: a reference in {name}.ftl: {}",
                        &inside[..inside.len().min(40)]
                    );
                }
            }
        }
    }

    /// The variables a pattern writes, and for each it selects on, the keys it names.
    fn variables(
        pattern: &fluent_syntax::ast::Pattern<&str>,
        plain: &mut std::collections::BTreeSet<String>,
        selected: &mut std::collections::BTreeMap<String, Vec<String>>,
    ) {
        use fluent_syntax::ast::{Expression, InlineExpression, PatternElement, VariantKey};
        for element in &pattern.elements {
            match element {
                PatternElement::Placeable {
                    expression: Expression::Inline(InlineExpression::VariableReference { id }),
                } => {
                    plain.insert(id.name.to_owned());
                }
                PatternElement::Placeable {
                    expression:
                        Expression::Select {
                            selector: InlineExpression::VariableReference { id },
                            variants,
                        },
                } => {
                    for variant in variants {
                        if let VariantKey::Identifier { name } = variant.key {
                            let keys = selected.entry(id.name.to_owned()).or_default();
                            keys.push(name.to_owned());
                        }
                        variables(&variant.value, plain, selected);
                    }
                }
                _ => {}
            }
        }
    }

    /// Every assignment of text to a pattern's variables worth trying: each selection's
    /// every key and a value no key names, in every combination, the other variables
    /// written as themselves.
    fn argument_sets(pattern: &fluent_syntax::ast::Pattern<&str>) -> Vec<FluentArgs<'static>> {
        let mut plain = std::collections::BTreeSet::new();
        let mut selected = std::collections::BTreeMap::new();
        variables(pattern, &mut plain, &mut selected);
        let mut sets: Vec<Vec<(String, String)>> = vec![
            plain
                .iter()
                .filter(|name| !selected.contains_key(*name))
                .map(|name| (name.clone(), format!("<{name}>")))
                .collect(),
        ];
        for (name, keys) in &selected {
            let values = keys.iter().cloned().chain(["no-such-key".to_owned()]);
            let values: Vec<String> = values.collect();
            sets = sets
                .iter()
                .flat_map(|set| {
                    values.iter().map(move |value| {
                        let mut set = set.clone();
                        set.push((name.clone(), value.clone()));
                        set
                    })
                })
                .collect();
        }
        sets.into_iter()
            .map(|set| set.into_iter().collect::<FluentArgs<'static>>())
            .collect()
    }

    /// A template writes what Fluent writes: for every message and attribute of every
    /// catalog that has one, with its arguments as text and each selection's every key
    /// (and a value that no key names), the two texts are equal.
    #[test]
    fn every_template_writes_what_fluent_writes() {
        for language in Language::ALL {
            for (name, source) in sources(language) {
                let part = Part::new(Some(name), Cow::Borrowed(*source));
                let parsed = part.parsed(language);
                let mut checked = 0;
                for id in parsed.slots.keys() {
                    let Some(template) = parsed.template(id) else {
                        continue;
                    };
                    let pattern = parsed.pattern(id).expect("its pattern");
                    for args in argument_sets(pattern) {
                        let mut errors = Vec::new();
                        let fluent =
                            parsed
                                .bundle
                                .format_pattern(pattern, Some(&args), &mut errors);
                        assert!(errors.is_empty(), "{language}: {id}: {errors:?}");
                        assert_eq!(
                            template.render(&args).as_deref(),
                            Some(&*fluent),
                            "{language}: {id} with {args:?}"
                        );
                        checked += 1;
                    }
                }
                assert!(
                    checked > 10,
                    "{language}: {name}.ftl: {checked} texts checked"
                );
            }
        }
    }

    /// What a permission request shows is written from templates: every message and
    /// attribute of the agent's and the engine's files has one (a number argument still
    /// goes to Fluent when it is formatted).
    #[test]
    fn the_requests_messages_have_templates() {
        for language in Language::ALL {
            for (name, source) in sources(language) {
                if !["agent", "engine"].contains(name) {
                    continue;
                }
                let part = Part::new(Some(name), Cow::Borrowed(*source));
                let parsed = part.parsed(language);
                let ids = Catalog::from_sources(language, &[source], None).ids();
                let missing: Vec<&String> = ids
                    .iter()
                    .filter(|id| parsed.template(id).is_none())
                    .collect();
                assert!(
                    missing.is_empty(),
                    "{language}: {name}.ftl: no template for {missing:?}"
                );
            }
        }
    }

    #[test]
    fn a_number_argument_or_a_missing_one_is_left_to_fluent() {
        let english = Catalog::from_sources(
            Language::English,
            &[
                "write = Write { $bytes ->\n        [one] 1 byte\n       *[other] { $bytes } bytes\n    } to { $path }\nsize = { $n } files\n",
            ],
            None,
        );
        let one = Args::new().with("bytes", 1).with("path", "a.txt");
        assert_eq!(english.text("write", &one), "Write 1 byte to a.txt");
        let many = Args::new().with("bytes", 1200).with("path", "a.txt");
        assert_eq!(english.text("write", &many), "Write 1200 bytes to a.txt");
        assert_eq!(english.text("size", &Args::new().with("n", 3)), "3 files");
        // Fluent writes a missing argument as its name in braces, and logs it.
        assert_eq!(english.plain("size"), "{$n} files");
        assert_eq!(
            english.text("write", &Args::new().with("bytes", "many")),
            "Write many bytes to {$path}"
        );
    }

    #[test]
    fn a_message_parses_only_the_file_that_holds_it() {
        let english = Catalog::build(Language::English);
        assert_eq!(
            english.plain("agent-notice-sandbox-off"),
            "Commands run without a sandbox: confinement is turned off"
        );
        let parsed: Vec<&str> = english
            .parts
            .iter()
            .filter(|part| part.parsed.get().is_some())
            .filter_map(|part| part.name)
            .collect();
        assert_eq!(parsed, ["agent"]);
    }

    #[test]
    fn simplified_chinese_translates_every_english_message() {
        let chinese = catalog(Language::SimplifiedChinese);
        let missing: Vec<String> = catalog(Language::English)
            .ids()
            .into_iter()
            .filter(|id| !chinese.has(id))
            .collect();
        assert!(missing.is_empty(), "not translated: {missing:?}");
    }

    #[test]
    fn a_message_missing_from_a_translation_falls_back_to_english_not_to_its_id() {
        let english = Catalog::from_sources(
            Language::English,
            &["only-english = Allow { $tool }?\nboth = Deny\n"],
            None,
        );
        let chinese = Catalog::from_sources(
            Language::SimplifiedChinese,
            &["both = 拒绝\n"],
            Some(Box::new(english)),
        );
        let args = Args::new().with("tool", "fs_write");
        assert_eq!(chinese.text("only-english", &args), "Allow fs_write?");
        assert_eq!(chinese.plain("both"), "拒绝");
        assert!(!chinese.has("only-english"));
    }

    #[test]
    fn attributes_are_read_by_dotted_ids_and_arguments_are_not_isolated() {
        let english = Catalog::from_sources(
            Language::English,
            &["option = Allow\n    .description = Runs { $what } once.\n"],
            None,
        );
        let args = Args::new().with("what", "`ls`");
        assert_eq!(english.text("option.description", &args), "Runs `ls` once.");
        assert_eq!(english.plain("option"), "Allow");
    }
}
