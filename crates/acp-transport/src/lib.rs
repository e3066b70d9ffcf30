//! warden-acp-transport: filled in by its issue.
