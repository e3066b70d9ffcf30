//! warden-model: filled in by its issue.
