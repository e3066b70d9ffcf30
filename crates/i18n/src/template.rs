//! A message's pattern compiled into a template: its text, its `{ $arguments }` and its
//! selections on a text argument, written out without Fluent's resolver.
//!
//! Every permission request formats some twenty messages, and Fluent resolves each
//! through its bundle's tables, the pattern's syntax tree and a scope: after the wait for
//! the model that ran at the cold cost of all that data and code (`docs/performance.md`,
//! "Messages written from templates"). A template is made once per message, when the
//! message is first written, and writes the same text Fluent writes. Anything it does not
//! model (a number argument, which Fluent formats and selects plural forms for; a missing
//! argument, which Fluent reports; a function, a literal with escapes, a number key) is
//! left to Fluent: [`Template::render`] answers `None` and the caller formats the message
//! through its bundle.

use fluent_bundle::{FluentArgs, FluentValue};
use fluent_syntax::ast::{Expression, InlineExpression, Pattern, PatternElement, VariantKey};

/// A compiled pattern: its pieces in order.
#[derive(Debug)]
pub(crate) struct Template {
    pieces: Box<[Piece]>,
    /// The length of its text without the arguments, to size what it writes.
    text_len: usize,
}

#[derive(Debug)]
enum Piece {
    Text(Box<str>),
    /// `{ $name }`.
    Argument(Box<str>),
    /// `{ $name -> [key] … *[default] … }`, on a text argument.
    Select {
        argument: Box<str>,
        variants: Box<[(Box<str>, Template)]>,
        /// The default variant's place in `variants`.
        default: usize,
    },
}

impl Template {
    /// The template of `pattern`, or `None` for a pattern with anything but text, string
    /// literals without escapes, arguments and selections with named keys on an argument.
    pub(crate) fn compile(pattern: &Pattern<&str>) -> Option<Template> {
        let pieces = pattern
            .elements
            .iter()
            .map(|element| match element {
                PatternElement::TextElement { value } => Some(Piece::Text((*value).into())),
                PatternElement::Placeable { expression } => Piece::compile(expression),
            })
            .collect::<Option<Box<[Piece]>>>()?;
        let text_len = pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.len(),
                _ => 0,
            })
            .sum();
        Some(Template { pieces, text_len })
    }

    /// The message with `args`, as Fluent writes it (without isolation marks); `None`
    /// when an argument it uses is missing or not text, which only Fluent formats.
    pub(crate) fn render(&self, args: &FluentArgs<'_>) -> Option<String> {
        let mut out = String::with_capacity(self.text_len + 64);
        self.write(args, &mut out)?;
        Some(out)
    }

    fn write(&self, args: &FluentArgs<'_>, out: &mut String) -> Option<()> {
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Argument(name) => out.push_str(text_argument(args, name)?),
                Piece::Select {
                    argument,
                    variants,
                    default,
                } => {
                    let value = text_argument(args, argument)?;
                    let (_, chosen) = variants
                        .iter()
                        .find(|(key, _)| **key == *value)
                        .unwrap_or(&variants[*default]);
                    chosen.write(args, out)?;
                }
            }
        }
        Some(())
    }
}

impl Piece {
    fn compile(expression: &Expression<&str>) -> Option<Piece> {
        match expression {
            Expression::Inline(InlineExpression::VariableReference { id }) => {
                Some(Piece::Argument(id.name.into()))
            }
            // `{" "}`, `{""}`: written as they are, but for escapes, which Fluent reads.
            Expression::Inline(InlineExpression::StringLiteral { value }) => {
                (!value.contains('\\')).then(|| Piece::Text((*value).into()))
            }
            Expression::Select { selector, variants } => {
                let InlineExpression::VariableReference { id } = selector else {
                    return None;
                };
                let mut default = None;
                let mut keyed = Vec::with_capacity(variants.len());
                for variant in variants {
                    // A number key never matches a text argument, but Fluent reads a key
                    // that does not parse as a number as text: left to Fluent.
                    let VariantKey::Identifier { name } = variant.key else {
                        return None;
                    };
                    let template = Template::compile(&variant.value)?;
                    if variant.default {
                        default = Some(keyed.len());
                    }
                    keyed.push((Box::<str>::from(name), template));
                }
                Some(Piece::Select {
                    argument: id.name.into(),
                    variants: keyed.into_boxed_slice(),
                    default: default?,
                })
            }
            _ => None,
        }
    }
}

/// The text argument `name`; `None` when it is missing or a number.
fn text_argument<'a>(args: &'a FluentArgs<'_>, name: &str) -> Option<&'a str> {
    // `FluentArgs::get` wants a key that lives as long as the arguments; a message has a
    // handful, so a look through them is as quick.
    match args.iter().find(|(key, _)| *key == name)?.1 {
        FluentValue::String(text) => Some(text),
        _ => None,
    }
}
