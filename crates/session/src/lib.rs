//! warden-session: filled in by its issue.
