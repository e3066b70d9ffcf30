//! warden-tools: filled in by its issue.
