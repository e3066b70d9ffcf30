//! What a tool call shows people: its kind and its content, in the tools' own small
//! types. The session layer maps them to the protocol's types in one place, so no tool
//! (built in or from an MCP server) depends on the wire format.

use std::path::PathBuf;

/// What kind of thing a call does, for an editor's icon and grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Fetch,
    /// Anything else: an MCP server's tool says nothing more about itself.
    Other,
}

/// One piece of a tool call's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Text, shown as Markdown by most editors.
    Text(String),
    /// A change to a file: `old_text` is `None` for a new file.
    Diff {
        path: PathBuf,
        old_text: Option<String>,
        new_text: String,
    },
    /// A terminal the editor runs (`terminal/create`), shown live.
    Terminal { id: String },
    /// An image, base64-encoded.
    Image { data: String, mime_type: String },
    /// A resource an MCP server returned, or a link to one.
    Resource {
        uri: String,
        mime_type: Option<String>,
        /// Its text, when it is text and was sent inline.
        text: Option<String>,
    },
}

impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content::Text(text.to_owned())
    }
}
