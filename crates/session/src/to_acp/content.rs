//! The one place where the tools' own content and kinds become the protocol's.

use warden_acp_transport::schema::{
    ContentBlock, Diff, EmbeddedResource, EmbeddedResourceResource, ImageContent, ResourceLink,
    Terminal, TextResourceContents, ToolCallContent, ToolKind as AcpKind,
};
use warden_tools::{Content, ToolKind};

/// The protocol's kind of a call.
pub fn kind(kind: ToolKind) -> AcpKind {
    match kind {
        ToolKind::Read => AcpKind::Read,
        ToolKind::Edit => AcpKind::Edit,
        ToolKind::Delete => AcpKind::Delete,
        ToolKind::Move => AcpKind::Move,
        ToolKind::Search => AcpKind::Search,
        ToolKind::Execute => AcpKind::Execute,
        ToolKind::Fetch => AcpKind::Fetch,
        ToolKind::Other => AcpKind::Other,
    }
}

/// A tool call's content as the protocol carries it.
pub fn content(content: Vec<Content>) -> Vec<ToolCallContent> {
    content.into_iter().map(item).collect()
}

fn item(content: Content) -> ToolCallContent {
    match content {
        Content::Text(text) => ToolCallContent::from(text),
        Content::Diff {
            path,
            old_text,
            new_text,
        } => ToolCallContent::Diff(Diff::new(path, new_text).old_text(old_text)),
        Content::Terminal { id } => ToolCallContent::Terminal(Terminal::new(id)),
        Content::Image { data, mime_type } => {
            ToolCallContent::from(ContentBlock::Image(ImageContent::new(data, mime_type)))
        }
        Content::Resource {
            uri,
            mime_type,
            text: Some(text),
        } => ToolCallContent::from(ContentBlock::Resource(EmbeddedResource::new(
            EmbeddedResourceResource::TextResourceContents(
                TextResourceContents::new(text, uri).mime_type(mime_type),
            ),
        ))),
        Content::Resource {
            uri,
            mime_type,
            text: None,
        } => ToolCallContent::from(ContentBlock::ResourceLink(
            ResourceLink::new(uri.clone(), uri).mime_type(mime_type),
        )),
    }
}
